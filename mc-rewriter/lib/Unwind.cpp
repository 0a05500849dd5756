//===- Unwind.cpp - The input's unwind and exception tables ---------------===//
//
// Part of decan. See Unwind.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/Unwind.h"
#include "decan/Rewriter/Binary.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/BinaryFormat/ELF.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace decan::rewriter;

namespace {

/// Reads one pointer of DWARF EH encoding \p Enc at \p Off (advanced);
/// \p FieldAddr is the field's address, for pc-relative encodings.
bool readEncoded(ArrayRef<uint8_t> D, uint64_t &Off, uint8_t Enc,
                 uint64_t FieldAddr, uint64_t &Out) {
  auto Fixed = [&](unsigned N, bool Signed) {
    if (Off + N > D.size())
      return false;
    uint64_t V = 0;
    for (unsigned K = 0; K < N; ++K)
      V |= uint64_t(D[Off + K]) << (8 * K);
    if (Signed && N < 8 && ((V >> (8 * N - 1)) & 1))
      V |= ~uint64_t(0) << (8 * N);
    Off += N;
    Out = V;
    return true;
  };
  auto Leb = [&](bool Signed) {
    uint64_t V = 0;
    unsigned Shift = 0;
    while (Off < D.size() && Shift < 64) {
      uint8_t B = D[Off++];
      V |= uint64_t(B & 0x7f) << Shift;
      Shift += 7;
      if (!(B & 0x80)) {
        if (Signed && Shift < 64 && (B & 0x40))
          V |= ~uint64_t(0) << Shift;
        Out = V;
        return true;
      }
    }
    return false;
  };
  bool OK = false;
  switch (Enc & 0x0f) {
  case 0x0:
  case 0x4:
    OK = Fixed(8, false);
    break;
  case 0x1:
    OK = Leb(false);
    break;
  case 0x2:
    OK = Fixed(2, false);
    break;
  case 0x3:
    OK = Fixed(4, false);
    break;
  case 0x9:
    OK = Leb(true);
    break;
  case 0xa:
    OK = Fixed(2, true);
    break;
  case 0xb:
    OK = Fixed(4, true);
    break;
  case 0xc:
    OK = Fixed(8, true);
    break;
  default:
    return false;
  }
  if (OK && (Enc & 0x70) == 0x10) // pcrel
    Out += FieldAddr;
  return OK;
}

constexpr uint8_t Uleb = 0x01, Sleb = 0x09, Omit = 0xff;

} // namespace

const CieInfo *EhFrame::cie(uint64_t Off) const {
  auto It = std::lower_bound(Cies.begin(), Cies.end(), Off,
                             [](const std::pair<uint64_t, CieInfo> &C,
                                uint64_t O) { return C.first < O; });
  return It != Cies.end() && It->first == Off ? &It->second : nullptr;
}

