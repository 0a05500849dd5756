//===- RegionStubs.cpp - The code behind a rewritten copy's regions -------===//
//
// Part of decan. See RegionStubs.h.
//
//===----------------------------------------------------------------------===//

#include "RegionStubs.h"

#include "decan/Rewriter/LoopCopy.h"
#include "decan/abi.h"

#include "llvm/ADT/StringExtras.h"

#include <cstddef>
#include <cstring>
#include <map>

using namespace llvm;
using namespace decan::rewriter;

namespace {
using enum decan::X86Target::CondCode;

/// Region descriptor states (abi.h, `active`), as the plugin's stubs read
/// them: 1 every activation calls the runtime; 2 counting down to the next
/// timed activation; 3 a timed activation is open on the only thread and
/// `countdown` holds its nesting depth.
enum : int64_t { RegionEvery = 1, RegionCounting = 2, RegionOpen = 3 };

/// 64-byte multiple, >= 2688 (x87, SSE, AVX, AVX-512), as the dispatcher's.
constexpr int64_t XSaveSize = 2752;
/// The stub's own slots (rax, r11) below the red zone.
constexpr int64_t StubFrame = 128 + 16;

class RegionEmitter {
public:
  RegionEmitter(Asm &A, uint64_t DescsOff)
      : A(A), CB(A.CB), X86(A.X86), DescsOff(DescsOff), R11(A.X86.reg("R11")) {}

  void emitShared();
  void emitSite(const PlannedRegion &P, const RegionSite &S, unsigned Label);

private:
  CodeTarget field(const PlannedRegion &P, size_t Off) const {
    return CodeTarget::data(DescsOff + P.DescIndex * sizeof(decan_loop_desc) +
                            Off);
  }
  void callShared(const PlannedRegion &P, unsigned Shared);
  void enterTest(const PlannedRegion &P, bool FlagsLive);
  void leaveTest(const PlannedRegion &P, bool FlagsLive);
  void moved(const RegionSite &S, uint64_t Header, unsigned EnterPath);

  Asm &A;
  CodeBuffer &CB;
  const decan::X86Knowledge &X86;
  uint64_t DescsOff;
  unsigned R11;
  unsigned SharedEnter = 0, SharedLeave = 0;
};
} // namespace

/// The shared routine, entered by `call` with rax = the descriptor: saves
/// the flags, the caller-saved GPRs and the vector state (xsave), calls
/// the header's region_enter or region_leave (the entry point chosen sets
/// r11 to the field), restores everything. The stub keeps rax and r11.
void RegionEmitter::emitShared() {
  SharedEnter = CB.newLabel();
  SharedLeave = CB.newLabel();
  unsigned Body = CB.newLabel();
  CB.align(16);
  CB.bind(SharedEnter);
  A.leaRip(R11,
           CodeTarget::data(offsetof(decan_rewritten_header, region_enter)));
  CB.jmp(CodeTarget::label(Body));
  CB.bind(SharedLeave);
  A.leaRip(R11,
           CodeTarget::data(offsetof(decan_rewritten_header, region_leave)));
  CB.bind(Body);
  const unsigned Saved[] = {A.RCX,          A.RDX,         A.RSI,
                            A.RDI,          X86.reg("R8"), X86.reg("R9"),
                            X86.reg("R10"), A.R12};
  constexpr int64_t SaveBytes = 8 * std::size(Saved);
  A.simple(A.PUSHF);
  A.lea(A.RSP, A.RSP, -SaveBytes);
  for (unsigned K = 0; K < std::size(Saved); ++K)
    A.store(A.RSP, 8 * K, Saved[K]);
  A.movrr(A.RDI, A.RAX);
  A.movrr(A.R12, A.RSP);
  A.andImm(A.RSP, -64);
  A.lea(A.RSP, A.RSP, -XSaveSize);
  for (int K = 0; K < 8; ++K) // XSAVE leaves the header's reserved bytes
    A.storeImm(A.RSP, 512 + 8 * K, 0, false);
  A.xsaveLike(A.XSAVE, A.RSP);
  CB.inst(X86.createCallMem(R11, 0));
  A.xsaveLike(A.XRSTOR, A.RSP);
  A.movrr(A.RSP, A.R12);
  for (unsigned K = 0; K < std::size(Saved); ++K)
    A.load(Saved[K], A.RSP, 8 * K);
  A.lea(A.RSP, A.RSP, SaveBytes);
  A.simple(A.POPF);
  CB.inst(decan::X86Target::createInst(X86.ops().RET64));
}

/// Calls the shared routine \p Shared for \p P's descriptor; EFLAGS and
/// every register stay as they were (lea, mov and call leave the flags).
void RegionEmitter::callShared(const PlannedRegion &P, unsigned Shared) {
  A.lea(A.RSP, A.RSP, -StubFrame);
  A.store(A.RSP, 0, A.RAX);
  A.store(A.RSP, 8, R11);
  A.leaRip(A.RAX, field(P, 0));
  CB.call(CodeTarget::label(Shared));
  A.load(A.RAX, A.RSP, 0);
  A.load(R11, A.RSP, 8);
  A.lea(A.RSP, A.RSP, StubFrame);
}

