/* sim.h — the simulator: runs kir kernels on the CPU with the CUDA execution model (internal API).
 *
 * A launch runs every block of the grid; the threads of a block run as cooperative contexts over a
 * compact register-machine form of each function (compiled once per SimProgram), so that barriers,
 * warp shuffles and votes, shared memory and atomics behave as on the GPU. Input kir may be structured
 * (scf) or unstructured (cf), with or without check.bounds ops.
 *
 * What a launch reports (SimResult), each run-time error once (the first occurrence), as text the runtime
 * prints as is:
 *   IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:5)
 *   ValueError: x must be positive (kernel foo, k.py:7:9; thread (2, 0, 0) of block (0, 0, 0))
 *   error: barrier divergence in kernel K at F:L:C: thread (x,y,z) of block (x,y,z) waits here, but ...
 *   error: grid barrier divergence in kernel K at F:L:C: block (x,y,z) waits here, but ...
 *   error: shuffle from an absent lane in kernel K at F:L:C: thread (x,y,z) of block (x,y,z) reads lane L ...
 *   error: shuffle from a lane outside its mask in kernel K at F:L:C: thread (x,y,z) of block (x,y,z) reads lane L ...
 *   error: warp op mask without its own lane in kernel K at F:L:C: thread (x,y,z) of block (x,y,z), lane L ...
 *   error: warp op mismatch in kernel K at F:L:C: thread (x,y,z) of block (x,y,z) waits here at a shuffle (mode
 *          xor) of a 32-bit value with mask 0xffffffff, but thread (x,y,z), which that mask names, waits at ...
 *   error: data race on shared array at F:L:C (and F:L:C): threads (..) and (..) access element [i, j] between two barriers (...)
 *   error: memory access out of bounds (unchecked) in kernel K at F:L:C: ...
 *   error: simulation step limit exceeded (N ops in the launch; kf_runtime_options.sim_max_steps, ...) in kernel K ...
 *   error: simulation time limit exceeded (S s; kf_runtime_options.sim_max_seconds, ...) in kernel K ...
 *   (the settings named are SimOptions.steps_setting and seconds_setting)
 * A failed check.bounds, a check.raise or an unchecked out-of-bounds access ends that thread only (others
 * continue, as on the GPU); barrier divergence, the warp-op errors, the step and time limits and the call-depth
 * limit stop the launch. A failed check.bounds and a recorded check.raise share one record (the GPU's __kf_error,
 * abi.h): its first occurrence, the lowest block first; a silent check.raise just ends its thread.
 *
 * Semantics the simulator fixes where CUDA or C leaves them open (documented in ops.def where it says so):
 *  - integer division and remainder by zero (divsi, divui, remsi, remui, floordivsi, floormodsi) give 0;
 *    INT_MIN / -1 wraps; shifts by the width or more give 0 (shrsi: the sign);
 *  - fptosi/fptoui saturate (NaN gives 0), as PTX cvt.rzi does;
 *  - shared and local memory start zeroed;
 *  - warp ops follow PTX on sm_70 and later (the GPUs numba-cuda targets): shfl.sync, vote.sync and
 *    bar.warp.sync wait for the non-exited lanes their mask names to execute the same kind of op with the same
 *    mode and mask, whatever instruction each executes, so `cuda.shfl_xor_sync(mask, x, 16)` in both branches
 *    of an if exchanges the halves' values, as on the GPU; shuffles at two sites move 32-bit words (64 for a
 *    64-bit value), an i32's bits becoming an f32's; a shuffle's lane operand is read as its low five bits.
 *    What PTX leaves undefined is an error, never a value: a lane outside its own mask, a shuffle that reads a
 *    lane that has exited, past the block's last thread, or not named by its mask, and lanes whose ops or masks
 *    never match;
 *  - barriers follow PTX for threads that have exited (a return from the kernel, a silent raise): a barrier
 *    waits for the threads of the block that have not exited, so `if i >= n: return` before
 *    cuda.syncthreads() is fine, and so is a thread finishing while others wait (opts.strict_barriers asks
 *    for CUDA C's rule instead: every thread reaches each barrier); a grid barrier waits for every block, each
 *    arriving through its thread (0,0,0) as on the GPU; live threads at different barriers, or at a warp op
 *    whose mask names a thread waiting at a block barrier, are a divergence.
 *    A thread ended by a failed bounds check or an unchecked out-of-bounds access never counts (its error is
 *    the error).
 *
 * Ownership: a SimProgram borrows its Module (which must outlive it and not change meanwhile); argument
 * data is borrowed for the duration of the launch. Nothing here prints or exits. */
