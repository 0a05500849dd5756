//===- RunOptions.cpp - What a `decan run` is asked to do -----------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/RunOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <perfmon/pfmlib_perf_event.h>

#include <cstring>

using namespace llvm;

namespace decan::tool {

std::vector<Variant> RunOptions::rotation() const {
  std::vector<Variant> Out = Variants;
  auto Add = [&](ArrayRef<Variant> Vs) {
    for (Variant V : Vs)
      if (!is_contained(Out, V))
        Out.push_back(V);
  };
  if (Extended)
    Add(ExtendedVariants);
  if (Groups)
    Add(GroupVariants);
  // Saturations are ratios to REF: it is always measured.
  if (!is_contained(Out, Variant::REF))
    Out.insert(Out.begin(), Variant::REF);
  return Out;
}

std::vector<std::string> RunOptions::loopIds() const {
  std::vector<std::string> Out;
  if (Loops == "all")
    return Out;
  SmallVector<StringRef, 8> Ids;
  StringRef(Loops).split(Ids, ',', -1, false);
  for (StringRef Id : Ids)
    if (!Id.trim().empty())
      Out.push_back(Id.trim().str());
  return Out;
}

Error validateEvents(const std::vector<std::string> &Events) {
  if (Events.empty())
    return Error::success();
  if (pfm_initialize() != PFM_SUCCESS)
    return createStringError("libpfm4 failed to initialise: cannot check "
                             "events");
  for (const std::string &E : Events) {
    perf_event_attr Attr;
    std::memset(&Attr, 0, sizeof(Attr));
    pfm_perf_encode_arg_t Arg;
    std::memset(&Arg, 0, sizeof(Arg));
    Arg.attr = &Attr;
    Arg.size = sizeof(Arg);
    int RC =
        pfm_get_os_event_encoding(E.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &Arg);
    if (RC != PFM_SUCCESS)
      return createStringError("unknown event '%s' (%s; see libpfm4's "
                               "showevtinfo)",
                               E.c_str(), pfm_strerror(RC));
  }
  return Error::success();
}

Error validateRunOptions(const RunOptions &O) {
  if (O.Command.empty())
    return createStringError("no program given (decan run [options] -- "
                             "PROGRAM [ARGS...])");
  if (O.Loops != "all" && O.loopIds().empty())
    return createStringError("--loops wants loop ids or 'all'");
  if (!O.Reps || !O.MaxRuns)
    return createStringError("--reps and --max-runs must be at least 1");
  if (!is_contained({"rotate", "replace", "instance"}, O.Mode))
    return createStringError("unknown mode '%s' (rotate, replace, instance)",
                             O.Mode.c_str());
  if (!is_contained({"ftz", "keep"}, O.FpEnv))
    return createStringError("unknown floating-point environment '%s' "
                             "(--fp-env ftz or keep)",
                             O.FpEnv.c_str());
  if (O.HotPercent && !(*O.HotPercent > 0 && *O.HotPercent <= 100))
    return createStringError(
        "--hot wants a percentage in (0, 100], got '%s'",
        formatv("{0}", format("%g", *O.HotPercent)).str().c_str());
  if (O.AskLate && O.AskNoLate)
    return createStringError("--late or --no-late, not both");
  if (O.AskLateNoWait && O.AskNoLate)
    return createStringError("--late-nowait asks for late variants: no "
                             "--no-late");
  if (O.lateMode() == RunOptions::LateMode::Always &&
      (O.FindFirst || O.HotPercent || O.Loops != "all"))
    return createStringError("--late builds variants for the loops that "
                             "run: no --find-first, --hot or --loops");
  return validateEvents(O.Events);
}

} // namespace decan::tool
