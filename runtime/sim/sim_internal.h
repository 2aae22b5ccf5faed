/* sim_internal.h — the simulator's register-machine form, shared by compile.c (kir -> code) and
 * exec.c, exec_warp.c and exec_launch.c (the interpreter and the CUDA execution model, whose launch state is at
 * the end). Not for use outside runtime/sim/.
 *
 * Each func.func becomes a SimFn: an array of Ins over a frame of Slots (one per SSA value, plus
 * temporaries). Integer slots hold the value normalised to its type (sign-extended for signed types,
 * zero-extended for unsigned and i1), so comparisons and widening need no masking; f32, f16 and bf16 values
 * are kept as float (f16 rounded after every op), f64 as double: the values of ir/op_semantics.h, whose kernels
 * the instructions call. The common ops have instructions of their own; every other op that ir_op_sem
 * evaluates runs as SEM, which calls its row's evaluation (every op on bf16, every conversion by a rounding mode and
 * every math.libdevice run as SEM). Constants live in the frame template, not in the code. Functions run as
 * lower-scf leaves them: blocks and branches (a compare feeding a branch is one instruction, JCMP_*); block
 * arguments are moved by MOV / PMOVE (parallel move). */
#ifndef KF_RUNTIME_SIM_INTERNAL_H
#define KF_RUNTIME_SIM_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "ir/op_semantics.h"
#include "runtime/sim/sim.h"
#include "utils/mem.h"
#include "utils/ptrmap.h"

/* A register: a scalar as ir/op_semantics.h keeps it (so that every op is evaluated by its definition there),
 * or a pointer to a run-time array. */
typedef SemVal Slot;

/* Element kinds of array memory. */
/* EK_C64 / EK_C128: complex elements, which only size arrays (lower-complex reads and writes them as floats) */
typedef enum {
  EK_BOOL, EK_I8, EK_I16, EK_I32, EK_I64, EK_U8, EK_U16, EK_U32, EK_U64, EK_F16, EK_F32, EK_F64, EK_C64, EK_C128, EK_BF16,
  EK__COUNT
} ElemKind;

/* Flags of a run-time array. */
enum { ARR_SHARED = 1, ARR_CONST = 2, ARR_LOCAL = 4, ARR_RACE = 8 };

typedef struct SimShadow SimShadow;

/* A run-time array (what an array-typed slot points to). */
typedef struct SimArr {
  char *data;
  unsigned rank;
  unsigned flags;          /* ARR_* */
  int64_t shape[SIM_MAX_RANK];
  int64_t strides[SIM_MAX_RANK];
  /* shared arrays with race detection: shadow of the buffer that starts at base, one entry per granule */
  SimShadow *shadow;
  char *base;
  unsigned gshift;         /* log2(granule bytes) */
  const char *name;        /* global symbol, or NULL */
} SimArr;

/* Opcodes. Integer ops normalise their result with Ins.sh / Ins.sgn; float ops come in f32 and f64 forms
 * (f16 uses f32 plus F16ROUND). */
