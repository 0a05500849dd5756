//===- IRSelection.cpp - decan: which innermost loops to instrument -------===//
//
// Part of decan. See IRSelection.h.
//
//===----------------------------------------------------------------------===//

#include "IRSelection.h"
#include "decan/InstrKnowledge/VariantTable.h"
#include "decan/abi_names.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace decan;

static cl::OptionCategory DecanCategory("decan compiler plugin (IR side)");

static cl::list<std::string> DecanFunctions(
    "decan-functions", cl::CommaSeparated,
    cl::desc("Instrument only loops of these functions (mangled or "
             "demangled name without parameters)"),
    cl::value_desc("f,g"), cl::cat(DecanCategory));

static cl::list<std::string>
    DecanLines("decan-lines", cl::CommaSeparated,
               cl::desc("Instrument only loops starting in these line ranges"),
               cl::value_desc("file.c:10-20,b.c:7"), cl::cat(DecanCategory));

static cl::list<std::string> DecanLoops(
    "decan-loops", cl::CommaSeparated,
    cl::desc("Instrument only these loops: loop instances f:L2@FILE:LINE:COL "
             "(what `decan flags --hot` prints: the loop f:L2 where it "
             "starts there), loop ids (f:L2) or source positions "
             "FILE:LINE[:COL] (every loop starting there)"),
    cl::value_desc("f:L2@a.c:10:3,a.c:12"), cl::cat(DecanCategory));

static cl::opt<bool> DecanPgoHot(
    "decan-pgo-hot",
    cl::desc("Instrument only loops whose header block is hot by the PGO "
             "profile summary (-fprofile-instr-use, -fprofile-use, "
             "-fprofile-sample-use; -profile-summary-cutoff-hot sets the "
             "threshold)"),
    cl::init(false), cl::cat(DecanCategory));

static cl::list<std::string> DecanVariants(
    "decan-build-variants", cl::CommaSeparated,
    cl::desc("Copies built of each instrumented loop (REF always): variant "
             "names, or the lists 'default' (what `decan run` rotates), "
             "'extended', 'groups', 'all'; `decan flags --extended` and "
             "--groups add them (default: 'default')"),
    cl::value_desc("default,extended,LS"), cl::cat(DecanCategory));

static cl::opt<bool> DecanDisable("decan-disable",
                                  cl::desc("Do not instrument any loop"),
                                  cl::init(false), cl::cat(DecanCategory));

bool decan::isDecanDisabled() { return DecanDisable; }

/// "f:L2" -> (f, 2); nullopt if \p Id is no loop id.
static std::optional<std::pair<StringRef, unsigned>> splitLoopId(StringRef Id) {
  size_t At = Id.rfind(":L");
  unsigned Index;
  if (At == StringRef::npos || At == 0 ||
      Id.drop_front(At + 2).getAsInteger(10, Index))
    return std::nullopt;
  return std::make_pair(Id.take_front(At), Index);
}

/// One -decan-loops entry: F:LN@FILE:LINE[:COL] (an instance), FILE:LINE:COL
/// or FILE:LINE (a position), else a loop id (F:LN). Mangled names have no
/// '@'; a file name may, so an instance's id must read as one.
std::optional<LoopFilter::HotLoop> LoopFilter::parseHotLoop(StringRef Entry) {
  HotLoop H;
  auto [Id, Where] = Entry.split('@');
  if (!Where.empty() && splitLoopId(Id)) {
    H.Id = Id.str();
    Entry = Where;
  }
  auto [Rest, Last] = Entry.rsplit(':');
  unsigned N;
  if (!Rest.empty() && !Last.getAsInteger(10, N)) {
    auto [File, Mid] = Rest.rsplit(':');
    unsigned Line;
    if (!File.empty() && !Mid.getAsInteger(10, Line)) {
      H.File = File.str();
      H.Line = Line;
      H.Col = N;
    } else {
      H.File = Rest.str();
      H.Line = N;
    }
  } else if (H.Id.empty()) {
    H.Id = Entry.str();
  } else {
    return std::nullopt; // an instance without a position
  }
  if (auto FnIndex = splitLoopId(H.Id)) {
    H.Function = FnIndex->first.str();
    H.Index = FnIndex->second;
  }
  return H;
}

