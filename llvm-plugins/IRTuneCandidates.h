//===- IRTuneCandidates.h - decan: the tuning candidates ------------------===//
//
// Part of decan. The one table of `decan tune`'s optimization candidates
// (IRTune.h), each of a kind that `decan flags --tune` picks per loop from
// decan's diagnosis (`-mllvm -decan-tune-kinds=POS=nest+vector,...`):
//   vector — vectorisation width, interleave count, scalar, reciprocal
//            (fp-bound and division-bound loops);
//   unroll — unroll counts, vectoriser left free (control-bound loops);
//   nest   — unroll-and-jam of the enclosing loop, distribution,
//            interchange (memory-bound loops, a high DL1 gain).
// Unroll-and-jam and distribution are LLVM's loop transformation metadata
// (`llvm.loop.unroll_and_jam.count`, `llvm.loop.distribute.enable`); LLVM
// 22 has no interchange metadata, so an interchange candidate runs LLVM's
// LoopInterchange pass on its function (in a tune build the copy holding
// the nest, not the function the loop came from), and unroll-and-jam, off in
// the default pipeline, runs where a loop asks for it. Tiling has no upstream
// metadata or pass: not a candidate. IRTune.cpp puts the hints on a loop;
// IRTuneExtract.cpp builds one copy of a tuned loop per candidate (of its
// parent loop when a nest candidate is among them).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRTUNECANDIDATES_H
#define DECAN_LLVM_PLUGINS_IRTUNECANDIDATES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"

#include <string>

namespace llvm {
class BasicBlock;
class Loop;
class DILocation;
} // namespace llvm

namespace decan {

/// What a candidate changes; Base: the default and its twin.
enum class CandidateKind { Base, Vector, Unroll, Nest };

/// A candidate: a name, its kind and the hints it stands for (0: none).
/// Names have no '.': a clone is named F.decan.tune.<name>[.<n>].
struct TuneCandidate {
  const char *Name;
  CandidateKind Kind;
  unsigned Width = 0, Interleave = 0, Unroll = 0;
  /// Unroll-and-jam count of the loop enclosing the tuned one.
  unsigned Jam = 0;
  bool Distribute = false, Interchange = false;
  /// Divisions by a loop value become multiplications by its reciprocal
  /// (results may change: needs -decan-tune-fast-math).
  bool Reciprocal = false;
  /// Whether the candidate transforms the nest (the enclosing loop too):
  /// the loop is then tuned as part of its parent loop, which each copy
  /// holds whole (the hints go on the loops inside the copy).
  bool Nest = false;

  /// Whether the hints may license the compiler to reorder floating-point
  /// arithmetic (vectorising or interleaving a reduction, reciprocals).
  bool mayReassociate() const {
    return Width > 1 || Interleave > 1 || Reciprocal;
  }

  bool hasHints() const {
    return Width || Interleave || Unroll || Jam || Distribute || Interchange ||
           Reciprocal;
  }
};

/// Every candidate, "default" first.
llvm::ArrayRef<TuneCandidate> tuneCandidates();
const TuneCandidate *findTuneCandidate(llvm::StringRef Name);

/// The candidates to build for a region holding loops at \p Positions
/// (the -decan-tune entries it matched): the default and its twin, and
/// every candidate of a kind -decan-tune-kinds asks at one of them (the
/// vector kind where it names none); the reciprocal only when \p FastMath.
llvm::SmallVector<const TuneCandidate *, 16>
candidatesFor(llvm::ArrayRef<std::string> Positions, bool FastMath);

/// Puts \p C's nest hints on \p L's enclosing loop (unroll-and-jam) and on
/// \p L (distribution); true when \p C has some. Interchange is not
/// metadata: nestPassesFor() runs it.
bool setNestHints(llvm::Loop &L, const TuneCandidate &C);

/// Marks \p L's floating-point divisions as allowing a reciprocal.
bool allowReciprocals(llvm::Loop &L);

/// An enclosing loop (by its header) a candidate asks to unroll-and-jam.
struct JamRequest {
  llvm::BasicBlock *OuterHeader;
  unsigned Count;
  const TuneCandidate *Candidate;
};

/// Runs the nest passes the default pipeline leaves off on \p F:
/// LoopInterchange when \p Interchange, unroll-and-jam for \p Jams (it acts
/// only on loops with explicit unroll-and-jam metadata). The inner loop of
/// a jammed nest is marked with its count (jammedBodies()); a jam LLVM
/// could not do gets a missed remark (the clone is then the default's code).
void runNestPasses(llvm::Function &F, llvm::FunctionAnalysisManager &AM,
                   bool Interchange, llvm::ArrayRef<JamRequest> Jams);

/// How many source iterations of its enclosing loop one iteration of \p L
/// runs (unroll-and-jam); 1 for every other loop.
unsigned jammedBodies(const llvm::Loop &L);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRTUNECANDIDATES_H
