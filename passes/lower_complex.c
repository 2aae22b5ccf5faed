/* lower_complex.c — lowers the complex dialect to float ops: the one definition of what complex ops compute.
 *
 * Requires: valid IR in structured form (complex block arguments only on region entry blocks: run it before
 * lower-scf). Preserves: validity and meaning. Afterwards no value has a complex type: arrays keep complex
 * elements (NumPy's layout: re, im adjacent), read and written as their two floats through a float view of the
 * array (mem.reinterpret with a trailing axis of extent 2), so the simulator and the backend see floats only.
 *
 * Every complex value becomes a pair of floats (re, im):
 *   - complex.create is its operands; complex.re / complex.im are the parts;
 *   - the arithmetic expands as numba-cuda computes it (numba/cuda/cpython/numbers.py): add, sub, neg, conj
 *     part by part; mul (ac - bd) + (bc + ad) j with no special cases (numba-cuda's ad + bc, its operands in the
 *     order that makes the contract pass fuse bc, as libNVVM fuses numba-cuda's on the H200); div CPython's _Py_c_quot, branches
 *     turned into selects (a NaN part or a zero divisor part giving NaN + NaN j; the division by 0 + 0j is the
 *     frontend's ZeroDivisionError); abs hypot(re, im); eq ordered and ne unordered part by part;
 *   - mem.load / mem.store of a complex element read / write its two floats; arith.select selects each part;
 *   - ops that carry values (func.func parameters and results, func.call, func.return, scf.if / for / while and
 *     their scf.yield / scf.condition and region arguments, cf.br / cf.cond_br) carry the two floats in place of
 *     each complex value: re, then im. A kernel's complex parameter is so two float parameters (the runtime
 *     passes a complex argument as its two parts).
 * The backend (backend.c) and the simulator (runtime/sim/compile.c) run it on a copy of a module that has complex
 * values, as they run lower-scf; it is in passes.def to be seen on its own (kfront-opt). */
#include <math.h>

#include "passes.h"
#include "utils/mem.h"

typedef struct Pair {
  Value *re, *im;
} Pair;

typedef struct LC {
  Module *m;
  IrContext *ctx;
  IrBuilder b;
  Diag *diag;
  PtrMap pairs;  /* complex Value * -> Pair * */
  Op **dead;     /* ops replaced: erased at the end, after their users */
  size_t ndead, cap;
  bool ok;
} LC;

static bool has_complex_type(const Type *t) {
  if (!t) return false;
  if (t->kind == TY_COMPLEX) return true;
  if (t->kind == TY_FUNC || t->kind == TY_TUPLE) {
    for (unsigned i = 0; i < t->n; i++)
      if (has_complex_type(t->elems[i])) return true;
    for (unsigned i = 0; i < t->nresults; i++)
      if (has_complex_type(t->results[i])) return true;
  }
  return false;
}

static bool op_has_complex(const Op *op) {
  for (unsigned i = 0; i < op->noperands; i++)
    if (op_operand(op, i) && ty_is_complex(op_operand(op, i)->type)) return true;
  for (unsigned i = 0; i < op->nresults; i++)
    if (ty_is_complex(op->results[i].type)) return true;
  for (unsigned r = 0; r < op->nregions; r++)
    for (Block *b = op->regions[r].first; b; b = b->next)
      for (unsigned i = 0; i < b->nargs; i++)
        if (ty_is_complex(b->args[i]->type)) return true;
  return false;
}

static bool find_complex(Op *op, void *found) {
  Attr *ft = op->kind == OP_FUNC_FUNC ? ir_op_attr(op, "function_type") : NULL;
  if (op_has_complex(op) || (ft && ft->kind == ATTR_TYPE && has_complex_type(ft->type))) {
    *(bool *)found = true;
    return false;
  }
  return true;
}

bool pass_module_has_complex(Module *m) {
  bool found = false;
  ir_walk_module(m, find_complex, &found);
  return found;
}

static void fail(LC *c, const Op *op, const char *what) {
  diag_error(c->diag, op->loc, "lower-complex: %s ('%s')", what, op_name(op));
  c->ok = false;
}

