//===- LatePack.cpp - Variants of some loops, built after the base copy ---===//
//
// Part of decan. See LatePack.h. The base copy is read back (its
// descriptors, its records, its shared routine) rather than laid out
// again: the pack names what is there.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/LatePack.h"

#include "CodeBuffer.h"
#include "Dispatcher.h"
#include "Frames.h"

#include "decan/Rewriter/LoopCopy.h"
#include "decan/abi.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <unistd.h>

using namespace llvm;
using namespace decan::rewriter;

static Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

static constexpr uint64_t Page = 4096;

namespace {

/// What the pack needs of the base copy.
struct BaseCopy {
  uint64_t TextAddr = 0, DataAddr = 0, LateAddr = 0, LateSize = 0;
  StringRef Text, Data;
  const decan_rewritten_header *Header = nullptr;
  /// Loop id -> descriptor index.
  StringMap<uint32_t> Index;

  uint64_t descAddr(uint32_t I) const {
    return DataAddr + Header->descs_offset + I * sizeof(decan_loop_desc);
  }
  const decan_loop_desc &desc(uint32_t I) const {
    return *reinterpret_cast<const decan_loop_desc *>(
        Data.data() + Header->descs_offset + I * sizeof(decan_loop_desc));
  }
  /// The int32 at \p Addr in the base's code, or none.
  std::optional<int32_t> codeWord(uint64_t Addr) const {
    if (Addr < TextAddr || Addr + 4 > TextAddr + Text.size())
      return std::nullopt;
    int32_t V;
    memcpy(&V, Text.data() + (Addr - TextAddr), 4);
    return V;
  }
};

Expected<BaseCopy> readBase(const object::ELF64LEObjectFile &Obj,
                            StringRef Path) {
  BaseCopy B;
  bool HaveText = false, HaveData = false;
  for (const object::SectionRef &S : Obj.sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name == ".decan.late") {
      B.LateAddr = S.getAddress();
      B.LateSize = S.getSize();
      continue;
    }
    if (*Name != ".decan.text" && *Name != ".decan.data")
      continue;
    Expected<StringRef> Bytes = S.getContents();
    if (!Bytes)
      return Bytes.takeError();
    if (*Name == ".decan.text") {
      B.TextAddr = S.getAddress();
      B.Text = *Bytes;
      HaveText = true;
    } else {
      B.DataAddr = S.getAddress();
      B.Data = *Bytes;
      HaveData = true;
    }
  }
  if (!HaveText || !HaveData || !B.LateSize)
    return fail("'" + Path +
                "' is not a base copy for late variants (no "
                "late range)");
  if (B.Data.size() < sizeof(decan_rewritten_header))
    return fail("'" + Path + "': .decan.data too small");
  B.Header = reinterpret_cast<const decan_rewritten_header *>(B.Data.data());
  if (memcmp(B.Header->magic, "DECANRW1", 8) ||
      B.Header->abi_version != DECAN_ABI_VERSION)
    return fail("'" + Path + "': not a copy of this decan's ABI");
  if (B.Header->descs_offset +
          uint64_t(B.Header->count) * sizeof(decan_loop_desc) >
      B.Data.size())
    return fail("'" + Path + "': descriptors past .decan.data");
  if (B.DataAddr + B.Header->late_offset != B.LateAddr ||
      B.Header->late_size != B.LateSize)
    return fail("'" + Path + "': late range and header disagree");
  for (uint32_t I = 0; I < B.Header->count; ++I) {
    uint64_t Id = reinterpret_cast<uint64_t>(B.desc(I).id);
    if (Id >= B.Data.size())
      return fail("'" + Path + "': a loop id past .decan.data");
    B.Index[StringRef(B.Data.data() + Id,
                      strnlen(B.Data.data() + Id, B.Data.size() - Id))] = I;
  }
  return B;
}

} // namespace

