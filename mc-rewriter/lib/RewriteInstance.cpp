//===- RewriteInstance.cpp - Rewrite an ELF file, one phase at a time -----===//
//
// Part of decan. The driver behind rewriteBinary(), in the manner of BOLT's
// RewriteInstance::run(): one method per phase, each reading what the
// previous ones left in the instance.
//
//   planLoops     which loops are rewritten, their variants, .decan.meta
//   layoutData    the RW segment: header, descriptors, machine info,
//                 strings, scratch areas
//   emitCode      per loop: stub, relocated original, copies, dispatcher
//                 (Dispatcher.h)
//   layoutFile    where the new segments go (ElfWriter), code addresses,
//                 then the code's bytes
//   fillData      the RW segment's contents
//   planRegions   which outer loops are timed as regions (--regions)
//   patchJumps    a jmp from each loop header to its stub, and at each
//                 region's entries and exits
//   write         the copy (ElfWriter)
//   result        addresses for listings and tests
//
//===----------------------------------------------------------------------===//

#include "CodeBuffer.h"
#include "Dispatcher.h"
#include "ElfWriter.h"
#include "Frames.h"
#include "MetaRecords.h"
#include "RegionStubs.h"

#include "decan/InstrKnowledge/Variants.h"
#include "decan/Rewriter/LoopCopy.h"
#include "decan/Rewriter/NestFinder.h"
#include "decan/Rewriter/Rewriter.h"
#include "decan/Rewriter/Unwind.h"
#include "decan/abi.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <map>

using namespace llvm;
using namespace decan::rewriter;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

std::string decan::rewriter::loopWhere(const LoopCandidate &L) {
  return L.Function + "+0x" + utohexstr(L.Header - L.FunctionStart, true);
}

namespace {

template <typename T> void put(std::string &S, uint64_t Off, const T &V) {
  if (S.size() < Off + sizeof(T))
    S.resize(Off + sizeof(T), '\0');
  memcpy(&S[Off], &V, sizeof(T));
}

struct BuiltLoop;

class RewriteInstance {
public:
  RewriteInstance(const BinaryImage &Bin, const decan::X86Knowledge &X86,
                  const std::vector<LoopCandidate> &Loops, StringRef OutPath,
                  const RewriteOptions &Opts,
                  const std::vector<RegionCandidate> &RegionCands)
      : Bin(Bin), X86(X86), Loops(Loops), RegionCands(RegionCands),
        OutPath(OutPath), Opts(Opts), CB(X86, NumSharedLabels), A(X86, CB) {}

  Expected<RewriteResult> run();

private:
  void planLoops();
  void takeInnerLoopsIntoNests(const std::vector<size_t> &Todo,
                               std::vector<BuiltLoop> &Built);
  void planRegions();
  void layoutData();
  void emitCode();
  Error layoutFile();
  void fillData();
  Error patchJumps();
  void planSearchPaths();
  void patchSearchPaths();
  RewriteResult result();
  std::string frames(bool Eh, uint64_t At,
                     std::vector<std::pair<uint64_t, uint64_t>> &Fdes) const;
  std::string ehFrameHdr(uint64_t At, uint64_t FrameAt,
                         std::vector<std::pair<uint64_t, uint64_t>> Fdes) const;

  const BinaryImage &Bin;
  const decan::X86Knowledge &X86;
  const std::vector<LoopCandidate> &Loops;
  const std::vector<RegionCandidate> &RegionCands;
  StringRef OutPath;
  const RewriteOptions &Opts;