static void bury(LC *c, Op *op) {
  if (c->ndead == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    c->dead = mem_realloc(c->dead, c->cap * sizeof *c->dead);  /* under a guard (mem.h): never NULL */
  }
  c->dead[c->ndead++] = op;
}

static void set_pair(LC *c, Value *v, Value *re, Value *im) {
  Pair *p = ARENA_NEW(&c->m->arena, Pair);
  p->re = re;
  p->im = im;
  ptrmap_put(&c->pairs, v, p);
}

static Pair get_pair(LC *c, const Op *user, Value *v) {
  Pair *p = ptrmap_get(&c->pairs, v);
  if (p) return *p;
  fail(c, user, "a complex operand defined after its use");
  Value *z = ib_const_float(&c->b, v->type->elem, 0);
  return (Pair){z, z};
}

/* ---- the float ops ------------------------------------------------------------------------------------ */

static Value *bin(LC *c, OpKind k, Value *x, Value *y) { return ib_binary(&c->b, k, x, y); }
static Value *un(LC *c, OpKind k, Value *x) { return ib_unary(&c->b, k, x, NULL); }
static Value *fconst(LC *c, Type *t, double v) { return ib_const_float(&c->b, t, v); }

/* CPython's _Py_c_quot (numba-cuda's complex division) with selects for its branches. */
static Pair complex_div(LC *c, Pair a, Pair b) {
  Type *t = a.re->type;
  Value *abr = un(c, OP_FABS, b.re), *abi = un(c, OP_FABS, b.im);
  Value *by_re = ib_cmpf(&c->b, IR_CMPF_OGE, abr, abi);  /* |b.re| >= |b.im| (false with a NaN) */
  Value *x, *y;
  /* divide top and bottom by b.re */
  Value *r1 = bin(c, OP_DIVF, b.im, b.re);
  x = bin(c, OP_MULF, b.im, r1);
  Value *d1 = bin(c, OP_ADDF, b.re, x);
  x = bin(c, OP_MULF, a.im, r1);
  x = bin(c, OP_ADDF, a.re, x);
  Value *re1 = bin(c, OP_DIVF, x, d1);
  x = bin(c, OP_MULF, a.re, r1);
  x = bin(c, OP_SUBF, a.im, x);
  Value *im1 = bin(c, OP_DIVF, x, d1);
  /* divide top and bottom by b.im */
  Value *r2 = bin(c, OP_DIVF, b.re, b.im);
  x = bin(c, OP_MULF, b.re, r2);
  Value *d2 = bin(c, OP_ADDF, x, b.im);
  x = bin(c, OP_MULF, a.re, r2);
  x = bin(c, OP_ADDF, x, a.im);
  Value *re2 = bin(c, OP_DIVF, x, d2);
  x = bin(c, OP_MULF, a.im, r2);
  x = bin(c, OP_SUBF, x, a.re);
  Value *im2 = bin(c, OP_DIVF, x, d2);
  Value *zero = fconst(c, t, 0), *nan = fconst(c, t, NAN);
  /* the scaling part is 0 (the other one too, or NaN): NaN + NaN j */
  x = ib_cmpf(&c->b, IR_CMPF_OEQ, b.re, zero);
  y = ib_cmpf(&c->b, IR_CMPF_OEQ, b.im, zero);
  Value *scale_zero = ib_select(&c->b, by_re, x, y);
  x = ib_select(&c->b, by_re, re1, re2);
  y = ib_select(&c->b, by_re, im1, im2);
  Value *re = ib_select(&c->b, scale_zero, nan, x);
  return (Pair){re, ib_select(&c->b, scale_zero, nan, y)};
}

/* numba-cuda's complex power (mathimpl.py cpow_implement, its translation of CPython's _Py_c_pow), its ifs turned
 * into selects and its complex products written out as they compute: sin(phase) * 1j and len * (...) keep the
 * products with the zero parts. */
