//===- Idioms.cpp - The instructions variants add -------------------------===//
//
// Part of decan. See decan/InstrKnowledge/Knowledge.h. The X86Knowledge
// methods that make instructions rather than describe them: NOPs of each
// length, dependency-free idioms (a register given a value without reading
// it) and the opcode of a pure load of a given width into a register.
//
//===----------------------------------------------------------------------===//

#include "decan/InstrKnowledge/Knowledge.h"

#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCRegisterInfo.h"

using namespace llvm;
using namespace decan;

std::vector<Instr> X86Knowledge::nop(unsigned Bytes) const {
  std::vector<Instr> Out;
  auto Mk = [&](StringRef Name) {
    Instr I;
    I.Opcode = opcode(Name);
    I.Padding = true;
    I.Unchanged = false;
    return I;
  };
  auto Mem = [&](Instr &I, bool Index, int64_t Disp) {
    I.Ops = {Operand::reg(reg("RAX")), Operand::imm(1),
             Operand::reg(Index ? reg("RAX") : 0), Operand::imm(Disp),
             Operand::reg(0)};
  };
  if (Bytes == 0)
    return Out;
  if (Bytes == 1) {
    Out.push_back(Mk("NOOP"));
    return Out;
  }
  if (Bytes == 2) {
    Out.push_back(Mk("DATA16_PREFIX"));
    Out.push_back(Mk("NOOP"));
    return Out;
  }
  // 0F 1F /0 forms: 3 (no disp), 4 (disp8), 5 (SIB+disp8), 7 (disp32),
  // 8 (SIB+disp32); +1 with the 0x66 prefix (nopw).
  unsigned Extra = 0, Base = Bytes;
  if (Bytes > 9) {
    Extra = Bytes - 9;
    Base = 9;
  }
  for (unsigned P = 0; P < Extra; ++P)
    Out.push_back(Mk("DATA16_PREFIX"));
  bool W = Base == 6 || Base == 9;
  unsigned L = W ? Base - 1 : Base;
  Instr N = Mk(W ? "NOOPW" : "NOOPL");
  switch (L) {
  case 3:
    Mem(N, false, 0);
    break;
  case 4:
    Mem(N, false, 1);
    break;
  case 5:
    Mem(N, true, 1);
    break;
  case 7:
    Mem(N, false, 0x100);
    break;
  default: // 8
    Mem(N, true, 0x100);
    break;
  }
  Out.push_back(N);
  return Out;
}

std::vector<Instr> X86Knowledge::nops(unsigned Bytes) const {
  std::vector<Instr> Out;
  while (Bytes) {
    // 15-byte NOPs decode slowly on some cores: at most 11 per NOP.
    unsigned L = std::min(Bytes, 11u);
    if (Bytes - L > 0 && Bytes - L < 3 && L > 3)
      L = Bytes - 3; // avoid a trailing 1- or 2-byte NOP
    for (Instr &I : nop(L))
      Out.push_back(I);
    Bytes -= L;
  }
  return Out;
}

