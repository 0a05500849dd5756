//===- LoopFinder.cpp - Innermost loops of a prebuilt binary --------------===//
//
// Part of decan. The loop finder's driver: per function (in parallel) the
// code is decoded (FunctionCode.h), its CFG built (FunctionCFG.h), LLVM's
// DomTreeBase and LoopInfoBase find the natural loops, the innermost ones
// become LoopCandidates numbered by header address, and the checks
// (LoopChecks.h) and patch plans (PatchPlanning.h) say whether and how each
// can be rewritten; then lines, trampolines in padding, exceptions and the
// PLT names of callees over the whole binary.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/LoopFinder.h"
#include "decan/Rewriter/NestFinder.h"

#include "FunctionCFG.h"
#include "FunctionCode.h"
#include "LoopChecks.h"
#include "PatchPlanning.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/GenericDomTreeConstruction.h"
#include "llvm/Support/GenericLoopInfoImpl.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <thread>

using namespace llvm;
using namespace decan::rewriter;

uint64_t LoopCandidate::bytes() const {
  uint64_t N = 0;
  for (const LoopBlock &B : Blocks)
    N += B.End - B.Start;
  return N;
}

unsigned LoopCandidate::numInstrs() const {
  unsigned N = 0;
  for (const LoopBlock &B : Blocks)
    N += B.Instrs.size();
  return N;
}

bool LoopCandidate::contains(uint64_t Addr) const {
  for (const LoopBlock &B : Blocks)
    if (B.Start == Addr)
      return true;
  return false;
}

namespace {
/// A depth-first walk from the virtual entry that records its retreating
/// edges: edges to a block still on the walk's stack. Where the target of
/// one does not dominate its source the control flow is irreducible: a
/// cycle with two entries, which LoopInfoBase does not report as a loop
/// and which no loop that touches it may be rewritten across.
struct RetreatingEdges {
  enum State : uint8_t { Unvisited, OnStack, Done };
  explicit RetreatingEdges(unsigned NumBlocks) : States(NumBlocks) {}
  std::vector<State> States;
  std::vector<std::pair<CFGBlock *, CFGBlock *>> Edges;
};
} // namespace

/// The walk's state for po_iterator, as LoopIterator.h does for
/// LoopBlocksTraversal: LLVM's own post-order DFS visits the blocks.
template <> class llvm::po_iterator_storage<RetreatingEdges, true> {
  RetreatingEdges &Walk;

public:
  po_iterator_storage(RetreatingEdges &Walk) : Walk(Walk) {}
  bool insertEdge(std::optional<CFGBlock *> From, CFGBlock *To) {
    RetreatingEdges::State &S = Walk.States[To->getNumber()];
    if (From && S == RetreatingEdges::OnStack)
      Walk.Edges.push_back({*From, To});
    if (S != RetreatingEdges::Unvisited)
      return false;
    S = RetreatingEdges::OnStack;
    return true;
  }
  void finishPostorder(CFGBlock *B) {
    Walk.States[B->getNumber()] = RetreatingEdges::Done;
  }
};

namespace {
/// One function's innermost loops.
class FunctionLoops {
public:
  FunctionLoops(const BinaryImage &Bin, const decan::X86Target &X86,
                const FunctionRange &F, FinderStats &Stats)
      : X86(X86), F(F), Stats(Stats), Code(decodeFunction(Bin, X86, F, Stats)),
        CFG(Code, Bin, X86, Stats) {}

  void run(std::vector<LoopCandidate> &Out);
  /// The outer loops whose inner loops are all innermost (nest candidates,
  /// not yet numbered: NestFinder.cpp).
  void runNests(std::vector<LoopCandidate> &Out);
  /// Dead padding after a jump or return that no known edge reaches, as
  /// [start, end) ranges (none when the CFG is incomplete).
  const std::vector<std::pair<uint64_t, uint64_t>> &padding() const {
    return CFG.Padding;
  }

private:
  struct Analysis;
  void analyse(Analysis &A);
  std::vector<std::pair<CFGBlock *, CFGBlock *>>
  irreducibleEdges(const CFGDomTree &DT);
  std::vector<const CFGBlock *> body(const CFGLoop &Loop,
                                     const CFGDomTree &DT) const;
  LoopCandidate
  candidate(const CFGLoop &Loop, const CFGDomTree &DT, unsigned Index,
            ArrayRef<std::pair<CFGBlock *, CFGBlock *>> Irreducible) const;