static Pair complex_pow(LC *c, Pair a, Pair b) {
  Type *t = a.re->type;
  Value *zero = fconst(c, t, 0), *one = fconst(c, t, 1), *x, *y;
  x = ib_cmpf(&c->b, IR_CMPF_OEQ, b.re, zero);
  y = ib_cmpf(&c->b, IR_CMPF_OEQ, b.im, zero);
  Value *b_zero = bin(c, OP_ANDI, x, y);
  x = ib_cmpf(&c->b, IR_CMPF_OEQ, a.re, zero);
  Value *a_b_re_zero = bin(c, OP_ANDI, x, ib_cmpf(&c->b, IR_CMPF_OEQ, b.re, zero));
  Value *vabs = bin(c, OP_HYPOT, a.re, a.im);
  Value *len = bin(c, OP_POW, vabs, b.re);
  Value *at = bin(c, OP_ATAN2, a.im, a.re);
  Value *phase = bin(c, OP_MULF, at, b.re);
  Value *b_im_nz = ib_cmpf(&c->b, IR_CMPF_UNE, b.im, zero);
  x = bin(c, OP_MULF, at, b.im);
  x = bin(c, OP_DIVF, len, un(c, OP_EXP, x));
  len = ib_select(&c->b, b_im_nz, x, len);
  x = bin(c, OP_MULF, b.im, un(c, OP_LOG, vabs));
  x = bin(c, OP_ADDF, phase, x);
  phase = ib_select(&c->b, b_im_nz, x, phase);
  Value *cs = un(c, OP_COS, phase), *sn = un(c, OP_SIN, phase);
  /* (sn + 0j) * (0 + 1j) */
  x = bin(c, OP_MULF, sn, zero);
  y = bin(c, OP_MULF, zero, one);
  Value *t_re = bin(c, OP_SUBF, x, y);
  x = bin(c, OP_MULF, sn, one);
  y = bin(c, OP_MULF, zero, zero);
  Value *t_im = bin(c, OP_ADDF, x, y);
  /* (cs + 0j) + t */
  Value *u_re = bin(c, OP_ADDF, cs, t_re), *u_im = bin(c, OP_ADDF, zero, t_im);
  /* (len + 0j) * u */
  x = bin(c, OP_MULF, len, u_re);
  y = bin(c, OP_MULF, zero, u_im);
  Value *r_re = bin(c, OP_SUBF, x, y);
  x = bin(c, OP_MULF, len, u_im);
  y = bin(c, OP_MULF, zero, u_re);
  Value *r_im = bin(c, OP_ADDF, x, y);
  r_re = ib_select(&c->b, a_b_re_zero, zero, r_re);
  r_im = ib_select(&c->b, a_b_re_zero, zero, r_im);
  r_re = ib_select(&c->b, b_zero, one, r_re);
  return (Pair){r_re, ib_select(&c->b, b_zero, zero, r_im)};
}

/* mem.reinterpret of a complex array as floats with a trailing axis (re, im). */
static Value *float_view(LC *c, Value *arr) {
  Type *at = arr->type, *ft = at->elem->elem;
  unsigned r = at->rank;
  Value *ops[1 + 2 * 9];
  ops[0] = arr;
  for (unsigned d = 0; d < r; d++) {
    ops[1 + d] = ib_dim(&c->b, arr, d);
    Op *s = ib_op(&c->b, OP_STRIDE, 1, &arr, 1, (Type *[]){ty_i64(c->ctx)}, 0);
    ir_op_set_attr(c->m, s, "axis", attr_int(ty_i64(c->ctx), d));
    ops[1 + (r + 1) + d] = op_result(s, 0);
  }
  ops[1 + r] = ib_const_int(&c->b, ty_i64(c->ctx), 2);
  ops[1 + (r + 1) + r] = ib_const_int(&c->b, ty_i64(c->ctx), ft->bits / 8);
  Type *vt = ty_array(c->ctx, ft, r + 1, 'A');
  return op_result(ib_op(&c->b, OP_REINTERPRET, 1 + 2 * (r + 1), ops, 1, &vt, 0), 0);
}

