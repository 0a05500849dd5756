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
    cl::desc("Instrument only these loops: loop ids (f:L2) or source "
             "positions FILE:LINE[:COL] (what `decan flags --hot` prints)"),
    cl::value_desc("f:L2,a.c:10:3"), cl::cat(DecanCategory));

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
    HotLoop H;
    // FILE:LINE:COL or FILE:LINE; anything else is a loop id (f:L2).
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
    } else {
      H.Id = Entry.str();
    }
    Filter.HotLoops.push_back(std::move(H));
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

bool LoopFilter::selectsHotLoop(StringRef Id, StringRef File, unsigned Line,
                                unsigned Col) const {
  if (HotLoops.empty())
    return true;
  return any_of(HotLoops, [&](const HotLoop &H) {
    if (!H.Id.empty())
      return H.Id == Id;
    return Line && H.Line == Line && (!H.Col || H.Col == Col) &&
           (fileMatches(File, H.File) || fileMatches(H.File, File));
  });
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