/// switch (active) { case 0: break; case 3: ++countdown; break;
/// case 2: if (--countdown > 0) break; [[fallthrough]];
/// default: region_enter(desc); }
void RegionEmitter::enterTest(const PlannedRegion &P, bool FlagsLive) {
  CodeTarget Active = field(P, offsetof(decan_loop_desc, active));
  CodeTarget Countdown = field(P, offsetof(decan_loop_desc, countdown));
  unsigned Done = CB.newLabel(), NotNest = CB.newLabel(), Call = CB.newLabel();
  if (FlagsLive)
    A.pushFlagsBelowRedZone();
  A.cmpRipImm(Active, 0);
  CB.jcc(CC_E, CodeTarget::label(Done));
  A.cmpRipImm(Active, RegionOpen);
  CB.jcc(CC_NE, CodeTarget::label(NotNest));
  CB.instRip(X86.createIncMem32(X86.RIP, 0), Countdown);
  CB.jmp(CodeTarget::label(Done));
  CB.bind(NotNest);
  A.cmpRipImm(Active, RegionCounting);
  CB.jcc(CC_NE, CodeTarget::label(Call));
  A.decRip(Countdown);
  CB.jcc(CC_G, CodeTarget::label(Done));
  CB.bind(Call);
  callShared(P, SharedEnter);
  CB.bind(Done);
  if (FlagsLive)
    A.popFlagsBelowRedZone();
}

/// switch (active) { case 1: region_leave(desc); break;
/// case 3: if (--countdown == 0) region_leave(desc); break; }
void RegionEmitter::leaveTest(const PlannedRegion &P, bool FlagsLive) {
  CodeTarget Active = field(P, offsetof(decan_loop_desc, active));
  CodeTarget Countdown = field(P, offsetof(decan_loop_desc, countdown));
  unsigned Done = CB.newLabel(), NotOpen = CB.newLabel(), Call = CB.newLabel();
  if (FlagsLive)
    A.pushFlagsBelowRedZone();
  A.cmpRipImm(Active, RegionOpen);
  CB.jcc(CC_NE, CodeTarget::label(NotOpen));
  A.decRip(Countdown);
  CB.jcc(CC_NE, CodeTarget::label(Done));
  CB.jmp(CodeTarget::label(Call));
  CB.bind(NotOpen);
  A.cmpRipImm(Active, RegionEvery);
  CB.jcc(CC_NE, CodeTarget::label(Done));
  CB.bind(Call);
  callShared(P, SharedLeave);
  CB.bind(Done);
  if (FlagsLive)
    A.popFlagsBelowRedZone();
}

/// The instructions \p S's jump covers, position-dependent parts made
/// absolute; for an enter site, the edges to \p Header go to \p EnterPath.
void RegionEmitter::moved(const RegionSite &S, uint64_t Header,
                          unsigned EnterPath) {
  LoopCandidate One;
  One.Header = S.Patch;
  LoopBlock B;
  B.Start = S.Patch;
  B.Instrs = S.Moved;
  One.Blocks.push_back(std::move(B));
  auto To = [&](uint64_t Addr) {
    return S.Enter && Addr == Header ? CodeTarget::label(EnterPath)
                                     : CodeTarget::abs(Addr);
  };
  LoopCopy Copy = refCopy(X86, One);
  for (const CopyInst &CI : Copy.Blocks[0].Instrs) {
    if (CI.IsBranch) {
      CB.copiedBranch(CI.MI, To(CI.BranchTarget));
    } else if (CI.HasRip) {
      CB.instRip(CI.MI, CodeTarget::abs(CI.RipTarget));
    } else {
      CB.inst(CI.MI);
    }
  }
  if (S.FallThrough)
    CB.jmp(To(S.FallThrough));
}

void RegionEmitter::emitSite(const PlannedRegion &P, const RegionSite &S,
                             unsigned Label) {
  CB.align(16);
  CB.bind(Label);
  if (S.TestFirst) {
    // A leave, or a function's entry: the test, then what the jump covers.
    if (S.Enter)
      enterTest(P, S.FlagsLive);
    else
      leaveTest(P, S.FlagsLive);
    moved(S, 0, 0);
    return;
  }
  unsigned EnterPath = CB.newLabel();
  moved(S, P.R->Header, EnterPath);
  CB.bind(EnterPath);
  enterTest(P, S.FlagsLive);
  CB.jmp(CodeTarget::abs(P.R->Header));
}