EhFrame decan::rewriter::parseEhFrame(ArrayRef<uint8_t> D, uint64_t Addr) {
  EhFrame Out;
  struct CieEnc {
    uint8_t R = 0, L = Omit;
    bool Z = false, P = false;
  };
  std::map<uint64_t, CieEnc> Encs;
  auto U32 = [&](uint64_t O) {
    return uint32_t(D[O]) | uint32_t(D[O + 1]) << 8 | uint32_t(D[O + 2]) << 16 |
           uint32_t(D[O + 3]) << 24;
  };
  uint64_t Off = 0;
  while (Off + 8 <= D.size()) {
    uint64_t EntryOff = Off;
    uint32_t Len = U32(Off);
    if (Len == 0 || Len == 0xffffffff)
      break; // terminator, or 64-bit DWARF (not used for x86-64 EH)
    uint64_t Start = Off + 4, End = Start + Len;
    if (End > D.size() || Len < 4)
      break;
    ArrayRef<uint8_t> E = D.slice(0, End);
    uint32_t Id = U32(Start);
    uint64_t P = Start + 4;
    if (Id == 0) {
      // CIE: version, augmentation, code/data alignment, return register.
      if (P >= End)
        break;
      uint8_t Version = D[P++];
      std::string Aug;
      while (P < End && D[P] && Aug.size() < 16)
        Aug.push_back(char(D[P++]));
      ++P;
      CieInfo C;
      CieEnc Enc;
      uint64_t DataAlign = 0;
      bool OK = P < End && readEncoded(E, P, Uleb, 0, C.CodeAlign) &&
                readEncoded(E, P, Sleb, 0, DataAlign);
      C.DataAlign = int64_t(DataAlign);
      if (OK && Version == 1)
        OK = P < End && ((C.ReturnColumn = D[P++]), true);
      else if (OK)
        OK = readEncoded(E, P, Uleb, 0, C.ReturnColumn);
      uint64_t AugEnd = P;
      if (OK && !Aug.empty() && Aug[0] == 'z') {
        uint64_t AugLen;
        OK = readEncoded(E, P, Uleb, 0, AugLen) && AugLen <= End - P;
        AugEnd = OK ? P + AugLen : End;
        Enc.Z = true;
        for (size_t K = 1; OK && K < Aug.size(); ++K) {
          if (P >= End) {
            OK = false;
          } else if (Aug[K] == 'R') {
            Enc.R = D[P++];
          } else if (Aug[K] == 'L') {
            Enc.L = D[P++];
          } else if (Aug[K] == 'P') {
            uint8_t PE = D[P++];
            Enc.P = true;
            OK = readEncoded(E, P, PE & 0x7f, Addr + P, C.Personality);
            C.PersonalityEnc = PE;
          } else if (Aug[K] != 'S' && Aug[K] != 'B') {
            break; // unknown augmentation: the rest cannot be read
          }
        }
      } else if (OK && !Aug.empty()) {
        OK = false; // an augmentation without its length: cannot be read
      }
      if (OK) {
        Encs[EntryOff] = Enc;
        C.InstrBegin = AugEnd;
        C.InstrEnd = End;
        Out.Cies.push_back({EntryOff, C});
      }
    } else if (Id <= Start) {
      auto It = Encs.find(Start - Id);
      uint64_t Begin, Range;
      if (It != Encs.end() &&
          readEncoded(E, P, It->second.R, Addr + P, Begin) &&
          readEncoded(E, P, It->second.R & 0x0f, 0, Range) && Range > 0 &&
          Range < (uint64_t(1) << 32) && Begin + Range > Begin) {
        FdeInfo F;
        F.Begin = Begin;
        F.End = Begin + Range;
        F.Addr = Addr + EntryOff;
        F.Cie = Start - Id;
        F.HasPersonality = It->second.P;
        F.InstrBegin = F.InstrEnd = End;
        uint64_t AugLen = 0;
        bool OK = true;
        if (It->second.Z)
          OK = readEncoded(E, P, Uleb, 0, AugLen) && AugLen <= End - P;
        if (OK) {
          uint64_t Q = P, Lsda = 0;
          if (It->second.L != Omit && AugLen &&
              readEncoded(E, Q, It->second.L & 0x7f, Addr + Q, Lsda))
            F.Lsda = Lsda;
          F.InstrBegin = P + AugLen;
        }
        Out.Fdes.push_back(F);
      }
    }
    Off = End;
  }
  std::sort(
      Out.Fdes.begin(), Out.Fdes.end(),
      [](const FdeInfo &A, const FdeInfo &B) { return A.Begin < B.Begin; });
  return Out;
}

UnwindTables::UnwindTables(const BinaryImage &Bin) : Bin(Bin) {
  const auto &EF = Bin.object().getELFFile();
  if (auto Phdrs = EF.program_headers()) {
    for (const auto &P : *Phdrs)
      if (P.p_type == ELF::PT_GNU_EH_FRAME)
        HdrAddr = P.p_vaddr;
  } else {
    consumeError(Phdrs.takeError());
  }
  auto Secs = EF.sections();
  if (!Secs) {
    consumeError(Secs.takeError());
    return;
  }
  for (const auto &Sec : *Secs) {
    auto Name = EF.getSectionName(Sec);
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name != ".eh_frame" || Sec.sh_type == ELF::SHT_NOBITS)
      continue;
    auto Bytes = EF.getSectionContents(Sec);
    if (!Bytes) {
      consumeError(Bytes.takeError());
      continue;
    }
    Frame.assign(Bytes->begin(), Bytes->end());
    FrameAddr = Sec.sh_addr;
    Parsed = parseEhFrame(Frame, FrameAddr);
    break;
  }
}