#define SIM_OPCODES(X) \
  X(NOP) X(JMP) X(JZ) X(JNZ) X(BR2) X(MOV) X(PMOVE) X(CALL) X(RET) X(EXIT) \
  X(TID) X(BID) X(BDIM) X(GDIM) X(LANE) X(LANEMASK_LT) X(BARRIER) X(BARRED) X(GRIDSYNC) X(WARP) X(ATOMIC) X(CAS) X(BOUNDS) X(RAISE) \
  X(PRINT) \
  X(DIM) X(STRIDE) X(SIZE) X(DATA) X(LOAD1) X(LOADN) X(STORE1) X(STOREN) X(PLOAD) X(PSTORE) X(ALLOCA) X(GREF) X(DYNSH) \
  X(SUBVIEW) X(REINTERP) X(PTRARRAY) X(FIELD) X(AMOVE) \
  X(ADDI) X(SUBI) X(MULI) X(DIVSI) X(DIVUI) X(REMSI) X(REMUI) X(FLOORDIVSI) X(FLOORMODSI) \
  X(MINSI) X(MAXSI) X(MINUI) X(MAXUI) X(IPOW) X(ABSI) X(SHLI) X(SHRSI) X(SHRUI) X(ANDI) X(ORI) X(XORI) \
  X(POPC) X(CLZ) X(FFS) X(BREV) X(ADDI64) X(SUBI64) X(MULI64) \
  X(CMPI_EQ) X(CMPI_NE) X(CMPI_SLT) X(CMPI_SLE) X(CMPI_SGT) X(CMPI_SGE) \
  X(CMPI_ULT) X(CMPI_ULE) X(CMPI_UGT) X(CMPI_UGE) \
  X(JCMP_EQ) X(JCMP_NE) X(JCMP_SLT) X(JCMP_SLE) X(JCMP_SGT) X(JCMP_SGE) \
  X(JCMP_ULT) X(JCMP_ULE) X(JCMP_UGT) X(JCMP_UGE) X(JSTEP_SLT) X(JSTEP_SGT) X(SELECT) X(EXTS) X(EXTU) \
  X(ADDF32) X(SUBF32) X(MULF32) X(DIVF32) X(REMF32) X(FLOORDIVF32) X(FLOORMODF32) X(MINF32) X(MAXF32) X(NEGF32) X(FMAF32) \
  X(ADDF64) X(SUBF64) X(MULF64) X(DIVF64) X(REMF64) X(FLOORDIVF64) X(FLOORMODF64) X(MINF64) X(MAXF64) X(NEGF64) X(FMAF64) \
  X(CMPF32) X(CMPF64) X(SITOF32) X(SITOF64) X(UITOF32) X(UITOF64) X(F32TOSI) X(F64TOSI) X(F32TOUI) X(F64TOUI) \
  X(F32TOF64) X(F64TOF32) X(F64TOF16) X(F16ROUND) X(BITCAST_FI) X(BITCAST_IF) \
  X(MATH1F32) X(MATH1F64) X(MATH2F32) X(MATH2F64) X(POWIF32) X(POWIF64) \
  X(ISNAN32) X(ISNAN64) X(ISINF32) X(ISINF64) X(ISFIN32) X(ISFIN64) X(SEM)

typedef enum {
#define X(n) SI_##n,
  SIM_OPCODES(X)
#undef X
  SI__COUNT
} SimOpcode;

/* Float comparison predicates (Ins.aux): IrCmpFPred. Atomic kinds (AtomicInfo.kind): IrAtomicKind. */
/* Warp-op kinds (WarpInfo.kind); their modes are IrShuffleMode, IrVoteMode, IrMatchMode (ir/attr_enums.def). */
typedef enum { WK_SHFL, WK_VOTE, WK_MATCH, WK_SYNCWARP, WK_ACTIVEMASK } WarpKind;
/* How a match compares its values (WarpInfo.vk): the low 32 bits of .u, all 64, the bits of a float's .f. */
typedef enum { MV_BITS32, MV_BITS64, MV_F32 } MatchValue;

typedef struct SimFn SimFn;

typedef struct Ins {
  uint16_t code;       /* SimOpcode */
  uint8_t sh;          /* integer result: 64 - bits (0 for 64-bit); conversions: source shift */
  uint8_t sgn;         /* integer result is signed */
  uint8_t aux;         /* element kind, predicate, axis, ... */
  uint8_t aux2;
  uint32_t d, a, b, c; /* slots (d: result); jump targets */
  int64_t imm;
  const Op *op;        /* for locations in error reports */
  void *ext;           /* per-opcode extra data (slot lists, callee, function pointer) */
} Ins;

typedef struct SlotList {
  unsigned n;
  uint32_t *s;
} SlotList;

typedef struct PMoveInfo {
  unsigned n;
  uint32_t *src, *dst;
} PMoveInfo;

/* SEM: an op evaluated by its row of ir_op_sem (Ins.a, b, c: its operands' slots). */
typedef struct SemCall {
  SemEvalFn eval;
  SemSig sig;
} SemCall;

/* Array values are SimArr descriptors held by value: an op making one (mem.subview) writes it into the frame's
 * local area and its slot points there; a slot that values move into (an array block argument, an array
 * result of scf.if/for/while or of a call) has a SimArr of its own there, and a move copies the descriptor
 * into it (AMOVE; a return copies into the caller's). So a value keeps its descriptor when the op that made
 * it runs again (the next iteration of a loop) or its frame is gone (a callee's). Offsets below are into
 * the frame's local area; 0 in a `buf` list means a slot that is not an array. */
