//===- Parallel.cpp - The rewriter's parallel loop over items -------------===//
//
// Part of decan. forEachInParallel (Dispatcher.h): the loop finding and the
// copies' encoding of a large library, one instruction knowledge per
// thread.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"

#include "llvm/Support/Threading.h"

#include <atomic>
#include <thread>

using namespace llvm;

std::vector<std::unique_ptr<decan::X86Knowledge>>
decan::rewriter::forEachInParallel(
    const decan::X86Knowledge &X86, size_t N, unsigned Threads, size_t Grain,
    function_ref<void(const decan::X86Knowledge &, size_t)> Fn) {
  unsigned Count =
      std::min<size_t>(hardware_concurrency(Threads).compute_thread_count(),
                       std::max<size_t>(1, N / std::max<size_t>(1, Grain)));
  std::vector<std::unique_ptr<decan::X86Knowledge>> Ks;
  for (unsigned T = 1; T < Count; ++T) {
    auto K = decan::X86Knowledge::createForHost();
    if (!K) {
      consumeError(K.takeError());
      break;
    }
    Ks.push_back(std::move(*K));
  }
  std::atomic<size_t> Next{0};
  auto Worker = [&](const decan::X86Knowledge &K) {
    for (size_t J; (J = Next++) < N;)
      Fn(K, J);
  };
  std::vector<std::thread> Pool;
  for (auto &K : Ks)
    Pool.emplace_back(Worker, std::cref(*K));
  Worker(X86);
  for (std::thread &T : Pool)
    T.join();
  return Ks;
}
