//===- Variants.cpp - The decan variant rules ----------------------------===//
//
// Part of decan. See decan/InstrKnowledge/Variants.h and docs/variants.md.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Variants.h"

#include "Dataflow.h"
#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Verifier.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
using namespace decan;

const char *decan::variantName(Variant V) {
  return decan_variant_name(static_cast<unsigned>(V));
}

decan_store_policy decan::storePolicy(Variant V) {
  switch (V) {
  case Variant::REF:
    return DECAN_STORE_KEPT; // the real loop
  case Variant::LS:
  case Variant::NO_DIV:
    // A store the next iteration reloads goes to a scratch cell; the policy
    // names what happens to the others.
    return DECAN_STORE_AS_LOAD;
  case Variant::DL1:
    return DECAN_STORE_TO_SCRATCH;
  case Variant::FP:
  case Variant::CTRL:
    return DECAN_STORE_DELETED;
  }
  return DECAN_STORE_KEPT;
}

Expected<unsigned> decan::loopBytes(const X86Knowledge &K, const LoopBody &L) {
  unsigned Sum = 0;
  for (const Instr &I : L.Instrs) {
    Expected<unsigned> S = K.sizeOf(I);
    if (!S)
      return S.takeError();
    Sum += *S;
  }
  // The assembler relaxes a back branch whose target is more than 128
  // bytes away to its rel32 form (jcc: 2 -> 6 bytes, jmp: 2 -> 5).
  if (Sum > 126)
    for (const LoopBody::Block &B : L.Blocks) {
      if (std::find(B.Succs.begin(), B.Succs.end(), 0u) == B.Succs.end())
        continue;
      for (unsigned I = B.End; I > B.Begin; --I) {
        const Instr &Br = L.Instrs[I - 1];
        if (Br.Size)
          break; // decoded: the real length is known
        StringRef N = K.opcodeName(Br.Opcode);
        if (N == "JCC_1" || N == "JMP_1") {
          Sum += N == "JCC_1" ? 4 : 3;
          break;
        }
      }
    }
  return Sum;
}

//===-- DL1 scratch layout
//-------------------------------------------------===//

/// Largest value of \p Reg at instruction \p I when every definition that
/// reaches it bounds it (zero extension of a byte or word, and with a
/// non-negative immediate); 0 when unknown.
static int64_t indexBound(const X86Knowledge &K, const LoopBody &L,
                          const ReachingDefs &RD, unsigned I, unsigned Reg) {
  int64_t Max = 0;
  bool Any = false;
  for (const RegRead *R : RD.readsOf(I)) {
    if (!K.regsOverlap(R->Reg, Reg))
      continue;
    for (auto [D, C] : R->Defs) {
      if (D == EntryDef)
        return 0;
      const Instr &In = L.Instrs[D];
      StringRef N = K.opcodeName(In.Opcode);
      // The definition must write the whole register (32-bit writes zero
      // the upper half).
      if (In.Ops.empty() || !In.Ops[0].isReg() || K.regBits(In.Ops[0].Reg) < 32)
        return 0;
      int64_t B = 0;
      if (N.starts_with("MOVZX") && N.ends_with("8"))
        B = 0xff;
      else if (N.starts_with("MOVZX") && N.ends_with("16"))
        B = 0xffff;
      else if (N.starts_with("AND") &&
               (N.ends_with("ri") || N.ends_with("ri8") ||
                N.ends_with("ri32")) &&
               In.Ops.back().isImm() && In.Ops.back().Imm >= 0)
        B = In.Ops.back().Imm;
      else
        return 0;
      Max = std::max(Max, B);
      Any = true;
    }
  }
  return Any ? Max : 0;
}

Expected<ScratchLayout> decan::layoutScratch(const X86Knowledge &K,
                                             const LoopBody &L,
                                             const LoopSubsets &S,
                                             unsigned Size) {
  ScratchLayout Out;
  Out.Offset.assign(L.Instrs.size(), -1);
  Out.How.assign(L.Instrs.size(), ScratchLayout::InPlace);
  Out.Mask.assign(L.Instrs.size(), 0);
  ReachingDefs RD(K, L);
  std::vector<bool> Affine = affineDefs(K, L, RD);
  // Region key: the array (base, index, scale, segment) and, for arrays
  // whose address moves, whether it holds the loads or the stores.
  struct Member {
    unsigned I;
    int64_t Disp, End; ///< bytes [Disp, End) relative to the array
  };
  std::map<std::string, std::vector<Member>> Regions;
  std::vector<std::string> Order;
  unsigned RIP = K.reg("RIP");
  auto DispOf = [](const Operand *Mem) -> int64_t {
    return Mem[3].Kind == Operand::Immediate ||
                   (Mem[3].Kind == Operand::Symbol && Mem[3].SymKey)
               ? Mem[3].Imm
               : 0;
  };
  for (unsigned I = 0; I < L.Instrs.size(); ++I) {
    unsigned B = S.Bits[I];
    if (!(B & (SubsetLoad | SubsetStore)) || (B & (SubsetCtrl | SubsetGather)))
      continue;
    const Instr &In = L.Instrs[I];
    int M = K.memOperandIndex(In.Opcode);
    const Operand *Mem = &In.Ops[M];
    if (Mem[0].isReg() && Mem[0].Reg == RIP)
      continue; // constants: already one L1-resident location
    unsigned Base = Mem[0].Reg, Index = Mem[2].Reg;
    bool BaseAff = affineAt(K, RD, Affine, I, Base);
    bool IdxAff = affineAt(K, RD, Affine, I, Index);
    int64_t Bound = 0, Mask = 0;
    if (!BaseAff)
      continue; // the address chain through loaded data stays as it is
    if (!IdxAff && !(Bound = indexBound(K, L, RD, I, Index))) {
      // No bound: the index will be masked into a quarter of the area.
      int64_t Scale = std::max<int64_t>(Mem[1].Imm, 1);
      Mask = 1;
      while (Scale * Mask * 2 <= (int64_t)Size / 4)
        Mask *= 2;
      Bound = --Mask;
    }
    std::string Key = (Twine(IdxAff ? "a"
                             : Mask ? "m"
                                    : "i") +
                       Twine(Base) + "," + Twine(Mem[1].Imm) + "," +
                       Twine(Index) + "," + Twine(Mem[4].Reg))
                          .str();
    if (Mem[3].Kind == Operand::Symbol)
      Key += Mem[3].SymKey ? ",key" + std::to_string(Mem[3].SymKey)
                           : ",sym" + std::to_string(I); // its own array
    bool Invariant = !RD.regWrittenInLoop(Base) && !RD.regWrittenInLoop(Index);
    if (!Invariant)
      Key += (B & SubsetStore) ? ",stores" : ",loads";
    auto [It, New] = Regions.try_emplace(Key);
    if (New)
      Order.push_back(Key);
    int64_t Disp = DispOf(Mem);
    int64_t W = std::max(K.memWidth(In), 1u);
    // An indexed access spans every index value up to the bound.
    int64_t Span = IdxAff ? W : Mem[1].Imm * Bound + W;
    It->second.push_back({I, Disp, Disp + Span});
    Out.How[I] = IdxAff ? ScratchLayout::Redirect
                 : Mask ? ScratchLayout::Masked
                        : ScratchLayout::Indexed;
    Out.Mask[I] = Mask;
  }
  int64_t Cursor = 0;
  for (const std::string &Key : Order) {
    std::vector<Member> &R = Regions[Key];
    std::stable_sort(R.begin(), R.end(), [](const Member &A, const Member &B) {
      return A.Disp < B.Disp;
    });
    // Clusters: accesses less than a line apart keep their relative offsets;
    // farther ones (stencil rows, far unrolled offsets) fold together.
    for (size_t C = 0; C < R.size();) {
      size_t E = C + 1;
      int64_t Lo = R[C].Disp, Hi = R[C].End;
      while (E < R.size() && R[E].Disp < Hi + 64)
        Hi = std::max(Hi, R[E++].End);
      // The line phase: REF's (the scratch area is line aligned), or the
      // one the strictest aligned access needs.
      int64_t Phase = ((Lo % 64) + 64) % 64;
      unsigned Align = 1;
      for (size_t J = C; J < E; ++J) {
        unsigned A = K.memAlignment(L.Instrs[R[J].I]);
        if (A > Align) {
          Align = A;
          Phase = ((-(R[J].Disp - Lo)) % 64 + 64) % 64;
        }
      }
      int64_t Start = (Cursor + 63 - Phase) / 64 * 64 + Phase;
      if (Start < Cursor)
        Start += 64;
      if (Hi - Lo + Phase > (int64_t)Size)
        return createStringError(
            inconvertibleErrorCode(),
            "accesses " + Twine(Lo) + ".." + Twine(Hi) + " of one array need " +
                Twine(Hi - Lo) + " bytes of scratch, more than " + Twine(Size));
      if (Start + (Hi - Lo) > (int64_t)Size) {
        // Past the window: fold back, lines may now be shared.
        Start = Phase;
        Out.Wrapped = true;
      }
      for (size_t J = C; J < E; ++J) {
        unsigned I = R[J].I;
        Out.Offset[I] = Out.How[I] == ScratchLayout::Redirect
                            ? Start + (R[J].Disp - Lo)
                            : Start - Lo; // the base register's offset
      }
      // The next cluster starts on a line of its own.
      Cursor = std::max<int64_t>(Cursor, (Start + (Hi - Lo) + 63) / 64 * 64);
      Out.BytesUsed = std::max<int64_t>(Out.BytesUsed, Start + (Hi - Lo));
      C = E;
    }
  }
  return Out;
}