  const decan::X86Target &X86;
  const FunctionRange &F;
  FinderStats &Stats;
  FunctionCode Code;
  FunctionCFG CFG;
};
} // namespace

std::vector<std::pair<CFGBlock *, CFGBlock *>>
FunctionLoops::irreducibleEdges(const CFGDomTree &DT) {
  RetreatingEdges Walk(CFG.getMaxNumber());
  for (CFGBlock *B : post_order_ext(&CFG, Walk))
    (void)B;
  std::vector<std::pair<CFGBlock *, CFGBlock *>> Irreducible;
  for (auto [From, To] : Walk.Edges)
    if (!From->isVirtualEntry() && !DT.dominates(To, From))
      Irreducible.push_back({From, To});
  return Irreducible;
}

/// Loop ids (f:L0, f:L1...) number the innermost loops by header address,
/// whatever order LoopInfoBase keeps them in.
static std::vector<const CFGLoop *> innermostByHeader(const CFGLoopInfo &LI) {
  std::vector<const CFGLoop *> Innermost;
  for (const CFGLoop *L : LI.getLoopsInPreorder())
    if (L->isInnermost())
      Innermost.push_back(L);
  llvm::sort(Innermost, [](const CFGLoop *A, const CFGLoop *B) {
    return A->getHeader()->getNumber() < B->getHeader()->getNumber();
  });
  return Innermost;
}

/// The function's analysed loops, for run() and runNests().
struct FunctionLoops::Analysis {
  CFGDomTree DT;
  std::vector<std::pair<CFGBlock *, CFGBlock *>> Irreducible;
  CFGLoopInfo LI;
  std::vector<const CFGLoop *> Innermost;
};

void FunctionLoops::analyse(Analysis &A) {
  A.DT.recalculate(CFG);
  A.Irreducible = irreducibleEdges(A.DT);
  A.LI.analyze(A.DT);
  A.Innermost = innermostByHeader(A.LI);
}

void FunctionLoops::run(std::vector<LoopCandidate> &Out) {
  if (Code.Instrs.empty())
    return;
  Analysis A;
  analyse(A);
  for (unsigned Index = 0; Index < A.Innermost.size(); ++Index)
    Out.push_back(candidate(*A.Innermost[Index], A.DT, Index, A.Irreducible));
}

void FunctionLoops::runNests(std::vector<LoopCandidate> &Out) {
  if (Code.Instrs.empty())
    return;
  Analysis A;
  analyse(A);
  for (const CFGLoop *L : A.LI.getLoopsInPreorder()) {
    if (L->isInnermost() || !all_of(L->getSubLoops(), [](const CFGLoop *S) {
          return S->isInnermost();
        }))
      continue;
    LoopCandidate C = candidate(*L, A.DT, 0, A.Irreducible);
    C.Nest = true;
    for (unsigned Index = 0; Index < A.Innermost.size(); ++Index)
      if (A.Innermost[Index]->getParentLoop() == L) {
        C.InnerIndices.push_back(Index);
        C.InnerBlocks.emplace_back();
        for (const CFGBlock *B : body(*A.Innermost[Index], A.DT))
          C.InnerBlocks.back().push_back(B->Start);
      }
    bool Calls = any_of(C.Blocks, [&](const LoopBlock &B) {
      return any_of(B.Instrs, [&](const Instr &I) {
        return X86.analysis().isCall(I.Inst);
      });
    });
    if (C.SkipReason.empty() && Calls)
      C.SkipReason = "a call in the nest (nests are measured without calls)";
    // No padding is searched for a nest's trampoline (findLoops gave it to
    // the innermost loops).
    if (C.SkipReason.empty() && C.Trampoline == ~uint64_t(0))
      C.SkipReason = "the nest's header has room for a 2-byte jump only, and "
                     "its own bytes hold no trampoline";
    Out.push_back(std::move(C));
  }
}

