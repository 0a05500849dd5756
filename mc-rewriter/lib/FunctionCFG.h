//===- FunctionCFG.h - A function's machine CFG, for LLVM's graph algorithms =//
//
// Part of decan. The basic blocks of one decoded function (FunctionCode.h)
// and their edges: direct branches, fall-through and resolved jump tables.
// An indirect jump that is neither a tail call nor a readable jump table
// leaves the CFG incomplete (FunctionCFG::UnknownCFG), which restricts how
// the function's loops are patched; edges are never guessed.
//
// The blocks are a graph for LLVM's generic algorithms, as BOLT's
// BinaryBasicBlock is (bolt/include/bolt/Core/BinaryLoop.h): GraphTraits
// with block numbers, a parent with getParent(), printAsOperand, so that
// DomTreeBase computes dominators and LoopInfoBase natural loops. A virtual
// entry block precedes the function's first block and every block no edge
// reaches (landing pads, code reached only through an unknown jump), so
// that loops in such code are found too.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_FUNCTIONCFG_H
#define DECAN_REWRITER_FUNCTIONCFG_H

#include "FunctionCode.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/iterator.h"
#include "llvm/Support/GenericDomTree.h"
#include "llvm/Support/GenericLoopInfo.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace decan::rewriter {

class FunctionCFG;

/// A basic block: instructions [First, First + Count) of the function.
class CFGBlock {
public:
  uint64_t Start = 0, End = 0;
  unsigned First = 0, Count = 0;
  /// Successors in the function, in the order the edges were found (the
  /// branch target, then jump table entries, then the fall-through).
  llvm::SmallVector<CFGBlock *, 2> Succs;
  /// Branch targets outside the function (tail calls): exits.
  llvm::SmallVector<uint64_t, 2> ExternSucc;
  llvm::SmallVector<CFGBlock *, 4> Preds;
  /// Address control reaches by falling off the end, 0 for none.
  uint64_t FallThrough = 0;

  /// Blocks are numbered in address order from 0; the virtual entry has
  /// the largest number.
  unsigned getNumber() const { return Number; }
  FunctionCFG *getParent() const { return Parent; }
  bool isVirtualEntry() const;
  /// For LLVM's debug output: the block's address.
  void printAsOperand(llvm::raw_ostream &OS, bool PrintType = true) const;

private:
  friend class FunctionCFG;
  unsigned Number = 0;
  FunctionCFG *Parent = nullptr;
};

/// The CFG of one decoded function. Not copyable: blocks point to it and to
/// each other.
class FunctionCFG {
public:
  FunctionCFG(const FunctionCode &Code, const BinaryImage &Bin,
              const decan::X86Target &X86, FinderStats &Stats);
  FunctionCFG(const FunctionCFG &) = delete;
  FunctionCFG &operator=(const FunctionCFG &) = delete;

  const FunctionCode &code() const { return Code; }
  /// The block that starts at \p Addr, or null.
  const CFGBlock *blockAt(uint64_t Addr) const;
  /// The virtual entry: its successors are block 0 and the blocks no edge
  /// reaches. front() is it too, as LLVM's DomTreeNodeTraits expect.
  CFGBlock &entry() { return Blocks.back(); }
  CFGBlock &front() { return entry(); }
  /// Number of block numbers in use, the virtual entry's included.
  unsigned getMaxNumber() const { return Blocks.size(); }
  /// Every node, the function's blocks in address order, then the virtual
  /// entry.
  using iterator = std::vector<CFGBlock>::iterator;
  iterator begin() { return Blocks.begin(); }
  iterator end() { return Blocks.end(); }

  /// An indirect jump neither a tail call nor a read jump table: code may
  /// be reached by edges the CFG lacks.
  bool UnknownCFG = false;
  /// Non-empty when a branch lands inside an instruction (overlapping
  /// code): every loop of the function is skipped for this reason.
  std::string Problem;
  /// Dead padding after a jump or return that no known edge reaches, as
  /// [start, end) ranges (none when the CFG is incomplete).
  std::vector<std::pair<uint64_t, uint64_t>> Padding;

private:
  void findBlocks(const BinaryImage &Bin, const decan::X86Target &X86,
                  FinderStats &Stats);
  void addEdges();
  void cutDeadPadding(const decan::X86Target &X86);
  void linkEntry();
  bool isIndirectTailCall(const decan::X86Target &X86, unsigned K) const;
  uint64_t tableBaseOf(const decan::X86Target &X86,
                       llvm::MCRegister Base) const;
  bool resolveJumpTable(const BinaryImage &Bin, const decan::X86Target &X86,
                        unsigned K,
                        const llvm::DenseMap<uint64_t, unsigned> &InstrAt);

  const FunctionCode &Code;
  /// The blocks in address order, then the virtual entry (never
  /// reallocated once built: edges point into it).
  std::vector<CFGBlock> Blocks;
  llvm::DenseMap<uint64_t, unsigned> BlockAt;
  /// Targets of resolved jump tables, by instruction index of the jump.
  std::map<unsigned, std::vector<uint64_t>> TableTargets;
};