namespace {
/// Failure of a rule: the variant is unavailable for this reason.
struct RuleError {
  std::string Msg;
};

class Builder {
public:
  Builder(const X86Knowledge &K, const LoopBody &Ref, const LoopSubsets &S,
          Variant V, const VariantOptions &Opts)
      : K(K), Ref(Ref), S(S), V(V), Opts(Opts), RD(K, Ref) {}

  VariantResult run();

private:
  enum class Act { Keep, Delete, Replace };
  /// \p IntoFree: load into a free register even when \p I has a
  /// destination (a deleted division keeps its destination's chain).
  bool asLoad(unsigned I, std::vector<Instr> &Out, std::string &Why,
              bool IntoFree = false);
  bool regForm(unsigned I, std::vector<Instr> &Out, std::string &Why);
  bool toScratch(unsigned I, int64_t Off, std::vector<Instr> &Out);
  /// Scratch cells (offsets) for store/load pairs one iteration apart.
  std::map<unsigned, int64_t> forwardingCells() const;
  /// Stores and loads of one object through other registers (a[i] and
  /// a[i - d]) that no cell takes: they go through one masked window.
  std::set<unsigned> maskedPairs(const std::map<unsigned, int64_t> &Cell) const;
  /// `lea addr, %t ; and $Mask, %t ; lea scratch+Off(%rip), %b` + the
  /// access at (%b,%t): the address folded into the window, so accesses
  /// that meet in REF meet there too.
  bool toScratchWindow(unsigned I, int64_t Off, int64_t Mask,
                       std::vector<Instr> &Out);
  /// `lea scratch+Off(%rip), %free` + the access through that base, the
  /// original index, scale and displacement: the address keeps its chain.
  bool toScratchIndexed(unsigned I, int64_t Off, std::vector<Instr> &Out,
                        llvm::function_ref<bool(unsigned)> Gone,
                        int64_t Mask = 0);
  Instr mk(unsigned I, unsigned Opcode) const {
    Instr N;
    N.Opcode = Opcode;
    N.Id = I;
    N.Unchanged = false;
    return N;
  }
  unsigned sized(unsigned Reg, unsigned Bytes) const;
  /// A GPR the variant may overwrite at instruction \p I: the base register
  /// of \p I's memory operand when the loop never writes it, it is not live
  /// out and every instruction that reads it uses it only as the base of a
  /// memory operand that \p Gone says the variant removes or redirects;
  /// else a free register; 0 when none. Both front ends see the same base,
  /// so they pick the same register even where the plugin has no free one.
  unsigned clobberableGPR(unsigned I,
                          llvm::function_ref<bool(unsigned)> Gone) const;
  /// True when the flags written at instruction \p I would be overwritten
  /// before any read, in its block (instructions with a memory operand do
  /// not count as writers: variants may delete them).
  bool flagsDeadAfter(unsigned I) const;
  bool flagsFreeBefore(unsigned I) const;
  Instr maskInto(unsigned I, unsigned T, int64_t Mask) const;
  Instr scratchBase(unsigned I, unsigned Reg, int64_t Off) const;

  const X86Knowledge &K;
  const LoopBody &Ref;
  const LoopSubsets &S;
  Variant V;
  const VariantOptions &Opts;
  ReachingDefs RD;
};
} // namespace

/// The register of \p Reg's family that is \p Bytes wide (GPR: sub/super
/// register; vector: XMM/YMM/ZMM of the same number).
unsigned Builder::sized(unsigned Reg, unsigned Bytes) const {
  if (K.isVector(Reg)) {
    StringRef P = Bytes <= 16 ? "XMM" : Bytes == 32 ? "YMM" : "ZMM";
    return K.reg((P + Twine(K.regNumber(Reg))).str());
  }
  if (!K.isGPR(Reg))
    return 0;
  const MCRegisterInfo &MRI = K.regInfo();
  // Walk to the 64-bit register, then down to the wanted width.
  unsigned Top = Reg;
  for (MCPhysReg Sup : MRI.superregs_inclusive(Reg))
    if (K.regBits(Sup) == 64)
      Top = Sup;
  if (K.regBits(Top) == Bytes * 8)
    return Top;
  for (MCPhysReg Sub : MRI.subregs(Top))
    if (K.regBits(Sub) == Bytes * 8 &&
        MRI.getEncodingValue(Sub) == MRI.getEncodingValue(Top))
      return Sub;
  return 0;
}