Expected<LoopFilter> LoopFilter::fromOptions() {
  LoopFilter Filter;
  for (const std::string &F : DecanFunctions)
    if (!F.empty())
      Filter.Functions.push_back(F);
  for (StringRef Entry : DecanLines) {
    auto Bad = [&] {
      return createStringError("decan: bad -decan-lines entry '" + Entry.str() +
                               "': expected FILE:LINE or FILE:FIRST-LAST");
    };
    size_t Colon = Entry.rfind(':');
    if (Colon == StringRef::npos || Colon == 0)
      return Bad();
    StringRef File = Entry.take_front(Colon);
    StringRef Range = Entry.drop_front(Colon + 1);
    auto [FirstS, LastS] = Range.split('-');
    unsigned First, Last;
    if (FirstS.getAsInteger(10, First))
      return Bad();
    if (LastS.empty())
      Last = First;
    else if (LastS.getAsInteger(10, Last) || Last < First)
      return Bad();
    Filter.Lines.push_back({File.str(), First, Last});
  }
  for (StringRef Entry : DecanLoops) {
    if (Entry.empty())
      continue;
    std::optional<HotLoop> H = parseHotLoop(Entry);
    if (!H)
      return createStringError("decan: bad -decan-loops entry '" + Entry.str() +
                               "': expected FUNCTION:LINDEX[@FILE:LINE:COL] "
                               "or FILE:LINE[:COL]");
    Filter.HotLoops.push_back(std::move(*H));
  }
  Filter.PgoHot = DecanPgoHot;
  Expected<unsigned> Mask = variantMaskFromOption();
  if (!Mask)
    return Mask.takeError();
  Filter.Variants = *Mask;
  return Filter;
}

/// The mask of one -decan-build-variants entry: a list's variants or one
/// variant's bit, 0 for an unknown name.
static unsigned variantEntryMask(StringRef Entry) {
  if (Entry == "all")
    return (1u << DECAN_NUM_VARIANTS) - 1;
  std::pair<StringRef, VariantSet> Lists[] = {
      {"default", VariantSet::Default},
      {"extended", VariantSet::Extended},
      {"groups", VariantSet::Groups}};
  for (auto [Name, Set] : Lists)
    if (Entry == Name)
      return variantMaskIn(Set);
  int V = decan_variant_parse(Entry.data(), Entry.size());
  return V < 0 ? 0 : 1u << V;
}

Expected<unsigned> decan::variantMaskFromOption() {
  unsigned Mask = 1u << DECAN_REF;
  if (DecanVariants.empty())
    return Mask | variantEntryMask("default");
  for (StringRef Entry : DecanVariants) {
    Entry = Entry.trim();
    if (Entry.empty())
      continue;
    unsigned M = variantEntryMask(Entry);
    if (!M)
      return createStringError(
          "decan: bad -decan-build-variants entry '" + Entry.str() +
          "': expected a variant name or default, extended, groups, all");
    Mask |= M;
  }
  return Mask;
}

/// "dir/a.c" matches "a.c", "dir/a.c" and "/abs/dir/a.c", not "xa.c".
static bool fileMatches(StringRef Have, StringRef Want) {
  if (!Have.ends_with(Want))
    return false;
  return Have.size() == Want.size() ||
         Have[Have.size() - Want.size() - 1] == '/';
}

bool LoopFilter::selectsFunction(const Function &F) const {
  if (Functions.empty())
    return true;
  std::string Demangled = demangle(F.getName());
  StringRef Base = StringRef(Demangled).split('(').first;
  return any_of(Functions, [&](const std::string &Want) {
    return F.getName() == Want || Base == Want;
  });
}

bool LoopFilter::selects(const Function &F, StringRef File,
                         unsigned Line) const {
  if (!selectsFunction(F))
    return false;
  if (!Lines.empty() && !any_of(Lines, [&](const LineRange &R) {
        return Line >= R.First && Line <= R.Last && fileMatches(File, R.File);
      }))
    return false;
  return true;
}

bool LoopFilter::HotLoop::at(StringRef Have, unsigned HaveLine,
                             unsigned HaveCol) const {
  return HaveLine && Line == HaveLine && (!Col || Col == HaveCol) &&
         (fileMatches(Have, File) || fileMatches(File, Have));
}