typedef struct CallInfo {
  SimFn *callee;
  SlotList args, results;
  size_t *result_buf;       /* per result: its SimArr's offset + 1, or 0 */
} CallInfo;

typedef struct AMoveInfo {
  unsigned n;
  uint32_t *src, *dst;
  size_t *dst_buf;          /* offsets of the destinations' SimArrs */
} AMoveInfo;

typedef struct SubviewInfo {
  unsigned base_rank, rank;
  int8_t dims[SIM_MAX_RANK];        /* per result axis: the array's axis it walks, -1 for a new axis */
  uint32_t origin[SIM_MAX_RANK];    /* slots: per axis of the array */
  uint32_t extent[SIM_MAX_RANK], step[SIM_MAX_RANK];  /* slots: per result axis */
  size_t offset;                    /* of the result's SimArr */
} SubviewInfo;

/* gpu.print: the format and its operands' slots, each with its directive's kind. */
typedef enum { PK_I64, PK_U64, PK_F64, PK_BOOL } PrintKind;
typedef struct PrintInfo {
  const char *format;
  unsigned n;
  uint32_t *slots;
  uint8_t *kinds;                   /* PrintKind */
} PrintInfo;

/* mem.reinterpret, and mem.ptr_array (base_esize unused) */
typedef struct ReinterpInfo {
  unsigned rank;
  unsigned esize, base_esize;       /* of the result's elements, of the array's */
  uint32_t extent[SIM_MAX_RANK], stride[SIM_MAX_RANK];  /* slots */
  size_t offset;                    /* of the result's SimArr */
} ReinterpInfo;

/* mem.field: the field's byte offset and nested shape (appended to the array's axes, C-contiguous). */
typedef struct FieldInfo {
  unsigned offset_bytes;
  unsigned ndims, esize;
  int64_t dims[SIM_MAX_RANK];
  size_t offset;                    /* of the result's SimArr */
} FieldInfo;

typedef struct AtomicInfo {
  IrAtomicKind kind;
  ElemKind ek;
  SlotList idx;
  uint32_t arr, val, cmp;   /* cmp: CAS expected value */
} AtomicInfo;

/* A warp op. Lanes at different warp ops (different sites) match when the ops agree: the same kind and mode
 * and, for shuffles, as many 32-bit words moved (PTX's shfl.sync moves 32 bits; a 64-bit value takes two). */
typedef struct WarpInfo {
  WarpKind kind;
  int mode;
  uint32_t mask, val, lane, width;  /* operand slots (unused ones 0) */
  uint32_t pred;                    /* match "all": the slot of the second result */
  MatchValue vk;                    /* match: how values compare */
  SemTy vty;                        /* shuffles: the value's type (its bits move between lanes) */
} WarpInfo;

typedef struct AllocaInfo {
  ElemKind ek;
  unsigned esize;           /* bytes per element (a record's itemsize) */
  unsigned rank;
  char layout;
  int64_t shape[SIM_MAX_RANK];
  size_t offset;            /* of the SimArr in the frame's local area; the data follows it */
  size_t bytes;             /* element bytes */
  size_t align;             /* the data's alignment: attr align (cuda.local.array(alignment=)), else 16 */
} AllocaInfo;

struct SimFn {
  const Op *func;
  const char *name;
  Ins *code;
  uint32_t ncode;
  uint32_t nslots;
  Slot *init;               /* frame template: constants preset */
  unsigned nparams;
  uint32_t *params;         /* slots of the entry block arguments */
  size_t local_bytes;       /* alloca area per frame */
  size_t frame_bytes;       /* slots + local area, 16-aligned */
  bool compiled;
  bool queued;              /* on the pending list */
  unsigned round;           /* the compile (SimProgram.round) that compiled it */
  bool is_kernel;
};

/* A module-level array (mem.global). */
typedef struct SimGlobal {
  const Op *op;
  const char *name;
  bool shared;              /* else const, or captured */
  bool captured;            /* device memory at a fixed address (data), with strides: the kernel's to read and write */
  int64_t strides[SIM_MAX_RANK];
  ElemKind ek;
  unsigned esize;
  unsigned granule;         /* race-detection granule: the element size, 1 byte for records */
  unsigned rank;
  char layout;
  int64_t shape[SIM_MAX_RANK];
  size_t nbytes;
  size_t align;             /* shared: the data's alignment, attr align (cuda.shared.array(alignment=)), else 16 */
  char *data;               /* const: the materialised `value` (zeros when absent); captured: the address */
} SimGlobal;