unsigned Builder::clobberableGPR(unsigned I,
                                 function_ref<bool(unsigned)> Gone) const {
  const Instr &In = Ref.Instrs[I];
  int M = K.memOperandIndex(In.Opcode);
  unsigned Base = M >= 0 && In.Ops[M].isReg() ? In.Ops[M].Reg : 0;
  bool OK = Base && K.isGPR(Base) && K.regBits(Base) == 64 &&
            !RD.regWrittenInLoop(Base);
  for (unsigned R : Ref.LiveOuts)
    OK &= !K.regsOverlap(R, Base);
  for (unsigned J = 0; OK && J < Ref.Instrs.size(); ++J) {
    const Instr &X = Ref.Instrs[J];
    int MJ = K.memOperandIndex(X.Opcode);
    bool Reads = false;
    for (const RegRead *R : RD.readsOf(J))
      Reads |= K.regsOverlap(R->Reg, Base);
    if (!Reads)
      continue;
    // Only as a base, of an access the variant takes away.
    OK = MJ >= 0 && (S.Bits[J] & (SubsetLoad | SubsetStore)) &&
         X.Ops[MJ].isReg() && X.Ops[MJ].Reg == Base && Gone(J);
    for (unsigned O = 0; OK && O < X.Ops.size(); ++O)
      OK &= (int)O == MJ || !X.Ops[O].isReg() ||
            !K.regsOverlap(X.Ops[O].Reg, Base);
  }
  if (OK)
    return Base;
  for (unsigned R : Ref.FreeRegs)
    if (K.isGPR(R))
      return sized(R, 8);
  return 0;
}

bool Builder::flagsDeadAfter(unsigned I) const {
  unsigned Flags = K.reg("EFLAGS");
  for (const LoopBody::Block &B : Ref.Blocks) {
    if (I < B.Begin || I >= B.End)
      continue;
    for (unsigned J = I + 1; J < B.End; ++J) {
      for (const RegRead *R : RD.readsOf(J))
        if (K.regsOverlap(R->Reg, Flags))
          return false;
      if (K.memOperandIndex(Ref.Instrs[J].Opcode) >= 0)
        continue;
      for (auto [W, U] : RD.writesOf(J))
        if (K.regsOverlap(W, Flags))
          return true;
    }
  }
  return false;
}

/// Pure load of the same address and width. Load-ops load into their
/// destination; stores and read-modify-write ops into a free register.
bool Builder::asLoad(unsigned I, std::vector<Instr> &Out, std::string &Why,
                     bool IntoFree) {
  const Instr &In = Ref.Instrs[I];
  const MCInstrDesc &D = K.instrInfo().get(In.Opcode);
  StringRef N = K.opcodeName(In.Opcode);
  int M = K.memOperandIndex(In.Opcode);
  unsigned W = K.memWidth(In);
  if (!W) {
    Why = "unknown access width of " + N.str();
    return false;
  }
  // AVX masked stores (vmaskmovpd %ymm, %ymm, (mem)) become the masked
  // load of the same mask: lanes the mask excludes may be unmapped.
  if (N.contains("MASKMOV") && N.ends_with("mr")) {
    unsigned LdOp = K.opcode((N.drop_back(2) + "rm").str());
    unsigned MaskReg = In.Ops[M + 5].isReg() ? In.Ops[M + 5].Reg : 0;
    unsigned Data = In.Ops.size() > (unsigned)M + 6 && In.Ops[M + 6].isReg()
                        ? In.Ops[M + 6].Reg
                        : 0;
    if (!LdOp || !MaskReg || !Data) {
      Why = "no masked load for " + N.str();
      return false;
    }
    for (unsigned R : Ref.FreeRegs)
      if (K.isVector(R) && K.regNumber(R) < 16) {
        Instr L = mk(I, LdOp);
        L.MemWidth = W;
        L.Ops.push_back(Operand::reg(sized(R, K.regBits(Data) / 8)));
        L.Ops.push_back(Operand::reg(MaskReg));
        for (int J = 0; J < 5; ++J)
          L.Ops.push_back(In.Ops[M + J]);
        Out = {L};
        return true;
      }
    Why = "no free register to load into for " + N.str();
    return false;
  }
  unsigned Mask = 0;
  bool StoreForm = K.classify(In.Opcode) & SubsetStore;
  for (unsigned J = D.getNumDefs(); J < In.Ops.size(); ++J)
    if ((J < (unsigned)M || J >= (unsigned)M + 5) && In.Ops[J].isReg() &&
        K.isMask(In.Ops[J].Reg))
      Mask = In.Ops[J].Reg;
  // A masked store becomes a zero-masking load with the same mask: masked
  // lanes may be unmapped, and no register is merged into.
  char MaskKind = !Mask ? 0 : (StoreForm || N.contains("kz")) ? 'z' : 'k';
  unsigned Elem = (N.contains("PD") || N.contains("Q"))    ? 64
                  : (N.contains("W") && !N.contains("PS")) ? 16
                  : (N.contains("B") && !N.contains("PS")) ? 8
                                                           : 32;
  std::vector<unsigned> Cands;
  bool HasDef = D.getNumDefs() > 0 && In.Ops[0].isReg() &&
                (K.isVector(In.Ops[0].Reg) || K.isGPR(In.Ops[0].Reg)) &&
                !(K.classify(In.Opcode) & SubsetStore);
  if (IntoFree) {
    // A free register: the destination keeps its value (bridged).
    bool VecDst = HasDef && K.isVector(In.Ops[0].Reg);
    for (unsigned R : Ref.FreeRegs)
      if (VecDst ? K.isVector(R) : K.isGPR(R))
        if (unsigned Sz = sized(R, W))
          Cands.push_back(Sz);
    if (!Cands.empty())
      HasDef = false;
  }
  if (!Cands.empty()) {
    // IntoFree found one.
  } else if (HasDef) {
    Cands.push_back(In.Ops[0].Reg);
  } else {
    // Data register of a store: a vector store loads into a free vector
    // register, a GPR store into a free GPR (writing the data register
    // itself would add a dependence its later readers did not have).
    bool VecData = false;
    for (unsigned J = M + 5; J < In.Ops.size(); ++J)
      if (In.Ops[J].isReg() && K.isVector(In.Ops[J].Reg))
        VecData = true;
    for (unsigned J = 0; J < (unsigned)M; ++J)
      if (In.Ops[J].isReg() && K.isVector(In.Ops[J].Reg))
        VecData = true;
    // An implicit GPR result (div's EAX) is written anyway: load there.
    if (!VecData && !StoreForm)
      for (MCPhysReg R : D.implicit_defs())
        if (K.isGPR(R) && K.regBits(R) >= W * 8)
          if (unsigned Sz = sized(R, W))
            Cands.push_back(Sz);
    for (unsigned R : Ref.FreeRegs)
      if (VecData ? K.isVector(R) : K.isGPR(R))
        if (unsigned Sz = sized(R, W))
          Cands.push_back(Sz);
    // No free register: one that is dead here (written again before any
    // read in this block), else the data register itself (the thesis's
    // operand-order change). The verifier refuses the variant if that
    // adds a dependence.
    if (Cands.empty()) {
      const LoopBody::Block *Blk = nullptr;
      for (const LoopBody::Block &B : Ref.Blocks)
        if (I >= B.Begin && I < B.End)
          Blk = &B;
      std::vector<unsigned> ReadSoFar;
      for (unsigned J = I + 1; Blk && J < Blk->End; ++J) {
        for (const RegRead *RR : RD.readsOf(J))
          ReadSoFar.push_back(RR->Reg);
        for (auto [R, U] : RD.writesOf(J)) {
          bool ReadBefore = false;
          for (unsigned X : ReadSoFar)
            ReadBefore |= K.regsOverlap(X, R);
          if (!ReadBefore && (VecData ? K.isVector(R) : K.isGPR(R)) &&
              K.regBits(R) >= W * 8 && !(S.Bits[J] & SubsetNop))
            if (unsigned Sz = sized(R, W))
              if (std::find(Cands.begin(), Cands.end(), Sz) == Cands.end())
                Cands.push_back(Sz);
        }
      }
      for (unsigned J = M + 5; J < In.Ops.size(); ++J)
        if (In.Ops[J].isReg() && In.Ops[J].Reg &&
            (VecData ? K.isVector(In.Ops[J].Reg) : K.isGPR(In.Ops[J].Reg)))
          if (unsigned Sz = sized(In.Ops[J].Reg, W))
            Cands.push_back(Sz);
    }
  }
  if (Cands.empty()) {
    Why = "no free register to load into for " + N.str();
    return false;
  }
  std::vector<Instr> Best;
  unsigned BestSize = ~0u;
  for (unsigned Dst : Cands) {
    unsigned LdReg = HasDef ? sized(Dst, W <= 16 ? 16 : W) : Dst;
    if (K.isGPR(Dst))
      LdReg = sized(Dst, W);
    if (!LdReg)
      continue;
    unsigned Op =
        K.pureLoadOpcode(LdReg, W, MaskKind, Elem, !N.starts_with("V"));
    if (!Op)
      continue;
    Instr L = mk(I, Op);
    L.MemWidth = W;
    L.Ops.push_back(Operand::reg(LdReg));
    if (MaskKind == 'k')
      L.Ops.push_back(Operand::reg(LdReg));
    if (MaskKind)
      L.Ops.push_back(Operand::reg(Mask));
    for (int J = 0; J < 5; ++J)
      L.Ops.push_back(In.Ops[M + J]);
    Expected<unsigned> Sz = K.sizeOf(L);
    if (!Sz) {
      consumeError(Sz.takeError());
      continue;
    }
    if (*Sz < BestSize) {
      BestSize = *Sz;
      Best = {L};
    }
  }
  if (Best.empty()) {
    Why = "no pure load of " + std::to_string(W) + " bytes for " + N.str();
    return false;
  }
  Out = std::move(Best);
  return true;
}

