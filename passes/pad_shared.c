/* pad_shared.c — pads the rows of a static shared array (cuda.shared.array) that the threads of a warp read
 * or write down a column, so that those accesses hit distinct banks.
 *
 * Shared memory has 32 banks of 4 bytes; element (r, c) of a C-ordered array with a last extent of n
 * elements of 4 bytes is in bank (r*n + c) mod 32. When consecutive threads (threadIdx.x) move along a
 * row index and not along the last one (the seed's fast_matmul: sA[tx, ty] = ..., sA[tx, j] read in its
 * inner loop), an even n puts gcd(n, 32) threads of a warp in one bank: a 16-wide float tile read down a
 * column is an 8-way conflict on every read. One element of padding per row (n + 1, odd) makes such a
 * column conflict-free (8-byte elements likewise: a half-warp's 16 rows in distinct bank pairs). The
 * padding is never indexed.
 *
 * Requires: valid structured IR. Preserves: every value the kernel computes (only the layout of the array
 * in shared memory changes; its shape as the kernel sees it is kept: mem.dim and mem.size of it become
 * the original constants).
 * Options: report (1: a note at each shared array padded, or why one that looks like a candidate is not).
 *
 * An array is padded when: it is a mem.global in space "shared" of rank >= 2 with 4- or 8-byte elements and
 * an even last extent; every use of every mem.global_ref of it, in any function, is a mem.load or mem.store
 * through it, a mem.dim or a mem.size (no call, atomic, stride or address: they could see the layout);
 * every index of every access is affine (passes/affine.h) and the last index never moves with threadIdx.x
 * (there consecutive threads read along a row, which padding could only make worse); and some access has
 * threadIdx.x in another index (a column access, which padding makes conflict-free). */
#include <string.h>

#include "passes.h"
#include "passes/affine.h"

enum { PS_MAX_ARRAYS = 64, PS_MAX_RANK = 8 };

typedef struct Candidate {
  Op *global;
  const char *name;
  bool ok;          /* every use allows padding */
  bool column;      /* some access moves down a column with threadIdx.x */
  const char *why;  /* why not, when !ok */
} Candidate;

typedef struct Ps {
  Candidate c[PS_MAX_ARRAYS];
  unsigned n;
  bool report;
  Diag *diag;
  Module *m;
} Ps;

static Candidate *candidate_of(Ps *p, const char *name) {
  for (unsigned i = 0; i < p->n; i++)
    if (name && strcmp(p->c[i].name, name) == 0) return &p->c[i];
  return NULL;
}

static void refuse(Candidate *c, const char *why) {
  if (c->ok) c->why = why;
  c->ok = false;
}

/* Whether index v moves with threadIdx.x; *affine false when v is not affine. */
static bool moves_with_tid_x(Value *v, bool *affine) {
  Affine f;
  if (!affine_of(NULL, v, &f)) {
    *affine = false;
    return false;
  }
  return affine_coef(&f, AFF_TID, 0, NULL) != 0;
}

static void classify_access(Candidate *c, Op *op, unsigned first_index) {
  unsigned rank = op->noperands - first_index;
  for (unsigned d = 0; d < rank; d++) {
    bool affine = true;
    bool tx = moves_with_tid_x(op_operand(op, first_index + d), &affine);
    if (!affine) return refuse(c, "an index of it is not affine");
    if (tx && d + 1 == rank) return refuse(c, "threads of a warp access it along a row");
    if (tx) c->column = true;
  }
}

static bool scan_ref(Op *op, void *user) {
  Ps *p = user;
  if (op->kind != OP_GLOBAL_REF) return true;
  Candidate *c = candidate_of(p, ir_op_attr_str(op, "name"));
  if (!c) return true;
  for (Use *u = op_result(op, 0)->uses; u && c->ok; u = u->next) {
    Op *user_op = u->user;
    if (user_op->kind == OP_LOAD && u->index == 0) classify_access(c, user_op, 1);
    else if (user_op->kind == OP_STORE && u->index == 1) classify_access(c, user_op, 2);
    else if (user_op->kind != OP_DIM && user_op->kind != OP_SIZE) refuse(c, "it is used otherwise than loaded, stored or measured");
  }
  return true;
}