#ifndef KF_RUNTIME_SIM_SIM_H
#define KF_RUNTIME_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "kfront/abi.h"

enum { SIM_MAX_RANK = 8 };

/* An array argument: any layout; strides in bytes (may be negative or zero). */
typedef struct SimArray {
  void *data;                      /* address of element [0, 0, ...] */
  Type *elem;                      /* element type (compared structurally with the parameter's) */
  unsigned rank;
  int64_t shape[SIM_MAX_RANK];
  int64_t strides[SIM_MAX_RANK];   /* bytes */
} SimArray;

typedef enum { SIM_ARG_INT, SIM_ARG_UINT, SIM_ARG_FLOAT, SIM_ARG_ARRAY } SimArgKind;

/* A kernel argument. Scalars are converted to the parameter's type (int <-> float as by a C cast;
 * an i1 parameter is `value != 0`). */
typedef struct SimArg {
  SimArgKind kind;
  union {
    int64_t i;       /* SIM_ARG_INT */
    uint64_t u;      /* SIM_ARG_UINT */
    double f;        /* SIM_ARG_FLOAT */
    SimArray array;  /* SIM_ARG_ARRAY */
  };
} SimArg;

static inline SimArg sim_arg_int(int64_t v) { SimArg a = {.kind = SIM_ARG_INT}; a.i = v; return a; }
static inline SimArg sim_arg_uint(uint64_t v) { SimArg a = {.kind = SIM_ARG_UINT}; a.u = v; return a; }
static inline SimArg sim_arg_float(double v) { SimArg a = {.kind = SIM_ARG_FLOAT}; a.f = v; return a; }
/* A C-contiguous array argument of the given shape (strides computed from the element size). */
SimArg sim_arg_array_c(void *data, Type *elem, unsigned rank, const int64_t *shape);

#define SIM_STEPS_SETTING "kf_runtime_options.sim_max_steps, kfront run --sim-max-steps"
#define SIM_SECONDS_SETTING "kf_runtime_options.sim_max_seconds, kfront run --sim-max-seconds"

typedef struct SimOptions {
  bool detect_races;          /* shared-memory data races (default on) */
  uint64_t max_steps;         /* ops executed in the whole launch (default 1e10) */
  uint64_t max_thread_steps;  /* ops executed by one thread (default 1e9) */
  double max_seconds;         /* wall-clock time of the launch (default 0: no limit), looked at every 2^20 ops
                               * of a thread and before each block */
  unsigned max_call_depth;    /* nested func.call depth (default 256) */
  /* how the embedder's users set max_steps and max_seconds, named in the limits' messages (borrowed; the
   * defaults: "kf_runtime_options.sim_max_steps, kfront run --sim-max-steps" and its seconds' counterpart) */
  const char *steps_setting, *seconds_setting;
  /* NULL, or a flag the launch looks at with the clock (every 2^20 ops of a thread, before each block): non-zero
   * stops it with SIM_ERR_STEP_LIMIT "simulation interrupted" (kf_set_interrupt_flag's) */
  const volatile int *interrupt;
  unsigned nworkers;          /* host threads running blocks in parallel (default 1; 0 = number of CPUs) */
  bool strict_barriers;       /* CUDA C's stricter rule: every thread of the block reaches each barrier, so a
                               * thread that has exited while others wait is a divergence (default off: PTX's
                               * `exit`, a barrier waits for the threads that have not exited) */
  /* gpu.print's output, handed over when the launch ends: the lines of each thread in the order it printed
   * them, threads in order within a block, blocks in order (the GPU guarantees no order across threads), at
   * most SIM_PRINT_MAX bytes (the GPU's printf buffer; the rest is dropped, with a warning to the Diag).
   * NULL: written to the process's standard output, as the CUDA driver writes a kernel's printf. */
  void (*print)(void *user, const char *text, size_t len);
  void *print_user;
  /* NULL, or whether the `bytes` bytes at addr are all memory of one allocation the device holds: what a load or
   * store through a pointer (mem.ptr_load, mem.ptr_store, an array of mem.ptr_array) asks before it touches memory
   * that is none of the launch's own (an array argument, the block's shared arrays, the thread's local ones), so that
   * a pointer the kernel was handed (a made-up integer, a freed block) is an error, never dereferenced by this
   * process. NULL: no other memory is known. */
  bool (*holds)(void *user, uint64_t addr, size_t bytes);
  void *holds_user;
} SimOptions;

