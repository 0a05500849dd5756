//===- Frames.cpp - Unwind rules of the new code: CIEs and FDEs -----------===//
//
// Part of decan. See Frames.h.
//
//===----------------------------------------------------------------------===//

#include "Frames.h"

#include <cstring>

using namespace decan::rewriter;

void DwarfOut::u32(uint32_t V) { S.append(reinterpret_cast<char *>(&V), 4); }

void DwarfOut::u64(uint64_t V) { S.append(reinterpret_cast<char *>(&V), 8); }

void DwarfOut::uleb(uint64_t V) {
  do {
    uint8_t B = V & 0x7f;
    V >>= 7;
    u8(B | (V ? 0x80 : 0));
  } while (V);
}

void DwarfOut::sleb(int64_t V) {
  for (bool More = true; More;) {
    uint8_t B = V & 0x7f;
    V >>= 7;
    More = !((V == 0 && !(B & 0x40)) || (V == -1 && (B & 0x40)));
    u8(B | (More ? 0x80 : 0));
  }
}

void DwarfOut::entry(llvm::function_ref<void()> Body) {
  size_t Start = S.size();
  u32(0);
  Body();
  while ((S.size() - Start) % 8)
    u8(0);
  uint32_t Len = S.size() - Start - 4;
  memcpy(&S[Start], &Len, 4);
}

size_t FrameWriter::cie(std::optional<std::pair<uint8_t, uint64_t>> Personality,
                        llvm::function_ref<void()> Initial) {
  size_t Off = S.size();
  O.entry([&] {
    O.u32(Eh ? 0 : 0xffffffff); // CIE id
    O.u8(1);                    // version
    if (!Eh)
      S.push_back('\0');
    else if (Personality)
      S.append("zPLR", 5);
    else
      S.append("zR", 3);
    O.uleb(1);  // code alignment
    O.sleb(-8); // data alignment
    O.u8(16);   // return address: rip
    if (!Eh) {
    } else if (Personality) {
      O.uleb(7);
      // pcrel sdata4, indirect when the original's is.
      O.u8((Personality->first & 0x80) | 0x1b);
      O.u32(uint32_t(int64_t(Personality->second) - int64_t(At + S.size())));
      O.u8(0x1b); // LSDA: pcrel sdata4
    } else {
      O.uleb(1);
    }
    if (Eh)
      O.u8(0x1b); // FDE pointers: pcrel sdata4
    Initial();
  });
  return Off;
}

void FrameWriter::fde(size_t CieOff, uint64_t Begin, uint64_t End, int64_t Lsda,
                      llvm::function_ref<void()> Body) {
  size_t Off = S.size();
  Fdes.push_back({Begin, At + Off});
  O.entry([&] {
    if (!Eh) {
      O.u32(uint32_t(CieOff)); // its CIE's offset in the section
      O.u64(Begin);
      O.u64(End - Begin);
      Body();
      return;
    }
    O.u32(uint32_t(S.size() - CieOff)); // back to the CIE
    O.u32(uint32_t(int64_t(Begin) - int64_t(At + S.size())));
    O.u32(uint32_t(End - Begin));
    if (Lsda >= 0) {
      O.uleb(4);
      O.u32(uint32_t(int64_t(At + Lsda) - int64_t(At + S.size())));
    } else {
      O.uleb(0);
    }
    Body();
  });
}

namespace {
/// DW_CFA_offset rip: the loop header + 1 the shared entry stored.
void defaultReturn(DwarfOut &O, const MeasuredFrameCFI &CFI) {
  O.u8(0x80 | 16); // DW_CFA_offset rip, at CFA - ReturnFromCFA
  O.uleb(CFI.ReturnFromCFA / 8);
}
} // namespace

size_t FrameWriter::measuredCie() {
  MeasuredFrameCFI CFI = measuredFrameCFI();
  return cie(std::nullopt, [&] {
    O.u8(0x0c); // DW_CFA_def_cfa rsp, FrameDelta
    O.uleb(7);
    O.uleb(CFI.FrameDelta);
    defaultReturn(O, CFI);
  });
}

void FrameWriter::measuredFde(size_t CieOff, const CodeBuffer &CB,
                              const PlannedLoop &P) {
  uint64_t B = CB.labelAddr(P.MeasuredBegin), E = CB.labelAddr(P.MeasuredEnd);
  if (E <= B)
    return;
  MeasuredFrameCFI CFI = measuredFrameCFI();
  fde(CieOff, B, E, -1, [&] {
    uint64_t Loc = B;
    auto Advance = [&](uint64_t To) {
      O.u8(0x04); // DW_CFA_advance_loc4
      O.u32(uint32_t(To - Loc));
      Loc = To;
    };
    for (const PlannedLoop::CallSite &C : P.MeasuredCalls) {
      uint64_t CallB = CB.labelAddr(C.Begin), CallE = CB.labelAddr(C.End);
      if (CallB < Loc || CallE > E || CallE <= CallB)
        continue;
      Advance(CallB);
      // DW_CFA_val_expression rip: [CFA - ReturnFromCFA] + delta (the
      // unwinder pushes the CFA first).
      std::string X;
      DwarfOut XO{X};
      XO.u8(0x11); // DW_OP_consts
      XO.sleb(-CFI.ReturnFromCFA);
      XO.u8(0x22); // DW_OP_plus
      XO.u8(0x06); // DW_OP_deref
      XO.u8(0x11); // DW_OP_consts
      XO.sleb(int64_t(C.ReturnAddr) - int64_t(P.L->Header + 1));
      XO.u8(0x22); // DW_OP_plus
      O.u8(0x16);
      O.uleb(16);
      O.uleb(X.size());
      S += X;
      Advance(CallE);
      defaultReturn(O, CFI);
    }
  });
}