/* The operands of a load or store at array operand ai (indices after it), on the float view, part k. */
static unsigned view_operands(LC *c, const Op *op, unsigned ai, Value *view, unsigned k, Value **out) {
  unsigned n = 0, r = op_operand(op, ai)->type->rank;
  out[n++] = view;
  for (unsigned d = 0; d < r; d++) out[n++] = op_operand(op, ai + 1 + d);
  out[n++] = ib_const_int(&c->b, ty_i64(c->ctx), k);
  return n;
}

/* Expands one op of the complex dialect (or a load, store or select of complex values) before it. */
static void expand(LC *c, Op *op) {
  Value *res = op->nresults ? op_result(op, 0) : NULL;
  switch (op->kind) {
  case OP_COMPLEX_CREATE: set_pair(c, res, op_operand(op, 0), op_operand(op, 1)); return;
  case OP_COMPLEX_RE: ir_value_replace_all_uses(res, get_pair(c, op, op_operand(op, 0)).re); return;
  case OP_COMPLEX_IM: ir_value_replace_all_uses(res, get_pair(c, op, op_operand(op, 0)).im); return;
  default: break;
  }
  if (op->kind == OP_STORE) {
    Pair v = get_pair(c, op, op_operand(op, 0));
    Value *view = float_view(c, op_operand(op, 1)), *ops[16];
    for (unsigned k = 0; k < 2; k++) {
      ops[0] = k ? v.im : v.re;
      unsigned n = view_operands(c, op, 1, view, k, ops + 1);
      ib_op(&c->b, OP_STORE, n + 1, ops, 0, NULL, 0);
    }
    return;
  }
  if (op->kind == OP_LOAD) {
    Value *view = float_view(c, op_operand(op, 0)), *ops[16], *part[2];
    Type *ft = res->type->elem;
    for (unsigned k = 0; k < 2; k++) {
      unsigned n = view_operands(c, op, 0, view, k, ops);
      part[k] = op_result(ib_op(&c->b, OP_LOAD, n, ops, 1, &ft, 0), 0);
    }
    set_pair(c, res, part[0], part[1]);
    return;
  }
  if (op->kind == OP_SELECT) {
    Pair x = get_pair(c, op, op_operand(op, 1)), y = get_pair(c, op, op_operand(op, 2));
    Value *cond = op_operand(op, 0);
    set_pair(c, res, ib_select(&c->b, cond, x.re, y.re), ib_select(&c->b, cond, x.im, y.im));
    return;
  }
  Pair a = get_pair(c, op, op_operand(op, 0)), b = {NULL, NULL};
  if (op->noperands > 1) b = get_pair(c, op, op_operand(op, 1));
  /* each op built in its own statement: the order of the ops is the order written */
  Value *x, *y, *u, *v;
  switch (op->kind) {
  case OP_COMPLEX_ADD:
  case OP_COMPLEX_SUB: {
    OpKind k = op->kind == OP_COMPLEX_ADD ? OP_ADDF : OP_SUBF;
    x = bin(c, k, a.re, b.re);
    y = bin(c, k, a.im, b.im);
    set_pair(c, res, x, y);
    return;
  }
  case OP_COMPLEX_MUL:
    x = bin(c, OP_MULF, a.re, b.re);
    y = bin(c, OP_MULF, a.im, b.im);
    u = bin(c, OP_SUBF, x, y);
    x = bin(c, OP_MULF, a.re, b.im);
    y = bin(c, OP_MULF, a.im, b.re);
    v = bin(c, OP_ADDF, y, x); /* bc + ad: the contract pass fuses bc, as numba-cuda's ad + bc is fused on the H200 */
    set_pair(c, res, u, v);
    return;
  case OP_COMPLEX_DIV: {
    Pair q = complex_div(c, a, b);
    set_pair(c, res, q.re, q.im);
    return;
  }
  case OP_COMPLEX_POW: {
    Pair q = complex_pow(c, a, b);
    set_pair(c, res, q.re, q.im);
    return;
  }
  case OP_COMPLEX_NEG:
    x = un(c, OP_NEGF, a.re);
    y = un(c, OP_NEGF, a.im);
    set_pair(c, res, x, y);
    return;
  case OP_COMPLEX_CONJ: set_pair(c, res, a.re, un(c, OP_NEGF, a.im)); return;
  case OP_COMPLEX_ABS: ir_value_replace_all_uses(res, bin(c, OP_HYPOT, a.re, a.im)); return;
  case OP_COMPLEX_EQ:
  case OP_COMPLEX_NE: {
    bool eq = op->kind == OP_COMPLEX_EQ;
    x = ib_cmpf(&c->b, eq ? IR_CMPF_OEQ : IR_CMPF_UNE, a.re, b.re);
    y = ib_cmpf(&c->b, eq ? IR_CMPF_OEQ : IR_CMPF_UNE, a.im, b.im);
    ir_value_replace_all_uses(res, bin(c, eq ? OP_ANDI : OP_ORI, x, y));
    return;
  }
  default: fail(c, op, "complex values in an op that takes none"); return;
  }
}