struct SimProgram {
  Module *given;            /* the module sim_program_new was given */
  Module *m;                /* what runs: given, or its copy through lower-scf (owned) */
  Arena arena;
  PtrMap fns;               /* func.func Op -> SimFn */
  PtrMap globals;           /* mem.global Op -> index + 1 */
  SimGlobal *globals_v;
  unsigned nglobals, globals_cap;
  unsigned dyn_gshift;      /* dynamic shared granule: smallest element size used, log2 */
  bool uses_dyn;
  SimFn **pending;          /* created, not yet compiled */
  unsigned npending, pending_cap;
  Diag *diag;               /* during compilation */
  bool failed;
  unsigned round;           /* compiles so far (sim_compile_function) */
};

/* compile.c. A SimProgram, and every SimFn, belongs to no guard (its arena, tables and arrays are owned like the
 * program's block); functions are compiled under a guard each time (sim_compile_function). */
SimFn *sim_get_fn(SimProgram *p, const Op *func);
bool sim_compile_pending(SimProgram *p);
/* func and every function it calls compiled (those not yet compiled), under a guard reporting to p->diag: NULL
 * when one cannot be (reported; *oom when out of memory, after which nothing of this compile is kept). */
SimFn *sim_compile_function(SimProgram *p, const Op *func, bool *oom);
ElemKind sim_elem_kind(const Type *t);
unsigned sim_elem_size(ElemKind ek);
/* Bytes of one array element of type t (a scalar or a record). */
unsigned sim_type_size(const Type *t);
extern const char *const sim_opcode_names[SI__COUNT];

/* ---- launch state ----------------------------------------------------------------------------- */

enum { T_READY, T_BARRIER, T_WARP, T_EXITED, T_FAILED };

typedef struct Frame {
  const SimFn *fn;
  uint32_t pc;         /* return address (for frames below the top) */
  Slot *regs;
  char *mem;           /* owned buffer holding regs and the local area */
  size_t cap;
} Frame;

typedef struct Thread {
  uint32_t tid[3];
  uint32_t linear;
  uint8_t state;
  unsigned depth;
  const SimFn *fn;     /* current function, pc and registers */
  uint32_t pc;
  Slot *regs;
  Frame *frames;
  unsigned frames_cap;
  uint64_t steps;
  uint32_t prints;     /* gpu.print lines so far (their order within the thread) */
} Thread;

struct SimShadow {
  uint32_t w_epoch, r_epoch;
  uint16_t w_tid, r_tid, r2_tid;
  uint16_t w_wep, r_wep, r2_wep;
  uint8_t nreaders;
  const Op *w_op, *r_op, *r2_op;
};

typedef struct Launch Launch;

typedef struct BlockCtx {
  Launch *L;
  uint32_t bid[3];
  uint64_t blinear;
  Thread *threads;
  unsigned nthreads, nwarps;
  SimArr *garr;        /* per global: shared ones point into this block's memory */
  char **gmem;         /* shared globals' buffers */
  SimShadow **gshadow;
  SimArr dyn[EK__COUNT];
  char *dyn_mem;
  SimShadow *dyn_shadow;
  uint32_t epoch;
  uint16_t *wep;       /* per warp: syncwarps resolved */
  uint64_t steps, barriers;
} BlockCtx;