/// A natural loop of a FunctionCFG, as LoopInfoBase finds it.
class CFGLoop : public llvm::LoopBase<CFGBlock, CFGLoop> {
public:
  CFGLoop() = default;

private:
  friend class llvm::LoopInfoBase<CFGBlock, CFGLoop>;
  explicit CFGLoop(CFGBlock *Header)
      : llvm::LoopBase<CFGBlock, CFGLoop>(Header) {}
};

using CFGDomTree = llvm::DomTreeBase<CFGBlock>;
using CFGLoopInfo = llvm::LoopInfoBase<CFGBlock, CFGLoop>;

} // namespace decan::rewriter

namespace llvm {

template <> struct GraphTraits<decan::rewriter::CFGBlock *> {
  using NodeRef = decan::rewriter::CFGBlock *;
  using ChildIteratorType = SmallVectorImpl<NodeRef>::iterator;
  static NodeRef getEntryNode(NodeRef B) { return B; }
  static ChildIteratorType child_begin(NodeRef N) { return N->Succs.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->Succs.end(); }
  static unsigned getNumber(NodeRef B) { return B->getNumber(); }
};

template <> struct GraphTraits<const decan::rewriter::CFGBlock *> {
  using NodeRef = const decan::rewriter::CFGBlock *;
  using ChildIteratorType =
      SmallVectorImpl<decan::rewriter::CFGBlock *>::const_iterator;
  static NodeRef getEntryNode(NodeRef B) { return B; }
  static ChildIteratorType child_begin(NodeRef N) { return N->Succs.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->Succs.end(); }
  static unsigned getNumber(NodeRef B) { return B->getNumber(); }
};

template <> struct GraphTraits<Inverse<decan::rewriter::CFGBlock *>> {
  using NodeRef = decan::rewriter::CFGBlock *;
  using ChildIteratorType = SmallVectorImpl<NodeRef>::iterator;
  static NodeRef getEntryNode(Inverse<NodeRef> G) { return G.Graph; }
  static ChildIteratorType child_begin(NodeRef N) { return N->Preds.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->Preds.end(); }
  static unsigned getNumber(NodeRef B) { return B->getNumber(); }
};

template <> struct GraphTraits<Inverse<const decan::rewriter::CFGBlock *>> {
  using NodeRef = const decan::rewriter::CFGBlock *;
  using ChildIteratorType =
      SmallVectorImpl<decan::rewriter::CFGBlock *>::const_iterator;
  static NodeRef getEntryNode(Inverse<NodeRef> G) { return G.Graph; }
  static ChildIteratorType child_begin(NodeRef N) { return N->Preds.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->Preds.end(); }
  static unsigned getNumber(NodeRef B) { return B->getNumber(); }
};

template <>
struct GraphTraits<decan::rewriter::FunctionCFG *>
    : GraphTraits<decan::rewriter::CFGBlock *> {
  static NodeRef getEntryNode(decan::rewriter::FunctionCFG *F) {
    return &F->entry();
  }
  using nodes_iterator =
      pointer_iterator<decan::rewriter::FunctionCFG::iterator>;
  static nodes_iterator nodes_begin(decan::rewriter::FunctionCFG *F) {
    return nodes_iterator(F->begin());
  }
  static nodes_iterator nodes_end(decan::rewriter::FunctionCFG *F) {
    return nodes_iterator(F->end());
  }
  static unsigned size(decan::rewriter::FunctionCFG *F) {
    return F->getMaxNumber();
  }
  static unsigned getMaxNumber(decan::rewriter::FunctionCFG *F) {
    return F->getMaxNumber();
  }
  /// Blocks are never renumbered.
  static unsigned getNumberEpoch(decan::rewriter::FunctionCFG *) { return 0; }
};

/// The dominator tree as a graph (LoopInfoBase walks it in post-order), as
/// llvm/IR/Dominators.h defines it for IR blocks.
template <> struct GraphTraits<DomTreeNodeBase<decan::rewriter::CFGBlock> *> {
  using NodeRef = DomTreeNodeBase<decan::rewriter::CFGBlock> *;
  using ChildIteratorType =
      DomTreeNodeBase<decan::rewriter::CFGBlock>::const_iterator;
  static NodeRef getEntryNode(NodeRef N) { return N; }
  static ChildIteratorType child_begin(NodeRef N) { return N->begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->end(); }
};

template <>
struct GraphTraits<const DomTreeNodeBase<decan::rewriter::CFGBlock> *> {
  using NodeRef = const DomTreeNodeBase<decan::rewriter::CFGBlock> *;
  using ChildIteratorType =
      DomTreeNodeBase<decan::rewriter::CFGBlock>::const_iterator;
  static NodeRef getEntryNode(NodeRef N) { return N; }
  static ChildIteratorType child_begin(NodeRef N) { return N->begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->end(); }
};

} // namespace llvm

#endif // DECAN_REWRITER_FUNCTIONCFG_H
