//===- decan/abi.h - Contract between instrumented code and the runtime ---===//
//
// Part of decan. The layout below is emitted by the compiler plugin and by the
// MC rewriter, and read by the runtime and by `decan list`. Change it only
// together with DECAN_ABI_VERSION and every producer and consumer.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Two structures describe an instrumented loop:
///
/// * decan_loop_desc (writable data, section "decan_loops"): what the runtime
///   and the dispatch stub share at run time. Registered by a constructor that
///   calls __decan_register_loops() once per module (executable or DSO).
/// * decan_meta_record (read-only, section ".decan.meta", no relocations):
///   what `decan list` reads from an ELF file without running it.
///
/// A call of an active loop, as the dispatch stub performs it:
/// \code
///   if (desc.active &&                         // one predictable load+branch
///       (desc.active != 2 ||                    // 2: an accounting stride,
///        --desc.countdown <= 0)) {              //    every countdown-th call
///     int v = __decan_begin_call(&desc);        // picks variant, sets FP env
///     uint64_t cycles, trips;
///     if (v >= 0) {
///       variant_fn[v](live-ins..., &live-outs..., &cycles, &trips);
///       if (!__decan_end_call(&desc, v, cycles, trips)) goto loop_exit;
///     }
///     // the program's loop, timed: after a variant, or when v < 0
///     variant_fn[DECAN_REF](live-ins..., &live-outs..., &cycles, &trips);
///     __decan_end_call(&desc, v | DECAN_RERUN, cycles, trips);
///     goto loop_exit;
///   }
///   original inline loop ...
/// \endcode
/// Every call of an active loop that reaches the runtime is timed (REF
/// unless it is a sample), so the runtime keeps whole-run totals; the
/// original run after a variant tells the trip count of the same input. For
/// loops whose calls are too short to time each one at a bounded cost, the
/// runtime sets `active` to 2 and `countdown` to a stride k: the k-1 calls
/// in between only decrement it and run the original loop inline, and the
/// timed call stands for all k (docs/runtime.md, "Accounting stride").
//===----------------------------------------------------------------------===//

#ifndef DECAN_ABI_H
#define DECAN_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DECAN_ABI_VERSION 11

/// Variant indices; the order is part of the ABI (bit i of masks = variant i).
/// One line each in decan/variants.def, which says what each variant is;
/// names: decan/abi_names.h.
enum decan_variant {
#define DECAN_VARIANT(ID, NAME, SET, REFERENCE, STORES, CALLS, GROUP_KIND,     \
                      GROUP, COLOUR)                                           \
  DECAN_##NAME = ID,
#include "decan/variants.def"
  DECAN_NUM_VARIANTS
};

/// Groups measured per loop (DECAN_DL1_G0.. and DECAN_NO_G0..).
#define DECAN_MAX_GROUPS 4

/// Or-ed into the variant argument of __decan_end_call for the original
/// loop run after variant `v` (rotate and instance mode): its cycles and trip
/// count. A negative `v` stays negative and is ignored.
#define DECAN_RERUN 0x100

/// In rdx of a rewritten dispatcher's first call of begin_call
/// (decan_rewritten_header): "answer without touching the extended
/// state" (docs/rewriter.md). Any other rdx (an address, in dispatchers
/// before it) asks for the full begin_call.
#define DECAN_QUICK_CALL 0x4b435551

/// Bits of a sample's "flags" in the runtime's reports (docs/runtime.md),
/// read by the tool.
enum decan_sample_flag {
  DECAN_SAMPLE_SWITCHED = 1,       ///< a context switch in the sample
  DECAN_SAMPLE_COUNTER_FAILED = 2, ///< a counter could not be read
  DECAN_SAMPLE_PRE_SWITCHED = 4,   ///< ... in the REF call before it
  DECAN_SAMPLE_POST_SWITCHED = 8,  ///< ... in the REF call after it
  DECAN_SAMPLE_NO_PRE = 16,        ///< no REF call before it (not rotate)
  DECAN_SAMPLE_NO_POST = 32,       ///< no REF call after it (yet)
  DECAN_SAMPLE_NO_RERUN = 64,      ///< no original run after it (yet)
  /// Page faults in the sample (first touch: the copy that runs first pays
  /// them); set with DECAN_SAMPLE_SWITCHED, so it is excluded alike.
  DECAN_SAMPLE_FAULTED = 128
};

