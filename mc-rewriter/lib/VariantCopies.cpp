//===- VariantCopies.cpp - Variant copies via the instruction knowledge -===//
//
// Part of decan. Translates a loop's REF copy into the instruction
// knowledge's LoopBody, asks it for each variant (rules, dependence
// verifier, byte-length-preserving layout), and translates the result back
// into placeable MCInsts. Position-dependent operands (branch targets,
// RIP-relative displacements) travel as opaque symbols, so the rules never
// see addresses, and come back as absolute targets of the REF instruction.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/LoopCopy.h"

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/Variants.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrAnalysis.h"

#include <map>
#include <set>

using namespace llvm;
using namespace decan::rewriter;

/// REF copy -> LoopBody: operands as MCInst orders them; branch targets and
/// RIP displacements become symbols (SrcOp = their operand index).
static decan::LoopBody toBody(const decan::X86Knowledge &X86,
                              const LoopCopy &Ref, const LoopCandidate &L,
                              std::vector<const CopyInst *> &ById) {
  decan::LoopBody Body;
  std::map<uint64_t, unsigned> BlockOf;
  for (unsigned B = 0; B < Ref.Blocks.size(); ++B)
    BlockOf[Ref.Blocks[B].Start] = B;
  std::map<uint64_t, const LoopBlock *> Orig;
  for (const LoopBlock &LB : L.Blocks)
    Orig[LB.Start] = &LB;
  for (const CopyBlock &CB : Ref.Blocks) {
    decan::LoopBody::Block Blk;
    Blk.Begin = Body.Instrs.size();
    const LoopBlock &LB = *Orig[CB.Start];
    for (size_t K = 0; K < CB.Instrs.size(); ++K) {
      const CopyInst &CI = CB.Instrs[K];
      decan::Instr I;
      I.Opcode = CI.MI.getOpcode();
      I.Id = Body.Instrs.size();
      I.Size = LB.Instrs[K].Size;
      int Mem = X86.addressOperandIndex(CI.MI);
      for (unsigned O = 0; O < CI.MI.getNumOperands(); ++O) {
        const MCOperand &Op = CI.MI.getOperand(O);
        if (((CI.IsBranch || CI.IsCall) && O == 0) ||
            (CI.HasRip && int(O) == Mem + 3))
          I.Ops.push_back(decan::Operand::sym(O));
        else if (Op.isReg())
          I.Ops.push_back(decan::Operand::reg(Op.getReg()));
        else
          I.Ops.push_back(decan::Operand::imm(Op.isImm() ? Op.getImm() : 0));
      }
      // A call: what it may do, known only for the C library's PLT entries
      // (the rules delete any other call in every variant but REF).
      if (CI.IsCall)
        if (auto It = L.Callees.find(CI.CallTarget); It != L.Callees.end()) {
          I.Call = decan::callKindOfSymbol(It->second);
          I.MemoryPointers = decan::memoryCallPointers(It->second);
        }
      ById.push_back(&CI);
      Body.Instrs.push_back(std::move(I));
    }
    Blk.End = Body.Instrs.size();
    for (uint64_t S : LB.Succs) {
      auto It = BlockOf.find(S);
      if (It == BlockOf.end())
        Blk.Exiting = true;
      else if (!is_contained(Blk.Succs, It->second))
        Blk.Succs.push_back(It->second);
    }
    // In a nest, a block that leaves its inner loop holds that loop's exit
    // test: the rules keep what it reads, as for the nest's own exits.
    for (const std::vector<uint64_t> &Inner : L.InnerBlocks)
      if (is_contained(Inner, LB.Start))
        Blk.Exiting |= any_of(
            LB.Succs, [&](uint64_t S) { return !is_contained(Inner, S); });
    Body.Blocks.push_back(std::move(Blk));
  }
  return Body;
}

