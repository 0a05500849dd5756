//===- Subsets.cpp - Which instruction belongs to which decan subset ------===//
//
// Part of decan. See decan/InstrKnowledge/Subsets.h. The local view reads
// the MCInstrDesc (mayLoad/mayStore, branch/call flags, operand register
// classes) and the opcode name (families such as DIV/SQRT or pure moves that
// the descriptor does not tell apart).
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Subsets.h"

#include "Dataflow.h"
#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <cstring>
#include <map>
#include <set>
#include <string>

using namespace llvm;
using namespace decan;

static bool startsWithAny(StringRef N, std::initializer_list<StringRef> Ps) {
  for (StringRef P : Ps)
    if (N.starts_with(P))
      return true;
  return false;
}

unsigned decan::classifyOpcode(const MCInstrInfo &MII, unsigned Opcode,
                               const MCRegisterInfo *MRI) {
  const MCInstrDesc &D = MII.get(Opcode);
  StringRef N = MII.getName(Opcode);
  if (N == "NOOP" || N.starts_with("NOOP"))
    return SubsetNop;
  // A call (direct, through a register or through memory); tail calls
  // (TCRETURN*) return and stay unsupported.
  if (D.isCall() && !D.isReturn() && N.starts_with("CALL64"))
    return SubsetCall;
  if (D.isCall() || D.isReturn() || D.isIndirectBranch())
    return SubsetUnsupported;
  if (D.isBranch())
    return SubsetBranch;
  if (D.isPseudo())
    return SubsetUnsupported;
  // x87 (long double), MMX, string and atomic operations, stack and system
  // instructions: no rule handles them (docs/variants.md).
  static const StringRef Strings[] = {
      "MOVSB", "MOVSW", "MOVSL", "MOVSQ", "STOSB", "STOSW", "STOSL",
      "STOSQ", "LODSB", "LODSW", "LODSL", "LODSQ", "SCASB", "SCASW",
      "SCASL", "SCASQ", "CMPSB", "CMPSW", "CMPSL", "CMPSQ"};
  for (StringRef S : Strings)
    if (N == S)
      return SubsetUnsupported;
  if (startsWithAny(
          N,
          {"MMX_",   "REP_",    "LOCK_",    "XCHG",    "CMPXCHG",  "XADD",
           "PUSH",   "POP",     "CPUID",    "RDTSC",   "LFENCE",   "MFENCE",
           "SFENCE", "SYSCALL", "INT",      "UD",      "TRAP",     "HLT",
           "ENTER",  "LEAVE",   "LDMXCSR",  "STMXCSR", "VLDMXCSR", "VSTMXCSR",
           "FXSAVE", "FXRSTOR", "XSAVE",    "XRSTOR",  "CLFLUSH",  "TILE",
           "LD_F",   "ST_F",    "ST_FP",    "LD_Fp",   "ST_Fp",    "FLD",
           "FST",    "FNST",    "FLDCW",    "WAIT",    "RDRAND",   "RDSEED",
           "IN8",    "IN16",    "IN32",     "OUT",     "WRFS",     "WRGS",
           "RDFS",   "RDGS",    "SERIALIZE"}))
    return SubsetUnsupported;
  if (N.contains("_F") || N.ends_with("_Fp32") || N.ends_with("_Fp64") ||
      N.ends_with("_Fp80"))
    return SubsetUnsupported; // x87 arithmetic (ADD_F32m, DIV_Fp64, ...)
  int MemIdx = -1;
  for (unsigned I = 0; I < D.getNumOperands(); ++I)
    if (D.operands()[I].OperandType == MCOI::OPERAND_MEMORY) {
      MemIdx = I;
      break;
    }
  unsigned Bits = SubsetNone;
  bool Prefetch = N.starts_with("PREFETCH");
  if (D.mayLoad() || D.mayStore() || Prefetch) {
    if (MemIdx < 0)
      return SubsetUnsupported; // implicit memory operand
    if (Prefetch) {
      Bits |= SubsetLoad | SubsetPureMem;
      return Bits;
    }
    if (D.mayLoad())
      Bits |= SubsetLoad;
    if (D.mayStore())
      Bits |= SubsetStore;
  }
  StringRef B = N.starts_with("V") ? N.drop_front() : N;
  if (N.contains("GATHER") || N.contains("SCATTER"))
    return Bits | SubsetGather | SubsetPureMem;
  // Does the instruction name a vector, FP or mask register?
  bool Vec = false;
  if (MRI) {
    for (unsigned I = 0; I < D.getNumOperands(); ++I) {
      int16_t RC = D.operands()[I].RegClass;
      if (RC < 0 || (unsigned)RC >= MRI->getNumRegClasses() ||
          D.operands()[I].OperandType == MCOI::OPERAND_MEMORY)
        continue;
      StringRef CN = MRI->getRegClassName(&MRI->getRegClass(RC));
      Vec |=
          CN.starts_with("VR") || CN.starts_with("FR") || CN.starts_with("VK");
    }
  } else {
    Vec = N.starts_with("V") || B.starts_with("K");
  }
  bool PureMove =
      startsWithAny(
          B, {"MOVAP",   "MOVUP",      "MOVDQ",    "MOVSS",     "MOVSD",
              "MOVSH",   "MOVNT",      "MOVHP",    "MOVLP",     "MOVDDUP",
              "MOVQ",    "MOVD",       "MOVPQI",   "MOVPDI",    "MOVDI",
              "MOVQI",   "MOV64toPQI", "MOVSDto",  "MOVSS2DI",  "MOVSDto64",
              "MOVDI2",  "MOV8",       "MOV16",    "MOV32",     "MOV64",
              "MOVZX",   "MOVSX",      "MOVBE",    "BROADCAST", "PBROADCAST",
              "LDDQU",   "MASKMOV",    "PMASKMOV", "PMOVZX",    "PMOVSX",
              "EXTRACT", "PEXTR",      "MOVUPSZ",  "MOVDQU",    "MOVDQA",
              "KMOV",    "MOVAPSZ",    "MOVUPDZ",  "MOVAPDZ",   "INSERTF",
              "INSERTI"}) &&
      !B.starts_with("MOVMSK") && !B.starts_with("MOVSHDUP") &&
      !B.starts_with("MOVSLDUP");
  bool IsInsertLoadOp = B.starts_with("INSERTF") || B.starts_with("INSERTI");
  if ((Bits & (SubsetLoad | SubsetStore)) && PureMove && !IsInsertLoadOp)
    Bits |= SubsetPureMem;
  // A pure move is a load or a store, never both (vmaskmov stores carry
  // mayLoad in LLVM's tables): the operand order decides.
  if ((Bits & SubsetPureMem) && (Bits & SubsetLoad) && (Bits & SubsetStore)) {
    if (MemIdx == 0)
      Bits &= ~SubsetLoad;
    else
      Bits &= ~SubsetStore;
  }
  bool IsDiv = startsWithAny(B, {"DIVSS", "DIVSD", "DIVPS", "DIVPD", "DIVSH",
                                 "DIVPH", "SQRTSS", "SQRTSD", "SQRTPS",
                                 "SQRTPD", "SQRTSH", "SQRTPH"}) ||
               (!N.starts_with("V") &&
                startsWithAny(N, {"DIV8", "DIV16", "DIV32", "DIV64", "IDIV8",
                                  "IDIV16", "IDIV32", "IDIV64"}));
  if (IsDiv)
    Bits |= SubsetDiv;
  bool FP = Vec;
  if (B.starts_with("MOVSX") || B.starts_with("MOVZX"))
    FP = false;
  if ((Bits & SubsetPureMem))
    return Bits;
  if (FP)
    Bits |= SubsetFP;
  else
    Bits |= SubsetOther;
  return Bits;
}