enum { SIM_PRINT_MAX = 1 << 20 };

/* Fills o with the defaults. sim_launch(…, opts = NULL, …) uses them too. */
void sim_options_init(SimOptions *o);

typedef enum {
  SIM_OK = 0,
  SIM_ERR_INDEX,        /* a check.bounds failed (IndexError) */
  SIM_ERR_RAISE,        /* a check.raise raised an exception (index_error.kind KF_ERROR_RAISE) */
  SIM_ERR_OOB,          /* an unchecked access out of an array's extent */
  SIM_ERR_BARRIER,      /* barrier divergence */
  SIM_ERR_RACE,         /* data race on shared memory */
  SIM_ERR_STEP_LIMIT,   /* max_steps / max_thread_steps / max_seconds exceeded */
  SIM_ERR_RUNTIME,      /* call depth, store to a constant array, zero loop step... */
  SIM_ERR_SETUP,        /* bad launch: arguments, dimensions, unsupported op (reported to diag) */
  SIM_ERR_NOMEM,        /* out of (host) memory (reported to diag) */
} SimStatus;

/* The error record (abi.h's kf_error_record): a failed check.bounds or a recorded check.raise. */
typedef struct SimIndexError {
  bool set;
  unsigned kind;        /* KF_ERROR_BOUNDS or KF_ERROR_RAISE (abi.h) */
  const char *kernel;   /* borrowed from the module */
  SrcLoc loc;           /* the check.bounds or check.raise op */
  unsigned axis;        /* bounds: */
  int64_t index, extent;
  const char *exception; /* raise: "Class" or "Class: message" (the op's attribute, borrowed) */
  uint32_t thread[3], block[3];
} SimIndexError;

typedef struct SimRace {
  bool set;
  bool write_write;     /* else read/write */
  SrcLoc loc, other_loc; /* this access, the earlier conflicting one */
  uint32_t thread[3], other_thread[3], block[3];
  unsigned rank;
  int64_t index[SIM_MAX_RANK];
} SimRace;

enum { SIM_MSG_MAX = 512 };

typedef struct SimResult {
  SimStatus status;           /* the first error that happened, SIM_OK if none */
  char message[SIM_MSG_MAX];  /* that error's text (empty if none) */
  SimIndexError index_error;  /* each kind's first occurrence, with its own text */
  char index_message[SIM_MSG_MAX];
  SimRace race;
  char race_message[SIM_MSG_MAX];
  uint64_t races;             /* conflicting accesses seen (each element counted once per epoch at most) */
  bool barrier_divergence;
  char barrier_message[SIM_MSG_MAX];
  bool oob;
  char oob_message[SIM_MSG_MAX];
  /* statistics */
  uint64_t blocks, threads;   /* simulated */
  uint64_t steps;             /* ops executed */
  uint64_t barriers;          /* block-wide barriers released */
  double seconds;             /* wall time of the launch */
} SimResult;

/* A module compiled for simulation; compile once, launch many times. */
typedef struct SimProgram SimProgram;

/* Prepares m for simulation: reads its mem.global ops now (NULL, errors in diag, if one is malformed, or with
 * *oom when out of memory); functions are compiled on their first launch, with every function they call (a
 * launch of a kernel using something the simulator cannot run fails with SIM_ERR_SETUP). One launch at a time
 * per program. Compiling runs under guards (utils/mem.h); out of memory, a launch fails with SIM_ERR_NOMEM
 * and the program stays usable. */
SimProgram *sim_program_new(Module *m, Diag *diag, bool *oom);
void sim_program_free(SimProgram *p);

/* Runs kernel_func (a func.func of m) over grid x block threads. dynamic_shared_bytes sizes the
 * mem.dynamic_shared array. Returns true when the launch ran to the end with no error; false otherwise:
 * result->status says why (SIM_ERR_SETUP errors are in diag, the others in result). opts may be NULL. */
bool sim_launch(Module *m, Op *kernel_func, const uint32_t grid[3], const uint32_t block[3],
                size_t dynamic_shared_bytes, const SimArg *args, unsigned nargs, const SimOptions *opts,
                SimResult *result, Diag *diag);
bool sim_program_launch(SimProgram *p, Op *kernel_func, const uint32_t grid[3], const uint32_t block[3],
                        size_t dynamic_shared_bytes, const SimArg *args, unsigned nargs, const SimOptions *opts,
                        SimResult *result, Diag *diag);

#endif