  std::vector<LoopOutcome> Outcomes;
  std::vector<PlannedLoop> Plan;
  /// Regions timed, their descriptors after the loops'.
  std::vector<PlannedRegion> RegionPlan;
  std::vector<RegionOutcome> RegionOutcomes;
  /// Plan[K]'s code, emitted on its own (in parallel) until appended.
  std::vector<std::unique_ptr<CodeBuffer>> Fragments;
  std::vector<std::unique_ptr<decan::X86Knowledge>> WorkerKnowledge;
  std::vector<unsigned> SlotToDesc; ///< a loop's slot -> its Plan index
  /// Labels of the shared routines, reserved in every loop's buffer.
  static constexpr unsigned NumShared = NumSharedLabels;
  std::string Meta; ///< .decan.meta
  DataLayout DL;
  CodeBuffer CB;
  Asm A;
  std::optional<ElfWriter> Elf;
  uint64_t TextStart = 0, CodeSize = 0, DataVaddr = 0;
  /// LateBase: the reserved range's address and size.
  uint64_t LateVaddr = 0, LateSize = 0;
  SmallVector<char, 0> Code;
  /// The new code's .eh_frame and the merged .eh_frame_hdr, after the code.
  std::string EhBytes;
  uint64_t EhHdrAddr = 0, EhHdrSize = 0;
  std::string Data; ///< the RW segment's file part
  std::vector<ElfWriter::Patch> Patches;
  /// DT_RPATH/DT_RUNPATH entries whose $ORIGIN the copy resolves to the
  /// input's directory: where their value lies in the file, DT_STRTAB, and
  /// the resolved path's offset in DL.Strings.
  struct OriginPath {
    uint64_t ValueOffset, StrTab, StrOff;
  };
  std::vector<OriginPath> OriginPaths;
};

Expected<RewriteResult> RewriteInstance::run() {
  if (sys::fs::equivalent(Bin.path(), OutPath))
    return fail("refusing to overwrite the input '" + Bin.path() + "'");
  Expected<ElfWriter> E = ElfWriter::create(Bin, Opts.LateBase);
  if (!E)
    return E.takeError();
  Elf.emplace(std::move(*E));
  planLoops();
  planRegions();
  layoutData();
  emitCode();
  if (Error Err = layoutFile())
    return std::move(Err);
  fillData();
  if (Error Err = patchJumps())
    return std::move(Err);
  patchSearchPaths();
  // Debuggers read .debug_frame first: the same rules there (unless the
  // input has its own, which a second section would hide).
  std::string Frames;
  std::vector<std::pair<uint64_t, uint64_t>> Unused;
  // (Not for a base copy: its .eh_frame has the same rules, and the file
  // stays within twice the input's size.)
  if (!Elf->hasSection(".debug_frame") && !Opts.LateBase)
    Frames = frames(/*Eh=*/false, 0, Unused);
  Code.append(EhBytes.begin(), EhBytes.end());
  if (Error Err = Elf->write(OutPath, Patches, Code, Data, DL.ScratchOff,
                             DL.Size, Meta, Frames))
    return std::move(Err);
  return result();
}

/// REF alone, without the instruction knowledge's analysis (no subsets,
/// no dependences, no trip counts): enough to learn which loops run and
/// for how long.
Expected<LoopVariants> profileCopy(const decan::X86Knowledge &K,
                                   const LoopCandidate &L) {
  LoopVariants V;
  V.Copies[DECAN_REF] = refCopy(K, L);
  V.Mask = 1u << DECAN_REF;
  V.MInfo.status[DECAN_REF] = DECAN_VARIANT_OK;
  V.MInfo.n_instrs = L.numInstrs();
  V.MInfo.loop_bytes[DECAN_REF] = L.bytes();
  for (unsigned N = 0; N < DECAN_NUM_VARIANTS; ++N)
    V.MInfo.store_policy[N] = decan::storePolicy(decan::Variant(N));
  V.ScratchSize = 64;
  return V;
}

/// What a worker made of one loop: its variants (copies dropped once
/// emitted) and its code, on its own, to be appended to the new text.
struct BuiltLoop {
  std::string Reason;
  PlannedLoop P;
  std::unique_ptr<CodeBuffer> Code;
};

void RewriteInstance::planLoops() {
  // Which loops are attempted; then, in parallel, their variants and code.
  std::vector<std::string> Reasons(Loops.size());
  std::vector<size_t> Todo;
  StringSet<> Selected;
  for (const std::string &Id : Opts.OnlyLoops)
    Selected.insert(Id);
  bool Select = Opts.OnlyListed || !Opts.OnlyLoops.empty();
  auto IsSelected = [&](StringRef Id, StringRef Function) {
    return Selected.contains(Id) ||
           (Opts.NamesLoop && any_of(Opts.OnlyLoops, [&](const std::string &I) {
              return Opts.NamesLoop(I, Id, Function);
            }));
  };
  // A nest and its inner loops are selected together: a profile run sees
  // the nest where it was rewritten, its inner loops where it was not.
  std::map<std::string, std::vector<std::string>> NestRelated;
  if (Opts.Nests)
    NestRelated = nestRelatedIds(Loops);
  for (size_t I = 0; I < Loops.size(); ++I) {
    const LoopCandidate &L = Loops[I];
    std::string &Reason = Reasons[I];
    Reason = L.SkipReason;
    if (L.Nest && !Opts.Nests)
      continue; // left out: no record (NestFinder.h)
    auto Related = NestRelated.find(L.id());
    if (Reason.empty() && Select && !IsSelected(L.id(), L.Function) &&
        !(Related != NestRelated.end() &&
          any_of(Related->second, [&](const std::string &R) {
            return IsSelected(R, L.Function);
          })))
      Reason = "not selected";
    if (Reason.empty() && !Bin.fileOffset(L.Header))
      Reason = "loop header not mapped from the file";
    if (Reason.empty())
      Todo.push_back(I);
  }
  std::vector<BuiltLoop> Built(Todo.size());
  auto Build = [&](const decan::X86Knowledge &K, size_t J) {
    const LoopCandidate &L = Loops[Todo[J]];
    BuiltLoop &B = Built[J];
    Expected<LoopVariants> VOr =
        Opts.Profile || Opts.LateBase
            ? profileCopy(K, L)
            : buildVariants(K, L, Opts.VariantMask | 1);
    if (!VOr) {
      B.Reason = toString(VOr.takeError());
      return;
    }
    B.P.L = &L;
    B.P.V = std::move(*VOr);
    std::string NoRule;
    B.P.OrigRule = Bin.unwind().ruleAt(L.Header, NoRule);
    B.P.Slot = J;
    B.P.BaseOnly = Opts.LateBase;
    B.Code = std::make_unique<CodeBuffer>(K, NumShared);
    Asm LA(K, *B.Code);
    B.P.StubLabel = B.Code->newLabel();
    emitLoopDispatcher(K, *B.Code, LA, B.P);
    for (LoopCopy &C : B.P.V.Copies)
      C = LoopCopy(); // emitted: only the code is kept
  };
  // The buffers encode through their thread's knowledge until appended.
  WorkerKnowledge = forEachInParallel(X86, Todo.size(), Opts.Threads,
                                      /*Grain=*/64, Build);
  takeInnerLoopsIntoNests(Todo, Built);

  for (size_t I = 0, J = 0; I < Loops.size(); ++I) {
    const LoopCandidate &L = Loops[I];
    if (L.Nest && !Opts.Nests)
      continue;
    LoopOutcome O;
    O.Id = L.id();
    O.Where = loopWhere(L);
    O.File = L.File;
    O.Line = L.Line;
    O.Header = L.Header;
    BuiltLoop *B = nullptr;
    if (J < Todo.size() && Todo[J] == I)
      B = &Built[J++];
    std::string Reason = B ? B->Reason : Reasons[I];
    const LoopVariants &V = B ? B->P.V : LoopVariants();
    O.Reason = Reason;
    O.Rewritten = Reason.empty();
    // A base copy's loops have no measured copy until the late pack.
    O.VariantMask = O.Rewritten && !Opts.LateBase ? V.Mask : 0;
    for (unsigned K = 0; K < DECAN_NUM_VARIANTS; ++K)
      if (!V.Notes[K].empty())
        O.VariantNotes.push_back(std::string(decan_variant_name(K)) + ": " +
                                 V.Notes[K]);
    // The table lists every variant attempted (its status says why one is
    // missing), like the plugin; descriptors carry only the built ones.
    unsigned Attempted =
        Opts.Profile || Opts.LateBase ? 1 : Opts.VariantMask | 1;
    if (!V.MInfo.n_call)
      Attempted &= ~(1u << DECAN_NO_CALL); // a loop without calls has none
    if (Opts.LateBase)
      appendShortMeta(Meta, L, O.Rewritten ? Attempted : 0, Reason);
    else if (Opts.ListUnselected || B || !L.SkipReason.empty())
      appendMeta(Meta, L, O.Rewritten ? Attempted : 0, V.MInfo, Reason,
                 V.BoundMask);
    Outcomes.push_back(O);
    if (O.Rewritten) {
      B->P.DescIndex = Plan.size();
      SlotToDesc.resize(Todo.size(), 0);
      SlotToDesc[B->P.Slot] = B->P.DescIndex;
      Plan.push_back(std::move(B->P));
      Fragments.push_back(std::move(B->Code));
    }
  }
}

/// A rewritten nest runs its inner loops inside its copies (nothing else
/// reaches them): they are not patched on their own (NestFinder.h).
void RewriteInstance::takeInnerLoopsIntoNests(const std::vector<size_t> &Todo,
                                              std::vector<BuiltLoop> &Built) {
  std::map<std::pair<uint64_t, unsigned>, std::string> InNest;
  for (size_t J = 0; J < Todo.size(); ++J) {
    const LoopCandidate &L = Loops[Todo[J]];
    if (L.Nest && Built[J].Reason.empty())
      for (unsigned Inner : L.InnerIndices)
        InNest[{L.FunctionStart, Inner}] = L.id();
  }
  for (size_t J = 0; J < Todo.size(); ++J) {
    const LoopCandidate &L = Loops[Todo[J]];
    auto It = L.Nest ? InNest.end() : InNest.find({L.FunctionStart, L.Index});
    if (It != InNest.end() && Built[J].Reason.empty()) {
      Built[J].Reason = "measured inside nest " + It->second;
      Built[J].Code.reset();
    }
  }
}

void RewriteInstance::planRegions() {
  StringSet<> Selected;
  for (const std::string &Id : Opts.OnlyLoops)
    Selected.insert(Id);
  bool Select = Opts.OnlyListed || !Opts.OnlyLoops.empty();
  RegionPlan = decan::rewriter::planRegions(
      Bin, RegionCands, Plan,
      [&](const RegionCandidate &R) {
        return !Select || Selected.contains(R.id());
      },
      RegionOutcomes);
}

void RewriteInstance::layoutData() {
  // The header's region entry points only when there are regions: a copy
  // without keeps its descriptors where they always were.
  DL.DescsOff = alignTo(RegionPlan.empty()
                            ? offsetof(decan_rewritten_header, region_enter)
                            : sizeof(decan_rewritten_header),
                        64);
  DL.MInfoOff = alignTo(DL.DescsOff + (Plan.size() + RegionPlan.size()) *
                                          sizeof(decan_loop_desc),
                        8);
  // A base copy has neither machine info nor scratch areas: the late pack
  // brings both for the loops it measures.
  uint64_t AfterMInfo =
      DL.MInfoOff +
      (Opts.LateBase ? 0 : Plan.size() * sizeof(decan_machine_info));
  for (PlannedLoop &P : Plan) {
    P.IdOff = DL.str(P.L->id());
    P.FuncOff = DL.str(P.L->Function);
    P.FileOff = DL.str(P.L->File);
  }
  for (PlannedRegion &P : RegionPlan) {
    P.IdOff = DL.str(P.R->id());
    P.FuncOff = DL.str(P.R->Function);
    P.FileOff = DL.str(P.R->File);
  }
  planSearchPaths();
  DL.StringsOff = AfterMInfo;
  DL.ScratchOff = alignTo(DL.StringsOff + DL.Strings.size(), 4096);
  uint64_t ScratchAt = DL.ScratchOff;
  for (PlannedLoop &P : Plan) {
    if (Opts.LateBase)
      break;
    P.ScratchOff = ScratchAt;
    // A page-aligned area per loop: the runtime touches it before the timed
    // call so DL1 never pays a first-touch TLB miss (thesis 6.5.4).
    ScratchAt += alignTo(std::max(P.V.ScratchSize, 64u), 4096);
  }
  DL.Size = ScratchAt;
}

void RewriteInstance::emitCode() {
  if (!Plan.empty())
    emitSharedDispatch(X86, CB, A, Opts.LateBase);
  for (size_t K = 0; K < Plan.size(); ++K) {
    PlannedLoop &P = Plan[K];
    auto Map = CB.append(std::move(*Fragments[K]), NumShared);
    Fragments[K].reset();
    P.StubLabel = Map(P.StubLabel);
    P.OrigBegin = Map(P.OrigBegin);
    P.OrigEnd = Map(P.OrigEnd);
    P.MeasuredBegin = Map(P.MeasuredBegin);
    P.MeasuredEnd = Map(P.MeasuredEnd);
    P.RecordLabel = Map(P.RecordLabel);
    for (auto *Calls : {&P.MeasuredCalls, &P.OrigCalls})
      for (PlannedLoop::CallSite &C : *Calls) {
        C.Begin = Map(C.Begin);
        C.End = Map(C.End);
      }
    for (unsigned V = 0; V < DECAN_NUM_VARIANTS; ++V)
      if (P.V.Mask & (1u << V)) {
        P.CopyBegin[V] = Map(P.CopyBegin[V]);
        P.CopyEnd[V] = Map(P.CopyEnd[V]);
      }
  }
  WorkerKnowledge.clear();
  emitRegionStubs(A, RegionPlan, DL.DescsOff);
}

Error RewriteInstance::layoutFile() {
  TextStart = Elf->textStart();
  Expected<uint64_t> CodeSizeOr = CB.layout(TextStart);
  if (!CodeSizeOr)
    return CodeSizeOr.takeError();
  CodeSize = *CodeSizeOr;
  // Unwind tables for the new code (exceptions, debuggers, profilers):
  // its FDEs, and a copy of PT_GNU_EH_FRAME's table that lists them too.
  if (Bin.unwind().ehFrameHdrAddr() && !Plan.empty()) {
    uint64_t FrameAt = alignTo(TextStart + CodeSize, 8);
    std::vector<std::pair<uint64_t, uint64_t>> Fdes;
    std::string Frame = frames(/*Eh=*/true, FrameAt, Fdes);
    EhHdrAddr = alignTo(FrameAt + Frame.size(), 8);
    std::string Hdr = ehFrameHdr(EhHdrAddr, Bin.unwind().ehFrameAddr(), Fdes);
    EhHdrSize = Hdr.size();
    EhBytes.assign(FrameAt - (TextStart + CodeSize), char(0xcc));
    EhBytes += Frame;
    EhBytes.resize(EhHdrAddr - (TextStart + CodeSize), '\0');
    EhBytes += Hdr;
    Elf->setEhFrameHdr(EhHdrAddr, EhHdrSize);
  }
  DataVaddr = Elf->placeData(CodeSize + EhBytes.size());
  if (Opts.LateBase) {
    // Address space only (no file bytes): where the late pack is mapped.
    LateSize = alignTo(std::max<uint64_t>(Opts.LateReserve, 1), 4096);
    LateVaddr = Elf->reserveLate(DL.Size, LateSize);
  }
  return CB.encode(
      DataVaddr,
      [&](const CodeTarget &T) -> uint64_t {
        const PlannedLoop &P = Plan[SlotToDesc[T.slot()]];
        if (T.Kind == CodeTarget::LoopScratch)
          return P.ScratchOff + int64_t(T.offset());
        return DL.DescsOff + P.DescIndex * sizeof(decan_loop_desc) + T.offset();
      },
      Code);
}

void RewriteInstance::fillData() {
  // RW segment contents in the file; the scratch areas after them are
  // zero-filled memory only (like .bss). Pointer fields hold offsets from
  // the header (abi.h, decan_rewritten_header).
  Data.assign(DL.ScratchOff, '\0');
  decan_rewritten_header H{};
  memcpy(H.magic, "DECANRW1", 8);
  H.abi_version = DECAN_ABI_VERSION;
  H.count = Plan.size() + RegionPlan.size();
  H.descs_offset = DL.DescsOff;
  if (LateSize) {
    H.late_offset = LateVaddr - DataVaddr;
    H.late_size = LateSize;
  }
  memcpy(&Data[0], &H, std::min<uint64_t>(sizeof(H), DL.DescsOff));
  for (PlannedLoop &P : Plan) {
    decan_loop_desc D{};
    D.abi_version = DECAN_ABI_VERSION;
    // A base copy's loops have no measured copy until the late pack.
    D.variant_mask = P.BaseOnly ? 0 : P.V.Mask;
    D.line = P.L->Line;
    D.id = reinterpret_cast<const char *>(DL.StringsOff + P.IdOff);
    D.function = reinterpret_cast<const char *>(DL.StringsOff + P.FuncOff);
    D.file = reinterpret_cast<const char *>(DL.StringsOff + P.FileOff);
    D.bound_mask = P.V.BoundMask;
    if (P.L->Nest)
      D.flags = DECAN_DESC_NEST;
    if (P.BaseOnly) // its base record until the late pack (abi.h)
      D.late_record = int32_t(
          CB.labelAddr(P.RecordLabel) -
          (DataVaddr + DL.DescsOff + P.DescIndex * sizeof(decan_loop_desc)));
    if (!P.BaseOnly) {
      D.scratch = reinterpret_cast<void *>(P.ScratchOff);
      D.scratch_size = std::max(P.V.ScratchSize, 64u);
      D.minfo = reinterpret_cast<const decan_machine_info *>(
          DL.MInfoOff + P.DescIndex * sizeof(decan_machine_info));
      put(Data, DL.MInfoOff + P.DescIndex * sizeof(decan_machine_info),
          P.V.MInfo);
    }
    put(Data, DL.DescsOff + P.DescIndex * sizeof(decan_loop_desc), D);
  }
  for (const PlannedRegion &P : RegionPlan) {
    decan_loop_desc D{};
    D.abi_version = DECAN_ABI_VERSION;
    D.variant_mask = 1u << DECAN_REF;
    D.line = P.R->Line;
    D.flags = DECAN_DESC_REGION | (P.R->Nests ? DECAN_DESC_RECURSIVE : 0);
    D.id = reinterpret_cast<const char *>(DL.StringsOff + P.IdOff);
    D.function = reinterpret_cast<const char *>(DL.StringsOff + P.FuncOff);
    D.file = reinterpret_cast<const char *>(DL.StringsOff + P.FileOff);
    put(Data, DL.DescsOff + P.DescIndex * sizeof(decan_loop_desc), D);
  }
  memcpy(&Data[DL.StringsOff], DL.Strings.data(), DL.Strings.size());
}

/// The copy runs from decan's cache, not from the input's directory: a
/// library search path with $ORIGIN (a program that finds its libraries
/// next to it) must still mean the input's directory, or the copy cannot
/// start. The resolved path goes into the data segment's strings, which
/// lie past every original segment, so its offset from DT_STRTAB is
/// positive, and the entry is patched to it.
void RewriteInstance::planSearchPaths() {
  SmallString<256> Real;
  for (const BinaryImage::SearchPath &S : Bin.searchPaths()) {
    if (!StringRef(S.Path).contains("ORIGIN"))
      continue;
    if (Real.empty() && sys::fs::real_path(Bin.path(), Real))
      return;
    // $LIB and $PLATFORM stay for the loader; an entry it would skip (an
    // unknown token) stays as it is.
    SmallVector<StringRef, 4> Entries;
    StringRef(S.Path).split(Entries, ':');
    std::vector<std::string> Resolved;
    for (StringRef E : Entries)
      Resolved.push_back(expandLoaderTokens(E, sys::path::parent_path(Real),
                                            "$LIB", "$PLATFORM")
                             .value_or(E.str()));
    OriginPaths.push_back(
        {S.ValueOffset, S.StrTab, DL.str(join(Resolved, ":"))});
  }
}

void RewriteInstance::patchSearchPaths() {
  for (const OriginPath &O : OriginPaths) {
    uint64_t Addr = DataVaddr + DL.StringsOff + O.StrOff;
    uint64_t Val = Addr - O.StrTab;
    Patches.push_back(
        {O.ValueOffset,
         std::string(reinterpret_cast<char *>(&Val), sizeof(Val))});
  }
}

Error RewriteInstance::patchJumps() {
  for (PlannedLoop &P : Plan) {
    // A short header jumps (rel8) to its trampoline in padding, which
    // jumps to the stub (LoopCandidate::Trampoline).
    uint64_t At = P.L->Trampoline ? P.L->Trampoline : P.L->Header;
    std::optional<uint64_t> Off = Bin.fileOffset(At);
    if (!Off)
      return fail("trampoline not mapped from the file for the loop at " +
                  loopWhere(*P.L));
    int64_t Rel = int64_t(CB.labelAddr(P.StubLabel)) - int64_t(At + 5);
    if (Rel != int64_t(int32_t(Rel)))
      return fail("new code too far from the loop at " + loopWhere(*P.L));
    std::string Jmp(5, char(0xe9));
    uint32_t U = uint32_t(int32_t(Rel));
    memcpy(&Jmp[1], &U, 4);
    Patches.push_back({*Off, Jmp});
    if (P.L->Trampoline) {
      int64_t Short = int64_t(At) - int64_t(P.L->Header + 2);
      if (Short != int64_t(int8_t(Short)))
        return fail("trampoline out of reach for the loop at " +
                    loopWhere(*P.L));
      Patches.push_back({*Bin.fileOffset(P.L->Header),
                         std::string{char(0xeb), char(int8_t(Short))}});
    }
  }
  return regionPatches(Bin, CB, RegionPlan, Patches);
}

/// .eh_frame for the new code at \p At (loaded: the C++ unwinder,
/// backtrace(), profilers and debuggers read it):
///   - a measured copy's frame lies below the program's stack; its CFA is
///     the program's stack pointer and its "return address" the loop
///     header + 1 (measuredFrameCFI), except at a call, where it is the
///     original call's return address, so that the function's exception
///     table sees the original call site;
///   - the relocated original runs on the program's stack: the rule its
///     function has at the loop header, and, when the function has an
///     exception table, its personality with a table of the copy's calls:
///     those an exception passes in the original (no landing pad) are
///     listed, those where it ends the program are not (calls with a
///     handler keep their loop in place: LoopFinder.cpp).
/// Their exception tables come first. \p Fdes gets each FDE's (code
/// start, FDE address).
/// With \p Eh false, the same rules as .debug_frame (unloaded, absolute
/// addresses, no exception tables), for debuggers that read only that.
std::string RewriteInstance::frames(
    bool Eh, uint64_t At,
    std::vector<std::pair<uint64_t, uint64_t>> &Fdes) const {
  std::string S;
  FrameWriter W(S, Eh, At, Fdes);
  DwarfOut &O = W.O;
  const UnwindTables &UT = Bin.unwind();
  // The relocated originals' exception tables (the Itanium ABI's LSDA,
  // landing pads relative to the FDE's start, no types, no actions).
  std::vector<int64_t> LsdaAt(Plan.size(), -1);
  for (size_t K = 0; K < Plan.size(); ++K) {
    const PlannedLoop &P = Plan[K];
    if (!Eh || !P.OrigRule || !UT.personalityAt(P.L->Header))
      continue;
    uint64_t OB = CB.labelAddr(P.OrigBegin);
    std::string Sites;
    DwarfOut SO{Sites};
    for (const PlannedLoop::CallSite &C : P.OrigCalls) {
      uint64_t LP;
      if (UT.landingFor(C.ReturnAddr, LP) != CallLanding::Through)
        continue; // unlisted: the personality ends the program
      SO.uleb(CB.labelAddr(C.Begin) - OB);
      SO.uleb(CB.labelAddr(C.End) - CB.labelAddr(C.Begin));
      SO.uleb(0); // no landing pad
      SO.uleb(0); // no action
    }
    LsdaAt[K] = S.size();
    O.u8(0xff); // landing pads from the FDE's start
    O.u8(0xff); // no type table
    O.u8(0x01); // call sites: uleb128
    O.uleb(Sites.size());
    S += Sites;
  }
  S.resize(alignTo(S.size(), 8), char(0));
  // .debug_frame has no header before its entries.
  if (!Eh)
    S.clear();

  size_t MeasuredCie = W.measuredCie();
  size_t OrigCie = W.cie(std::nullopt, [] {});
  std::map<std::pair<uint8_t, uint64_t>, size_t> PersonalityCie;
  for (size_t K = 0; K < Plan.size(); ++K)
    if (LsdaAt[K] >= 0) {
      auto Pers = *UT.personalityAt(Plan[K].L->Header);
      if (!PersonalityCie.count(Pers))
        PersonalityCie[Pers] = W.cie(Pers, [] {});
    }
  for (size_t K = 0; K < Plan.size(); ++K) {
    const PlannedLoop &P = Plan[K];
    W.measuredFde(MeasuredCie, CB, P);
    uint64_t OB = CB.labelAddr(P.OrigBegin), OE = CB.labelAddr(P.OrigEnd);
    if (P.OrigRule && OE > OB)
      W.fde(LsdaAt[K] >= 0 ? PersonalityCie[*UT.personalityAt(P.L->Header)]
                           : OrigCie,
            OB, OE, LsdaAt[K], [&] { S += *P.OrigRule; });
  }
  if (Eh)
    W.terminate();
  return S;
}

/// PT_GNU_EH_FRAME's table at \p At: every FDE of the input and \p Fdes,
/// sorted, so the unwinder's binary search finds both.
std::string RewriteInstance::ehFrameHdr(
    uint64_t At, uint64_t FrameAt,
    std::vector<std::pair<uint64_t, uint64_t>> Fdes) const {
  for (const FdeInfo &F : Bin.unwind().fdes())
    Fdes.push_back({F.Begin, F.Addr});
  llvm::sort(Fdes);
  std::string S;
  DwarfOut O{S};
  O.u8(1);    // version
  O.u8(0x1b); // eh_frame_ptr: pcrel sdata4
  O.u8(0x03); // fde_count: udata4
  O.u8(0x3b); // table: datarel sdata4
  O.u32(uint32_t(int64_t(FrameAt) - int64_t(At + 4)));
  O.u32(uint32_t(Fdes.size()));
  for (auto [Loc, Fde] : Fdes) {
    O.u32(uint32_t(int64_t(Loc) - int64_t(At)));
    O.u32(uint32_t(int64_t(Fde) - int64_t(At)));
  }
  return S;
}

RewriteResult RewriteInstance::result() {
  RewriteResult Result;
  Result.Loops = std::move(Outcomes);
  for (size_t K = 0, N = 0; K < Result.Loops.size(); ++K) {
    if (!Result.Loops[K].Rewritten)
      continue;
    const PlannedLoop &P = Plan[N++];
    LoopOutcome &O = Result.Loops[K];
    O.StubAddr = CB.labelAddr(P.StubLabel);
    O.OrigCopy = {CB.labelAddr(P.OrigBegin), CB.labelAddr(P.OrigEnd)};
    for (unsigned V = 0; V < DECAN_NUM_VARIANTS && !P.BaseOnly; ++V)
      if (P.V.Mask & (1u << V))
        O.Copies[V] = {CB.labelAddr(P.CopyBegin[V]),
                       CB.labelAddr(P.CopyEnd[V])};
  }
  Result.Regions = std::move(RegionOutcomes);
  Result.CodeAddr = TextStart;
  Result.CodeSize = CodeSize;
  Result.DataAddr = DataVaddr;
  Result.DataSize = DL.Size;
  Result.LateAddr = LateVaddr;
  Result.LateSize = LateSize;
  return Result;
}

} // namespace

Expected<RewriteResult> decan::rewriter::rewriteBinary(
    const BinaryImage &Bin, const decan::X86Knowledge &X86,
    const std::vector<LoopCandidate> &Loops, StringRef OutPath,
    const RewriteOptions &Opts, const std::vector<RegionCandidate> &Regions) {
  return RewriteInstance(Bin, X86, Loops, OutPath, Opts, Regions).run();
}