/// The data register (vector or GPR) instruction \p I writes, when it
/// writes exactly one (flags aside); 0 otherwise.
static unsigned soleDataDef(const X86Knowledge &K, const ReachingDefs &RD,
                            unsigned I) {
  unsigned Reg = 0;
  for (auto [R, U] : RD.writesOf(I)) {
    if (!K.isVector(R) && !K.isGPR(R))
      continue;
    if (Reg && !K.regsOverlap(Reg, R))
      return 0;
    if (!Reg || K.regBits(R) > K.regBits(Reg))
      Reg = R;
  }
  return Reg;
}

/// The RED subset (thesis 4.4.3.2, NO_RED): the loop's reduction chains.
/// Over the arithmetic instructions that write one data register (never
/// CTRL, address, stores, calls, divisions), a chain is a cycle of values
/// around the back edge (a strongly connected component of "reads the
/// result of") in which each member takes exactly one value from the chain
/// (the accumulator: `s += x`, or an unrolled sum whose accumulator
/// alternates between two registers) and whose results nothing outside the
/// chain reads in the loop (the exit may). A prefix sum (the accumulator is
/// stored) is none; in `x = x * a; s += x` only the add is one, the
/// multiply's result feeding other work.
static void markReductions(const X86Knowledge &K, const LoopBody &L,
                           const ReachingDefs &RD,
                           std::vector<unsigned> &Bits) {
  unsigned N = L.Instrs.size();
  std::vector<bool> Cand(N, false);
  for (unsigned I = 0; I < N; ++I) {
    unsigned B = Bits[I];
    Cand[I] = (B & (SubsetFP | SubsetOther)) &&
              !(B & (SubsetCtrl | SubsetAddr | SubsetStore | SubsetCall |
                     SubsetBranch | SubsetNop | SubsetUnsupported |
                     SubsetGather | SubsetDiv)) &&
              soleDataDef(K, RD, I);
  }
  // Reach[I]: candidates reading, transitively, the result of I.
  std::vector<std::vector<unsigned>> Succ(N);
  for (const RegRead &R : RD.reads())
    if (Cand[R.Instr])
      for (auto [D, C] : R.Defs)
        if (D != EntryDef && Cand[D])
          Succ[D].push_back(R.Instr);
  std::vector<std::vector<bool>> Reach(N, std::vector<bool>(N, false));
  for (unsigned I = 0; I < N; ++I) {
    if (!Cand[I])
      continue;
    std::vector<unsigned> Work(Succ[I]);
    while (!Work.empty()) {
      unsigned J = Work.back();
      Work.pop_back();
      if (Reach[I][J])
        continue;
      Reach[I][J] = true;
      Work.insert(Work.end(), Succ[J].begin(), Succ[J].end());
    }
  }
  auto InChain = [&](unsigned I, unsigned J) {
    return Reach[I][J] && Reach[J][I];
  };
  for (unsigned I = 0; I < N; ++I) {
    if (!Cand[I] || !Reach[I][I])
      continue;
    // Exactly one value from the chain, and that one from nowhere else.
    std::set<unsigned> FromChain;
    bool OK = true;
    for (const RegRead *R : RD.readsOf(I)) {
      bool Any = false, All = true;
      for (auto [D, C] : R->Defs) {
        bool Member = D != EntryDef && InChain(I, D);
        Any |= Member;
        All &= Member || D == EntryDef;
      }
      if (Any) {
        OK &= All;
        FromChain.insert(R->Unit);
      }
    }
    // Registers are read unit by unit: one register may be several units.
    std::set<unsigned> Regs;
    for (const RegRead *R : RD.readsOf(I))
      if (FromChain.count(R->Unit))
        Regs.insert(R->Reg);
    for (unsigned X : Regs)
      for (unsigned Y : Regs)
        OK &= K.regsOverlap(X, Y);
    // Nothing outside the chain reads its results.
    for (const RegRead &R : RD.reads())
      for (auto [D, C] : R.Defs)
        if (D == I && !(Cand[R.Instr] && InChain(I, R.Instr)))
          OK = false;
    if (OK)
      Bits[I] |= SubsetRed;
  }
  // A chain is all or nothing: one member failing leaves the others a
  // chain with a reader outside.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned I = 0; I < N; ++I)
      if (Bits[I] & SubsetRed)
        for (unsigned J = 0; J < N; ++J)
          if (Cand[J] && InChain(I, J) && !(Bits[J] & SubsetRed)) {
            Bits[I] &= ~SubsetRed;
            Changed = true;
            break;
          }
  }
}