struct Launch {
  MemAllocator alloc;  /* the launching thread's, for the workers */
  SimProgram *prog;
  const SimFn *kernel;
  const char *kname;
  SimOptions opts;
  uint32_t grid[3], block[3];
  uint64_t nblocks;
  size_t dyn_bytes;
  Slot *frame0;        /* the kernel's frame template with the arguments in place */
  SimArr *args;
  /* per argument, the bytes [lo, hi) its array's elements span (lo == hi: none, or no array): memory the kernel was
   * handed, which a pointer to it (ffi.from_buffer) may reach as well as SimOptions.holds's */
  uint64_t (*arg_spans)[2];
  unsigned nargs;
  SimResult *res;
  int abort;           /* set (atomically) to stop every worker */
  uint64_t steps;      /* total, updated per thread slice */
  uint64_t next_block;
  double deadline;     /* now_s() past which the launch stops (opts.max_seconds; 0: never) */
  bool multi;
  bool cooperative;          /* every block resident at once (run_cooperative) */
  pthread_mutex_t lock;      /* result and global-memory atomics when multi */
  uint64_t index_block;      /* block of the recorded IndexError */
  /* gpu.print's lines (under the lock), put in order and handed over when the launch ends */
  struct PrintLine *lines;
  size_t nlines, lines_cap;
  StrBuf text;
  size_t dropped;            /* bytes beyond SIM_PRINT_MAX */
};

typedef struct PrintLine {
  uint64_t block;
  uint32_t thread, seq;
  size_t off, len;
} PrintLine;

static inline void lock(Launch *L) {
  if (L->multi) pthread_mutex_lock(&L->lock);
}
static inline void unlock(Launch *L) {
  if (L->multi) pthread_mutex_unlock(&L->lock);
}
static inline bool aborted(Launch *L) { return __atomic_load_n(&L->abort, __ATOMIC_RELAXED) != 0; }
/* Whether the embedder's interrupt flag (SimOptions.interrupt) asks the launch to stop. */
static inline bool interrupted(const Launch *L) { return L->opts.interrupt && *L->opts.interrupt; }

static inline double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The messages of the launch's limits name the settings that set them (SimOptions.steps_setting, seconds_setting:
 * by default the C API's and kfront run's). */
static inline void step_limit_message(char *what, size_t n, uint64_t limit, bool one_thread, const char *setting) {
  snprintf(what, n, "simulation step limit exceeded (%llu ops in %s; %s)", (unsigned long long)limit,
           one_thread ? "one thread" : "the launch", setting);
}

static inline void time_limit_message(char *what, size_t n, double seconds, const char *setting) {
  snprintf(what, n, "simulation time limit exceeded (%g s; %s)", seconds, setting);
}

/* snprintf without -Wformat-truncation's complaints: messages are cut at n bytes by design. */
static inline void __attribute__((format(printf, 3, 4))) msgf(char *dst, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, n, fmt, ap);
  va_end(ap);
}

static inline const char *loc_text(SrcLoc l, char *buf, size_t n) {
  if (!l.file) snprintf(buf, n, "<unknown>");
  else snprintf(buf, n, "%s:%u:%u", l.file, l.line, l.col);
  return buf;
}

static inline void xyz_of(const Launch *L, uint32_t linear, uint32_t out[3]) {
  out[0] = linear % L->block[0];
  out[1] = (linear / L->block[0]) % L->block[1];
  out[2] = linear / (L->block[0] * L->block[1]);
}

/* Records the launch's first error (under the lock). */
static inline void set_status(Launch *L, SimStatus s, const char *msg) {
  if (L->res->status == SIM_OK) {
    L->res->status = s;
    snprintf(L->res->message, SIM_MSG_MAX, "%s", msg);
  }
}

static inline void stop_launch(Launch *L) { __atomic_store_n(&L->abort, 1, __ATOMIC_RELAXED); }

/* ---- integer and float helpers ---------------------------------------------------------------- */

static inline uint64_t norm(const Ins *I, uint64_t v) {
  unsigned sh = I->sh;
  return I->sgn ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
}
static inline int64_t sext(uint64_t v, unsigned sh) { return (int64_t)(v << sh) >> sh; }
static inline uint64_t zext(uint64_t v, unsigned sh) { return (v << sh) >> sh; }

static inline const Ins *waiting_at(const Thread *t) { return &t->fn->code[t->pc]; }

/* exec.c */
void sim_report_fatal(BlockCtx *B, Thread *t, SimStatus s, const Ins *I, const char *what);
void sim_emit_prints(Launch *L, Diag *diag);
bool sim_frame_reserve(Thread *t, unsigned depth, size_t bytes);
void sim_run_thread(BlockCtx *B, Thread *t);
/* exec_warp.c */
bool sim_resolve_warp(BlockCtx *B, unsigned w);
bool sim_release_barrier(BlockCtx *B, Thread *first);

#endif