/// Register form of a load-op: the memory source becomes the other source
/// register (never the destination: thesis Table 6.1); a unary op reads its
/// own destination, set just before by a dependency-free idiom.
bool Builder::regForm(unsigned I, std::vector<Instr> &Out, std::string &Why) {
  const Instr &In = Ref.Instrs[I];
  const MCInstrDesc &D = K.instrInfo().get(In.Opcode);
  StringRef N = K.opcodeName(In.Opcode);
  int M = K.memOperandIndex(In.Opcode);
  static const std::pair<StringRef, StringRef> Sfx[] = {
      {"rmbkz", "rrkz"},    {"rmbk", "rrk"},
      {"rmb", "rr"},        {"rmkz", "rrkz"},
      {"rmk", "rrk"},       {"rmi", "rri"},
      {"rm_Int", "rr_Int"}, {"rm", "rr"},
      {"mi", "ri"},         {"m_Int", "r_Int"},
      {"mbkz", "rkz"},      {"mbk", "rk"},
      {"mb", "r"},          {"mkz", "rkz"},
      {"mk", "rk"},         {"m", "r"}};
  unsigned NewOp = 0;
  for (auto [From, To] : Sfx)
    if (N.ends_with(From)) {
      NewOp = K.opcode((N.drop_back(From.size()) + To).str());
      if (NewOp)
        break;
    }
  if (!NewOp) {
    Why = "no register form of " + N.str();
    return false;
  }
  const MCInstrDesc &ND = K.instrInfo().get(NewOp);
  unsigned Src = 0;
  for (unsigned J = D.getNumDefs(); J < (unsigned)M; ++J)
    if (In.Ops[J].isReg() && In.Ops[J].Reg && !K.isMask(In.Ops[J].Reg))
      Src = In.Ops[J].Reg;
  std::vector<Instr> Pre;
  bool Div = S.Bits[I] & SubsetDiv;
  if (!Src) {
    if (D.getNumDefs() == 0 || !In.Ops[0].isReg()) {
      Why = "no register source for " + N.str();
      return false;
    }
    Src = In.Ops[0].Reg;
    for (Instr X : K.idiom(Src, Div ? (K.isGPR(Src) ? IdiomValue::NonZero
                                                    : IdiomValue::Normal)
                                    : IdiomValue::Zero)) {
      X.Id = I;
      Pre.push_back(X);
    }
    if (Pre.empty()) {
      Why = "no idiom for the source of " + N.str();
      return false;
    }
  }
  // The register operand's class may be narrower (shift counts, scalar
  // sources): use the XMM of the same number when needed. A GPR source
  // (int -> FP conversions) reads a free GPR that a dependency-free idiom
  // sets just before.
  if (M < (int)ND.getNumOperands()) {
    int16_t RC = ND.operands()[M].RegClass;
    if (RC >= 0 && (unsigned)RC < K.regInfo().getNumRegClasses() &&
        !K.regInfo().getRegClass(RC).contains(Src)) {
      const MCRegisterClass &Cls = K.regInfo().getRegClass(RC);
      unsigned X = K.xmmOf(Src);
      unsigned G = 0;
      for (unsigned R : Ref.FreeRegs)
        for (unsigned Bytes : {4u, 8u})
          if (!G && K.isGPR(R))
            if (unsigned Sz = sized(R, Bytes); Sz && Cls.contains(Sz))
              G = Sz;
      if (X && Cls.contains(X)) {
        Src = X;
      } else if (G) {
        Pre.clear();
        // The idiom goes right before I: I's own flag reads count too.
        bool FlagsDead = flagsDeadAfter(I);
        for (const RegRead *RR : RD.readsOf(I))
          FlagsDead &= !K.regsOverlap(RR->Reg, K.reg("EFLAGS"));
        for (Instr Y : K.idiom(G, Div ? IdiomValue::NonZero : IdiomValue::Zero,
                               FlagsDead)) {
          Y.Id = I;
          Pre.push_back(Y);
        }
        Src = G;
      } else {
        Why = "register class mismatch for the register form of " + N.str();
        return false;
      }
    }
  }
  Instr R = mk(I, NewOp);
  for (int J = 0; J < M; ++J)
    R.Ops.push_back(In.Ops[J]);
  R.Ops.push_back(Operand::reg(Src));
  for (unsigned J = M + 5; J < In.Ops.size(); ++J)
    R.Ops.push_back(In.Ops[J]);
  if (!ND.isVariadic() && R.Ops.size() != ND.getNumOperands()) {
    Why = "operand mismatch for the register form of " + N.str();
    return false;
  }
  // `xor (mem), %edi` -> `xor %edi, %edi` would be a zero idiom, cutting
  // the chain through EDI: read a free register set by an idiom instead.
  if (K.isDependencyBreaking(R)) {
    unsigned G = 0;
    if (K.isGPR(Src)) {
      // FP removes every access outside the CTRL slice.
      if (unsigned C = clobberableGPR(
              I, [&](unsigned J) { return !(S.Bits[J] & SubsetCtrl); }))
        G = sized(C, K.regBits(Src) / 8);
    } else {
      for (unsigned F : Ref.FreeRegs)
        if (!G && K.isVector(F))
          G = sized(F, K.regBits(Src) / 8);
    }
    if (!G) {
      Why = "no free register for the register form of " + N.str();
      return false;
    }
    bool FlagsDead = flagsDeadAfter(I);
    for (const RegRead *RR : RD.readsOf(I))
      FlagsDead &= !K.regsOverlap(RR->Reg, K.reg("EFLAGS"));
    Pre.clear();
    for (Instr Y :
         K.idiom(G,
                 Div ? (K.isGPR(G) ? IdiomValue::NonZero : IdiomValue::Normal)
                     : IdiomValue::Zero,
                 FlagsDead)) {
      Y.Id = I;
      Pre.push_back(Y);
    }
    R.Ops[M] = Operand::reg(G);
  }
  Out = std::move(Pre);
  Out.push_back(R);
  return true;
}