/* ---- values carried by ops and blocks ------------------------------------------------------------------ */

enum { MAX_CARRIED = 1024 };

/* The types of ts with each complex type as its float twice; false when there are too many. */
static bool split_types(Type *const *ts, unsigned n, Type **out, unsigned *nout) {
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++) {
    if (k + 2 > MAX_CARRIED) return false;
    if (ty_is_complex(ts[i])) {
      out[k++] = ts[i]->elem;
      out[k++] = ts[i]->elem;
    } else {
      out[k++] = ts[i];
    }
  }
  *nout = k;
  return true;
}

static Type *split_func_type(LC *c, Type *ft) {
  Type *ps[MAX_CARRIED], *rs[MAX_CARRIED];
  unsigned np, nr;
  if (!split_types(ft->elems, ft->n, ps, &np) || !split_types(ft->results, ft->nresults, rs, &nr)) return NULL;
  return ty_func(c->ctx, np, ps, nr, rs);
}

/* Replaces block b (the entry of its region) by one whose arguments carry each complex one as two floats. */
static void split_block_args(LC *c, Block *b) {
  bool any = false;
  for (unsigned i = 0; i < b->nargs; i++) any |= ty_is_complex(b->args[i]->type);
  if (!any) return;
  Block *nb = ir_block_new(c->m);
  for (unsigned i = 0; i < b->nargs; i++) {
    Value *a = b->args[i];
    if (ty_is_complex(a->type)) {
      Value *re = ir_block_add_arg(c->m, nb, a->type->elem), *im = ir_block_add_arg(c->m, nb, a->type->elem);
      set_pair(c, a, re, im);
    } else {
      ir_value_replace_all_uses(a, ir_block_add_arg(c->m, nb, a->type));
    }
  }
  if (b->first) ir_block_splice_tail(nb, b->first);
  ir_region_insert_block_after(b->region, b, nb);
  ir_block_unlink(b);
}

static void lower_block(LC *c, Block *b);

static void lower_regions(LC *c, Op *op) {
  for (unsigned r = 0; r < op->nregions; r++) {
    Block *first = op->regions[r].first;
    if (first) split_block_args(c, first);
    for (Block *b = op->regions[r].first; b; b = b->next) {
      if (b != op->regions[r].first)
        for (unsigned i = 0; i < b->nargs; i++)
          if (ty_is_complex(b->args[i]->type)) fail(c, op, "a complex argument of a block that is no region's entry (run lower-complex before lower-scf)");
      lower_block(c, b);
    }
  }
}