/// Why a variant of a loop is not available (decan_machine_info::status).
/// Names: decan/abi_names.h.
enum decan_variant_status {
  DECAN_VARIANT_NOT_BUILT = 0,   ///< no machine pass saw this variant
  DECAN_VARIANT_OK = 1,          ///< built and verified
  DECAN_VARIANT_UNSUPPORTED = 2, ///< an instruction the rules do not handle
  DECAN_VARIANT_VERIFIER = 3,    ///< would add a dependence REF lacks
  DECAN_VARIANT_NO_LOOP = 4,     ///< the machine loop could not be found
  DECAN_VARIANT_EMPTY = 5        ///< nothing to transform (e.g. NO_DIV, no div)
};

/// Why a variant is not available, beyond its status: what `decan list` and
/// the reports say in words (decan_machine_info::why). Names:
/// decan/abi_names.h.
enum decan_variant_why {
  DECAN_WHY_NONE = 0,
  DECAN_WHY_EXIT_READS_STORED = 1,       ///< exit reads memory the loop writes
  DECAN_WHY_EXIT_READS_CALL_WRITTEN = 2, ///< ... memory a call may write
  DECAN_WHY_EXIT_DEPENDS_ON_CALL = 3,    ///< exit depends on a writing call
  DECAN_WHY_INSTRUCTION = 4,             ///< an instruction no rule handles
  DECAN_WHY_NO_FORM = 5,                 ///< no register or form for a rewrite
  DECAN_WHY_NOTHING = 6,                 ///< nothing to transform
  DECAN_WHY_NO_DIV = 7,        ///< no division or square root (NO_DIV)
  DECAN_WHY_NO_MEMORY = 8,     ///< no memory access (DL1)
  DECAN_WHY_NO_CALL = 9,       ///< no call (NO_CALL)
  DECAN_WHY_TRAP = 10,         ///< an integer division could trap
  DECAN_WHY_MEMORY_CALLS = 11, ///< memcpy & co. cannot be redirected (DL1)
  DECAN_WHY_VERIFIER = 12,     ///< the dependence verifier rejected it
  DECAN_WHY_OTHER = 13,        ///< see the producer's remark
  /// Empty because what the variant removes or redirects is all in the
  /// exit test's or the addresses' slice (pointer chasing, searches).
  DECAN_WHY_MEMORY_FEEDS_CONTROL = 14,  ///< every memory access (FP, DL1)
  DECAN_WHY_ARITH_FEEDS_CONTROL = 15,   ///< all arithmetic (LS)
  DECAN_WHY_ALL_CONTROL = 16,           ///< every instruction (CTRL)
  DECAN_WHY_NO_STORE = 17,              ///< no store (S2L, NO_STORE)
  DECAN_WHY_NO_RED = 18,                ///< no reduction chain (NO_RED)
  DECAN_WHY_NO_GROUP = 19,              ///< fewer groups than that (GROUPING)
  DECAN_WHY_STORE_ADDRESS_LOADED = 20,  ///< store address from loaded data
  DECAN_WHY_GROUP_HOLDS_ADDRESSES = 21, ///< group feeds other addresses
  DECAN_WHY_GATHER_SCATTER = 22,        ///< vector index or scatter
  DECAN_WHY_NO_BRIDGE = 23,             ///< a removed value cannot be bridged
  DECAN_WHY_SCRATCH_SIZE = 24,          ///< one array spans the scratch area
  DECAN_WHY_NO_CAP_REGISTER = 25 ///< no free register for the iteration cap
};