/// GROUPING's groups (LoopSubsets::Group): one per data structure.
static void findGroups(const X86Knowledge &K, const LoopBody &L,
                       LoopSubsets &S) {
  unsigned N = L.Instrs.size();
  S.Group.assign(N, -1);
  std::map<std::string, int> Index;
  auto Reg = [&](unsigned R) {
    return R ? ("%" + StringRef(K.regName(R)).lower()) : std::string();
  };
  for (unsigned I = 0; I < N; ++I) {
    unsigned B = S.Bits[I];
    if (!(B & (SubsetLoad | SubsetStore)) ||
        (B & (SubsetCtrl | SubsetNop | SubsetCall | SubsetGather)))
      continue;
    const Instr &In = L.Instrs[I];
    int M = K.memOperandIndex(In.Opcode);
    if (M < 0 || In.Ops.size() < (unsigned)M + 5)
      continue;
    const Operand &Base = In.Ops[M], &Scale = In.Ops[M + 1],
                  &Idx = In.Ops[M + 2], &Disp = In.Ops[M + 3],
                  &Seg = In.Ops[M + 4];
    unsigned BaseReg = Base.isReg() ? Base.Reg : 0;
    unsigned IdxReg = Idx.isReg() ? Idx.Reg : 0;
    // The frame (spills, locals) and RIP-relative scalars are no array.
    if (BaseReg == K.RSP || (BaseReg == K.RIP && !IdxReg))
      continue;
    std::string Sym;
    if (Disp.Kind == Operand::Symbol)
      Sym = Disp.SymKey ? "sym" + std::to_string(Disp.SymKey)
                        : "op" + std::to_string(I); // unknown: its own
    std::string Key = Sym + "|" + std::to_string(BaseReg) + "|" +
                      std::to_string(IdxReg) + "|" +
                      std::to_string(Scale.isImm() ? Scale.Imm : 1) + "|" +
                      std::to_string(Seg.isReg() ? Seg.Reg : 0);
    auto [It, New] = Index.try_emplace(Key, (int)S.GroupNames.size());
    if (New) {
      std::string Name =
          std::string(Disp.Kind == Operand::Symbol ? "sym" : "") + "(" +
          Reg(BaseReg);
      if (IdxReg)
        Name += "," + Reg(IdxReg) + "," +
                std::to_string(Scale.isImm() ? Scale.Imm : 1);
      Name += ")";
      S.GroupNames.push_back(Name);
      S.GroupAccesses.push_back(0);
      S.GroupBase.push_back(BaseReg == K.RIP ? 0 : BaseReg);
    }
    S.Group[I] = It->second;
    ++S.GroupAccesses[It->second];
  }
  S.NumGroups = S.GroupNames.size();
}