bool Builder::toScratch(unsigned I, int64_t Off, std::vector<Instr> &Out) {
  const Instr &In = Ref.Instrs[I];
  int M = K.memOperandIndex(In.Opcode);
  Instr R = In;
  R.Unchanged = false;
  R.Size = 0; // a new encoding: ask the size oracle
  R.MemWidth = K.memWidth(In);
  R.Ops[M] = Operand::reg(K.reg("RIP"));
  R.Ops[M + 1] = Operand::imm(1);
  R.Ops[M + 2] = Operand::reg(0);
  R.Ops[M + 3] = Operand::scratch(Off);
  R.Ops[M + 4] = Operand::reg(0);
  Out = {R};
  return true;
}

/// True when instruction I may be preceded by an `and`: the flags it would
/// write are dead there (I neither reads them nor leaves them to a reader).
bool Builder::flagsFreeBefore(unsigned I) const {
  unsigned Flags = K.reg("EFLAGS");
  bool Reads = false, Writes = false;
  for (const RegRead *R : RD.readsOf(I))
    Reads |= K.regsOverlap(R->Reg, Flags);
  for (auto [W, U] : RD.writesOf(I))
    Writes |= K.regsOverlap(W, Flags);
  return !Reads && (Writes || flagsDeadAfter(I));
}

/// `and $Mask, T` (32-bit: zero-extends), for instruction I's place.
Instr Builder::maskInto(unsigned I, unsigned T, int64_t Mask) const {
  Instr And = mk(I, K.opcode("AND32ri"));
  unsigned T32 = sized(T, 4);
  And.Ops = {Operand::reg(T32), Operand::reg(T32), Operand::imm(Mask)};
  return And;
}

/// `lea Off(%rip), Reg` into the loop's scratch area.
Instr Builder::scratchBase(unsigned I, unsigned Reg, int64_t Off) const {
  Instr Lea = mk(I, K.opcode("LEA64r"));
  Lea.Ops = {Operand::reg(Reg), Operand::reg(K.reg("RIP")), Operand::imm(1),
             Operand::reg(0),   Operand::scratch(Off),      Operand::reg(0)};
  return Lea;
}

bool Builder::toScratchIndexed(unsigned I, int64_t Off, std::vector<Instr> &Out,
                               function_ref<bool(unsigned)> Gone,
                               int64_t Mask) {
  unsigned Base = clobberableGPR(I, Gone);
  if (!Base)
    return false;
  const Instr &In = Ref.Instrs[I];
  int M = K.memOperandIndex(In.Opcode);
  std::vector<Instr> Pre;
  if (Mask) {
    // idx & Mask into a free register: `and` writes the flags.
    unsigned T = 0;
    for (unsigned R : Ref.FreeRegs)
      if (!T && K.isGPR(R) && !K.regsOverlap(R, Base))
        T = sized(R, 8);
    unsigned Idx = In.Ops[M + 2].isReg() ? In.Ops[M + 2].Reg : 0;
    if (!T || !Idx || K.regBits(Idx) != 64 || !flagsFreeBefore(I))
      return false;
    Instr Mov = mk(I, K.opcode("MOV64rr"));
    Mov.Ops = {Operand::reg(T), Operand::reg(Idx)};
    Pre = {Mov, maskInto(I, T, Mask)};
  }
  Instr Lea = scratchBase(I, Base, Off);
  Instr R = In;
  R.Unchanged = false;
  R.Size = 0;
  R.MemWidth = K.memWidth(In);
  const Operand &D = In.Ops[M + 3];
  R.Ops[M] = Operand::reg(Base);
  R.Ops[M + 3] = Operand::imm(D.Kind == Operand::Immediate ||
                                      (D.Kind == Operand::Symbol && D.SymKey)
                                  ? D.Imm
                                  : 0);
  if (Mask)
    R.Ops[M + 2] = Pre[0].Ops[0];
  Out = std::move(Pre);
  Out.push_back(Lea);
  Out.push_back(R);
  return true;
}

/// LS and NO_DIV turn stores into loads. A store that the next iteration
/// reloads (a[i] = f(a[i-1])) would take the chain through memory with it:
/// instead, the pair goes to one scratch cell, stored in iteration i and
/// loaded in i+1, as in REF (distance 1, same bytes: the values are even the
/// same). Longer distances stay a bound (reported by the verifier).
std::map<unsigned, int64_t> Builder::forwardingCells() const {
  std::map<unsigned, int64_t> Cell;
  unsigned N = Ref.Instrs.size();
  int64_t Next = 0;
  auto Plain = [&](unsigned I) {
    unsigned B = S.Bits[I];
    return (B & SubsetPureMem) && !(B & (SubsetCtrl | SubsetGather));
  };
  for (unsigned St = 0; St < N; ++St) {
    if (!Plain(St) || !(S.Bits[St] & SubsetStore) || Cell.count(St))
      continue;
    for (unsigned Ld = 0; Ld < N; ++Ld) {
      if (!Plain(Ld) || !(S.Bits[Ld] & SubsetLoad) ||
          (S.Bits[Ld] & SubsetStore) || Cell.count(Ld) ||
          K.memWidth(Ref.Instrs[Ld]) != K.memWidth(Ref.Instrs[St]))
        continue;
      int MS = K.memOperandIndex(Ref.Instrs[St].Opcode);
      int ML = K.memOperandIndex(Ref.Instrs[Ld].Opcode);
      const Operand *A = &Ref.Instrs[St].Ops[MS], *B = &Ref.Instrs[Ld].Ops[ML];
      bool OneArray = A[0] == B[0] && A[1] == B[1] && A[2] == B[2] &&
                      A[4] == B[4] && A[3].Kind == Operand::Immediate &&
                      B[3].Kind == Operand::Immediate;
      if (!OneArray)
        continue;
      ArrayDistance AD = arrayDistance(K, Ref, RD, St, Ld);
      if (!AD.Known || !AD.Step || AD.Delta + AD.Step != 0 || Ld > St)
        continue;
      Cell[St] = Cell[Ld] = Next;
      Next += 64;
      break;
    }
  }
  return Cell;
}

