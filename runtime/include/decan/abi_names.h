//===- decan/abi_names.h - Names of the enumerators of decan/abi.h --------===//
//
// Part of decan. The ONE place that spells the ABI's vocabulary: variant
// names ("REF", "LS", ...: from decan/variants.def), variant status names
// and store policy names, as reports, remarks, symbols and command lines
// write them. C and C++; free of LLVM (the runtime includes it). Python
// scripts read the variants from decan/variants.def (scripts/decan_abi.py;
// lit/abi/names.test checks it).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_ABI_NAMES_H
#define DECAN_ABI_NAMES_H

#include "decan/abi.h"

#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Names of the variants, indexed by enum decan_variant: symbol suffix
/// (`f.decan.L0.NO_DIV`), report key and command-line spelling. Constant
/// data (no initializer runs), so the runtime may read it at any time.
static const char *const decan_variant_names[DECAN_NUM_VARIANTS] = {
#define DECAN_VARIANT(ID, NAME, SET, REFERENCE, STORES, CALLS, GROUP_KIND,     \
                      GROUP, COLOUR)                                           \
#NAME,
#include "decan/variants.def"
};

/// The fixed fields of a sample record in the runtime's report, in order
/// ("fields" lists them, then one name per counted event; docs/runtime.md).
#define DECAN_RECORD_FIXED_FIELDS 9
static const char *const decan_record_field_names[DECAN_RECORD_FIXED_FIELDS] = {
    "cycles",    "trips",       "flags",      "call",       "pre_cycles",
    "pre_trips", "post_cycles", "post_trips", "rerun_trips"};

/// decan_variant_names[variant], or "?" out of range.
static inline const char *decan_variant_name(uint32_t variant) {
  return variant < DECAN_NUM_VARIANTS ? decan_variant_names[variant] : "?";
}

/// The decan_variant named by the \p len bytes at \p name (exact, upper
/// case), or -1.
static inline int decan_variant_parse(const char *name, size_t len) {
  for (uint32_t v = 0; v < DECAN_NUM_VARIANTS; ++v) {
    const char *n = decan_variant_name(v);
    if (strlen(n) == len && memcmp(n, name, len) == 0)
      return (int)v;
  }
  return -1;
}

/// Name of a decan_variant_status, as reports and `decan list` print it.
static inline const char *decan_variant_status_name(uint32_t status) {
  switch (status) {
  case DECAN_VARIANT_NOT_BUILT:
    return "not-built";
  case DECAN_VARIANT_OK:
    return "ok";
  case DECAN_VARIANT_UNSUPPORTED:
    return "unsupported";
  case DECAN_VARIANT_VERIFIER:
    return "verifier";
  case DECAN_VARIANT_NO_LOOP:
    return "no-loop";
  case DECAN_VARIANT_EMPTY:
    return "empty";
  }
  return "unknown";
}

/// A decan_variant_status in words, as the plugin's remarks write it.
static inline const char *decan_variant_status_text(uint32_t status) {
  switch (status) {
  case DECAN_VARIANT_NOT_BUILT:
    return "not built";
  case DECAN_VARIANT_VERIFIER:
    return "rejected by the dependence verifier";
  case DECAN_VARIANT_NO_LOOP:
    return "no loop";
  }
  return decan_variant_status_name(status);
}

/// A decan_variant_why in words, as `decan list` and reports write it
/// ("" for DECAN_WHY_NONE).
static inline const char *decan_variant_why_text(uint32_t why) {
  switch (why) {
  case DECAN_WHY_NONE:
    return "";
  case DECAN_WHY_EXIT_READS_STORED:
    return "an exit condition reads memory the loop may write: a bound or "
           "flag the exit tests kept in a local variable, not in the array "
           "the loop stores to, lets variants be built";
  case DECAN_WHY_EXIT_READS_CALL_WRITTEN:
    return "an exit condition reads memory a call in the loop may write, "
           "and the copy has no iteration cap or no trip count (an "
           "induction variable)";
  case DECAN_WHY_EXIT_DEPENDS_ON_CALL:
    return "an exit condition depends on a call that may write memory: a "
           "callee declared pure or const, or the call moved out of the "
           "exit test, lets variants be built";
  case DECAN_WHY_INSTRUCTION:
    return "an instruction no rule handles (x87, atomics, string ops, ...)";
  case DECAN_WHY_NO_FORM:
    return "no register or instruction form for a rewrite (e.g. no free "
           "register)";
  case DECAN_WHY_NOTHING:
    return "nothing to transform: every instruction is in the control or "
           "address slice";
  case DECAN_WHY_NO_DIV:
    return "no division or square root";
  case DECAN_WHY_NO_MEMORY:
    return "no memory access to redirect";
  case DECAN_WHY_NO_CALL:
    return "no call";
  case DECAN_WHY_TRAP:
    return "an integer division of loaded values could trap";
  case DECAN_WHY_MEMORY_CALLS:
    return "memcpy/memset/memmove that DL1 cannot redirect (unknown "
           "arguments, or the result is read)";
  case DECAN_WHY_VERIFIER:
    return "the dependence verifier rejected it";
  case DECAN_WHY_NO_STORE:
    return "no store";
  case DECAN_WHY_NO_GROUP:
    return "the loop has fewer memory groups (arrays) than that, or one";
  case DECAN_WHY_NO_RED:
    return "no reduction chain (an accumulator only its own updates read)";
  case DECAN_WHY_MEMORY_FEEDS_CONTROL:
    return "every memory access feeds the exit test or an address";
  case DECAN_WHY_ARITH_FEEDS_CONTROL:
    return "all arithmetic feeds the exit test or an address";
  case DECAN_WHY_ALL_CONTROL:
    return "every instruction feeds the exit test";
  case DECAN_WHY_STORE_ADDRESS_LOADED:
    return "a store's address is computed from loaded data: it cannot be "
           "redirected to the scratch area, and no load form with a free "
           "register leaves it in place";
  case DECAN_WHY_GROUP_HOLDS_ADDRESSES:
    return "the memory group holds addresses or indexes of other accesses";
  case DECAN_WHY_GATHER_SCATTER:
    return "a gather or scatter: a vector index cannot address the scratch "
           "area, a scatter has no load form";
  case DECAN_WHY_SCRATCH_SIZE:
    return "the accesses to one array span more than the scratch area";
  case DECAN_WHY_NO_CAP_REGISTER:
    return "its exit reads memory, so the copy needs an iteration cap, and "
           "no register is free to count it";
  case DECAN_WHY_NO_BRIDGE:
    return "a value a removed instruction computes is still read, and no "
           "copy or idiom can stand in for it";
  }
  return "see the compiler's remark (-Rpass-missed=decan) or decan "
         "rewrite's notes";
}

/// Name of a decan_store_policy, as reports print it ("store_policy").
static inline const char *decan_store_policy_name(uint32_t policy) {
  switch (policy) {
  case DECAN_STORE_KEPT:
    return "kept";
  case DECAN_STORE_AS_LOAD:
    return "as-load";
  case DECAN_STORE_TO_SCRATCH:
    return "scratch";
  case DECAN_STORE_DELETED:
    return "deleted";
  }
  return "unknown";
}

#ifdef __cplusplus
} // extern "C"
#endif

#endif // DECAN_ABI_NAMES_H
