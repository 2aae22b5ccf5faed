/* affine.h — the affine analysis (passes/affine.c): an integer index as a sum of constant multiples of
 * threadIdx, blockIdx*blockDim, loop induction variables and loop-invariant symbols, plus a constant.
 *
 *     A[i, k] in a naive matmul:  i = 1*tid.x + 1*bbase.x,  k = 1*iv@LINE (the loop over k)
 *
 * Terms: AFF_TID (threadIdx along dim), AFF_BBASE (blockIdx*blockDim along dim, either order),
 * AFF_IV (the induction variable v of an scf.for), AFF_SYM (a value v that is the same for every thread of
 * the launch, never changes during it and is not itself such a sum: a kernel parameter, an array extent, a
 * product of two of those, blockIdx alone ...). The form is of the mathematical value: when a RangeAnalysis
 * is given, an add, sub, mul or shift is looked through only where it provably does not wrap around (so the
 * form is exact), else the whole value becomes a symbol (when invariant) or the index is not affine. Without
 * a RangeAnalysis, the form is the value modulo wrap-around (enough to classify, not to compute with). */
#ifndef KF_PASSES_AFFINE_H
#define KF_PASSES_AFFINE_H

#include "ir/ir.h"
#include "passes/range.h"

enum { AFF_MAX_TERMS = 8 };

typedef enum AffKind { AFF_TID, AFF_BBASE, AFF_IV, AFF_SYM } AffKind;

typedef struct AffTerm {
  AffKind kind;
  unsigned dim;       /* AFF_TID, AFF_BBASE: 0, 1, 2 */
  Value *v;           /* AFF_IV: the induction variable (block argument 0 of an scf.for body); AFF_SYM: the value */
  int64_t coef;       /* never 0 */
} AffTerm;

typedef struct Affine {
  int64_t c;
  unsigned n;
  AffTerm t[AFF_MAX_TERMS];   /* each (kind, dim, v) once, in order of appearance */
} Affine;

/* The affine form of the integer value v; false when it is not affine (or has more than AFF_MAX_TERMS
 * terms). ra may be NULL (see above). */
bool affine_of(RangeAnalysis *ra, Value *v, Affine *out);
/* Whether v is the same for every thread of the launch and constant during it: built by pure ops without
 * regions from constants, the kernel's parameters, array extents/strides/sizes/data pointers, blockIdx,
 * blockDim, gridDim, warp size (no threadIdx, lane id, loop variable, load or region result). */
bool affine_is_invariant(Value *v);
/* The coefficient of a term in f (0 when absent). */
int64_t affine_coef(const Affine *f, AffKind kind, unsigned dim, const Value *v);
/* Text: "1*tid.x + 1*bbase.x + 2*iv@LINE + 1*sym(arg 2) + 1*sym(mem.dim@LINE) + 3" ("0" for the constant
 * 0; LINE: the source line of the loop or of the symbol's definition). */
void affine_print(const Affine *f, StrBuf *out);

#endif