std::vector<LoopCandidate>
decan::rewriter::outerLoopCandidates(const BinaryImage &Bin,
                                     const decan::X86Target &X86,
                                     const FunctionRange &F) {
  FinderStats Stats;
  FunctionLoops FL(Bin, X86, F, Stats);
  std::vector<LoopCandidate> Out;
  FL.runNests(Out);
  return Out;
}

/// The loop's blocks in address order: LoopInfoBase's, and the blocks no
/// path from the entry reaches that lead into the loop past its header
/// (dead code, or code only an unresolved indirect jump reaches). The
/// finder counted those in the loop before it used LoopInfoBase, which
/// leaves them out; they stay, so that every loop keeps its body.
std::vector<const CFGBlock *> FunctionLoops::body(const CFGLoop &Loop,
                                                  const CFGDomTree &DT) const {
  std::vector<const CFGBlock *> Body(Loop.block_begin(), Loop.block_end());
  DenseSet<const CFGBlock *> InBody(Body.begin(), Body.end());
  SmallVector<const CFGBlock *, 16> Work;
  for (const CFGBlock *B : Body)
    if (B != Loop.getHeader())
      Work.push_back(B);
  while (!Work.empty())
    for (const CFGBlock *P : Work.pop_back_val()->Preds)
      if (!DT.isReachableFromEntry(P) && InBody.insert(P).second) {
        Body.push_back(P);
        Work.push_back(P);
      }
  llvm::sort(Body, [](const CFGBlock *A, const CFGBlock *B) {
    return A->getNumber() < B->getNumber();
  });
  return Body;
}

LoopCandidate FunctionLoops::candidate(
    const CFGLoop &Loop, const CFGDomTree &DT, unsigned Index,
    ArrayRef<std::pair<CFGBlock *, CFGBlock *>> Irreducible) const {
  const CFGBlock &Header = *Loop.getHeader();
  std::vector<const CFGBlock *> Body = body(Loop, DT);
  DenseSet<const CFGBlock *> InBody(Body.begin(), Body.end());
  LoopCandidate L;
  L.Function = F.Name;
  L.FunctionStart = F.Start;
  L.Index = Index;
  L.Header = Header.Start;
  for (const CFGBlock *B : Body) {
    LoopBlock LB;
    LB.Start = B->Start;
    LB.End = B->End;
    LB.Instrs.assign(Code.Instrs.begin() + B->First,
                     Code.Instrs.begin() + B->First + B->Count);
    for (const CFGBlock *S : B->Succs)
      LB.Succs.push_back(S->Start);
    for (uint64_t T : B->ExternSucc)
      LB.Succs.push_back(T);
    LB.FallThrough = B->FallThrough;
    L.Blocks.push_back(std::move(LB));
  }
  for (auto [From, To] : Irreducible)
    if (InBody.count(From) || InBody.count(To))
      L.SkipReason = "irreducible control flow in loop";
  // The function's own problem: overlapping code, else undecodable bytes.
  if (L.SkipReason.empty())
    L.SkipReason = CFG.Problem.empty() ? Code.Problem : CFG.Problem;
  if (L.SkipReason.empty())
    L.SkipReason = whyNotRelocatable(CFG, X86, Body);
  bool ShortHeader = false;
  if (L.SkipReason.empty())
    L.SkipReason = checkPatchRoom(CFG, InBody, Header, ShortHeader);
  if (L.SkipReason.empty())
    L.FlagsLiveIn = flagsLiveIn(CFG, X86, Body, Header);
  L.UnknownEntries = CFG.UnknownCFG;
  // A short header's trampoline: in the loop's own bytes when the CFG is
  // known (once the header is patched the rest of the loop never runs
  // again), else findLoops() places one in padding.
  if (L.SkipReason.empty() && ShortHeader) {
    L.Trampoline = CFG.UnknownCFG ? 0 : trampolineInLoop(L);
    if (L.Trampoline)
      ++Stats.Trampolines;
    else
      L.Trampoline = ~uint64_t(0);
  }
  return L;
}