std::set<unsigned>
Builder::maskedPairs(const std::map<unsigned, int64_t> &Cell) const {
  std::set<unsigned> Out;
  unsigned N = Ref.Instrs.size();
  auto Plain = [&](unsigned I) {
    unsigned B = S.Bits[I];
    return (B & SubsetPureMem) && !(B & (SubsetCtrl | SubsetGather)) &&
           !Cell.count(I) && Ref.Instrs[I].Object;
  };
  for (unsigned St = 0; St < N; ++St) {
    if (!Plain(St) || !(S.Bits[St] & SubsetStore))
      continue;
    for (unsigned Ld = 0; Ld < N; ++Ld) {
      if (!Plain(Ld) || !(S.Bits[Ld] & SubsetLoad) ||
          (S.Bits[Ld] & SubsetStore) ||
          Ref.Instrs[Ld].Object != Ref.Instrs[St].Object)
        continue;
      // Same registers and known steps: the exact analysis knows whether
      // they meet (a cell took them if they do).
      const Operand
          *A = &Ref.Instrs[St].Ops[K.memOperandIndex(Ref.Instrs[St].Opcode)],
          *B = &Ref.Instrs[Ld].Ops[K.memOperandIndex(Ref.Instrs[Ld].Opcode)];
      bool SameRegs = A[0] == B[0] && A[1] == B[1] && A[2] == B[2] &&
                      A[4] == B[4] && A[3].Kind == B[3].Kind;
      if (SameRegs && arrayDistance(K, Ref, RD, St, Ld).Known)
        continue;
      Out.insert(St);
      Out.insert(Ld);
    }
  }
  return Out;
}

bool Builder::toScratchWindow(unsigned I, int64_t Off, int64_t Mask,
                              std::vector<Instr> &Out) {
  const Instr &In = Ref.Instrs[I];
  int M = K.memOperandIndex(In.Opcode);
  const Operand *Mem = &In.Ops[M];
  unsigned T = 0, B = 0;
  for (unsigned R : Ref.FreeRegs)
    if (K.isGPR(R)) {
      if (!T)
        T = sized(R, 8);
      else if (!B)
        B = sized(R, 8);
    }
  if (!T || !B || !flagsFreeBefore(I) || Mem[3].Kind != Operand::Immediate ||
      (Mem[4].isReg() && Mem[4].Reg) ||
      (Mem[0].isReg() && Mem[0].Reg == K.reg("RIP")))
    return false;
  Instr Addr = mk(I, K.opcode("LEA64r"));
  Addr.Ops = {Operand::reg(T), Mem[0], Mem[1], Mem[2], Mem[3], Operand::reg(0)};
  Instr And = maskInto(I, T, Mask);
  Instr Base = scratchBase(I, B, Off);
  Instr R = In;
  R.Unchanged = false;
  R.Size = 0;
  R.MemWidth = K.memWidth(In);
  R.Object = 0;
  R.Ops[M] = Operand::reg(B);
  R.Ops[M + 1] = Operand::imm(1);
  R.Ops[M + 2] = Operand::reg(T);
  R.Ops[M + 3] = Operand::imm(0);
  Out = {Addr, And, Base, R};
  return true;
}