Expected<LatePackResult> decan::rewriter::buildLatePack(
    const BinaryImage &Input, const decan::X86Knowledge &X86,
    const std::vector<LoopCandidate> &Loops, StringRef BasePath,
    ArrayRef<std::string> Ids, StringRef OutPath, const LatePackOptions &Opts) {
  auto Buf = MemoryBuffer::getFile(BasePath, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return fail("cannot read '" + BasePath + "': " + Buf.getError().message());
  auto ObjOr = object::ELF64LEObjectFile::create((*Buf)->getMemBufferRef());
  if (!ObjOr)
    return ObjOr.takeError();
  Expected<BaseCopy> BOr = readBase(*ObjOr, BasePath);
  if (!BOr)
    return BOr.takeError();
  const BaseCopy &B = *BOr;

  // The base's shared routine, emitted again at its address: the same
  // bytes say the base was written by this decan build, and where the
  // shared exit routine the pack's exit stubs jump to is.
  uint64_t SharedCommonAddr = 0;
  {
    CodeBuffer S(X86, NumSharedLabels);
    Asm SA(X86, S);
    emitSharedDispatch(X86, S, SA, /*Late=*/true);
    if (Expected<uint64_t> Size = S.layout(B.TextAddr); !Size)
      return Size.takeError();
    SmallVector<char, 0> Bytes;
    if (Error E = S.encode(
            B.DataAddr, [](const CodeTarget &) { return uint64_t(0); }, Bytes))
      return std::move(E);
    if (Bytes.size() > B.Text.size() ||
        memcmp(Bytes.data(), B.Text.data(), Bytes.size()))
      return fail("'" + BasePath +
                  "' was written by another decan build: rewrite it again");
    SharedCommonAddr = S.labelAddr(SharedCommon);
  }

  LatePackResult R;
  StringMap<const LoopCandidate *> ById;
  for (const LoopCandidate &L : Loops)
    ById[L.id()] = &L;
  struct Todo {
    const LoopCandidate *L;
    uint32_t Desc;
    uint64_t Resume;
    std::string Reason;
    PlannedLoop P;
    std::unique_ptr<CodeBuffer> Code;
  };
  std::vector<Todo> Work;
  StringMap<bool> Seen;
  for (const std::string &Id : Ids) {
    if (!Seen.insert({Id, true}).second)
      continue;
    auto L = ById.find(Id);
    auto D = B.Index.find(Id);
    if (L == ById.end() || D == B.Index.end()) {
      R.Left.push_back(
          {Id, L == ById.end() ? "no such loop" : "not rewritten in the base"});
      continue;
    }
    // The base record: its resume stub (leave the frame, run the
    // relocated original) is the late record's too.
    uint64_t Rec = B.descAddr(D->second) + B.desc(D->second).late_record;
    std::optional<int32_t> Resume = B.codeWord(Rec + 4);
    if (!Resume)
      return fail("'" + BasePath + "': the record of " + Id +
                  " is not in its code");
    Work.push_back({L->second, D->second, Rec + *Resume, "", {}, nullptr});
  }

  // Variants and code, per loop, in parallel (one instruction knowledge
  // per thread), as rewriteBinary does.
  auto Build = [&](const decan::X86Knowledge &K, Todo &T) {
    Expected<LoopVariants> V = buildVariants(K, *T.L, Opts.VariantMask | 1);
    if (!V) {
      T.Reason = toString(V.takeError());
      return;
    }
    T.P.L = T.L;
    T.P.V = std::move(*V);
    T.P.Slot = &T - Work.data();
    T.P.PackResume = T.Resume;
    T.P.PackSharedCommon = SharedCommonAddr;
    T.Code = std::make_unique<CodeBuffer>(K, NumSharedLabels);
    Asm LA(K, *T.Code);
    emitLoopDispatcher(K, *T.Code, LA, T.P);
    for (LoopCopy &C : T.P.V.Copies)
      C = LoopCopy();
  };
  std::vector<std::unique_ptr<decan::X86Knowledge>> Ks = forEachInParallel(
      X86, Work.size(), Opts.Threads, /*Grain=*/8,
      [&](const decan::X86Knowledge &K, size_t J) { Build(K, Work[J]); });

  uint64_t Off = Opts.RangeOffset;
  if (Off % Page || Off >= B.LateSize)
    return fail("late pack at offset " + Twine(Off) +
                ": not a page of the late range");
  // Lay out: code, its unwind rules (.eh_frame), then machine info (all
  // mapped read+execute), then the scratch areas (zero-filled, read-write);
  // loops past the range's size are left out, the last asked first.
  CodeBuffer CB(X86, NumSharedLabels);
  struct Placed {
    Todo *T;
    uint64_t ScratchOff = 0;
    uint32_t ScratchSize = 0;
  };
  std::vector<Placed> In;
  std::vector<uint64_t> ScratchOfSlot(Work.size(), 0);
  uint64_t ScratchBytes = 0;
  uint64_t FrameBytes = FrameWriter::MeasuredCieBound + 4; // and terminator
  for (Todo &T : Work) {
    if (!T.Reason.empty()) {
      R.Left.push_back({T.L->id(), T.Reason});
      continue;
    }
    uint32_t SSize = std::max(T.P.V.ScratchSize, 64u);
    uint64_t Frame = FrameWriter::measuredFdeBound(T.P);
    uint64_t Need = Off + alignTo(CB.size(), 64) + T.Code->size() + 8 +
                    FrameBytes + Frame + 8 +
                    (In.size() + 1) * sizeof(decan_machine_info) + Page +
                    ScratchBytes + alignTo(SSize, Page);
    if (Need > B.LateSize) {
      R.Left.push_back({T.L->id(), "the late range is full"});
      continue;
    }
    auto Map = CB.append(std::move(*T.Code), NumSharedLabels);
    T.Code.reset();
    T.P.RecordLabel = Map(T.P.RecordLabel);
    T.P.MeasuredBegin = Map(T.P.MeasuredBegin);
    T.P.MeasuredEnd = Map(T.P.MeasuredEnd);
    for (PlannedLoop::CallSite &C : T.P.MeasuredCalls) {
      C.Begin = Map(C.Begin);
      C.End = Map(C.End);
    }
    FrameBytes += Frame;
    Placed Pl;
    Pl.T = &T;
    Pl.ScratchOff = ScratchBytes; // relative to the scratch start, for now
    Pl.ScratchSize = SSize;
    ScratchBytes += alignTo(SSize, Page);
    In.push_back(Pl);
  }
  Expected<uint64_t> CodeSize = CB.layout(B.LateAddr + Off);
  if (!CodeSize)
    return CodeSize.takeError();
  // The copies' unwind rules (the same as a full copy's: Frames.h), which
  // the runtime registers with the program's unwinder; pc-relative, so
  // right wherever the image is loaded.
  uint64_t EhOff = alignTo(*CodeSize, 8);
  std::string EhFrame;
  {
    std::vector<std::pair<uint64_t, uint64_t>> Unused;
    FrameWriter W(EhFrame, /*Eh=*/true, B.LateAddr + Off + EhOff, Unused);
    size_t Cie = W.measuredCie();
    for (const Placed &Pl : In)
      W.measuredFde(Cie, CB, Pl.T->P);
    W.terminate();
  }
  uint64_t MInfoOff = alignTo(EhOff + EhFrame.size(), 8);
  uint64_t ROSize =
      alignTo(MInfoOff + In.size() * sizeof(decan_machine_info), Page);
  for (Placed &Pl : In)
    ScratchOfSlot[Pl.T->P.Slot] = Off + ROSize + Pl.ScratchOff;
  SmallVector<char, 0> Code;
  if (Error E = CB.encode(
          B.LateAddr + Off,
          [&](const CodeTarget &T) -> uint64_t {
            // Offsets from the code's start (the offset wraps for what
            // lies below it, as the address arithmetic does).
            if (T.Kind == CodeTarget::LoopScratch)
              return ScratchOfSlot[T.slot()] - Off + int64_t(T.offset());
            // A field of the loop's descriptor in the base.
            return B.descAddr(Work[T.slot()].Desc) + T.offset() -
                   (B.LateAddr + Off);
          },
          Code))
    return std::move(E);

  std::string RO(Code.begin(), Code.end());
  RO.resize(EhOff, char(0xcc));
  RO += EhFrame;
  RO.resize(ROSize, '\0');
  std::vector<decan_late_entry> Entries;
  for (size_t K = 0; K < In.size(); ++K) {
    const Placed &Pl = In[K];
    const PlannedLoop &P = Pl.T->P;
    memcpy(&RO[MInfoOff + K * sizeof(decan_machine_info)], &P.V.MInfo,
           sizeof(decan_machine_info));
    decan_late_entry E{};
    E.desc_index = Pl.T->Desc;
    E.variant_mask = P.V.Mask;
    E.bound_mask = P.V.BoundMask;
    E.scratch_size = Pl.ScratchSize;
    E.record_offset = CB.labelAddr(P.RecordLabel) - B.LateAddr;
    E.minfo_offset = Off + MInfoOff + K * sizeof(decan_machine_info);
    E.scratch_offset = Off + ROSize + Pl.ScratchOff;
    Entries.push_back(E);
    R.Built.push_back(P.L->id());
  }
  decan_late_pack_header H{};
  memcpy(H.magic, "DECANLP1", 8);
  H.abi_version = DECAN_ABI_VERSION;
  H.count = Entries.size();
  H.late_offset = B.Header->late_offset;
  H.late_size = B.LateSize;
  H.base_count = B.Header->count;
  H.ro_offset = Page;
  H.ro_size = ROSize;
  H.scratch_offset = Off + ROSize;
  H.scratch_size = ScratchBytes;
  H.entries_offset = Page + ROSize;
  H.range_offset = Off;
  H.eh_frame_offset = Off + EhOff;
  H.eh_frame_size = EhFrame.size();
  R.CodeSize = *CodeSize;
  R.ScratchSize = ScratchBytes;
  R.RangeEnd = Off + ROSize + ScratchBytes;

  std::string Out(Page, '\0');
  memcpy(&Out[0], &H, sizeof(H));
  Out += RO;
  Out.append(reinterpret_cast<const char *>(Entries.data()),
             Entries.size() * sizeof(decan_late_entry));
  // Through a temporary file and a rename: a reader never sees half a pack.
  std::string Tmp = (OutPath + ".tmp" + Twine(::getpid())).str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC, sys::fs::OF_None);
    if (EC)
      return fail("cannot write '" + Tmp + "': " + EC.message());
    OS << Out;
    OS.close();
    if (OS.has_error()) {
      std::string Why = OS.error().message();
      OS.clear_error();
      sys::fs::remove(Tmp); // never a partial file left behind
      return fail("cannot write '" + Tmp + "': " + Why);
    }
  }
  if (std::error_code EC = sys::fs::rename(Tmp, OutPath)) {
    sys::fs::remove(Tmp);
    return fail("cannot rename '" + Tmp + "' to '" + OutPath +
                "': " + EC.message());
  }
  return R;
}