SmallVector<bool, 8>
LoopFilter::selectHotLoops(const Function &F, ArrayRef<DebugLoc> Starts) const {
  SmallVector<bool, 8> Hot(Starts.size(), HotLoops.empty());
  auto At = [&](const HotLoop &H, unsigned K) {
    const DILocation *DL = Starts[K].get();
    return DL && H.at(DL->getFilename(), DL->getLine(), DL->getColumn());
  };
  for (const HotLoop &H : HotLoops) {
    if (H.Id.empty()) { // a position: every loop starting there
      for (unsigned K = 0; K < Starts.size(); ++K)
        Hot[K] = Hot[K] || At(H, K);
      continue;
    }
    if (H.Function != F.getName())
      continue;
    bool Here = H.Index < Starts.size();
    if (Here && (!H.Line || At(H, H.Index))) {
      Hot[H.Index] = true;
      continue;
    }
    if (!H.Line)
      continue;
    // Not the build the report measured (other flags or source): F's loops
    // at the instance's position stand in for it.
    for (unsigned K = 0; K < Starts.size(); ++K)
      Hot[K] = Hot[K] || At(H, K);
    F.getContext().diagnose(DiagnosticInfoGeneric(
        "decan: -decan-loops: " + Twine(H.Id) + " does not start at " + H.File +
            ":" + Twine(H.Line) + ":" + Twine(H.Col) +
            " in this build (not the build that was measured?): "
            "instrumenting the loops of its function starting there",
        DS_Warning));
  }
  return Hot;
}

/// Intrinsics that x86-64 codegen turns into library calls.
static bool isLibcallIntrinsic(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::memcpy:
  case Intrinsic::memcpy_inline:
  case Intrinsic::memmove:
  case Intrinsic::memset:
  case Intrinsic::memset_inline:
  case Intrinsic::sin:
  case Intrinsic::cos:
  case Intrinsic::tan:
  case Intrinsic::asin:
  case Intrinsic::acos:
  case Intrinsic::atan:
  case Intrinsic::atan2:
  case Intrinsic::sinh:
  case Intrinsic::cosh:
  case Intrinsic::tanh:
  case Intrinsic::pow:
  case Intrinsic::powi:
  case Intrinsic::exp:
  case Intrinsic::exp2:
  case Intrinsic::exp10:
  case Intrinsic::log:
  case Intrinsic::log2:
  case Intrinsic::log10:
  case Intrinsic::ldexp:
  case Intrinsic::frexp:
  case Intrinsic::sincos:
    return true;
  default:
    return false;
  }
}

std::optional<std::string> decan::bodySkipReason(const Loop &L) {
  for (BasicBlock *BB : L.blocks()) {
    if (BB->isEHPad())
      return std::string("exception handling in the loop");
    if (BB->hasAddressTaken())
      return std::string("block address taken in the loop");
    for (Instruction &I : *BB) {
      if (I.getType()->isTokenTy())
        return std::string("token value in the loop");
      if (isa<AllocaInst>(I))
        return std::string("alloca in the loop");
      if (isa<IndirectBrInst>(I) || isa<CallBrInst>(I))
        return std::string("indirect branch in the loop");
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (CB->isInlineAsm())
        return std::string("inline asm in the loop");
      if (CB->isConvergent())
        return std::string("convergent call in the loop");
      // Calls are measured (REF with its calls, NO_CALL without); what the
      // outliner cannot move is an invoke (its landing pad stays behind)
      // and a call that returns twice.
      if (isa<InvokeInst>(CB))
        return std::string("invoke in the loop (a call that may throw)");
      if (CB->hasFnAttr(Attribute::ReturnsTwice))
        return std::string("setjmp-like call in the loop");
    }
  }
  return std::nullopt;
}

bool decan::loopCalls(const Loop &L) {
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB) {
      if (I.getOpcode() == Instruction::FRem && !I.getType()->isVectorTy())
        return true; // fmod
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || CB->isInlineAsm())
        continue;
      Function *Callee = CB->getCalledFunction();
      if (!Callee || !Callee->isIntrinsic() ||
          isLibcallIntrinsic(Callee->getIntrinsicID()))
        return true;
    }
  return false;
}