void decan::rewriter::emitRegionStubs(Asm &A,
                                      std::vector<PlannedRegion> &Regions,
                                      uint64_t DescsOff) {
  if (Regions.empty())
    return;
  RegionEmitter E(A, DescsOff);
  E.emitShared();
  for (PlannedRegion &P : Regions) {
    P.SiteLabels.clear();
    for (const RegionSite &S : P.R->Sites) {
      P.SiteLabels.push_back(A.CB.newLabel());
      E.emitSite(P, S, P.SiteLabels.back());
    }
  }
}

std::vector<PlannedRegion> decan::rewriter::planRegions(
    const BinaryImage &Bin, const std::vector<RegionCandidate> &Cands,
    const std::vector<PlannedLoop> &Plan,
    function_ref<bool(const RegionCandidate &)> Selected,
    std::vector<RegionOutcome> &Out) {
  // Bytes already patched, start -> end: the loops' header jumps and
  // trampolines, then each region's sites as it is taken.
  std::map<uint64_t, uint64_t> Taken;
  for (const PlannedLoop &P : Plan) {
    const LoopCandidate &L = *P.L;
    Taken[L.Header] = L.Header + (L.Trampoline ? 2 : 5);
    if (L.Trampoline)
      Taken[L.Trampoline] = L.Trampoline + 5;
  }
  auto Overlaps = [&](uint64_t B, uint64_t E) {
    auto It = Taken.upper_bound(B);
    if (It != Taken.end() && It->first < E)
      return true;
    return It != Taken.begin() && std::prev(It)->second > B;
  };
  std::vector<PlannedRegion> Planned;
  // Outer loops first: where a function's entry block is also its outer
  // loop's (the same bytes), the loop, which says more, keeps them.
  std::vector<RegionOutcome> ByCand(Cands.size());
  for (bool Functions : {false, true})
    for (size_t K = 0; K < Cands.size(); ++K) {
      const RegionCandidate &R = Cands[K];
      if (R.WholeFunction != Functions)
        continue;
      RegionOutcome &O = ByCand[K];
      O.Id = R.id();
      O.Where =
          R.Function + "+0x" + utohexstr(R.Header - R.FunctionStart, true);
      O.File = R.File;
      O.Line = R.Line;
      O.Reason = R.SkipReason;
      if (O.Reason.empty() && !Selected(R))
        O.Reason = "not selected";
      for (const RegionSite &S : R.Sites) {
        if (!O.Reason.empty())
          break;
        uint64_t End = S.Patch + (S.Trampoline ? 2 : 5);
        if (!Bin.fileOffset(S.Patch) ||
            (S.Trampoline && !Bin.fileOffset(S.Trampoline)))
          O.Reason = "a patch not mapped from the file";
        else if (Overlaps(S.Patch, End) ||
                 (S.Trampoline && Overlaps(S.Trampoline, S.Trampoline + 5)))
          O.Reason = "a patch at " + O.Where +
                     " overlaps another loop's or region's (0x" +
                     utohexstr(S.Patch, true) + ")";
      }
      O.Rewritten = O.Reason.empty();
      O.Sites = R.Sites.size();
      if (O.Rewritten) {
        for (const RegionSite &S : R.Sites) {
          Taken[S.Patch] = S.Patch + (S.Trampoline ? 2 : 5);
          if (S.Trampoline)
            Taken[S.Trampoline] = S.Trampoline + 5;
        }
        PlannedRegion P;
        P.R = &R;
        P.DescIndex = Plan.size() + Planned.size();
        Planned.push_back(std::move(P));
      }
    }
  for (RegionOutcome &O : ByCand)
    Out.push_back(std::move(O));
  return Planned;
}

Error decan::rewriter::regionPatches(const BinaryImage &Bin,
                                     const CodeBuffer &CB,
                                     const std::vector<PlannedRegion> &Regions,
                                     std::vector<ElfWriter::Patch> &Patches) {
  auto Fail = [](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Msg);
  };
  for (const PlannedRegion &P : Regions)
    for (size_t K = 0; K < P.R->Sites.size(); ++K) {
      const RegionSite &S = P.R->Sites[K];
      // A short site jumps (rel8) to its trampoline, which jumps to the stub.
      uint64_t At = S.Trampoline ? S.Trampoline : S.Patch;
      int64_t Rel = int64_t(CB.labelAddr(P.SiteLabels[K])) - int64_t(At + 5);
      if (Rel != int64_t(int32_t(Rel)))
        return Fail("new code too far from " + P.R->id());
      std::string Jmp(5, char(0xe9));
      uint32_t U = uint32_t(int32_t(Rel));
      memcpy(&Jmp[1], &U, 4);
      Patches.push_back({*Bin.fileOffset(At), Jmp});
      if (S.Trampoline) {
        int64_t Short = int64_t(At) - int64_t(S.Patch + 2);
        if (Short != int64_t(int8_t(Short)))
          return Fail("trampoline out of reach for " + P.R->id());
        Patches.push_back({*Bin.fileOffset(S.Patch),
                           std::string{char(0xeb), char(int8_t(Short))}});
      }
    }
  return Error::success();
}
