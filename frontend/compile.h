/* compile.h — the frontend's entry point: Python source to typed kir (internal to the library).
 *
 * fe_compile reads the module (lexer + parser), finds the kernels and device functions, types each
 * requested function once per signature with Numba's rules, and lowers it to a kir Module: one func.func
 * per (function, signature), kernels marked `kernel`, device functions they call included. Every error is
 * reported to diag located at the offending token; the result is NULL if there was any. */
#ifndef KF_FRONTEND_COMPILE_H
#define KF_FRONTEND_COMPILE_H

#include "ir/ir.h"

typedef struct FeOptions {
  const char *const *kernels;     /* functions to compile; NULL/0: every function with an eager signature */
  unsigned nkernels;
  const char *const *signatures;  /* Numba signature strings for the named functions (lazy kernels need one) */
  unsigned nsignatures;
  bool bounds_check;              /* emit check.bounds before every array access */
  /* Optional (tests): called with the Numba type of each value a local variable takes (assignments,
   * parameters, values merged after branches and loops), in Numba's spelling ("int64",
   * "array(float32, 2d, A)"); func is the Python function's name. */
  void (*on_type)(void *user, const char *func, const char *var, const char *type);
  void *on_type_user;
} FeOptions;

Module *fe_compile(IrContext *ctx, Diag *diag, const char *filename, const char *text, size_t len,
                   const FeOptions *opts);

#endif