/* mem.dim and mem.size of the padded array's references become the original constants. */
static bool keep_shape(Op *op, void *user) {
  Ps *p = user;
  if (op->kind != OP_GLOBAL_REF) return true;
  Candidate *c = candidate_of(p, ir_op_attr_str(op, "name"));
  if (!c || !c->ok || !c->column) return true;
  const Attr *shape = ir_op_attr(c->global, "shape");
  for (Use *u = op_result(op, 0)->uses, *next; u; u = next) {
    next = u->next;
    Op *q = u->user;
    if (q->kind != OP_DIM && q->kind != OP_SIZE) continue;
    int64_t v = 1;
    if (q->kind == OP_DIM) v = shape->arr.elems[ir_op_attr_int(q, "axis", 0)].i;
    else
      for (unsigned d = 0; d < shape->arr.n; d++) v *= shape->arr.elems[d].i;
    IrBuilder b;
    ib_init(&b, p->m);
    b.loc = q->loc;
    ib_set_before(&b, q);
    ir_value_replace_all_uses(op_result(q, 0), ib_const_int(&b, op_result(q, 0)->type, v));
    ir_op_erase(q);
    if (!next) break;
  }
  return true;
}

bool pass_pad_shared(Module *m, const PassContext *pc) {
  Ps p = {.report = pc->options[0] != 0, .diag = pc->diag, .m = m};
  for (Op *g = ir_module_body(m)->first; g && p.n < PS_MAX_ARRAYS; g = g->next) {
    if (g->kind != OP_GLOBAL) continue;
    const char *space = ir_op_attr_str(g, "space");
    const Attr *shape = ir_op_attr(g, "shape");
    Type *t = ir_op_attr_type(g, "type");
    if (!space || strcmp(space, "shared") != 0 || !shape || shape->kind != ATTR_ARRAY || shape->arr.n < 2 || shape->arr.n > PS_MAX_RANK || !t ||
        t->kind != TY_ARRAY || t->rank != shape->arr.n)
      continue;
    unsigned es = ty_size(t->elem);
    int64_t last = shape->arr.elems[shape->arr.n - 1].i;
    if ((es != 4 && es != 8) || last < 2 || last % 2) continue;
    p.c[p.n++] = (Candidate){.global = g, .name = ir_op_attr_str(g, "sym_name"), .ok = true};
  }
  if (!p.n) return true;
  ir_walk_module(m, scan_ref, &p);
  ir_walk_module(m, keep_shape, &p);
  for (unsigned i = 0; i < p.n; i++) {
    Candidate *c = &p.c[i];
    if (!c->ok || !c->column) {
      if (p.report)
        diag_remark(p.diag, c->global->loc, "shared array @%s not padded: %s", c->name,
                  c->ok ? "no warp accesses it down a column" : c->why);
      continue;
    }
    const Attr *shape = ir_op_attr(c->global, "shape");
    Attr ext[PS_MAX_RANK];
    unsigned rank = shape->arr.n;
    for (unsigned d = 0; d < rank; d++) ext[d] = shape->arr.elems[d];
    ext[rank - 1] = attr_int(ty_i64(m->ctx), shape->arr.elems[rank - 1].i + 1);
    if (p.report)
      diag_remark(p.diag, c->global->loc, "shared array @%s padded: rows of %lld elements instead of %lld (threads of a "
                "warp access it down a column)", c->name, (long long)ext[rank - 1].i, (long long)ext[rank - 1].i - 1);
    ir_op_set_attr(m, c->global, "shape", attr_array(m, rank, ext));
  }
  return true;
}