/// The header's own line, else the first line any loop instruction has
/// (compilers give rotated headers line 0). (Serial: LLVM's DWARF reader
/// parses line tables on first use.)
void decan::rewriter::findLine(const BinaryImage &Bin, LoopCandidate &L) {
  if (auto Line = Bin.lineFor(L.Header)) {
    L.File = Line->first;
    L.Line = Line->second;
    return;
  }
  for (const LoopBlock &LB : L.Blocks)
    for (const Instr &I : LB.Instrs)
      if (auto Line = Bin.lineFor(I.Addr)) {
        L.File = Line->first;
        L.Line = Line->second;
        return;
      }
}

/// The source variables in registers at the loop's header, by MC register
/// (memory groups are named by their base, as the plugin names them).
void decan::rewriter::findRegisterNames(const BinaryImage &Bin,
                                        const decan::X86Target &X86,
                                        LoopCandidate &L) {
  for (auto &[DwarfReg, Name] : Bin.registerVariables(L.Header))
    if (std::optional<MCRegister> R =
            X86.regInfo().getLLVMRegNum(DwarfReg, /*isEH=*/false))
      L.RegisterNames[R->id()] = Name;
}

/// The PLT entries of \p Bin (LLVM's reader), or none when a relocation
/// section is malformed (a zero or uneven entry size would make the reader
/// divide by zero) or the dynamic symbol table is missing.
static std::vector<object::ELFPltEntry>
pltEntries(const BinaryImage &Bin, const decan::X86Target &X86) {
  const auto &ELF = Bin.object().getELFFile();
  auto Sections = ELF.sections();
  if (!Sections) {
    consumeError(Sections.takeError());
    return {};
  }
  // LLVM's reader aborts on malformed tables (report_fatal_error): check
  // every section it may read first.
  uint64_t FileSize = Bin.object().getData().size();
  uint64_t NumDynSyms = 0;
  for (const auto &S : *Sections) {
    if (S.sh_type != ELF::SHT_NOBITS &&
        (S.sh_offset > FileSize || S.sh_size > FileSize - S.sh_offset))
      return {};
    if (S.sh_type == ELF::SHT_DYNSYM) {
      if (S.sh_entsize != sizeof(object::ELF64LE::Sym) ||
          S.sh_size % S.sh_entsize != 0 || NumDynSyms)
        return {};
      NumDynSyms = S.sh_size / S.sh_entsize;
    }
    if ((S.sh_type == ELF::SHT_RELA &&
         S.sh_entsize != sizeof(object::ELF64LE::Rela)) ||
        (S.sh_type == ELF::SHT_REL &&
         S.sh_entsize != sizeof(object::ELF64LE::Rel)) ||
        ((S.sh_type == ELF::SHT_RELA || S.sh_type == ELF::SHT_REL) &&
         (S.sh_size % S.sh_entsize != 0 || S.sh_link >= Sections->size())))
      return {};
  }
  if (!NumDynSyms)
    return {};
  std::vector<object::ELFPltEntry> Out;
  for (object::ELFPltEntry &E : Bin.object().getPltEntries(X86.subtarget()))
    if (E.Symbol && E.Symbol->d.b < NumDynSyms)
      Out.push_back(E);
  return Out;
}