/// LoopBody of a variant -> placeable copy with REF's block identities.
static Expected<LoopCopy> fromBody(const decan::X86Knowledge &X86,
                                   const decan::X86Knowledge &K,
                                   const decan::LoopBody &Body,
                                   const LoopCopy &Ref,
                                   const std::vector<const CopyInst *> &ById) {
  if (Body.Blocks.size() != Ref.Blocks.size())
    return createStringError(inconvertibleErrorCode(),
                             "variant changed the loop's blocks");
  LoopCopy C;
  for (size_t B = 0; B < Body.Blocks.size(); ++B) {
    CopyBlock CB;
    CB.Start = Ref.Blocks[B].Start;
    CB.FallThrough = Ref.Blocks[B].FallThrough;
    for (unsigned N = Body.Blocks[B].Begin; N < Body.Blocks[B].End; ++N) {
      const decan::Instr &I = Body.Instrs[N];
      CopyInst CI;
      CI.MI = K.toMCInst(I);
      const CopyInst *Src = I.Id < ById.size() ? ById[I.Id] : nullptr;
      if (Src && X86.analysis().isCall(CI.MI))
        CI.ReturnAddr = Src->ReturnAddr;
      int Mem = X86.addressOperandIndex(CI.MI);
      for (unsigned O = 0; O < I.Ops.size(); ++O) {
        const decan::Operand &Op = I.Ops[O];
        if (Op.Kind == decan::Operand::Symbol) {
          if (!Src || Op.SrcOp < 0 ||
              unsigned(Op.SrcOp) >= Src->MI.getNumOperands())
            return createStringError(inconvertibleErrorCode(),
                                     "variant symbol without its source");
          if (Src->IsBranch && Op.SrcOp == 0 && O == 0) {
            CI.IsBranch = true;
            CI.BranchTarget = Src->BranchTarget;
          } else if (Src->IsCall && Op.SrcOp == 0 && O == 0) {
            CI.IsCall = true;
            CI.CallTarget = Src->CallTarget;
          } else if (Src->HasRip && int(O) == Mem + 3) {
            CI.HasRip = true;
            CI.RipTarget = Src->RipTarget;
          } else {
            return createStringError(inconvertibleErrorCode(),
                                     "variant moved a position-dependent "
                                     "operand");
          }
          CI.MI.getOperand(O) = MCOperand::createImm(0);
        } else if (Op.Kind == decan::Operand::Scratch) {
          if (int(O) != Mem + 3 || CI.MI.getOperand(Mem).getReg() != X86.RIP)
            return createStringError(inconvertibleErrorCode(),
                                     "scratch operand is not RIP-relative");
          CI.HasScratch = true;
          CI.ScratchOff = Op.Imm;
          CI.MI.getOperand(O) = MCOperand::createImm(0);
        }
      }
      // Branch opcodes keep the rel8/rel32 choice to the emitter.
      if (CI.IsBranch && CI.MI.getOpcode() != X86.JMP_1 &&
          CI.MI.getOpcode() != X86.JMP_4 && CI.MI.getOpcode() != X86.JCC_1 &&
          CI.MI.getOpcode() != X86.JCC_4)
        return createStringError(inconvertibleErrorCode(),
                                 "variant turned a branch into '" +
                                     X86.opcodeName(CI.MI.getOpcode()) + "'");
      CB.Instrs.push_back(std::move(CI));
    }
    C.Blocks.push_back(std::move(CB));
  }
  return C;
}