/// Filled by the machine-level pass (plugin) or the rewriter; all counts are
/// machine instructions of the loop body of the REF copy.
struct decan_machine_info {
  uint32_t status[DECAN_NUM_VARIANTS];     ///< enum decan_variant_status
  uint32_t loop_bytes[DECAN_NUM_VARIANTS]; ///< encoded size of the loop body
  uint32_t n_instrs;
  uint32_t n_load;  ///< L: instructions that read memory
  uint32_t n_store; ///< S: instructions that write memory
  uint32_t n_fp;    ///< FP: arithmetic (scalar FP and SIMD)
  uint32_t n_div;   ///< DIV: divisions and square roots
  uint32_t n_ctrl;  ///< CTRL: backward slice of the exit branches
  uint32_t n_addr;  ///< address slice
  uint32_t n_other;
  /// enum decan_store_policy: what each variant does to the loop's stores,
  /// recorded by the producer (it knows its rules); the runtime reports it.
  uint32_t store_policy[DECAN_NUM_VARIANTS];
  /// Calls in the loop body (REF), and a bit per decan_variant that deleted
  /// some of them: those variants lost the calls' work, so their stream
  /// analyses take NO_CALL, not REF, as the reference (docs/variants.md,
  /// "Calls").
  uint32_t n_call;
  uint32_t calls_deleted_mask;
  /// enum decan_variant_why per variant (0 when available or not built).
  uint32_t why[DECAN_NUM_VARIANTS];
  /// Loads on a loop-carried chain through memory: the loaded value feeds,
  /// in a later iteration, the load's own address (pointer chasing), so each
  /// iteration waits for the previous one's load (ABI 5).
  uint32_t n_chased_load;
  /// DL1 redirected the loop's memcpy/memset/memmove calls into the scratch
  /// area (destination and source), their lengths clamped to this many
  /// bytes (a quarter of the area: docs/variants.md, "Calls"); 0 when it
  /// redirected none. Formerly reserved (0).
  uint32_t dl1_memory_call_bytes;
  /// GROUPING: the loop's memory groups (may exceed DECAN_MAX_GROUPS; only
  /// the first ones are measured), the accesses of each, and a name (the
  /// access without its displacement, "(%rsi,%rax,8)", or the source name
  /// where the producer knows it), NUL-terminated.
  uint32_t n_groups;
  uint32_t group_accesses[DECAN_MAX_GROUPS];
  char group_name[DECAN_MAX_GROUPS][32];
  /// Bit per decan_variant whose copy carries an iteration cap: its exit
  /// test reads memory, so deleting or redirecting work could keep it from
  /// ending; the copy counts its iterations down from the descriptor's
  /// `iteration_cap` and leaves with DECAN_TRIPS_CAPPED when none are left
  /// (docs/variants.md, "Copies that could run forever"). Formerly reserved
  /// (0); keeps meta records a multiple of 8 bytes.
  uint32_t capped_mask;
};

/// The trip count a capped copy reports to __decan_end_call when it ran out
/// of iterations (decan_machine_info::capped_mask): the call is no sample,
/// and the original loop runs next.
#define DECAN_TRIPS_CAPPED UINT64_MAX

/// Stores seen by variants in rotate/instance mode (documented in
/// docs/design.md, recorded in reports): variants never write program memory.
/// Names: decan/abi_names.h.
enum decan_store_policy {
  DECAN_STORE_KEPT = 0,       ///< REF: the real loop
  DECAN_STORE_AS_LOAD = 1,    ///< store -> load of the same address
  DECAN_STORE_TO_SCRATCH = 2, ///< store -> the loop's scratch area
  DECAN_STORE_DELETED = 3     ///< store removed (NOP of the same length)
};