std::vector<Instr> X86Knowledge::idiom(unsigned Reg, IdiomValue V,
                                       bool FlagsDead) const {
  std::vector<Instr> Out;
  auto Mk = [&](StringRef Name, std::initializer_list<Operand> Ops) {
    Instr I;
    I.Opcode = opcode(Name);
    I.Ops.assign(Ops.begin(), Ops.end());
    I.Unchanged = false;
    Out.push_back(I);
  };
  auto R = [](unsigned X) { return Operand::reg(X); };
  if (isGPR(Reg)) {
    unsigned Bits = regBits(Reg);
    int64_t Val = V == IdiomValue::NonZero ? 3 : 0;
    if (Bits == 64) {
      // A 32-bit write zero-extends: the full register, no input.
      for (MCPhysReg S : MRI->subregs(Reg))
        if (GR32->contains(S))
          return idiom(S, V, FlagsDead);
      return {};
    }
    if (Bits == 32 && FlagsDead && V == IdiomValue::Zero) {
      Mk("XOR32rr", {R(Reg), R(Reg), R(Reg)});
      return Out;
    }
    Mk(Bits == 32   ? "MOV32ri"
       : Bits == 16 ? "MOV16ri"
                    : "MOV8ri",
       {R(Reg), Operand::imm(Val)});
    return Out;
  }
  if (!isVector(Reg))
    return {}; // mask and other registers: no dependency-free idiom
  unsigned Bits = regBits(Reg), Num = regNumber(Reg);
  bool EVEX = Num >= 16 || Bits == 512;
  if (EVEX && !HasAVX512)
    return {};
  StringRef Sfx = Bits == 128 ? "Z128" : Bits == 256 ? "Z256" : "Z";
  if (V == IdiomValue::Zero || V == IdiomValue::NonZero) {
    if (EVEX)
      Mk(("VPXORD" + Sfx + "rr").str(), {R(Reg), R(Reg), R(Reg)});
    else if (Bits == 256)
      Mk("VXORPSYrr", {R(Reg), R(Reg), R(Reg)});
    else if (HasAVX)
      Mk("VXORPSrr", {R(Reg), R(Reg), R(Reg)});
    else
      Mk("XORPSrr", {R(Reg), R(Reg), R(Reg)});
    return Out;
  }
  // Normal: all ones, then a logical right shift by 2 in each 32-bit lane:
  // 0x3FFFFFFF per lane = 1.99999988f, and 0x3FFFFFFF3FFFFFFF = 1.99999999
  // as a double: normal in every lane, for float, double and half alike.
  if (EVEX) {
    std::string Z = ("VPXORD" + Sfx + "rr").str();
    Mk(Z, {R(Reg), R(Reg), R(Reg)});
    Mk(("VPTERNLOGD" + Sfx + "rri").str(),
       {R(Reg), R(Reg), R(Reg), R(Reg), Operand::imm(0xff)});
    Mk(("VPSRLD" + Sfx + "ri").str(), {R(Reg), R(Reg), Operand::imm(2)});
  } else if (Bits == 256) {
    Mk("VPCMPEQDYrr", {R(Reg), R(Reg), R(Reg)});
    Mk("VPSRLDYri", {R(Reg), R(Reg), Operand::imm(2)});
  } else if (HasAVX) {
    Mk("VPCMPEQDrr", {R(Reg), R(Reg), R(Reg)});
    Mk("VPSRLDri", {R(Reg), R(Reg), Operand::imm(2)});
  } else {
    Mk("PCMPEQDrr", {R(Reg), R(Reg), R(Reg)});
    Mk("PSRLDri", {R(Reg), R(Reg), Operand::imm(2)});
  }
  for (const Instr &I : Out)
    if (I.Opcode == 0)
      return {};
  return Out;
}

unsigned X86Knowledge::pureLoadOpcode(unsigned Dst, unsigned Width,
                                      char MaskKind, unsigned ElemBits,
                                      bool Legacy) const {
  bool VEX = HasAVX && !Legacy;
  if (isGPR(Dst)) {
    if (MaskKind || regBits(Dst) != Width * 8)
      return 0;
    return opcode(("MOV" + Twine(Width * 8) + "rm").str());
  }
  if (!isVector(Dst))
    return 0;
  bool EVEX = regNumber(Dst) >= 16 || MaskKind || Width == 64;
  if (EVEX && !HasAVX512)
    return 0;
  std::string Name;
  StringRef MSfx = MaskKind == 'k' ? "k" : MaskKind == 'z' ? "kz" : "";
  if (Width == 4 || Width == 8) {
    StringRef T = Width == 4 ? "SS" : "SD";
    Name = EVEX  ? ("VMOV" + T + "Zrm" + MSfx).str()
           : VEX ? ("VMOV" + T + "rm").str()
                 : ("MOV" + T + "rm").str();
  } else if (Width == 16 || Width == 32 || Width == 64) {
    if (EVEX) {
      StringRef Mov = !MaskKind        ? "VMOVUPS"
                      : ElemBits == 64 ? "VMOVUPD"
                      : ElemBits == 32 ? "VMOVUPS"
                      : ElemBits == 16 ? "VMOVDQU16"
                                       : "VMOVDQU8";
      StringRef Sz = Width == 16 ? "Z128" : Width == 32 ? "Z256" : "Z";
      Name = (Mov + Sz + "rm" + MSfx).str();
    } else if (Width == 32) {
      Name = "VMOVUPSYrm";
    } else {
      Name = VEX ? "VMOVUPSrm" : "MOVUPSrm";
    }
  } else {
    return 0;
  }
  return opcode(Name);
}
