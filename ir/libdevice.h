/* libdevice.h — the libdevice functions of cuda.libdevice (ir/libdevice.def, generated from numba-cuda's list)
 * and what each computes: the one definition kir's math.libdevice op has, for the simulator (through
 * ir/op_semantics) and against which test/gpu/ checks the GPU's libdevice.
 *
 * A function computes its results (its return value, then the values it stores through its pointer arguments)
 * from its other arguments. Each is one of: exact (integer functions, IEEE-exact float functions, the directed
 * rounding arithmetic and conversions: bit for bit libdevice's), libm (the host's libm function of the same
 * meaning, or an implementation in long double where the host has none, within libdevice's documented ulps),
 * approximate (the fast_* functions, built from PTX's approximate instructions: a defined value near them, see
 * ir/libdevice.c), or unsupported with the reason (none is, today): those are located errors in kernels. */
#ifndef KF_IR_LIBDEVICE_H
#define KF_IR_LIBDEVICE_H

#include <stdbool.h>

#include "ir/op_semantics.h"

enum { LD_MAX_ARGS = 3, LD_MAX_RESULTS = 3 };

typedef enum {
  LD_EXACT,       /* bit for bit libdevice's */
  LD_LIBM,        /* the host's libm: within a few ulps of libdevice's (never folded) */
  LD_LOOSE,       /* the host's libm where libdevice's error bound is large (Bessel, gamma): the GPU suite reports */
  LD_APPROX,      /* built from PTX's approximate instructions (fast_*): the simulator's defined value, the GPU's
                   * within the bounds of ir_libdevice_accuracy */
  LD_UNSUPPORTED, /* no simulation: LibdeviceFn.why */
} LdKind;

/* How far libdevice's result may lie from the simulator's (the CUDA C++ Programming Guide's bounds): within
 * ulps + ulps_per_arg * |x| units in the last place (ulps 0: the GPU suite's default for the kind), or within
 * abs_err where x lies in [abs_lo, abs_hi]; bounded only where x lies in [lo, hi] (elsewhere the GPU suite checks
 * only that both results are NaN or neither). x is argument `arg` (its magnitude when abs_of_arg). All zero: no
 * bound recorded (the suite's default for the kind). */
typedef struct LdAccuracy {
  double ulps, ulps_per_arg, abs_err, abs_lo, abs_hi, lo, hi;
  unsigned arg;
  bool abs_of_arg;
} LdAccuracy;

typedef void (*LdEval)(const SemVal *x, SemVal *r);

typedef struct LibdeviceFn {
  const char *name; /* without __nv_ */
  const char *sig;    /* "ret:args" of libdevice.def */
  const char *params; /* libdevice's names of the arguments (pointers too), comma-separated */
} LibdeviceFn;

/* What f computes: its kind, its evaluation (NULL when unsupported) and why it is unsupported. */
LdKind ir_libdevice_kind(const LibdeviceFn *f);
LdEval ir_libdevice_eval(const LibdeviceFn *f);
const char *ir_libdevice_why(const LibdeviceFn *f);
const LdAccuracy *ir_libdevice_accuracy(const LibdeviceFn *f);

/* A function's signature, from its sig. */
typedef struct LdShape {
  unsigned nargs, nresults;  /* the call's arguments (no pointers) and results (return value, pointed-to values) */
  char args[LD_MAX_ARGS], results[LD_MAX_RESULTS]; /* type letters: h i l f d */
  unsigned nproto;           /* libdevice's parameters, in order: their letters, upper case for a pointer */
  char proto[LD_MAX_ARGS + LD_MAX_RESULTS];
  char ret;                  /* libdevice's return type letter, 'v' for void */
} LdShape;
void ir_libdevice_shape(const LibdeviceFn *f, LdShape *out);

/* The function named (without __nv_), or NULL. */
const LibdeviceFn *ir_libdevice_lookup(const char *name);
/* Its index in the table (-1 for NULL), and the function of an index. */
int ir_libdevice_index(const LibdeviceFn *f);
const LibdeviceFn *ir_libdevice_at(int k);
unsigned ir_libdevice_count(void);
/* The kir type of a type letter, whether t is it, and its name (i16, i32, i64, f32, f64). */
Type *ir_libdevice_type(IrContext *ctx, char letter);
bool ir_libdevice_type_is(const Type *t, char letter);
const char *ir_libdevice_type_name(char letter);

#endif