/// decan_loop_desc::flags.
enum decan_desc_flags {
  /// The descriptor times a region, not an innermost loop: an outer loop or
  /// a function the plugin wrapped (`decan flags --regions`), REF only. Its
  /// stubs call __decan_region_enter/__decan_region_leave while `active`.
  DECAN_DESC_REGION = 1,
  /// The descriptor times a loop nest as one loop (`decan flags --nests`,
  /// id "function:N<index>"): its copies hold its inner loops, which keep
  /// their own descriptors; every call of the nest is timed (no accounting
  /// stride), so the inner loops' own timed calls are those outside it.
  DECAN_DESC_NEST = 2,
  /// A region that may be entered again before it is left (a function that
  /// calls itself, or an outer loop in one): no accounting stride, under
  /// which the stubs would count the nested activations down as calls and
  /// the runtime would time an inner one; its depth stays in the stubs
  /// (`active` 3) instead.
  DECAN_DESC_RECURSIVE = 4
};

/// Per-loop runtime descriptor. Fields up to `runtime_state` are written by
/// the producer; `active`, `countdown`, `runtime_state` and `iteration_cap`
/// by the runtime.
struct decan_loop_desc {
  uint32_t abi_version; ///< DECAN_ABI_VERSION
  /// 0: the original loop runs inline; 1: every call goes to the runtime;
  /// 2: every call decrements `countdown` first and goes to the runtime
  /// only when the result is <= 0 (otherwise the original loop runs inline,
  /// untimed); 3 (regions only, DECAN_DESC_REGION): a timed activation is
  /// open on the only thread and `countdown` holds its nesting depth.
  volatile uint32_t active;
  volatile int32_t countdown; ///< see `active`; producers write 0
  uint32_t variant_mask;      ///< bit per decan_variant the producer emitted
  uint32_t line;              ///< 0 when unknown
  /// Source iterations one iteration of this loop runs: the smallest
  /// constant step of its integer induction variables (a loop vectorised or
  /// unrolled by 8 steps by 8), so builds with other vector or unroll
  /// factors compare time per source iteration; 0 when unknown.
  uint32_t iteration_step;
  const char *id;        ///< stable id "function:L<index>" (see design.md)
  const char *function;  ///< symbol of the enclosing function
  const char *file;      ///< source file, "" when unknown
  void *scratch;         ///< DL1 scratch area (64-byte aligned), or null
  uint32_t scratch_size; ///< bytes
  /// Bit per decan_variant: the variant drops a dependence through memory
  /// that REF has (iteration i+k loads what iteration i stored, and the
  /// variant's stores became loads or vanished), so its saturation is a
  /// lower bound, not an estimate. Same value as the meta record's.
  uint32_t bound_mask;
  const struct decan_machine_info *minfo; ///< may be null
  /// The loop's source identity across builds, or null when unknown (no
  /// debug location; rewritten binaries): "ORIGIN|FILE:LINE:COL|NEST|INLINED"
  /// with ORIGIN the function the loop is written in, NEST the LINE:COL of
  /// the enclosing loops (outermost first, '/'-separated) and INLINED the
  /// call sites it was inlined through ("FN@FILE:LINE:COL", innermost
  /// first, '<'-separated). docs/pgo.md.
  const char *source;
  uint32_t flags; ///< DECAN_DESC_* (below)
  /// Rewritten binaries with late variants (decan_rewritten_header's
  /// late range): the offset from this descriptor to the loop's record
  /// read by the shared dispatch routine once begin_call returned a copy:
  /// the base copy's record (no copies) as written, the late pack's once
  /// the runtime installed one, before it enables the loop's copies. 0 for
  /// other producers.
  volatile int32_t late_record;
  void *runtime_state; ///< owned by the runtime; null at load time
  /// Iterations a capped copy (decan_machine_info::capped_mask) may run in
  /// one call before it leaves, written by the runtime before it returns a
  /// variant from __decan_begin_call (from the loop's REF trip counts);
  /// producers write 0, which caps nothing (ABI 10).
  volatile uint64_t iteration_cap;
};