const FdeInfo *UnwindTables::fdeFor(uint64_t Addr) const {
  return Parsed.fdeFor(Addr);
}

namespace {

/// Where a register is, in a row of the unwind table.
struct RegRule {
  enum Kind { Same, Undefined, AtCfa, InReg } K = Same;
  int64_t Off = 0;  ///< AtCfa: CFA + Off
  uint64_t Reg = 0; ///< InReg
};

struct Row {
  uint64_t CfaReg = 7;
  int64_t CfaOff = 8;
  std::map<uint64_t, RegRule> Regs;
};

/// Runs CFI instructions \p D up to the row that covers \p Target (when
/// \p Loc is given, advancing from it); false for what this reader does
/// not follow (expressions).
bool runCfi(ArrayRef<uint8_t> D, const CieInfo &C, Row &R, const Row *Initial,
            uint64_t *Loc, uint64_t Target) {
  std::vector<Row> Stack;
  uint64_t P = 0, A, B;
  auto Uleb128 = [&](uint64_t &V) { return readEncoded(D, P, Uleb, 0, V); };
  auto Advance = [&](uint64_t Delta) {
    if (!Loc)
      return false;
    *Loc += Delta * C.CodeAlign;
    return *Loc > Target; // the row before the advance covers Target
  };
  auto Fixed = [&](unsigned N, uint64_t &V) {
    return readEncoded(D, P, N == 1 ? 0 : N == 2 ? 0x2 : 0x3, 0, V);
  };
  while (P < D.size()) {
    uint8_t Op = D[P++];
    uint8_t High = Op & 0xc0, Low = Op & 0x3f;
    if (High == dwarf::DW_CFA_advance_loc) {
      if (Advance(Low))
        return true;
      continue;
    }
    if (High == dwarf::DW_CFA_offset) {
      if (!Uleb128(A))
        return false;
      R.Regs[Low] = {RegRule::AtCfa, int64_t(A) * C.DataAlign, 0};
      continue;
    }
    if (High == dwarf::DW_CFA_restore) {
      if (Initial && Initial->Regs.count(Low))
        R.Regs[Low] = Initial->Regs.at(Low);
      else
        R.Regs.erase(Low);
      continue;
    }
    switch (Op) {
    case dwarf::DW_CFA_nop:
      break;
    case dwarf::DW_CFA_advance_loc1:
      if (P + 1 > D.size())
        return false;
      if (Advance(D[P++]))
        return true;
      break;
    case dwarf::DW_CFA_advance_loc2:
    case dwarf::DW_CFA_advance_loc4:
      if (!Fixed(Op == dwarf::DW_CFA_advance_loc2 ? 2 : 4, A))
        return false;
      if (Advance(A & (Op == dwarf::DW_CFA_advance_loc2 ? 0xffff : 0xffffffff)))
        return true;
      break;
    case dwarf::DW_CFA_def_cfa:
      if (!Uleb128(R.CfaReg) || !Uleb128(A))
        return false;
      R.CfaOff = int64_t(A);
      break;
    case dwarf::DW_CFA_def_cfa_sf:
      if (!Uleb128(R.CfaReg) || !readEncoded(D, P, Sleb, 0, A))
        return false;
      R.CfaOff = int64_t(A) * C.DataAlign;
      break;
    case dwarf::DW_CFA_def_cfa_register:
      if (!Uleb128(R.CfaReg))
        return false;
      break;
    case dwarf::DW_CFA_def_cfa_offset:
      if (!Uleb128(A))
        return false;
      R.CfaOff = int64_t(A);
      break;
    case dwarf::DW_CFA_def_cfa_offset_sf:
      if (!readEncoded(D, P, Sleb, 0, A))
        return false;
      R.CfaOff = int64_t(A) * C.DataAlign;
      break;
    case dwarf::DW_CFA_offset_extended:
      if (!Uleb128(A) || !Uleb128(B))
        return false;
      R.Regs[A] = {RegRule::AtCfa, int64_t(B) * C.DataAlign, 0};
      break;
    case dwarf::DW_CFA_offset_extended_sf:
      if (!Uleb128(A) || !readEncoded(D, P, Sleb, 0, B))
        return false;
      R.Regs[A] = {RegRule::AtCfa, int64_t(B) * C.DataAlign, 0};
      break;
    case dwarf::DW_CFA_restore_extended:
      if (!Uleb128(A))
        return false;
      if (Initial && Initial->Regs.count(A))
        R.Regs[A] = Initial->Regs.at(A);
      else
        R.Regs.erase(A);
      break;
    case dwarf::DW_CFA_undefined:
      if (!Uleb128(A))
        return false;
      R.Regs[A] = {RegRule::Undefined, 0, 0};
      break;
    case dwarf::DW_CFA_same_value:
      if (!Uleb128(A))
        return false;
      R.Regs[A] = {RegRule::Same, 0, 0};
      break;
    case dwarf::DW_CFA_register:
      if (!Uleb128(A) || !Uleb128(B))
        return false;
      R.Regs[A] = {RegRule::InReg, 0, B};
      break;
    case dwarf::DW_CFA_remember_state:
      if (Stack.size() > 64)
        return false;
      Stack.push_back(R);
      break;
    case dwarf::DW_CFA_restore_state:
      if (Stack.empty())
        return false;
      R = Stack.back();
      Stack.pop_back();
      break;
    case dwarf::DW_CFA_GNU_args_size:
      if (!Uleb128(A))
        return false;
      break;
    default:
      return false; // expressions, val_offset, vendor operations
    }
  }
  return true;
}

void putUleb(std::string &S, uint64_t V) {
  do {
    uint8_t B = V & 0x7f;
    V >>= 7;
    S.push_back(char(B | (V ? 0x80 : 0)));
  } while (V);
}

void putSleb(std::string &S, int64_t V) {
  bool More = true;
  while (More) {
    uint8_t B = V & 0x7f;
    V >>= 7;
    More = !((V == 0 && !(B & 0x40)) || (V == -1 && (B & 0x40)));
    S.push_back(char(B | (More ? 0x80 : 0)));
  }
}

} // namespace

