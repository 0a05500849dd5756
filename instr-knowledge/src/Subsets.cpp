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

#include <set>

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

LoopSubsets decan::computeSubsets(const X86Knowledge &K, const LoopBody &L) {
  LoopSubsets S;
  unsigned N = L.Instrs.size();
  S.Bits.resize(N);
  for (unsigned I = 0; I < N; ++I)
    S.Bits[I] = K.classify(L.Instrs[I].Opcode);
  ReachingDefs RD(K, L);
  // Backward slices over reaching definitions (loop-carried ones included).
  auto Slice = [&](std::vector<unsigned> Work, unsigned Bit) {
    std::set<unsigned> Seen;
    while (!Work.empty()) {
      unsigned I = Work.back();
      Work.pop_back();
      if (!Seen.insert(I).second)
        continue;
      S.Bits[I] |= Bit;
      for (const RegRead *R : RD.readsOf(I))
        for (auto [D, C] : R->Defs)
          if (D != EntryDef)
            Work.push_back(D);
    }
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
    std::set<unsigned> Seen;
    while (!Work.empty() && !Seen.count(I)) {
      unsigned D = Work.back();
      Work.pop_back();
      if (!Seen.insert(D).second)
        continue;
      for (const RegRead *R : RD.readsOf(D))
        for (auto [E, C] : R->Defs)
          if (E != EntryDef)
            Work.push_back(E);
    }
    S.NumChasedLoad += Seen.count(I);
  }
  // Memory written by the loop that an exit may read (same base/index).
  for (unsigned I = 0; I < N; ++I) {
    if (!(S.Bits[I] & SubsetCtrl) || !(S.Bits[I] & SubsetLoad))
      continue;
    int M = K.memOperandIndex(L.Instrs[I].Opcode);
    for (unsigned J = 0; J < N; ++J) {
      if (!(S.Bits[J] & SubsetStore))
        continue;
      int MJ = K.memOperandIndex(L.Instrs[J].Opcode);
      const Instr &A = L.Instrs[I], &B = L.Instrs[J];
      bool SameArray = A.Ops[M] == B.Ops[MJ] && A.Ops[M + 2] == B.Ops[MJ + 2];
      // Opaque symbols may be the same object unless both keys differ.
      bool SymBoth = (A.Ops[M + 3].Kind == Operand::Symbol ||
                      B.Ops[MJ + 3].Kind == Operand::Symbol) &&
                     !(A.Ops[M + 3].SymKey && B.Ops[MJ + 3].SymKey &&
                       A.Ops[M + 3].SymKey != B.Ops[MJ + 3].SymKey);
      if (SameArray || SymBoth)
        S.CtrlReadsStoredMemory = true;
    }
  }
  // A call that may write memory while an exit reads memory: deleting the
  // call could change the trip count.
  for (unsigned I = 0; I < N; ++I) {
    CallKind CK = L.Instrs[I].Call;
    if (!(S.Bits[I] & SubsetCall) || CK == CallKind::Pure ||
        CK == CallKind::ReadOnly)
      continue;
    for (unsigned J = 0; J < N; ++J) {
      if (!(S.Bits[J] & SubsetCtrl) || !(S.Bits[J] & SubsetLoad))
        continue;
      // The function's own frame (a spilled bound): no callee writes it.
      int M = K.memOperandIndex(L.Instrs[J].Opcode);
      const Operand &Base = L.Instrs[J].Ops[M];
      bool Frame = Base.isReg() && Base.Reg == K.reg("RSP");
      S.CtrlReadsCallWrittenMemory |= !Frame;
    }
  }
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
    S.NumOther += !(B & (SubsetLoad | SubsetStore | SubsetFP | SubsetDiv |
                         SubsetCtrl | SubsetAddr | SubsetBranch | SubsetCall));
  }
  return S;
}
