/* range.h — the value-range analysis (passes/range.c): signed intervals of integer values and facts
 * "a + k <= b" between them, over one module, that any pass can query (bce is its first client).
 *
 * The analysis holds a stack of facts that the client pushes and pops as it walks (scopes), and answers
 * queries in the state the stack is in: the range of a value, or whether a + k <= b holds. Everything is
 * keyed by Value pointer (no scratch ids), so a client may query values of any function of the module, in
 * any order; the IR must not change under it while a fact that mentions a changed value is on the stack
 * (erasing ops without results, such as check.bounds, is always fine; so is creating new values).
 *
 * Typical use at one op (a pass that is not walking):
 *     RangeMark mk = range_scope_open(ra);
 *     range_assume_context(ra, op);       // the guards and loop bounds around op
 *     bool ok = range_prove_le(ra, i, n, 1);  // i + 1 <= n
 *     range_scope_close(ra, mk);
 * A walking client (bce) opens a scope per region and calls range_enter_region instead.
 *
 * Every public call is one query with its own work budget and depth limit: an answer is always sound, a
 * "don't know" (the full range, false) comes back when the budget runs out. */
#ifndef KF_PASSES_RANGE_H
#define KF_PASSES_RANGE_H

#include "ir/ir.h"

__extension__ typedef __int128 i128;

typedef struct Range {
  i128 lo, hi;        /* lo > hi: no value (the code is unreachable) */
} Range;

typedef struct RangeAnalysis RangeAnalysis;

typedef struct RangeMark {
  size_t nfacts;
  uint64_t gen;
} RangeMark;

/* An analysis over the values of m (static shapes are looked up there). Owned by the caller. */
RangeAnalysis *range_analysis_new(Module *m);
void range_analysis_free(RangeAnalysis *ra);

/* Scopes: facts pushed after range_scope_open are popped by the matching range_scope_close. */
RangeMark range_scope_open(RangeAnalysis *ra);
void range_scope_close(RangeAnalysis *ra, RangeMark mk);

/* Facts. The i1 value c is `truth` (and what that says about what it compares, through andi/ori/xori). */
void range_assume(RangeAnalysis *ra, Value *c, bool truth);
/* a + k <= b (a or b NULL: 0). */
void range_assume_le(RangeAnalysis *ra, Value *a, Value *b, i128 k);
/* 0 <= i and i + 1 <= n: what a passed check.bounds(i, n) says. */
void range_assume_in_bounds(RangeAnalysis *ra, Value *i, Value *n);
/* What holds inside region `ri` of op: the condition of an scf.if (negated in its else region), the bounds
 * of an scf.for's induction variable (step of known sign). Nothing for other ops. */
void range_enter_region(RangeAnalysis *ra, Op *op, unsigned ri);
/* range_enter_region for every scf region enclosing op, outermost first (structured form; facts of cf
 * branches are the walking client's business). */
void range_assume_context(RangeAnalysis *ra, Op *op);

/* Queries in the current state. The range of v (the full range of its type for what is not an integer or
 * i1, or not known). */
Range range_of_value(RangeAnalysis *ra, Value *v);
/* Whether a + k <= b holds (a or b NULL: 0). */
bool range_prove_le(RangeAnalysis *ra, Value *a, Value *b, i128 k);
/* v as base + *off (the base NULL for a constant), through sign extension, extension of a non-negative
 * value, integer bitcasts and additions of constants that cannot wrap around. */
Value *range_reduce(RangeAnalysis *ra, Value *v, i128 *off);

/* The range of every value of type t (integers read as signed, i1 as 0 or 1). */
Range range_of_type(const Type *t);
static inline bool range_is_empty(Range r) { return r.lo > r.hi; }
static inline bool range_is_full(Range r, const Type *t) {
  Range f = range_of_type(t);
  return r.lo <= f.lo && r.hi >= f.hi;
}

#endif