std::optional<std::string> UnwindTables::ruleAt(uint64_t Addr,
                                                std::string &Why) const {
  return cfiRuleAt(Frame, Parsed, Addr, Why);
}

const FdeInfo *EhFrame::fdeFor(uint64_t Addr) const {
  auto It = std::upper_bound(
      Fdes.begin(), Fdes.end(), Addr,
      [](uint64_t A, const FdeInfo &X) { return A < X.Begin; });
  if (It == Fdes.begin())
    return nullptr;
  --It;
  return Addr < It->End ? &*It : nullptr;
}

std::optional<std::string> decan::rewriter::cfiRuleAt(ArrayRef<uint8_t> Frame,
                                                      const EhFrame &Parsed,
                                                      uint64_t Addr,
                                                      std::string &Why) {
  const FdeInfo *F = Parsed.fdeFor(Addr);
  if (!F) {
    Why = "no unwind information (FDE) covers it";
    return std::nullopt;
  }
  const CieInfo *C = Parsed.cie(F->Cie);
  if (!C || C->InstrEnd > Frame.size() || F->InstrEnd > Frame.size() ||
      C->InstrBegin > C->InstrEnd || F->InstrBegin > F->InstrEnd) {
    Why = "its unwind information cannot be read";
    return std::nullopt;
  }
  ArrayRef<uint8_t> All = Frame;
  Row R;
  if (!runCfi(All.slice(C->InstrBegin, C->InstrEnd - C->InstrBegin), *C, R,
              nullptr, nullptr, 0)) {
    Why = "its unwind rule uses DWARF expressions";
    return std::nullopt;
  }
  Row Initial = R;
  uint64_t Loc = F->Begin;
  if (!runCfi(All.slice(F->InstrBegin, F->InstrEnd - F->InstrBegin), *C, R,
              &Initial, &Loc, Addr)) {
    Why = "its unwind rule uses DWARF expressions";
    return std::nullopt;
  }
  // Re-encoded for data alignment -8.
  std::string S;
  S.push_back(char(dwarf::DW_CFA_def_cfa_sf));
  putUleb(S, R.CfaReg);
  if (R.CfaOff % 8) {
    S.clear();
    S.push_back(char(dwarf::DW_CFA_def_cfa));
    putUleb(S, R.CfaReg);
    if (R.CfaOff < 0) {
      Why = "its CFA is below a register";
      return std::nullopt;
    }
    putUleb(S, uint64_t(R.CfaOff));
  } else {
    putSleb(S, R.CfaOff / -8);
  }
  for (const auto &[Reg, Rule] : R.Regs) {
    switch (Rule.K) {
    case RegRule::Same:
      break;
    case RegRule::Undefined:
      S.push_back(char(dwarf::DW_CFA_undefined));
      putUleb(S, Reg);
      break;
    case RegRule::AtCfa:
      if (Rule.Off % 8) {
        Why = "a register is saved at an unaligned offset";
        return std::nullopt;
      }
      S.push_back(char(dwarf::DW_CFA_offset_extended_sf));
      putUleb(S, Reg);
      putSleb(S, Rule.Off / -8);
      break;
    case RegRule::InReg:
      S.push_back(char(dwarf::DW_CFA_register));
      putUleb(S, Reg);
      putUleb(S, Rule.Reg);
      break;
    }
  }
  return S;
}