Expected<std::vector<LoopCandidate>>
decan::rewriter::findLoops(const BinaryImage &Bin, const decan::X86Target &X86,
                           FinderStats *StatsOut, bool WithLines,
                           unsigned Threads) {
  // Functions are analysed in parallel, one MC layer per thread (MC
  // objects are not shared), each into its own slot; the slots are joined
  // in function order, so the loops do not depend on the thread count.
  const std::vector<FunctionRange> &Fns = Bin.functions();
  struct Found {
    std::vector<LoopCandidate> Loops;
    std::vector<std::pair<uint64_t, uint64_t>> Padding;
  };
  std::vector<Found> PerFunction(Fns.size());
  constexpr size_t Chunk = 32;
  unsigned Workers =
      std::min<size_t>(hardware_concurrency(Threads).compute_thread_count(),
                       std::max<size_t>(1, Fns.size() / (4 * Chunk)));
  std::vector<std::unique_ptr<decan::X86Target>> MCs;
  for (unsigned T = 1; T < Workers; ++T) {
    auto MC = decan::X86Target::create(X86.subtarget().getCPU(),
                                       X86.subtarget().getFeatureString());
    if (!MC) {
      consumeError(MC.takeError());
      break;
    }
    MCs.push_back(std::move(*MC));
  }
  std::vector<FinderStats> WorkerStats(MCs.size() + 1);
  std::atomic<size_t> Next{0};
  auto Work = [&](const decan::X86Target &MC, FinderStats &St) {
    for (size_t B; (B = Next.fetch_add(Chunk)) < Fns.size();)
      for (size_t K = B; K < std::min(Fns.size(), B + Chunk); ++K) {
        FunctionLoops FL(Bin, MC, Fns[K], St);
        FL.run(PerFunction[K].Loops);
        PerFunction[K].Padding = FL.padding();
      }
  };
  {
    std::vector<std::thread> Pool;
    for (size_t T = 0; T < MCs.size(); ++T)
      Pool.emplace_back(Work, std::cref(*MCs[T]), std::ref(WorkerStats[T + 1]));
    Work(X86, WorkerStats[0]);
    for (std::thread &T : Pool)
      T.join();
  }
  FinderStats Stats;
  Stats.Functions = Fns.size();
  for (const FinderStats &St : WorkerStats) {
    Stats.FunctionsWithIndirectJump += St.FunctionsWithIndirectJump;
    Stats.Trampolines += St.Trampolines;
    Stats.UndecodableFunctions += St.UndecodableFunctions;
    Stats.DecodedBytes += St.DecodedBytes;
    Stats.UndecodedBytes += St.UndecodedBytes;
  }
  std::vector<LoopCandidate> Loops;
  std::map<uint64_t, uint64_t> Free; // padding, start -> end
  for (size_t K = 0; K < Fns.size(); ++K) {
    for (LoopCandidate &L : PerFunction[K].Loops)
      Loops.push_back(std::move(L));
    for (auto [S, E] : PerFunction[K].Padding)
      if (E - S >= 5)
        Free[S] = E;
  }
  PerFunction.clear();
  if (WithLines)
    for (LoopCandidate &L : Loops) {
      findLine(Bin, L);
      findRegisterNames(Bin, X86, L);
    }
  addPaddingBetweenFunctions(Bin, X86, Free);
  placeTrampolines(Free, Loops, Stats);
  skipLoopsExceptionsCannotLeave(Bin, X86, Loops);
  if (StatsOut)
    *StatsOut = Stats;
  // The PLT entries the loops call, by name (LoopCandidate::Callees).
  std::map<uint64_t, std::string> Plt;
  for (const object::ELFPltEntry &E : pltEntries(Bin, X86))
    if (E.Symbol) {
      object::SymbolRef Sym(*E.Symbol, &Bin.object());
      if (Expected<StringRef> N = Sym.getName())
        Plt[E.Address] = N->str();
      else
        consumeError(N.takeError());
    }
  for (LoopCandidate &L : Loops)
    for (const LoopBlock &B : L.Blocks)
      for (const Instr &I : B.Instrs) {
        uint64_t T;
        if (X86.analysis().isCall(I.Inst) &&
            X86.analysis().evaluateBranch(I.Inst, I.Addr, I.Size, T))
          if (auto It = Plt.find(T); It != Plt.end())
            L.Callees[T] = It->second;
      }
  // Packed or encrypted code decodes as garbage: refuse rather than list
  // nonsense loops.
  uint64_t Total = Stats.DecodedBytes + Stats.UndecodedBytes;
  if (Total > 256 && Stats.UndecodedBytes * 5 > Total)
    return createStringError(inconvertibleErrorCode(),
                             "'%s': %.0f%% of the code does not decode as "
                             "x86-64 (packed or not code)",
                             Bin.path().str().c_str(),
                             100.0 * Stats.UndecodedBytes / Total);
  if (Bin.functions().empty())
    return createStringError(inconvertibleErrorCode(),
                             "'%s': no function found (no symbols and no "
                             ".eh_frame)",
                             Bin.path().str().c_str());
  return std::move(Loops);
}