/* Rebuilds an op that carries complex values with their parts instead, its regions moved to the new op. */
static void rebuild(LC *c, Op *op) {
  Value **ops = mem_alloc(MAX_CARRIED * sizeof *ops);  /* under a guard (mem.h): never NULL */
  Type **rts = mem_alloc(2 * MAX_CARRIED * sizeof *rts), **ots = rts + MAX_CARRIED;
  unsigned n = 0, nr = 0, succ_counts[4] = {0, 0, 0, 0};
  unsigned main = op_num_main_operands(op);
  for (unsigned i = 0; i < op->noperands; i++) {
    Value *v = op_operand(op, i);
    unsigned add = v && ty_is_complex(v->type) ? 2 : 1;
    if (n + add > MAX_CARRIED) {
      fail(c, op, "too many values carried");
      goto done;
    }
    if (add == 2) {
      Pair p = get_pair(c, op, v);
      ops[n++] = p.re;
      ops[n++] = p.im;
    } else {
      ops[n++] = v;
    }
    if (i >= main)  /* a successor's operand: count it for its successor */
      for (unsigned s = 0; s < op->nsuccessors && s < 4; s++)
        if (i >= op_succ_operand_start(op, s) && i < op_succ_operand_start(op, s) + op->succ_operand_count[s]) succ_counts[s] += add;
  }
  for (unsigned i = 0; i < op->nresults; i++) ots[i] = op->results[i].type;
  if (op->nresults > MAX_CARRIED || !split_types(ots, op->nresults, rts, &nr)) {
    fail(c, op, "too many values carried");
    goto done;
  }
  Op *nop = ir_op_create(c->m, op->kind, op->loc, n, ops, nr, rts, op->nregions);
  for (unsigned a = 0; a < op->nattrs; a++) ir_op_set_attr(c->m, nop, op->attrs[a].name, op->attrs[a].value);
  if (op->nsuccessors) ir_op_set_successors(c->m, nop, op->nsuccessors, op->successors, succ_counts);
  for (unsigned r = 0; r < op->nregions; r++)
    while (op->regions[r].first) {
      Block *b = op->regions[r].first;
      ir_block_unlink(b);
      ir_region_append_block(&nop->regions[r], b);
    }
  ir_op_insert_before(op, nop);
  for (unsigned i = 0, k = 0; i < op->nresults; i++) {
    Value *v = op_result(op, i);
    if (ty_is_complex(v->type)) {
      set_pair(c, v, op_result(nop, k), op_result(nop, k + 1));
      k += 2;
    } else {
      ir_value_replace_all_uses(v, op_result(nop, k++));
    }
  }
  ir_op_unlink(op);
  bury(c, op);
  mem_free(ops);
  mem_free(rts);
  lower_regions(c, nop);
  return;
done:
  mem_free(ops);
  mem_free(rts);
}

static bool carries_values(OpKind k) {
  switch (k) {
  case OP_FUNC_RETURN: case OP_FUNC_CALL: case OP_IF: case OP_FOR: case OP_WHILE: case OP_YIELD:
  case OP_CONDITION: case OP_BR: case OP_COND_BR:
    return true;
  default: return false;
  }
}

static void lower_op(LC *c, Op *op) {
  if (!op_has_complex(op)) {
    lower_regions(c, op);
    return;
  }
  if (carries_values(op->kind)) {
    rebuild(c, op);
    return;
  }
  if (op->nregions) {
    fail(c, op, "complex values in an op with regions that does not carry values");
    return;
  }
  c->b.loc = op->loc;
  ib_set_before(&c->b, op);
  expand(c, op);
  ir_op_unlink(op);
  bury(c, op);
}

static void lower_block(LC *c, Block *b) {
  for (Op *op = b->first, *next; op && c->ok; op = next) {
    next = op->next;
    lower_op(c, op);
  }
}

static void lower_func(LC *c, Op *f) {
  Attr *ft = ir_op_attr(f, "function_type");
  if (ft && ft->kind == ATTR_TYPE && has_complex_type(ft->type)) {
    Type *nt = split_func_type(c, ft->type);
    if (!nt) {
      fail(c, f, "too many parameters");
      return;
    }
    ir_op_set_attr(c->m, f, "function_type", attr_type(nt));
  }
  lower_regions(c, f);
}

bool pass_lower_complex(Module *m, const PassContext *pc) {
  if (!pass_module_has_complex(m)) return true;
  LC c = {.m = m, .ctx = m->ctx, .diag = pc->diag, .ok = true};
  ib_init(&c.b, m);
  for (Op *op = ir_module_body(m)->first; op && c.ok; op = op->next)
    if (op->kind == OP_FUNC_FUNC) lower_func(&c, op);
  for (size_t i = 0; i < c.ndead; i++) ir_op_drop_uses(c.dead[i]);
  mem_free(c.dead);
  ptrmap_free(&c.pairs);
  return c.ok;
}