std::optional<std::pair<uint8_t, uint64_t>>
UnwindTables::personalityAt(uint64_t Addr) const {
  const FdeInfo *F = fdeFor(Addr);
  if (!F || !F->Lsda)
    return std::nullopt;
  const CieInfo *C = Parsed.cie(F->Cie);
  if (!C || C->PersonalityEnc == Omit)
    return std::nullopt;
  return std::make_pair(C->PersonalityEnc, C->Personality);
}

CallLanding UnwindTables::landingFor(uint64_t ReturnAddr,
                                     uint64_t &LandingPad) const {
  const FdeInfo *F = fdeFor(ReturnAddr - 1);
  if (!F || !F->Lsda)
    return CallLanding::NoTable;
  // .gcc_except_table's header, then the call-site table (the Itanium
  // C++ ABI's LSDA, as GCC and LLVM write it).
  ArrayRef<uint8_t> D = Bin.dataFrom(F->Lsda);
  uint64_t P = 0, V, LPStart = F->Begin;
  if (P >= D.size())
    return CallLanding::Unreadable;
  uint8_t LPEnc = D[P++];
  if (LPEnc != Omit && !readEncoded(D, P, LPEnc & 0x7f, F->Lsda + P, LPStart))
    return CallLanding::Unreadable;
  if (P >= D.size())
    return CallLanding::Unreadable;
  uint8_t TTEnc = D[P++];
  if (TTEnc != Omit && !readEncoded(D, P, Uleb, 0, V))
    return CallLanding::Unreadable;
  if (P >= D.size())
    return CallLanding::Unreadable;
  uint8_t CSEnc = D[P++];
  uint64_t CSLen;
  if (!readEncoded(D, P, Uleb, 0, CSLen) || CSLen > D.size() - P)
    return CallLanding::Unreadable;
  uint64_t End = P + CSLen, Ip = ReturnAddr - 1;
  ArrayRef<uint8_t> T = D.slice(0, End);
  while (P < End) {
    uint64_t Start, Len, LP, Action;
    if (!readEncoded(T, P, CSEnc, 0, Start) ||
        !readEncoded(T, P, CSEnc, 0, Len) || !readEncoded(T, P, CSEnc, 0, LP) ||
        !readEncoded(T, P, Uleb, 0, Action))
      return CallLanding::Unreadable;
    if (Ip < F->Begin + Start)
      break; // sorted by start
    if (Ip < F->Begin + Start + Len) {
      if (!LP)
        return CallLanding::Through;
      LandingPad = LPStart + LP;
      return CallLanding::Handler;
    }
  }
  return CallLanding::Terminates;
}