/// Read-only, relocation-free record in section ".decan.meta", one per
/// innermost loop seen (skipped loops too, with variant_mask 0 and a reason).
/// Followed by `strings_size` bytes: NUL-terminated id, function, file,
/// skip reason ("" when selected) and, where the producer knows it, the
/// source identity and the iteration step in decimal (as decan_loop_desc's
/// `source` and `iteration_step`), in that order; readers take the strings
/// present.
struct decan_meta_record {
  char magic[4];        ///< "DCN1"
  uint32_t record_size; ///< header + strings, padded to 8 bytes
  uint32_t abi_version;
  uint32_t variant_mask;
  uint32_t line;
  uint32_t column;
  uint32_t strings_size;
  uint32_t bound_mask; ///< as decan_loop_desc::bound_mask
  struct decan_machine_info minfo;
  /* char strings[strings_size]; */
};

/// "DCN0": a loop listed without machine info, as a base copy for late
/// variants lists its loops (~80 bytes instead of ~600 a record with
/// decan_machine_info takes): decan_meta_record's fields up to bound_mask,
/// then the strings; readers take minfo as zero. Same sizes and rules
/// otherwise (record_size covers header and strings, padded to 8).
struct decan_meta_record_short {
  char magic[4]; ///< "DCN0"
  uint32_t record_size;
  uint32_t abi_version;
  uint32_t variant_mask;
  uint32_t line;
  uint32_t column;
  uint32_t strings_size;
  uint32_t bound_mask;
  /* char strings[strings_size]; */
};

/// Start of the RW segment a rewritten binary (mc-rewriter) carries. Pointer
/// fields of its descriptors (id, function, file, scratch, minfo) hold offsets
/// from this header's address; the runtime adds that address, fills the
/// entry points and registers the descriptors. Rewritten code calls the
/// runtime only through `begin_call`/`end_call`, and only when a descriptor is
/// active, so a rewritten binary run without the runtime behaves as before.
struct decan_rewritten_header {
  char magic[8];         ///< "DECANRW1"
  uint32_t abi_version;  ///< DECAN_ABI_VERSION
  uint32_t count;        ///< number of descriptors
  uint64_t descs_offset; ///< from this header to decan_loop_desc[count]
  /// runtime. The dispatcher calls it with its frame (the stack pointer
  /// its copies run at) in r12 and its fault entry in rsi: a fault inside a
  /// copy other than REF resumes there, at the frame, and the call ends as
  /// a capped one, the original rerun (ABI 11). Called with
  /// DECAN_QUICK_CALL in rdx, before the dispatcher saves the extended
  /// state, it touches general registers only and answers -1 for a call
  /// the runtime would not time (a thread's accounting stride counting
  /// down), else 1: the dispatcher then saves the state and calls again.
  int (*begin_call)(struct decan_loop_desc *);
  int (*end_call)(struct decan_loop_desc *, int, uint64_t,
                  uint64_t); ///< runtime
  uint64_t relocated;        ///< nonzero once the runtime fixed the offsets
  /// A base copy for late variants (docs/rewriter.md, "Late variants"):
  /// the reserved range inside the image where the late pack is mapped,
  /// as an offset from this header and a size (0 when the copy has none).
  uint64_t late_offset;
  uint64_t late_size;
  /// Regions of a rewritten copy (`decan rewrite --regions`: outer loops,
  /// DECAN_DESC_REGION descriptors) call __decan_region_enter/leave through
  /// these, filled by the runtime. Present only when `descs_offset` leaves
  /// room for them (a copy without regions keeps its descriptors at 64).
  void (*region_enter)(struct decan_loop_desc *);
  void (*region_leave)(struct decan_loop_desc *);
};