VariantResult Builder::run() {
  VariantResult Res;
  Res.V = V;
  Res.Body = Ref;
  auto Fail = [&](VariantStatus St, std::string Why) {
    Res.Status = St;
    Res.Reason = std::move(Why);
    Res.Body = Ref;
    Res.Bytes = Res.RefBytes;
    return Res;
  };
  // REF is the real loop: always available, even when a byte size is
  // unknown (inline assembly); its size is then 0 ("unknown").
  Expected<unsigned> RB = loopBytes(K, Ref);
  if (RB)
    Res.RefBytes = Res.Bytes = *RB;
  else
    consumeError(RB.takeError());
  if (V == Variant::REF) {
    Res.Status = VariantStatus::OK;
    return Res;
  }
  unsigned N = Ref.Instrs.size();
  for (unsigned I = 0; I < N; ++I)
    if (S.Bits[I] & SubsetUnsupported)
      return Fail(VariantStatus::Unsupported,
                  "unsupported instruction " +
                      K.opcodeName(Ref.Instrs[I].Opcode).str() +
                      " in the loop");
  if (!Res.RefBytes)
    return Fail(VariantStatus::Unsupported, "loop size unknown");
  if (S.CtrlReadsStoredMemory)
    return Fail(VariantStatus::Unsupported,
                "an exit condition reads memory the loop may write");
  bool AnyMem = false;
  for (unsigned I = 0; I < N; ++I)
    AnyMem |=
        (S.Bits[I] & (SubsetLoad | SubsetStore)) && !(S.Bits[I] & SubsetCtrl);
  if (V == Variant::NO_DIV && S.NumDiv == 0)
    return Fail(VariantStatus::Empty, "no division or square root");
  if (V == Variant::DL1 && !AnyMem)
    return Fail(VariantStatus::Empty, "no memory access to redirect");
  // Integer division traps on a zero divisor or an overflowing quotient.
  // FP (deleted loads) and DL1 (loads from the zero-filled scratch area)
  // change loaded values, so an integer division fed by a load the variant
  // changes could kill the program: refuse instead.
  if (V == Variant::FP || V == Variant::DL1)
    for (unsigned I = 0; I < N; ++I) {
      if (!(S.Bits[I] & SubsetDiv) || (S.Bits[I] & SubsetFP) ||
          (S.Bits[I] & SubsetCtrl))
        continue;
      std::vector<unsigned> Work{I};
      std::set<unsigned> Seen;
      while (!Work.empty()) {
        unsigned X = Work.back();
        Work.pop_back();
        if (!Seen.insert(X).second)
          continue;
        if ((S.Bits[X] & SubsetLoad) && !(S.Bits[X] & SubsetCtrl))
          return Fail(VariantStatus::Unsupported,
                      "integer division " +
                          K.opcodeName(Ref.Instrs[I].Opcode).str() +
                          " of values loaded in the loop: changed values "
                          "could trap");
        for (const RegRead *R : RD.readsOf(X))
          for (auto [D, C] : R->Defs)
            if (D != EntryDef)
              Work.push_back(D);
      }
    }
  ScratchLayout SL;
  if (V == Variant::DL1) {
    Expected<ScratchLayout> L = layoutScratch(K, Ref, S, Opts.ScratchSize);
    if (!L)
      return Fail(VariantStatus::Unsupported, toString(L.takeError()));
    SL = std::move(*L);
  }

  unsigned InPlace = 0; ///< DL1: accesses left in place (data addresses)
  std::map<unsigned, int64_t> Cell;
  std::set<unsigned> Window;
  if ((V == Variant::LS || V == Variant::NO_DIV) && Opts.ScratchInAllVariants) {
    Cell = forwardingCells();
    Window = maskedPairs(Cell);
  }
  // Phase 1: what each instruction becomes.
  std::vector<Act> Acts(N, Act::Keep);
  std::vector<std::vector<Instr>> Repl(N);
  for (unsigned I = 0; I < N; ++I) {
    unsigned B = S.Bits[I];
    if (B & (SubsetCtrl | SubsetBranch | SubsetNop))
      continue;
    bool Mem = B & (SubsetLoad | SubsetStore);
    std::string Why;
    bool OK = true;
    if (Cell.count(I)) {
      Acts[I] = Act::Replace;
      toScratch(I, Cell[I], Repl[I]);
      continue;
    }
    // The window: a quarter of the area, in its second half (cells use
    // the first lines).
    if (Window.count(I) && toScratchWindow(I, Opts.ScratchSize / 2,
                                           Opts.ScratchSize / 4 - 1, Repl[I])) {
      Acts[I] = Act::Replace;
      continue;
    }
    switch (V) {
    case Variant::REF:
      break;
    case Variant::LS:
      if (Mem) {
        if (B & SubsetGather) {
          if (B & SubsetStore)
            return Fail(VariantStatus::Unsupported,
                        "scatter " + K.opcodeName(Ref.Instrs[I].Opcode).str() +
                            " has no load form");
        } else if ((B & SubsetPureMem) && !(B & SubsetStore)) {
        } else if ((B & SubsetAddr) && !(B & SubsetStore)) {
          // Its arithmetic computes an address (crc = t[crc ^ p[i]] ^ ...):
          // part of the address slice, which LS keeps.
        } else {
          Acts[I] = Act::Replace;
          OK = asLoad(I, Repl[I], Why);
        }
      } else if (!(B & SubsetAddr)) {
        Acts[I] = Act::Delete;
      }
      break;
    case Variant::FP:
      if (Mem) {
        if ((B & (SubsetPureMem | SubsetStore))) {
          Acts[I] = Act::Delete;
        } else {
          Acts[I] = Act::Replace;
          OK = regForm(I, Repl[I], Why);
        }
      }
      break;
    case Variant::NO_DIV:
      if (B & SubsetDiv) {
        if (Mem) {
          // The load stays (same address and width, into a free register);
          // the division's result is bridged like a deleted one's.
          Acts[I] = Act::Replace;
          OK = asLoad(I, Repl[I], Why, /*IntoFree=*/true);
        } else {
          Acts[I] = Act::Delete;
        }
      } else if (B & SubsetStore) {
        if (B & SubsetGather)
          return Fail(VariantStatus::Unsupported, "scatter in the loop");
        Acts[I] = Act::Replace;
        OK = asLoad(I, Repl[I], Why);
      }
      break;
    case Variant::DL1:
      if (Mem) {
        if (B & SubsetGather)
          return Fail(VariantStatus::Unsupported,
                      "gather/scatter " +
                          K.opcodeName(Ref.Instrs[I].Opcode).str() +
                          ": a vector index cannot address the scratch area");
        if (SL.How[I] == ScratchLayout::Redirect) {
          Acts[I] = Act::Replace;
          OK = toScratch(I, SL.Offset[I], Repl[I]);
        } else if ((SL.How[I] == ScratchLayout::Indexed ||
                    SL.How[I] == ScratchLayout::Masked) &&
                   toScratchIndexed(
                       I, SL.Offset[I], Repl[I],
                       [&](unsigned J) {
                         return SL.How[J] == ScratchLayout::Indexed ||
                                SL.How[J] == ScratchLayout::Masked;
                       },
                       SL.Mask[I])) {
          Acts[I] = Act::Replace;
        } else if (B & SubsetStore) {
          return Fail(VariantStatus::Unsupported,
                      "store " + K.opcodeName(Ref.Instrs[I].Opcode).str() +
                          " to an address computed from loaded data cannot "
                          "be redirected to the scratch area");
        } else {
          ++InPlace; // its address chain stays, and so does its access
        }
      }
      break;
    case Variant::CTRL:
      Acts[I] = Act::Delete;
      break;
    }
    if (!OK)
      return Fail(VariantStatus::Unsupported, Why);
  }

  // Phase 2: values of deleted instructions that kept ones still read are
  // bridged (below); those that feed a div/sqrt and come from nowhere get a
  // normal number (thesis 6.5.3).
  std::set<unsigned> DivFeed;
  {
    std::vector<unsigned> Work;
    for (unsigned I = 0; I < N; ++I)
      // Divisions that stay divisions (kept, or FP's register form).
      if ((S.Bits[I] & SubsetDiv) &&
          (Acts[I] == Act::Keep ||
           (V == Variant::FP && Acts[I] == Act::Replace)))
        Work.push_back(I);
    while (!Work.empty()) {
      unsigned I = Work.back();
      Work.pop_back();
      if (!DivFeed.insert(I).second)
        continue;
      if (Acts[I] == Act::Delete && !(S.Bits[I] & SubsetDiv))
        continue;
      for (const RegRead *R : RD.readsOf(I))
        for (auto [D, C] : R->Defs)
          if (D != EntryDef)
            Work.push_back(D);
    }
  }
  // Registers of deleted instructions that the variant still reads get a
  // bridge: the deleted instruction's pass-through input (nothing to do when
  // it reads the register itself, else a register copy), or, when it has
  // none (a load, a conversion from another register file), a
  // dependency-free idiom: what it read is the variant's target.
  std::map<unsigned, std::vector<unsigned>> IdiomRegs;
  std::map<unsigned, std::vector<std::pair<unsigned, unsigned>>> Copies;
  std::set<std::pair<unsigned, unsigned>> Bridged;
  struct Reader {
    unsigned I;
    SmallVector<unsigned, 8> Reads; ///< registers its variant form reads
    bool Bridge;                    ///< reads for a bridge of I
  };
  std::vector<Reader> Work;
  for (unsigned I = 0; I < N; ++I) {
    if (Acts[I] == Act::Delete)
      continue;
    Reader R{I, {}, false};
    if (Acts[I] == Act::Keep)
      K.regsRead(Ref.Instrs[I], R.Reads);
    else
      for (const Instr &X : Repl[I])
        K.regsRead(X, R.Reads);
    Work.push_back(std::move(R));
  }
  while (!Work.empty()) {
    Reader Rd = Work.back();
    Work.pop_back();
    unsigned I = Rd.I;
    for (const RegRead *R : RD.readsOf(I)) {
      bool StillRead = false;
      for (unsigned X : Rd.Reads)
        StillRead |= K.regsOverlap(X, R->Reg);
      if (!StillRead)
        continue;
      for (auto [D, C] : R->Defs) {
        if (D == EntryDef || Acts[D] == Act::Keep)
          continue;
        // Does D's variant form still write this unit?
        SmallVector<unsigned, 4> W;
        for (const Instr &X : Repl[D])
          K.regsWritten(X, W);
        bool Writes = false;
        for (unsigned X : W)
          for (MCRegUnit U : K.regInfo().regunits(X))
            Writes |= static_cast<unsigned>(U) == R->Unit;
        if (Writes)
          continue;
        unsigned Reg = 0;
        for (auto [WR, U] : RD.writesOf(D))
          if (U == R->Unit)
            Reg = WR;
        if (!Reg || !Bridged.insert({D, Reg}).second)
          continue;
        PassThrough P = K.passThrough(Ref.Instrs[D], Reg);
        if (P.Kind == PassThrough::Keep) {
          // D reads what it writes (tied, merged flags): its deletion
          // leaves the previous value, for any kind of register.
          Work.push_back({D, {Reg}, true});
          continue;
        }
        if (!K.isVector(Reg) && !K.isGPR(Reg))
          return Fail(VariantStatus::Unsupported,
                      K.regName(Reg).str() + " written by " +
                          K.opcodeName(Ref.Instrs[D].Opcode).str() + " (#" +
                          std::to_string(D) + ", removed) is read by " +
                          K.opcodeName(Ref.Instrs[I].Opcode).str() + " (#" +
                          std::to_string(I) + ")");
        // A bridge into a div/sqrt passes the div-operand rule on.
        if (Rd.Bridge && DivFeed.count(I))
          DivFeed.insert(D);
        if (P.Kind == PassThrough::Copy) {
          Copies[D].push_back({Reg, P.Src});
          Work.push_back({D, {P.Src}, true});
        } else {
          IdiomRegs[D].push_back(Reg);
        }
      }
    }
  }
  for (unsigned D = 0; D < N; ++D) {
    if (!IdiomRegs.count(D) && !Copies.count(D))
      continue;
    std::vector<Instr> Bridges;
    const std::vector<unsigned> &Regs = IdiomRegs[D];
    for (unsigned Reg : Regs) {
      // One idiom per register: drop a narrower alias of a wider one.
      bool Covered = false;
      for (unsigned Other : Regs)
        if (Other != Reg && K.regsOverlap(Other, Reg) &&
            K.regBits(Other) > K.regBits(Reg))
          Covered = true;
      if (Covered)
        continue;
      bool Feeds = DivFeed.count(D);
      IdiomValue IV = !Feeds         ? IdiomValue::Zero
                      : K.isGPR(Reg) ? IdiomValue::NonZero
                                     : IdiomValue::Normal;
      std::vector<Instr> X = K.idiom(Reg, IV, flagsDeadAfter(D));
      if (X.empty())
        return Fail(VariantStatus::Unsupported,
                    "no dependency-free idiom for " + K.regName(Reg).str());
      Bridges.insert(Bridges.end(), X.begin(), X.end());
    }
    for (auto [Reg, Src] : Copies[D]) {
      std::vector<Instr> X = K.copy(Reg, Src);
      if (X.empty())
        return Fail(VariantStatus::Unsupported,
                    "no register copy " + K.regName(Src).str() + " -> " +
                        K.regName(Reg).str() + " to bridge " +
                        K.opcodeName(Ref.Instrs[D].Opcode).str());
      Bridges.insert(Bridges.end(), X.begin(), X.end());
    }
    for (Instr &Y : Bridges) {
      Y.Id = D;
      Y.Stand = true;
    }
    if (Acts[D] == Act::Delete)
      Acts[D] = Act::Replace;
    // After the replacement: it reads the registers as REF left them.
    Repl[D].insert(Repl[D].end(), Bridges.begin(), Bridges.end());
  }

  // Phase 3: lengths. Aware layout pads each changed instruction to its REF
  // length; a replacement longer than the original borrows padding bytes
  // of other changed instructions so the loop keeps its size.
  std::vector<int> Pad(N, 0);
  int Growth = 0;
  bool Changed = false;
  for (unsigned I = 0; I < N; ++I) {
    if (Acts[I] == Act::Keep)
      continue;
    Changed = true;
    Expected<unsigned> Target = K.sizeOf(Ref.Instrs[I]);
    if (!Target)
      return Fail(VariantStatus::Unsupported, toString(Target.takeError()));
    int Produced = 0;
    for (const Instr &X : Repl[I]) {
      Expected<unsigned> Sz = K.sizeOf(X);
      if (!Sz)
        return Fail(VariantStatus::Unsupported, toString(Sz.takeError()));
      Produced += *Sz;
    }
    switch (Opts.Layout) {
    case LayoutMode::Aware:
      Pad[I] = (int)*Target - Produced;
      break;
    case LayoutMode::Nop1:
      Pad[I] = Repl[I].empty() ? 1 : 0;
      break;
    case LayoutMode::Unaware:
      Pad[I] = 0;
      break;
    }
  }
  if (!Changed)
    return Fail(VariantStatus::Empty, "nothing to transform");
  if (Opts.Layout == LayoutMode::Aware) {
    for (unsigned I = 0; I < N; ++I)
      if (Pad[I] < 0) {
        Growth += -Pad[I];
        Pad[I] = 0;
      }
    // Borrow from the largest pads first, keeping one byte where an
    // instruction vanished (its NOP keeps the front-end slot), then to 0.
    for (int Floor : {1, 0})
      for (bool Progress = true; Growth > 0 && Progress;) {
        Progress = false;
        int Best = -1;
        for (unsigned I = 0; I < N; ++I)
          if (Pad[I] > Floor && (Best < 0 || Pad[I] > Pad[Best]))
            Best = I;
        if (Best >= 0) {
          int Take = std::min(Growth, Pad[Best] - Floor);
          Pad[Best] -= Take;
          Growth -= Take;
          Progress = Take > 0;
        }
      }
  }

  // Phase 4: the body.
  LoopBody Out;
  Out.FreeRegs = Ref.FreeRegs;
  for (const LoopBody::Block &B : Ref.Blocks) {
    LoopBody::Block NB = B;
    NB.Begin = Out.Instrs.size();
    for (unsigned I = B.Begin; I < B.End; ++I) {
      if (Acts[I] == Act::Keep) {
        Out.Instrs.push_back(Ref.Instrs[I]);
        Out.Instrs.back().Id = I;
        continue;
      }
      for (const Instr &X : Repl[I])
        Out.Instrs.push_back(X);
      for (Instr &P : K.nops(Pad[I]))
        Out.Instrs.push_back(P);
    }
    NB.End = Out.Instrs.size();
    Out.Blocks.push_back(NB);
  }
  for (Instr &I : Out.Instrs)
    if (I.Padding)
      I.Id = NoId;
  Expected<unsigned> VB = loopBytes(K, Out);
  if (!VB)
    return Fail(VariantStatus::Unsupported, toString(VB.takeError()));
  if (Error E = verifyNoNewDependences(K, Ref, Out))
    return Fail(VariantStatus::Verifier, toString(std::move(E)));
  std::vector<DepEdge> LostMem;
  if (Error E = verifyKeptDependences(K, Ref, Out, &LostMem))
    return Fail(VariantStatus::Verifier, toString(std::move(E)));
  if (!LostMem.empty()) {
    Res.Bound = true;
    Res.BoundReason = "drops the " + describeEdge(K, LostMem.front()) +
                      " (stores are not kept): Sat is a lower bound";
  }
  Res.Body = std::move(Out);
  Res.Bytes = *VB;
  Res.Status = VariantStatus::OK;
  if (Growth > 0)
    Res.Reason = "loop grew by " + std::to_string(Growth) +
                 " bytes: replacements longer than what they replace";
  if (InPlace)
    Res.Reason += (Res.Reason.empty() ? "" : "; ") + std::to_string(InPlace) +
                  " access(es) at addresses computed from loaded data left in "
                  "place";
  if (SL.Wrapped)
    Res.Reason += (Res.Reason.empty() ? "" : "; ") +
                  std::string("more lines than the scratch area holds: some "
                              "share a line");
  return Res;
}

VariantResult decan::buildVariant(const X86Knowledge &K, const LoopBody &Ref,
                                  const LoopSubsets &S, Variant V,
                                  const VariantOptions &Opts) {
  LoopBody R = Ref;
  for (unsigned I = 0; I < R.Instrs.size(); ++I)
    R.Instrs[I].Id = I;
  Builder B(K, R, S, V, Opts);
  return B.run();
}