LoopSubsets decan::computeSubsets(const X86Knowledge &K, const LoopBody &L) {
  LoopSubsets S;
  unsigned N = L.Instrs.size();
  S.Bits.resize(N);
  for (unsigned I = 0; I < N; ++I)
    S.Bits[I] = K.classify(L.Instrs[I].Opcode);
  std::shared_ptr<const BodyFacts> Facts = bodyFacts(K, L);
  const ReachingDefs &RD = Facts->RD;
  // Backward slices over reaching definitions (loop-carried ones included).
  auto SliceOf = [&](std::vector<unsigned> Work) {
    std::vector<bool> Seen(N);
    while (!Work.empty()) {
      unsigned I = Work.back();
      Work.pop_back();
      if (Seen[I])
        continue;
      Seen[I] = true;
      for (const RegRead *R : RD.readsOf(I))
        for (auto [D, C] : R->Defs)
          if (D != EntryDef)
            Work.push_back(D);
    }
    return Seen;
  };
  auto Slice = [&](std::vector<unsigned> Work, unsigned Bit) {
    std::vector<bool> In = SliceOf(std::move(Work));
    for (unsigned I = 0; I < N; ++I)
      if (In[I])
        S.Bits[I] |= Bit;
  };
  std::vector<unsigned> Branches, Addrs;
  for (unsigned I = 0; I < N; ++I)
    if (S.Bits[I] & SubsetBranch)
      Branches.push_back(I);
  // Induction variables live after the loop: a GPR updated by a constant
  // step (X86Knowledge::inductionStep: add/sub/inc/dec/lea). Probes derive
  // the trip count from them, so they belong with the control slice; a
  // value merely computed from itself (crc >>= 8) is not one.
  for (unsigned I = 0; I < N; ++I) {
    const Instr &In = L.Instrs[I];
    if (!(S.Bits[I] & SubsetOther) || (S.Bits[I] & (SubsetLoad | SubsetStore)))
      continue;
    unsigned Def = K.gprWritten(In);
    if (!Def || !K.inductionStep(In, Def))
      continue;
    bool LiveOut = false;
    for (unsigned R : L.LiveOuts)
      LiveOut |= K.regsOverlap(R, Def);
    if (LiveOut)
      Branches.push_back(I);
  }
  Slice(Branches, SubsetCtrl);
  // The exit tests' own slice (branches of exiting blocks): what decides
  // whether a copy ends, as opposed to which path an iteration takes.
  std::vector<unsigned> ExitBranches;
  for (const LoopBody::Block &B : L.Blocks)
    if (B.Exiting)
      for (unsigned I = B.Begin; I < B.End; ++I)
        if (S.Bits[I] & SubsetBranch)
          ExitBranches.push_back(I);
  std::vector<bool> ExitSlice = SliceOf(std::move(ExitBranches));
  for (unsigned I = 0; I < N; ++I)
    if (ExitSlice[I] && (S.Bits[I] & (SubsetLoad | SubsetCall)))
      S.ExitReadsMemory = true;
  // Address slice: definitions reaching base/index registers.
  for (unsigned I = 0; I < N; ++I) {
    int M = K.memOperandIndex(L.Instrs[I].Opcode);
    if (M < 0 || (S.Bits[I] & SubsetNop) ||
        !(S.Bits[I] & (SubsetLoad | SubsetStore)))
      continue;
    const Instr &In = L.Instrs[I];
    // Base and index registers; for gathers/scatters and masked accesses
    // also the masks, which decide which addresses are touched.
    std::vector<unsigned> Seeds;
    for (int J : {M, M + 2})
      if ((unsigned)J < In.Ops.size() && In.Ops[J].isReg())
        Seeds.push_back(In.Ops[J].Reg);
    for (unsigned J = 0; J < In.Ops.size(); ++J)
      if (In.Ops[J].isReg() && In.Ops[J].Reg &&
          (K.isMask(In.Ops[J].Reg) ||
           ((S.Bits[I] & SubsetGather) &&
            (J < (unsigned)M || J >= (unsigned)M + 5) &&
            J >= K.instrInfo().get(In.Opcode).getNumDefs())))
        Seeds.push_back(In.Ops[J].Reg);
    // AVX vmaskmov/vpmaskmov: the vector mask (load: operand 1; store:
    // right after the address).
    if (K.opcodeName(In.Opcode).contains("MASKMOV")) {
      unsigned J = M == 0 ? 5 : 1;
      if (J < In.Ops.size() && In.Ops[J].isReg() && In.Ops[J].Reg)
        Seeds.push_back(In.Ops[J].Reg);
    }
    for (unsigned R : Seeds) {
      for (const RegRead *RR : RD.readsOf(I))
        if (K.regsOverlap(RR->Reg, R))
          for (auto [D, C] : RR->Defs)
            if (D != EntryDef)
              Addrs.push_back(D);
    }
  }
  Slice(Addrs, SubsetAddr);
  // Chased loads: a load in the address slice whose own address is
  // computed, through any chain of registers and iterations, from its
  // value.
  for (unsigned I = 0; I < N; ++I) {
    int M = K.memOperandIndex(L.Instrs[I].Opcode);
    if (M < 0 || !(S.Bits[I] & SubsetLoad) || !(S.Bits[I] & SubsetAddr))
      continue;
    const Instr &In = L.Instrs[I];
    std::vector<unsigned> Work;
    for (int J : {M, M + 2})
      if ((unsigned)J < In.Ops.size() && In.Ops[J].isReg() && In.Ops[J].Reg)
        for (const RegRead *RR : RD.readsOf(I))
          if (K.regsOverlap(RR->Reg, In.Ops[J].Reg))
            for (auto [D, C] : RR->Defs)
              if (D != EntryDef)
                Work.push_back(D);
    std::vector<bool> Seen(N);
    while (!Work.empty() && !Seen[I]) {
      unsigned D = Work.back();
      Work.pop_back();
      if (Seen[D])
        continue;
      Seen[D] = true;
      for (const RegRead *R : RD.readsOf(D))
        for (auto [E, C] : R->Defs)
          if (E != EntryDef)
            Work.push_back(E);
    }
    S.NumChasedLoad += Seen[I];
  }
  markReductions(K, L, RD, S.Bits);
  findGroups(K, L, S);
  // Memory written by the loop that an exit may read: the same array
  // (same base register) unless the addresses prove the exit reads no
  // stored byte, an opaque symbol, or what alias facts allow.
  for (unsigned I = 0; I < N; ++I) {
    if (!(S.Bits[I] & SubsetCtrl) || !(S.Bits[I] & SubsetLoad))
      continue;
    int M = K.memOperandIndex(L.Instrs[I].Opcode);
    for (unsigned J = 0; J < N; ++J) {
      if (!(S.Bits[J] & SubsetStore))
        continue;
      int MJ = K.memOperandIndex(L.Instrs[J].Opcode);
      const Instr &A = L.Instrs[I], &B = L.Instrs[J];
      // One base register is one array, whatever the index: a union-find
      // (libLLVM's IntEqClasses::join) stores EC[b] and exits on EC[a].
      bool BaseReg = A.Ops[M].isReg() && A.Ops[M].Reg;
      bool SameArray =
          A.Ops[M] == B.Ops[MJ] && (BaseReg || A.Ops[M + 2] == B.Ops[MJ + 2]);
      // Opaque symbols may be the same object unless both keys differ.
      bool SymBoth = (A.Ops[M + 3].Kind == Operand::Symbol ||
                      B.Ops[MJ + 3].Kind == Operand::Symbol) &&
                     !(A.Ops[M + 3].SymKey && B.Ops[MJ + 3].SymKey &&
                       A.Ops[M + 3].SymKey != B.Ops[MJ + 3].SymKey);
      // Without the front end's alias analysis, only what the operands
      // prove keeps them apart: the frame and a global (a register may
      // point anywhere, the frame included).
      auto IsFrame = [&](const Instr &X, int MX) {
        return X.Ops[MX].isReg() && X.Ops[MX].Reg == K.RSP;
      };
      auto IsGlobal = [&](const Instr &X, int MX) {
        return X.Ops[MX + 3].Kind == Operand::Symbol ||
               (X.Ops[MX].isReg() && X.Ops[MX].Reg == K.RIP) ||
               (X.Ops[MX].isReg() && !X.Ops[MX].Reg && X.Ops[MX + 2].isReg() &&
                !X.Ops[MX + 2].Reg);
      };
      bool Disjoint = (IsFrame(A, M) && IsGlobal(B, MJ)) ||
                      (IsGlobal(A, M) && IsFrame(B, MJ)) ||
                      (IsGlobal(A, M) && IsGlobal(B, MJ) && !SymBoth);
      // Only an exit test's loads: an inner branch's take another path,
      // but the copy still ends.
      bool MayAlias = ExitSlice[I] &&
                      (L.ExitMayReadStored ? *L.ExitMayReadStored : !Disjoint);
      // One array, but the load's bytes are never ones the store wrote
      // before (the element just read swapped away, a[i] stored while the
      // exit reads a[i+1]): every copy reads what REF reads.
      if (SameArray && !SymBoth && neverReadsStored(K, L, RD, J, I))
        continue;
      if (SameArray || SymBoth)
        S.CtrlReadsStoredMemory = true;
      else if (MayAlias)
        S.CtrlMayReadStoredMemory = true;
    }
  }
  // A call that may write memory while an exit reads memory: deleting the
  // call could change the trip count.
  for (unsigned I = 0; I < N; ++I) {
    CallKind CK = L.Instrs[I].Call;
    if (!(S.Bits[I] & SubsetCall) || CK == CallKind::Pure ||
        CK == CallKind::ReadOnly)
      continue;
    // The function's own frame too: a local whose address the callee has
    // (a worklist's size, an iterator, an out-parameter) is in the frame,
    // and neither front end can tell it from a spilled bound. libLLVM's
    // ScheduleDAGSDNodes::BuildSchedUnits pops a SmallVector on the stack
    // in `while (size at 32(%rsp))`: a variant without the call never ends.
    for (unsigned J = 0; J < N; ++J)
      if ((S.Bits[J] & SubsetCtrl) && (S.Bits[J] & SubsetLoad))
        S.CtrlReadsCallWrittenMemory = true;
  }
  // An exit that reads memory, directly or through a call's result: a
  // variant copy gets an iteration cap (LoopSubsets::CtrlReadsMemory).
  for (unsigned I = 0; I < N; ++I)
    if ((S.Bits[I] & SubsetCtrl) && (S.Bits[I] & (SubsetLoad | SubsetCall)))
      S.CtrlReadsMemory = true;
  for (unsigned I = 0; I < N; ++I) {
    unsigned B = S.Bits[I];
    if (B & SubsetNop)
      continue;
    ++S.NumInstrs;
    S.NumCall += !!(B & SubsetCall);
    S.NumLoad += !!(B & SubsetLoad);
    S.NumStore += !!(B & SubsetStore);
    S.NumFP += !!(B & SubsetFP);
    S.NumDiv += !!(B & SubsetDiv);
    S.NumCtrl += !!(B & SubsetCtrl);
    S.NumAddr += !!(B & SubsetAddr);
    S.NumRed += !!(B & SubsetRed);
    S.NumOther += !(B & (SubsetLoad | SubsetStore | SubsetFP | SubsetDiv |
                         SubsetCtrl | SubsetAddr | SubsetBranch | SubsetCall));
  }
  return S;
}

void decan::recordGroups(const LoopSubsets &S, decan_machine_info &MI) {
  MI.n_groups = S.NumGroups;
  for (unsigned G = 0; G < DECAN_MAX_GROUPS; ++G) {
    MI.group_accesses[G] = G < S.NumGroups ? S.GroupAccesses[G] : 0;
    std::memset(MI.group_name[G], 0, sizeof(MI.group_name[G]));
    if (G < S.NumGroups)
      std::strncpy(MI.group_name[G], S.GroupNames[G].c_str(),
                   sizeof(MI.group_name[G]) - 1);
  }
}