/// Index of an induction update of \p Body (see LoopVariants::IndReg), or
/// -1. It must be in the CTRL slice (so every variant keeps it), be the
/// only writer of its register in the loop, and lie on every path from the
/// header to a back edge.
static int findInduction(const decan::X86Knowledge &K,
                         const decan::LoopBody &Body,
                         const decan::LoopSubsets &S, unsigned &Def,
                         int64_t &Step) {
  unsigned N = Body.Instrs.size();
  for (unsigned I = 0; I < N; ++I) {
    const decan::Instr &In = Body.Instrs[I];
    if (!(S.Bits[I] & decan::SubsetCtrl) ||
        (S.Bits[I] & (decan::SubsetLoad | decan::SubsetStore)))
      continue;
    unsigned D = K.gprWritten(In);
    if (!D || (K.regBits(D) != 64 && K.regBits(D) != 32))
      continue;
    int64_t St = K.inductionStep(In, D);
    if (!St)
      continue;
    bool Only = true;
    for (unsigned J = 0; J < N && Only; ++J) {
      if (J == I)
        continue;
      SmallVector<unsigned, 4> WJ;
      K.regsWritten(Body.Instrs[J], WJ);
      for (unsigned W : WJ)
        Only &= !K.regsOverlap(W, D);
    }
    if (!Only)
      continue;
    // Block of I; the back edges (edges to block 0) must all be reached
    // through it: walk from the header avoiding it.
    unsigned BI = 0;
    while (BI < Body.Blocks.size() && Body.Blocks[BI].End <= I)
      ++BI;
    bool EveryPath = true;
    if (BI != 0) {
      std::vector<bool> Seen(Body.Blocks.size());
      std::vector<unsigned> Work{0};
      Seen[0] = true;
      while (!Work.empty() && EveryPath) {
        unsigned B = Work.back();
        Work.pop_back();
        for (unsigned Sc : Body.Blocks[B].Succs) {
          if (Sc == 0)
            EveryPath = false;
          else if (Sc != BI && !Seen[Sc]) {
            Seen[Sc] = true;
            Work.push_back(Sc);
          }
        }
      }
    }
    if (!EveryPath)
      continue;
    Def = D;
    Step = St;
    return int(I);
  }
  return -1;
}

/// Whether EFLAGS other than CF may be live into the header of \p Body, a
/// variant's copy: read before written on some path from the header round
/// the loop. What decides whether its iteration cap may count down with
/// `dec` (which writes the other flags and keeps CF) or needs the flags-free
/// `lea; jrcxz`. inc and dec write what dec writes; the other partial
/// writers (rotates, shifts by %cl) merge, so they read. Leaving the loop is
/// no read, unlike for the loop finder's FlagsLiveIn (the stub's compare
/// runs before the relocated original too): a variant's exit state is never
/// the program's (the shared exit reruns REF from the entry state).
static bool flagsLiveAtHeader(const decan::X86Knowledge &K,
                              const decan::LoopBody &Body) {
  auto Has = [&](ArrayRef<unsigned> Rs) {
    return any_of(Rs, [&](unsigned R) { return K.regsOverlap(R, K.EFLAGS); });
  };
  // Per block: 1 read first, 0 written first, -1 neither.
  std::vector<int> Local(Body.Blocks.size(), -1);
  for (size_t B = 0; B < Body.Blocks.size(); ++B)
    for (unsigned I = Body.Blocks[B].Begin;
         I < Body.Blocks[B].End && Local[B] < 0; ++I) {
      const decan::Instr &In = Body.Instrs[I];
      if (In.Padding)
        continue;
      StringRef N = K.opcodeName(In.Opcode);
      bool IncDec = N.starts_with("INC") || N.starts_with("DEC");
      SmallVector<unsigned, 8> R, W;
      K.regsRead(In, R);
      K.regsWritten(In, W);
      if (Has(R) || (!IncDec && decan::mergesFlags(N)))
        Local[B] = 1;
      else if (Has(W))
        Local[B] = 0;
    }
  std::vector<bool> Live(Body.Blocks.size());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t B = 0; B < Body.Blocks.size(); ++B) {
      bool L = Local[B] == 1 ||
               (Local[B] < 0 && any_of(Body.Blocks[B].Succs,
                                       [&](unsigned S) { return Live[S]; }));
      if (L && !Live[B]) {
        Live[B] = true;
        Changed = true;
      }
    }
  }
  return !Live.empty() && Live[0];
}

/// The register a variant's copy \p Body counts its iteration cap down in
/// (LoopVariants::CapReg), 0 when none is free: a GPR the copy never reads
/// or writes, explicitly or implicitly (a call's clobbers included, so a
/// loop that calls leaves the callee-saved ones only; the callee keeps
/// them). With EFLAGS live into the header only RCX will do: the count-down
/// must leave the flags as they are (`lea -1(%rcx),%rcx; jrcxz`).
static unsigned capRegister(const decan::X86Knowledge &K,
                            const decan::LoopBody &Body, bool FlagsLive) {
  std::vector<unsigned> Free = K.unusedRegs(Body, /*CalleeSaved=*/true);
  auto IsFree = [&](unsigned R) { return is_contained(Free, R); };
  if (FlagsLive)
    return IsFree(K.reg("RCX")) ? K.reg("RCX") : 0;
  // Any free GPR does (the copy's registers are restored after it): a
  // fixed order, caller-saved ones first.
  for (const char *G : {"R11", "R10", "R9", "R8", "RDI", "RSI", "RDX", "RCX",
                        "RAX", "R15", "R14", "R13", "R12", "RBP", "RBX"})
    if (IsFree(K.reg(G)))
      return K.reg(G);
  return 0;
}