/// A late pack (docs/rewriter.md, "Late variants"): the measured copies of
/// some loops of a base copy, laid out for the base's late range, in a
/// file of its own. The runtime maps `ro_size` bytes from file offset
/// `ro_offset` at `range_offset` in the range (read + execute: the code,
/// its `.eh_frame`, then the loops' machine info), zero-filled read-write
/// memory at `scratch_offset` (the loops' DL1 scratch areas), registers
/// the `.eh_frame` with the program's unwinder (`__register_frame`), and
/// then, per entry, points the loop's descriptor at its record, machine
/// info and scratch and enables its copies. Offsets named "from the range"
/// are from the late range's start. A run may install several packs of one
/// copy, one per round, each past the last (decan run places them).
struct decan_late_pack_header {
  char magic[8];           ///< "DECANLP1"
  uint32_t abi_version;    ///< DECAN_ABI_VERSION
  uint32_t count;          ///< entries
  uint64_t late_offset;    ///< the base's decan_rewritten_header::late_offset
  uint64_t late_size;      ///< ... and late_size (both checked)
  uint64_t base_count;     ///< descriptors in the base (checked)
  uint64_t ro_offset;      ///< file offset of the mapped bytes (page-aligned)
  uint64_t ro_size;        ///< bytes mapped read+execute (a page multiple)
  uint64_t scratch_offset; ///< from the range (page-aligned)
  uint64_t scratch_size;   ///< zero-filled read-write bytes (page multiple)
  uint64_t entries_offset; ///< file offset of decan_late_entry[count]
  uint64_t range_offset;   ///< where the mapped bytes go, from the range
                           ///< (page-aligned; 0 for the first pack)
  /// The code's unwind rules, from the range (inside the mapped bytes):
  /// CIEs and FDEs with pc-relative pointers and a zero terminator, as a
  /// loaded `.eh_frame` section (ABI 9).
  uint64_t eh_frame_offset;
  uint64_t eh_frame_size;
};

struct decan_late_entry {
  uint32_t desc_index;     ///< in the base's descriptors
  uint32_t variant_mask;   ///< copies built (bit per decan_variant)
  uint32_t bound_mask;     ///< as decan_loop_desc::bound_mask
  uint32_t scratch_size;   ///< bytes of its scratch area
  uint64_t record_offset;  ///< its record, from the range
  uint64_t minfo_offset;   ///< its decan_machine_info, from the range
  uint64_t scratch_offset; ///< its scratch area, from the range
};

/// Called by a module constructor with that module's descriptors.
void __decan_register_loops(struct decan_loop_desc *descs, uint32_t count);

/// Start of a measured call: returns the variant to time, or -1 when this
/// call is not measured (the stub then runs the original loop only). Sets the
/// FP environment for the timed call and touches DL1 scratch when needed.
int __decan_begin_call(struct decan_loop_desc *desc);

/// End of a timed call: accounts or records it, restores the FP environment.
/// Returns nonzero when the original loop must still run (the variant's
/// effects are not the program's; the stub then runs REF and calls again
/// with `variant | DECAN_RERUN`), zero when the timed copy's results stand.
int __decan_end_call(struct decan_loop_desc *desc, int variant, uint64_t cycles,
                     uint64_t trip_count);

/// Called by the plugin's measured call (`decan.measure_call`, one per
/// module) right before it calls a copy other than REF (`copy`, its entry),
/// as a setjmp: returns 0 and arms this thread's guard. A SIGSEGV, SIGBUS
/// or SIGFPE inside the copy (or what it calls) returns here again with 1
/// instead of killing the program: the measured call then calls
/// __decan_end_call as after the copy, which
/// drops the call and the variant and returns nonzero (the original runs).
/// end_call disarms the guard. Declared returns_twice (ABI 11).
int __decan_guard_enter(void *copy) __attribute__((returns_twice));

/// Entry to and exit from a region descriptor (DECAN_DESC_REGION), called
/// by the plugin's region stubs only while `active` is set (DECAN_REGIONS).
/// A leave without its enter (an exit block also reached from outside the
/// loop) changes nothing; frames left by an unwind are dropped untimed.
void __decan_region_enter(struct decan_loop_desc *desc);
void __decan_region_leave(struct decan_loop_desc *desc);

#ifdef __cplusplus
}
#endif

#endif // DECAN_ABI_H