Error decan::rewriter::appendNops(const decan::X86Knowledge &X86,
                                  unsigned Bytes, SmallVectorImpl<char> &Out) {
  for (const decan::Instr &I : X86.nops(Bytes))
    if (Error E = X86.encode(X86.toMCInst(I), Out))
      return E;
  return Error::success();
}

/// With -g, a memory group whose base register holds a source variable at
/// the loop's header is named after it (`x`), as the plugin names groups;
/// a second group on the same variable keeps its address form beside it.
static void nameGroups(const LoopCandidate &L, decan::LoopSubsets &S) {
  std::set<std::string> Used;
  for (unsigned G = 0; G < S.NumGroups; ++G) {
    auto It = L.RegisterNames.find(S.GroupBase[G]);
    if (It == L.RegisterNames.end())
      continue;
    S.GroupNames[G] = Used.insert(It->second).second
                          ? It->second
                          : It->second + " " + S.GroupNames[G];
  }
}

Expected<LoopVariants>
decan::rewriter::buildVariants(const decan::X86Knowledge &X86,
                               const LoopCandidate &L, unsigned Mask) {
  LoopVariants V;
  V.Copies[DECAN_REF] = refCopy(X86, L);
  V.Mask = 1u << DECAN_REF;
  V.MInfo.status[DECAN_REF] = DECAN_VARIANT_OK;
  V.MInfo.n_instrs = L.numInstrs();
  V.MInfo.loop_bytes[DECAN_REF] = L.bytes();
  for (unsigned N = 0; N < DECAN_NUM_VARIANTS; ++N)
    V.MInfo.store_policy[N] = decan::storePolicy(decan::Variant(N));
  // X86 is the knowledge for the host CPU (X86Knowledge::createForHost):
  // the rewritten program runs here, and the rules pick idioms (VEX/EVEX)
  // the CPU has.
  const decan::X86Knowledge &K = X86;

  std::vector<const CopyInst *> ById;
  decan::LoopBody Ref = toBody(X86, V.Copies[DECAN_REF], L, ById);
  // The same inputs the plugin gives the rules. A variant runs between a
  // save and a restore of the whole register state (LoopEmitter): no value
  // it leaves behind is read, so registers the loop never touches are free
  // (callee-saved ones too, after the others),
  // and no register is live out of a variant (REF, whose results stand, is
  // never changed).
  Ref.FreeRegs = K.unusedRegs(Ref, /*CalleeSaved=*/true);
  decan::LoopSubsets S = decan::computeSubsets(K, Ref);
  nameGroups(L, S);
  V.MInfo.n_instrs = S.NumInstrs;
  V.MInfo.n_load = S.NumLoad;
  V.MInfo.n_store = S.NumStore;
  V.MInfo.n_fp = S.NumFP;
  V.MInfo.n_div = S.NumDiv;
  V.MInfo.n_ctrl = S.NumCtrl;
  V.MInfo.n_addr = S.NumAddr;
  V.MInfo.n_other = S.NumOther;
  V.MInfo.n_call = S.NumCall;
  V.MInfo.n_chased_load = S.NumChasedLoad;
  decan::recordGroups(S, V.MInfo);
  // A nest carries no iteration cap (an inner loop could run on): a loop
  // test of it that reads memory refuses it, as the plugin does.
  if (L.Nest && S.ExitReadsMemory)
    return createStringError(inconvertibleErrorCode(),
                             "a loop test of the nest reads memory (a variant "
                             "could change its trip counts)");
  unsigned IndDef = 0;
  int64_t IndStep = 0;
  int IndAt = findInduction(K, Ref, S, IndDef, IndStep);
  decan::VariantOptions Opts;
  // Every copy whose exit reads memory gets an iteration cap (below); with
  // an induction register its trip count is checked against REF's.
  Opts.ExitCapped = IndAt >= 0;
  V.ScratchSize = Opts.ScratchSize;
  for (unsigned N = 1; N < DECAN_NUM_VARIANTS; ++N) {
    // NO_CALL only for loops that call, as the plugin emits it.
    if (!(Mask & (1u << N)) || (N == DECAN_NO_CALL && !S.NumCall))
      continue;
    decan::VariantResult R =
        decan::buildVariant(K, Ref, S, decan::Variant(N), Opts);
    V.MInfo.status[N] = unsigned(R.Status);
    V.MInfo.loop_bytes[N] = R.Bytes;
    V.MInfo.why[N] = R.Why;
    if (R.Status != decan::VariantStatus::OK) {
      V.Notes[N] = R.Reason.empty() ? "not built" : R.Reason;
      continue;
    }
    Expected<LoopCopy> C = fromBody(X86, K, R.Body, V.Copies[DECAN_REF], ById);
    if (!C) {
      V.MInfo.status[N] = DECAN_VARIANT_UNSUPPORTED;
      V.MInfo.why[N] = DECAN_WHY_OTHER;
      V.Notes[N] = toString(C.takeError());
      continue;
    }
    // A variant never writes program memory and may delete calls: where
    // the exit reads memory, the copy could run on where REF stops, so it
    // counts its iterations down from a cap the runtime sets.
    if (S.CtrlReadsMemory && !L.Nest) {
      bool FlagsLive = flagsLiveAtHeader(K, R.Body);
      unsigned Reg = capRegister(K, R.Body, FlagsLive);
      if (!Reg) {
        V.MInfo.status[N] = DECAN_VARIANT_UNSUPPORTED;
        V.MInfo.why[N] = DECAN_WHY_NO_CAP_REGISTER;
        V.Notes[N] = FlagsLive
                         ? "no free register for the iteration cap (flags "
                           "are live into the header: only rcx, for jrcxz)"
                         : "no free register for the iteration cap";
        continue;
      }
      V.CapReg[N] = Reg;
      V.CapFlagsFree |= unsigned(FlagsLive) << N;
      V.MInfo.capped_mask |= 1u << N;
    }
    V.Copies[N] = std::move(*C);
    V.Mask |= 1u << N;
    if (R.CallsDeleted)
      V.MInfo.calls_deleted_mask |= 1u << N;
    if (N == DECAN_DL1 && R.MemoryCallsRedirected) {
      V.MInfo.dl1_memory_call_bytes = R.MemoryCallBytes;
      V.Notes[N] = R.Reason; // what DL1 did to the calls, in words
    }
    if (R.Bound) {
      V.BoundMask |= 1u << N;
      V.Notes[N] += (V.Notes[N].empty() ? "" : "; ") + R.BoundReason;
    }
    // The trip count is read from every variant's exit state: each one must
    // run the update unchanged.
    if (IndAt >= 0 && none_of(R.Body.Instrs, [&](const decan::Instr &I) {
          return I.Id == unsigned(IndAt) && I.Unchanged && !I.Padding;
        }))
      IndAt = -1;
  }
  // A nest with REF alone would take its inner loops' variants away (they
  // run inside it): refused, they keep their own copies.
  if (L.Nest && (Mask & ~1u) && V.Mask == 1u) {
    unsigned First = 1;
    while (First < DECAN_NUM_VARIANTS && V.Notes[First].empty())
      ++First;
    return createStringError(
        inconvertibleErrorCode(),
        "no variant of the nest could be built" +
            (First < DECAN_NUM_VARIANTS ? " (" + V.Notes[First] + ")" : ""));
  }
  if (IndAt >= 0) {
    V.IndReg = IndDef;
    V.IndStep = IndStep;
    V.Ind32 = K.regBits(IndDef) == 32;
  }
  if (Expected<unsigned> RB = decan::loopBytes(K, Ref))
    V.MInfo.loop_bytes[DECAN_REF] = *RB;
  else
    consumeError(RB.takeError());
  return V;
}
