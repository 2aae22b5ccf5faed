/* compile.c — kir functions to the simulator's register-machine form (see sim_internal.h).
 *
 * The simulator runs what lower_for_execution (passes/lower_scf.c: lower-complex, lower-scf, contract, the one
 * lowering the backend consumes too) makes of a module: sim_program_new takes a copy through it when one of
 * them has something to do. One walk per function then: every SSA value gets a frame slot (constants are preset in the frame
 * template and cost nothing at run time), every op one or a few Ins, blocks in their order, and a branch moves
 * its operands into the target block's argument slots (a parallel move when a source is also a destination).
 * Three rewrites keep a loop iteration about as cheap as a structured compile made it:
 *   - a compare whose one use is the branch right after it is fused with it (JCMP_<pred> a, b -> t, f);
 *   - a branch to a small block (a loop's header: compare and branch) runs a copy of that block in place of
 *     the jump, once deep (the copy's own branches jump) — the same instructions writing the same slots;
 *   - the value a branch passes, made by the op right before the branch and used nowhere else, is made in
 *     the target's argument slot (the latch's iv + step), when no other moved value reads that slot;
 * and a jump to the block placed next is left out. Callees are compiled on first reference (sim_get_fn +
 * pending list).
 *
 * Memory: sim_program_new and each sim_compile_function run under a guard (utils/mem.h) reporting to the
 * Diag. The program and its SimFns outlive those guards, so their arena and tables belong to the program's
 * own block, and a function is linked in before it is compiled: when a compile runs out of memory, the
 * functions it compiled are marked not compiled again (a kernel compiled in that round may call one that was
 * not), and the next launch compiles them afresh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/sim/sim_internal.h"
#include "ir/libdevice.h"
#include "utils/mem.h"

const char *const sim_opcode_names[SI__COUNT] = {
#define X(n) #n,
    SIM_OPCODES(X)
#undef X
};

/* ---- types ----------------------------------------------------------------------------------- */

ElemKind sim_elem_kind(const Type *t) {
  if (t->kind == TY_BOOL) return EK_BOOL;
  if (t->kind == TY_RECORD) return EK_U8; /* records are only moved as bytes (sim_type_size) */
  if (t->kind == TY_COMPLEX) return t->elem->bits == 32 ? EK_C64 : EK_C128;
  if (t->kind == TY_FLOAT) return t->bfloat ? EK_BF16 : t->bits == 16 ? EK_F16 : t->bits == 32 ? EK_F32 : EK_F64;
  switch (t->bits) {
  case 8: return t->is_unsigned ? EK_U8 : EK_I8;
  case 16: return t->is_unsigned ? EK_U16 : EK_I16;
  case 32: return t->is_unsigned ? EK_U32 : EK_I32;
  default: return t->is_unsigned ? EK_U64 : EK_I64;
  }
}

unsigned sim_elem_size(ElemKind ek) {
  static const unsigned size[EK__COUNT] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16, 2};
  return size[ek];
}

unsigned sim_type_size(const Type *t) { return t->kind == TY_RECORD ? t->size : sim_elem_size(sim_elem_kind(t)); }

static unsigned log2u(unsigned x) {
  unsigned l = 0;
  while ((1u << l) < x) l++;
  return l;
}

/* ---- the compiler state ---------------------------------------------------------------------- */

typedef struct Patch {
  uint32_t ins;
  uint32_t label;
  bool in_b;      /* target goes to Ins.b (BR2's false target), else Ins.imm */
} Patch;

typedef struct Cc {
  SimProgram *p;
  SimFn *fn;
  Ins *code;
  uint32_t n, cap;
  PtrMap slots;          /* Value* -> slot + 1 */
  uint32_t nslots, init_cap;
  Slot *init;
  PtrMap block_labels;   /* Block* -> label + 1 */
  int64_t *labels;       /* label -> code index, -1 until placed */
  uint32_t nlabels, labels_cap;
  Patch *patches;
  uint32_t npatches, patches_cap;
  size_t local_bytes;
  PtrMap array_bufs;     /* slot + 1 -> offset + 1 of the SimArr it owns (sim_internal.h, CallInfo) */
  const Op *fused;       /* the compare the current block's branch takes in (compiled with the branch) */
  const Op *stepped;     /* the iv + step the current block's branch makes (JSTEP, with fused), or NULL */
  bool ok;
} Cc;

/* Grows an array owned like `owner` (NULL: the compile's guard; a SimProgram's arrays: the program). Under
 * the guard an allocation never fails (utils/mem.h). */
#define GROW_LIKE(owner, ptr, n, cap, init)                                 \
  do {                                                                      \
    if ((n) >= (cap)) {                                                     \
      size_t nc_ = (cap) ? (size_t)(cap) * 2 : (init);                      \
      (ptr) = mem_realloc_like((owner), (ptr), nc_ * sizeof *(ptr));        \
      (cap) = (uint32_t)nc_;                                                \
    }                                                                       \
  } while (0)
#define GROW(ptr, n, cap, init) GROW_LIKE(NULL, ptr, n, cap, init)

static bool cc_error(Cc *c, const Op *op, const char *fmt, const char *arg) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, arg);
  diag_error(c->p->diag, op ? op->loc : (SrcLoc){0}, "simulator: %s", msg);
  c->ok = false;
  return false;
}

static uint32_t new_slot(Cc *c) {
  GROW(c->init, c->nslots, c->init_cap, 64);
  c->init[c->nslots].u = 0;
  return c->nslots++;
}

/* A SimArr in the frame's local area: its offset. */
static size_t local_array(Cc *c) {
  size_t off = c->local_bytes;
  c->local_bytes += (sizeof(SimArr) + 15) & ~(size_t)15;
  return off;
}

/* Whether values move into v's slot (a block argument other than a parameter, a result of a call): an array
 * there owns a SimArr the moves copy into. */
static bool is_move_target(Cc *c, const Value *v) {
  if (v->block) return v->block != c->fn->func->regions[0].first;
  return v->def && v->def->kind == OP_FUNC_CALL;
}

static uint32_t slot_of(Cc *c, const Value *v) {
  uintptr_t s = (uintptr_t)ptrmap_get(&c->slots, v);
  if (s) return (uint32_t)(s - 1);
  uint32_t n = new_slot(c);
  ptrmap_put(&c->slots, v, (void *)(uintptr_t)(n + 1));
  if (ty_is_array(v->type) && is_move_target(c, v))
    ptrmap_put(&c->array_bufs, (void *)(uintptr_t)(n + 1), (void *)(uintptr_t)(local_array(c) + 1));
  return n;
}

/* The offset + 1 of the SimArr slot s owns, or 0. */
static size_t array_buf(Cc *c, uint32_t s) { return (size_t)(uintptr_t)ptrmap_get(&c->array_bufs, (void *)(uintptr_t)(s + 1)); }

static uint32_t opnd(Cc *c, const Op *op, unsigned i) { return slot_of(c, op_operand(op, i)); }
static uint32_t res(Cc *c, const Op *op, unsigned i) { return slot_of(c, op_result(op, i)); }

static uint32_t emit(Cc *c, SimOpcode code, const Op *op) {
  GROW(c->code, c->n, c->cap, 256);
  Ins *I = &c->code[c->n];
  memset(I, 0, sizeof *I);
  I->code = (uint16_t)code;
  I->op = op;
  return c->n++;
}
#define INS(c, i) (&(c)->code[(i)])

static uint32_t new_label(Cc *c) {
  GROW(c->labels, c->nlabels, c->labels_cap, 64);
  c->labels[c->nlabels] = -1;
  return c->nlabels++;
}

static void place_label(Cc *c, uint32_t l) { c->labels[l] = c->n; }

static void jump_to(Cc *c, uint32_t ins, uint32_t label, bool in_b) {
  GROW(c->patches, c->npatches, c->patches_cap, 64);
  c->patches[c->npatches++] = (Patch){ins, label, in_b};
}

static uint32_t label_of_block(Cc *c, const Block *b) {
  uintptr_t l = (uintptr_t)ptrmap_get(&c->block_labels, b);
  if (l) return (uint32_t)(l - 1);
  uint32_t n = new_label(c);
  ptrmap_put(&c->block_labels, b, (void *)(uintptr_t)(n + 1));
  return n;
}

static void *cc_alloc(Cc *c, size_t size) { return arena_alloc(&c->p->arena, size); }

static SlotList slot_list(Cc *c, const Op *op, unsigned first, unsigned n) {
  SlotList l = {n, cc_alloc(c, sizeof(uint32_t) * (n ? n : 1))};
  for (unsigned i = 0; i < n; i++) l.s[i] = opnd(c, op, first + i);
  return l;
}

/* The element indices of a mem.load/mem.store (operands first .. first+rank-1) of instruction k: the slot of
 * the one index of the rank-1 fast forms, or (returning 0) a slot list in the instruction's ext. */
static uint32_t element_indices(Cc *c, size_t k, const Op *op, unsigned first, unsigned rank) {
  if (rank == 1) return opnd(c, op, first);
  SlotList *l = cc_alloc(c, sizeof *l);
  *l = slot_list(c, op, first, rank);
  INS(c, k)->ext = l;
  return 0;
}

static void set_norm(Ins *I, const Type *t) {
  if (t->kind == TY_BOOL) {
    I->sh = 63;
    I->sgn = 0;
  } else if (t->kind == TY_INT) {
    I->sh = (uint8_t)(64 - t->bits);
    I->sgn = !t->is_unsigned;
  }
}

static uint8_t shift_of(const Type *t) { return (uint8_t)(t->kind == TY_BOOL ? 63 : t->kind == TY_INT ? 64 - t->bits : 0); }

/* Array moves as if all at once: the descriptors are copied out before any is copied in (a source may point
 * at a destination's SimArr through a value other than the destination's own slot). */
static void emit_array_moves(Cc *c, unsigned n, const uint32_t *src, const uint32_t *dst, const Op *op) {
  AMoveInfo *am = cc_alloc(c, sizeof *am);
  am->n = 0;
  am->src = cc_alloc(c, sizeof(uint32_t) * n);
  am->dst = cc_alloc(c, sizeof(uint32_t) * n);
  am->dst_buf = cc_alloc(c, sizeof(size_t) * n);
  for (unsigned i = 0; i < n; i++) {
    size_t b = array_buf(c, dst[i]);
    if (!b || src[i] == dst[i]) continue;
    am->src[am->n] = src[i];
    am->dst[am->n] = dst[i];
    am->dst_buf[am->n++] = b - 1;
  }
  if (!am->n) return;
  uint32_t k = emit(c, SI_AMOVE, op);
  INS(c, k)->ext = am;
}

/* Moves src[i] -> dst[i] as if all at once (arrays by emit_array_moves, the rest below). */
static void emit_moves(Cc *c, unsigned n, const uint32_t *src, const uint32_t *dst, const Op *op) {
  bool arrays = false;
  for (unsigned i = 0; i < n && !arrays; i++) arrays = array_buf(c, dst[i]) != 0;
  if (arrays) {
    emit_array_moves(c, n, src, dst, op);
    uint32_t *s2 = cc_alloc(c, sizeof(uint32_t) * (n ? n : 1)), *d2 = cc_alloc(c, sizeof(uint32_t) * (n ? n : 1));
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
      if (!array_buf(c, dst[i])) {
        s2[m] = src[i];
        d2[m++] = dst[i];
      }
    src = s2;
    dst = d2;
    n = m;
  }
  bool conflict = false;
  unsigned real = 0;
  for (unsigned i = 0; i < n; i++) {
    if (src[i] == dst[i]) continue;
    real++;
    for (unsigned k = i + 1; k < n; k++)
      if (src[k] == dst[i] && src[k] != dst[k]) conflict = true;
  }
  if (!real) return;
  if (!conflict) {
    for (unsigned i = 0; i < n; i++) {
      if (src[i] == dst[i]) continue;
      uint32_t k = emit(c, SI_MOV, op);
      INS(c, k)->d = dst[i];
      INS(c, k)->a = src[i];
    }
    return;
  }
  PMoveInfo *pm = cc_alloc(c, sizeof *pm);
  pm->n = n;
  pm->src = cc_alloc(c, sizeof(uint32_t) * n);
  pm->dst = cc_alloc(c, sizeof(uint32_t) * n);
  memcpy(pm->src, src, sizeof(uint32_t) * n);
  memcpy(pm->dst, dst, sizeof(uint32_t) * n);
  uint32_t k = emit(c, SI_PMOVE, op);
  INS(c, k)->ext = pm;
}

static uint32_t *operand_slots(Cc *c, const Op *op, unsigned first, unsigned n) {
  uint32_t *s = cc_alloc(c, sizeof(uint32_t) * (n ? n : 1));
  for (unsigned i = 0; i < n; i++) s[i] = opnd(c, op, first + i);
  return s;
}

static uint32_t *arg_slots(Cc *c, const Block *b, unsigned first) {
  unsigned n = b->nargs > first ? b->nargs - first : 0;
  uint32_t *s = cc_alloc(c, sizeof(uint32_t) * (n ? n : 1));
  for (unsigned i = 0; i < n; i++) s[i] = slot_of(c, b->args[first + i]);
  return s;
}

static uint32_t *result_slots(Cc *c, const Op *op) {
  uint32_t *s = cc_alloc(c, sizeof(uint32_t) * (op->nresults ? op->nresults : 1));
  for (unsigned i = 0; i < op->nresults; i++) s[i] = res(c, op, i);
  return s;
}

/* ---- ops ------------------------------------------------------------------------------------- */


static bool is_f64(const Type *t) { return t->kind == TY_FLOAT && t->bits == 64; }
static bool is_f16(const Type *t) { return ty_is_f16(t); }

static void f16_fix(Cc *c, const Op *op, const Type *t, uint32_t d) {
  if (!is_f16(t)) return;
  uint32_t k = emit(c, SI_F16ROUND, op);
  INS(c, k)->d = d;
  INS(c, k)->a = d;
}

static void int_binary(Cc *c, const Op *op, SimOpcode code) {
  const Type *t = op_result(op, 0)->type;
  if (t->kind == TY_INT && t->bits == 64) {
    if (code == SI_ADDI) code = SI_ADDI64;
    else if (code == SI_SUBI) code = SI_SUBI64;
    else if (code == SI_MULI) code = SI_MULI64;
  }
  uint32_t k = emit(c, code, op);
  Ins *I = INS(c, k);
  I->d = res(c, op, 0);
  I->a = opnd(c, op, 0);
  if (op->noperands > 1) I->b = opnd(c, op, 1);
  set_norm(I, t);
}

static void float_op(Cc *c, const Op *op, SimOpcode f32, SimOpcode f64) {
  const Type *t = op_result(op, 0)->type;
  uint32_t k = emit(c, is_f64(t) ? f64 : f32, op);
  Ins *I = INS(c, k);
  I->d = res(c, op, 0);
  I->a = opnd(c, op, 0);
  if (op->noperands > 1) I->b = opnd(c, op, 1);
  uint32_t d = I->d;
  f16_fix(c, op, t, d);
}

/* An instruction of three operands and one result (select, fma). */
static void ternary_op(Cc *c, const Op *op, SimOpcode opcode) {
  uint32_t k = emit(c, opcode, op); /* before INS: emit may move c->code */
  Ins *I = INS(c, k);
  I->d = res(c, op, 0);
  I->a = opnd(c, op, 0);
  I->b = opnd(c, op, 1);
  I->c = opnd(c, op, 2);
}

/* A libm function of ir_op_sem's row: MATH1/MATH2 call the row's host function (f16 in f32, then rounded). */
static void math_fn(Cc *c, const Op *op, const OpSem *o) {
  const Type *t = op_result(op, 0)->type;
  bool d64 = is_f64(t), unary = o->f1 != NULL;
  uint32_t k = emit(c, unary ? (d64 ? SI_MATH1F64 : SI_MATH1F32) : (d64 ? SI_MATH2F64 : SI_MATH2F32), op);
  Ins *I = INS(c, k);
  I->d = res(c, op, 0);
  I->a = opnd(c, op, 0);
  if (!unary) I->b = opnd(c, op, 1);
  I->ext = unary ? (d64 ? (void *)o->d1 : (void *)o->f1) : (d64 ? (void *)o->d2 : (void *)o->f2);
  uint32_t dst = I->d;
  f16_fix(c, op, t, dst);
}

/* Any other op ir_op_sem evaluates: SEM, calling the row's evaluation (what an op added to the table runs as). */
static bool sem_generic(Cc *c, const Op *op) {
  SemSig sig;
  if (!ir_op_sem[op->kind].eval || !sem_sig_of(op, &sig)) return false;
  SemCall *sc = cc_alloc(c, sizeof *sc);
  sc->eval = ir_op_sem[op->kind].eval;
  sc->sig = sig;
  uint32_t k = emit(c, SI_SEM, op);
  Ins *I = INS(c, k);
  I->d = res(c, op, 0);
  I->a = op->noperands > 0 ? opnd(c, op, 0) : 0;
  I->b = op->noperands > 1 ? opnd(c, op, 1) : 0;
  I->c = op->noperands > 2 ? opnd(c, op, 2) : 0;
  I->ext = sc;
  return true;
}

/* Whether a scalar op has a bf16 operand or result, or converts to a float by a rounding mode other than the
 * default (its attr round): both run as SEM. */
static bool involves_bf16(const Op *op) {
  if (ir_op_attr(op, "round")) return true;
  for (unsigned i = 0; i < op->nresults; i++)
    if (ty_is_bf16(op_result(op, i)->type)) return true;
  for (unsigned i = 0; i < op->noperands; i++)
    if (op_operand(op, i) && ty_is_bf16(op_operand(op, i)->type)) return true;
  return false;
}

static bool set_const(Cc *c, const Op *op) {
  const Type *t = op_result(op, 0)->type;
  Attr *a = ir_op_attr(op, "value");
  if (!a) return cc_error(c, op, "arith.constant without a value%s", "");
  uint32_t s = res(c, op, 0);
  Slot v;
  v.u = 0;
  if (t->kind == TY_FLOAT) {
    double x = a->kind == ATTR_FLOAT ? a->f : a->kind == ATTR_INT ? (double)a->i : 0.0;
    if (t->bits == 64) v.d = x;
    else v.f = t->bits == 32 ? (float)x : sem_narrow_round(sem_ty(t), x);
  } else if (t->kind == TY_BOOL || t->kind == TY_INT) {
    uint64_t x = a->kind == ATTR_INT ? (uint64_t)a->i : a->kind == ATTR_BOOL ? (uint64_t)a->b : 0;
    unsigned sh = shift_of(t);
    v.u = (t->kind == TY_INT && !t->is_unsigned) ? (uint64_t)((int64_t)(x << sh) >> sh) : (x << sh) >> sh;
  } else {
    return cc_error(c, op, "constant of unsupported type%s", "");
  }
  c->init[s] = v;
  return true;
}

/* op's attribute of enumeration e as its value; -1, reported, when it is missing or unknown. */
static int choice(Cc *c, const Op *op, IrAttrEnum e) {
  int k = ir_op_enum_attr(op, e);
  if (k < 0) cc_error(c, op, "missing or unknown attribute '%s'", ir_enum_attr_name(e));
  return k;
}

static SimGlobal *global_of(Cc *c, const Op *op, unsigned *index) {
  const char *name = ir_op_attr_str(op, "name");
  Op *g = name ? ir_module_lookup(c->p->m, name) : NULL;
  uintptr_t i = g ? (uintptr_t)ptrmap_get(&c->p->globals, g) : 0;
  if (!i) {
    cc_error(c, op, "mem.global_ref of an unknown global @%s", name ? name : "?");
    return NULL;
  }
  *index = (unsigned)(i - 1);
  return &c->p->globals_v[i - 1];
}

static void compile_op(Cc *c, const Op *op);

/* Blocks short enough to run a copy of in place of a jump to them: pure ops, at most this many besides
 * constants, then a branch. */
enum { THREAD_MAX_OPS = 4 };

static bool small_block(const Block *b) {
  unsigned n = 0;
  if (!b->last || (b->last->kind != OP_BR && b->last->kind != OP_COND_BR)) return false;
  for (const Op *op = b->first; op != b->last; op = op->next)
    if (!op_has(op, OPT_PURE) || op->nregions || (op->kind != OP_CONSTANT && ++n > THREAD_MAX_OPS)) return false;
  return true;
}

/* The integer compare right before cond_br `br` whose only use is br's condition, or NULL. */
static const Op *fusable_compare(const Op *br) {
  if (br->kind != OP_COND_BR || !br->prev || br->prev->kind != OP_CMPI) return NULL;
  const Op *cmp = br->prev;
  const Value *v = op_result((Op *)cmp, 0);
  if (op_operand(br, 0) != v || !v->uses || v->uses->next) return NULL;
  return cmp;
}

/* A counted loop's latch (lower-scf): `next = iv + step` right before the fused compare `cmp`, next passed by
 * cond_br `br` on its true edge for the target's argument iv and used by cmp alone besides, no other value br
 * passes in iv's slot. Then next is made in iv's slot: by the add itself when cmp does not read iv (NULL returned),
 * or, when cmp is iv <pred> y (slt / sgt, 64 bits), by the branch (JSTEP: compare, then step), which takes the
 * add in (returned). The same answer every time it is asked for one br (a block compiled again as a copy):
 * the decision is the slot given to next. */
static const Op *latch_step(Cc *c, const Op *br, const Op *cmp) {
  const Op *d = cmp ? cmp->prev : NULL;
  if (!d || d->kind != OP_ADDI || br->kind != OP_COND_BR) return NULL;
  const Value *next = op_result((Op *)d, 0);
  if (ty_is_array(next->type)) return NULL;
  unsigned nbr = 0;
  for (const Use *u = next->uses; u; u = u->next) {
    if (u->user != br && u->user != cmp) return NULL;
    nbr += u->user == br;
  }
  if (nbr != 1) return NULL;
  const Block *target = br->successors[0];
  unsigned start = op_succ_operand_start(br, 0), n = br->succ_operand_count[0], at = n;
  for (unsigned i = 0; i < n; i++)
    if (op_operand((Op *)br, start + i) == next) at = i;
  if (at == n) return NULL;
  const Value *iv = target->args[at];
  if (op_operand((Op *)d, 0) != iv && op_operand((Op *)d, 1) != iv) return NULL;
  uint32_t dst = slot_of(c, iv);
  uintptr_t known = (uintptr_t)ptrmap_get(&c->slots, next);
  if (known && known - 1 != dst) return NULL; /* decided against (or compiled) before */
  bool reads0 = op_operand((Op *)cmp, 0) == iv, reads1 = op_operand((Op *)cmp, 1) == iv;
  IrCmpIPred pred = ir_op_cmpi_pred(cmp);
  bool jstep = reads0 && !reads1 && op_operand((Op *)cmp, 1) != next && op_operand((Op *)d, 0) == iv &&
               iv->type->bits == 64 && (pred == IR_CMPI_SLT || pred == IR_CMPI_SGT);
  if (!known) {
    if ((reads0 || reads1) && !jstep) return NULL;
    for (unsigned i = 1; i < br->noperands; i++)
      if (i != start + at && slot_of(c, op_operand((Op *)br, i)) == dst) return NULL;
    ptrmap_put(&c->slots, next, (void *)(uintptr_t)(dst + 1));
  }
  return jstep ? d : NULL;
}

/* Whether successor s of br takes values that move (a source slot other than its argument's). */
static bool edge_moves(Cc *c, const Op *br, unsigned s) {
  unsigned start = op_succ_operand_start(br, s), n = br->succ_operand_count[s];
  if (n != br->successors[s]->nargs) return true; /* (compile_edge reports it) */
  for (unsigned i = 0; i < n; i++)
    if (opnd(c, br, start + i) != slot_of(c, br->successors[s]->args[i])) return true;
  return false;
}

/* Whether the true edge's moves of cond_br `br` may run before the branch: a loop's back edge (its target
 * placed already) or its entry (the target placed next), no arrays, and no slot they write read by the
 * branch (its compare or condition, the stepped add) or by the false edge's moves. */
static bool hoistable_moves(Cc *c, const Op *br, const Block *next) {
  const Block *target = br->successors[0];
  if (target != next) {
    uint32_t l = label_of_block(c, target); /* (may grow c->labels: read it after) */
    if (c->labels[l] < 0) return false;
  }
  unsigned start = op_succ_operand_start(br, 0), n = br->succ_operand_count[0];
  unsigned fstart = op_succ_operand_start(br, 1), fn = br->succ_operand_count[1];
  for (unsigned i = 0; i < n; i++) {
    uint32_t dst = slot_of(c, target->args[i]);
    if (ty_is_array(target->args[i]->type)) return false;
    if (opnd(c, br, start + i) == dst) continue;
    for (unsigned j = 0; j < fn; j++)
      if (opnd(c, br, fstart + j) == dst) return false;
    const Op *reads[2] = {c->fused ? c->fused : br, c->stepped};
    for (unsigned r = 0; r < 2; r++)
      for (unsigned j = 0; reads[r] && j < (reads[r] == br ? 1u : reads[r]->noperands); j++)
        if (opnd(c, reads[r], j) == dst) return false;
  }
  return true;
}

static void compile_terminator(Cc *c, const Op *op, const Block *next, bool copy);

/* The moves of a branch's values into successor s's arguments. */
static void compile_edge_moves(Cc *c, const Op *op, unsigned s) {
  unsigned n = op->succ_operand_count[s], start = op_succ_operand_start(op, s);
  emit_moves(c, n, operand_slots(c, op, start, n), arg_slots(c, op->successors[s], 0), op);
}

/* A branch's moves into successor s and the way there: nothing when s is the block placed next, a copy of s
 * when it is small (and this is not itself a copy), else a jump. */
static void compile_edge(Cc *c, const Op *op, unsigned s, const Block *next, bool copy) {
  Block *target = op->successors[s];
  if (op->succ_operand_count[s] != target->nargs) {
    cc_error(c, op, "branch passes the wrong number of block arguments%s", "");
    return;
  }
  compile_edge_moves(c, op, s);
  if (target == next) return;
  if (!copy && small_block(target)) {
    const Op *saved = c->fused, *saved_step = c->stepped;
    c->fused = fusable_compare(target->last);
    c->stepped = latch_step(c, target->last, c->fused);
    for (const Op *o = target->first; o && c->ok; o = o->next)
      if (o != target->last && o != c->fused && o != c->stepped) compile_op(c, o);
    if (c->ok) compile_terminator(c, target->last, next, true);
    c->fused = saved;
    c->stepped = saved_step;
    return;
  }
  uint32_t k = emit(c, SI_JMP, op);
  jump_to(c, k, label_of_block(c, target), false);
}

/* cf.br / cf.cond_br ending a block placed before `next` (NULL: the last); `copy`: compiled as a copy of its
 * block in place of a jump. The condition of a cond_br is c->fused when set (a compare not compiled on its
 * own). */
static void compile_terminator(Cc *c, const Op *op, const Block *next, bool copy) {
  if (op->kind == OP_BR) {
    compile_edge(c, op, 0, next, copy);
    return;
  }
  /* a loop's back edge or entry: its moves before the branch (when nothing the branch reads is written), so
   * that the branch goes straight to the loop's block */
  bool moves0 = edge_moves(c, op, 0), moves1 = edge_moves(c, op, 1);
  if (moves0 && hoistable_moves(c, op, next)) {
    compile_edge_moves(c, op, 0);
    moves0 = false;
  }
  uint32_t k;
  if (c->stepped) {
    const Op *cmp = c->fused;
    bool up = ir_op_cmpi_pred(cmp) == IR_CMPI_SLT;
    k = emit(c, up ? SI_JSTEP_SLT : SI_JSTEP_SGT, op);
    Ins *I = INS(c, k);
    I->a = opnd(c, cmp, 0);
    I->c = opnd(c, cmp, 1);  /* b is the false target */
    I->d = opnd(c, c->stepped, 1);
  } else if (c->fused) {
    int p = choice(c, c->fused, IR_ENUM_CMPI);
    if (p < 0) return;
    k = emit(c, (SimOpcode)(SI_JCMP_EQ + p), op);
    Ins *I = INS(c, k);
    I->a = opnd(c, c->fused, 0);
    I->c = opnd(c, c->fused, 1);  /* b is the false target */
    I->sh = shift_of(op_operand(c->fused, 0)->type);
  } else {
    k = emit(c, SI_BR2, op);
    INS(c, k)->a = opnd(c, op, 0);
  }
  /* an edge without values to move goes straight to its block; else through its moves */
  uint32_t lt = moves0 ? new_label(c) : label_of_block(c, op->successors[0]);
  uint32_t lf = moves1 ? new_label(c) : label_of_block(c, op->successors[1]);
  jump_to(c, k, lt, false);
  jump_to(c, k, lf, true);
  if (moves0) {
    place_label(c, lt);
    compile_edge(c, op, 0, NULL, true);
  }
  if (moves1) {
    place_label(c, lf);
    compile_edge(c, op, 1, next, copy);
  }
}

/* The view an op makes of type t (mem.reinterpret, mem.ptr_array): its element size, the slots of its extents and
 * strides (operands 1.. and 1 + rank..), and a local SimArr for the result. */
static ReinterpInfo *view_info(Cc *c, const Op *op, const Type *t) {
  ReinterpInfo *ri = cc_alloc(c, sizeof *ri);
  ri->rank = t->rank;
  ri->esize = sim_type_size(t->elem);
  for (unsigned d = 0; d < t->rank; d++) {
    ri->extent[d] = opnd(c, op, 1 + d);
    ri->stride[d] = opnd(c, op, 1 + t->rank + d);
  }
  ri->offset = local_array(c);
  return ri;
}

static void compile_op(Cc *c, const Op *op) {
  uint32_t k;
  Ins *I;
  /* bf16 arithmetic runs as SEM (the simulator's fast instructions know f32, f64 and f16) */
  if (involves_bf16(op) && sem_generic(c, op)) return;
  if (op->kind == OP_LIBDEVICE) { /* a libdevice function: SEM, if ir/libdevice.c defines it */
    const char *name = ir_op_attr_str(op, "name");
    const LibdeviceFn *f = name && strncmp(name, "__nv_", 5) == 0 ? ir_libdevice_lookup(name + 5) : NULL;
    if (!f || !ir_libdevice_eval(f)) {
      cc_error(c, op, "the simulator cannot run this libdevice function: %s", f ? ir_libdevice_why(f) : "unknown");
      return;
    }
    if (sem_generic(c, op)) return;
  }
  switch (op->kind) {
  case OP_CONSTANT: set_const(c, op); return;
  case OP_ADDI: int_binary(c, op, SI_ADDI); return;
  case OP_SUBI: int_binary(c, op, SI_SUBI); return;
  case OP_MULI: int_binary(c, op, SI_MULI); return;
  case OP_DIVSI: int_binary(c, op, SI_DIVSI); return;
  case OP_DIVUI: int_binary(c, op, SI_DIVUI); return;
  case OP_REMSI: int_binary(c, op, SI_REMSI); return;
  case OP_REMUI: int_binary(c, op, SI_REMUI); return;
  case OP_FLOORDIVSI: int_binary(c, op, SI_FLOORDIVSI); return;
  case OP_FLOORMODSI: int_binary(c, op, SI_FLOORMODSI); return;
  case OP_MINSI: int_binary(c, op, SI_MINSI); return;
  case OP_MAXSI: int_binary(c, op, SI_MAXSI); return;
  case OP_MINUI: int_binary(c, op, SI_MINUI); return;
  case OP_MAXUI: int_binary(c, op, SI_MAXUI); return;
  case OP_IPOW: int_binary(c, op, SI_IPOW); return;
  case OP_ABSI: int_binary(c, op, SI_ABSI); return;
  case OP_SHLI: int_binary(c, op, SI_SHLI); return;
  case OP_SHRSI: int_binary(c, op, SI_SHRSI); return;
  case OP_SHRUI: int_binary(c, op, SI_SHRUI); return;
  case OP_ANDI: int_binary(c, op, SI_ANDI); return;
  case OP_ORI: int_binary(c, op, SI_ORI); return;
  case OP_XORI: int_binary(c, op, SI_XORI); return;
  case OP_POPC: int_binary(c, op, SI_POPC); return;
  case OP_CLZ: int_binary(c, op, SI_CLZ); return;
  case OP_FFS: int_binary(c, op, SI_FFS); return;
  case OP_BREV: int_binary(c, op, SI_BREV); return;
  case OP_CMPI: {
    int p = choice(c, op, IR_ENUM_CMPI);
    if (p < 0) return;
    k = emit(c, (SimOpcode)(SI_CMPI_EQ + p), op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->b = opnd(c, op, 1);
    I->sh = shift_of(op_operand(op, 0)->type);
    return;
  }
  case OP_SELECT: ternary_op(c, op, SI_SELECT); return;
  case OP_EXTSI:
  case OP_EXTUI:
  case OP_TRUNCI:
    k = emit(c, op->kind == OP_EXTSI ? SI_EXTS : SI_EXTU, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->aux = op->kind == OP_TRUNCI ? 0 : shift_of(op_operand(op, 0)->type);
    set_norm(I, op_result(op, 0)->type);
    return;
  case OP_ADDF: float_op(c, op, SI_ADDF32, SI_ADDF64); return;
  case OP_SUBF: float_op(c, op, SI_SUBF32, SI_SUBF64); return;
  case OP_MULF: float_op(c, op, SI_MULF32, SI_MULF64); return;
  case OP_DIVF: float_op(c, op, SI_DIVF32, SI_DIVF64); return;
  case OP_REMF: float_op(c, op, SI_REMF32, SI_REMF64); return;
  case OP_FLOORDIVF: float_op(c, op, SI_FLOORDIVF32, SI_FLOORDIVF64); return;
  case OP_FLOORMODF: float_op(c, op, SI_FLOORMODF32, SI_FLOORMODF64); return;
  case OP_MINF: float_op(c, op, SI_MINF32, SI_MINF64); return;
  case OP_MAXF: float_op(c, op, SI_MAXF32, SI_MAXF64); return;
  case OP_NEGF: float_op(c, op, SI_NEGF32, SI_NEGF64); return;
  case OP_FMA: { /* f32, f64: sem_fma (op_semantics.h), an instruction of its own as the contract pass puts one in
                 * most loops; f16 and bf16 (rounded once from the exact sum) run as SEM */
    const Type *t = op_result(op, 0)->type;
    if (t->kind != TY_FLOAT || (t->bits != 32 && t->bits != 64)) break;
    ternary_op(c, op, is_f64(t) ? SI_FMAF64 : SI_FMAF32);
    return;
  }
  case OP_CMPF: {
    int p = choice(c, op, IR_ENUM_CMPF);
    if (p < 0) return;
    k = emit(c, is_f64(op_operand(op, 0)->type) ? SI_CMPF64 : SI_CMPF32, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->b = opnd(c, op, 1);
    I->aux = (uint8_t)p;
    return;
  }
  case OP_SITOFP:
  case OP_UITOFP: {
    const Type *t = op_result(op, 0)->type;
    bool s = op->kind == OP_SITOFP;
    k = emit(c, is_f64(t) ? (s ? SI_SITOF64 : SI_UITOF64) : (s ? SI_SITOF32 : SI_UITOF32), op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->aux = shift_of(op_operand(op, 0)->type);
    uint32_t d = I->d;
    f16_fix(c, op, t, d);
    return;
  }
  case OP_FPTOSI:
  case OP_FPTOUI: {
    bool s = op->kind == OP_FPTOSI, from64 = is_f64(op_operand(op, 0)->type);
    k = emit(c, from64 ? (s ? SI_F64TOSI : SI_F64TOUI) : (s ? SI_F32TOSI : SI_F32TOUI), op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    set_norm(I, op_result(op, 0)->type);
    return;
  }
  case OP_EXTF:
  case OP_TRUNCF: {
    const Type *from = op_operand(op, 0)->type, *to = op_result(op, 0)->type;
    SimOpcode code = SI_MOV;
    if (to->bits == 64 && from->bits < 64) code = SI_F32TOF64;
    else if (to->bits == 32 && from->bits == 64) code = SI_F64TOF32;
    else if (to->bits == 16 && from->bits == 64) code = SI_F64TOF16;
    else if (to->bits == 16 && from->bits == 32) code = SI_F16ROUND;
    k = emit(c, code, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    return;
  }
  case OP_BITCAST: {
    const Type *from = op_operand(op, 0)->type, *to = op_result(op, 0)->type;
    if (from->kind == TY_FLOAT && to->kind == TY_FLOAT) k = emit(c, SI_MOV, op);
    else if (from->kind == TY_FLOAT) k = emit(c, SI_BITCAST_FI, op);
    else if (to->kind == TY_FLOAT) k = emit(c, SI_BITCAST_IF, op);
    else k = emit(c, SI_EXTU, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->aux = (uint8_t)(from->kind == TY_FLOAT ? from->bits : to->kind == TY_FLOAT ? to->bits : 0);
    set_norm(I, to);
    return;
  }
  case OP_POWI: {
    const Type *t = op_result(op, 0)->type, *et = op_operand(op, 1)->type;
    if (is_f16(t)) break; /* every product rounded to binary16: SEM */
    k = emit(c, is_f64(t) ? SI_POWIF64 : SI_POWIF32, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->b = opnd(c, op, 1);
    I->aux = shift_of(et);
    I->aux2 = et->kind == TY_INT && !et->is_unsigned;
    return;
  }
  case OP_ISNAN:
  case OP_ISINF:
  case OP_ISFINITE: {
    bool d64 = is_f64(op_operand(op, 0)->type);
    SimOpcode code = op->kind == OP_ISNAN ? (d64 ? SI_ISNAN64 : SI_ISNAN32)
                     : op->kind == OP_ISINF ? (d64 ? SI_ISINF64 : SI_ISINF32)
                                            : (d64 ? SI_ISFIN64 : SI_ISFIN32);
    k = emit(c, code, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->a = opnd(c, op, 0);
    return;
  }

  /* ---- mem ---- */
  case OP_DIM:
  case OP_STRIDE: {
    int64_t axis = ir_op_attr_int(op, "axis", -1);
    const Type *t = op_operand(op, 0)->type;
    if (axis < 0 || axis >= (int64_t)t->rank) {
      cc_error(c, op, "axis out of range%s", "");
      return;
    }
    k = emit(c, op->kind == OP_DIM ? SI_DIM : SI_STRIDE, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->aux = (uint8_t)axis;
    return;
  }
  case OP_SIZE:
  case OP_DATA:
  case OP_ADDR: /* the data pointer's bits, read as u64 */
    k = emit(c, op->kind == OP_SIZE ? SI_SIZE : SI_DATA, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->a = opnd(c, op, 0);
    return;
  case OP_LOAD: {
    const Type *t = op_operand(op, 0)->type;
    if (!ty_is_array(t) || op->noperands != 1 + t->rank) {
      cc_error(c, op, "malformed mem.load%s", "");
      return;
    }
    k = emit(c, t->rank == 1 ? SI_LOAD1 : SI_LOADN, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->aux = (uint8_t)sim_elem_kind(t->elem);
    uint32_t index = element_indices(c, k, op, 1, t->rank);
    INS(c, k)->b = index;
    return;
  }
  case OP_STORE: {
    const Type *t = op->noperands >= 2 ? op_operand(op, 1)->type : NULL;
    if (!t || !ty_is_array(t) || op->noperands != 2 + t->rank) {
      cc_error(c, op, "malformed mem.store%s", "");
      return;
    }
    k = emit(c, t->rank == 1 ? SI_STORE1 : SI_STOREN, op);
    I = INS(c, k);
    I->a = opnd(c, op, 0);
    I->b = opnd(c, op, 1);
    I->aux = (uint8_t)sim_elem_kind(t->elem);
    uint32_t index = element_indices(c, k, op, 2, t->rank);
    INS(c, k)->c = index;
    return;
  }
  case OP_PTR_LOAD:
  case OP_PTR_STORE: { /* p[i]: Ins.a the value stored (or d the value loaded), then the pointer and the index */
    bool store = op->kind == OP_PTR_STORE;
    const Type *t = op->noperands == 2u + store ? op_operand(op, store)->type : NULL;
    if (!t || t->kind != TY_PTR || !t->elem) {
      cc_error(c, op, "malformed %s", op_name(op));
      return;
    }
    k = emit(c, store ? SI_PSTORE : SI_PLOAD, op);
    I = INS(c, k);
    if (store) {
      I->a = opnd(c, op, 0);
      I->b = opnd(c, op, 1);
      I->c = opnd(c, op, 2);
    } else {
      I->d = res(c, op, 0);
      I->b = opnd(c, op, 0);
      I->c = opnd(c, op, 1);
    }
    I->aux = (uint8_t)sim_elem_kind(t->elem);
    I->imm = (int64_t)sim_type_size(t->elem);
    return;
  }
  case OP_ALLOCA: {
    const Type *t = op_result(op, 0)->type;
    Attr *shape = ir_op_attr(op, "shape");
    if (!ty_is_array(t) || !shape || shape->kind != ATTR_ARRAY || shape->arr.n != t->rank) {
      cc_error(c, op, "mem.alloca needs an array type and a shape of its rank%s", "");
      return;
    }
    AllocaInfo *ai = cc_alloc(c, sizeof *ai);
    ai->ek = sim_elem_kind(t->elem);
    ai->esize = sim_type_size(t->elem);
    ai->rank = t->rank;
    ai->layout = t->layout;
    size_t count = 1;
    for (unsigned i = 0; i < t->rank; i++) {
      int64_t e = shape->arr.elems[i].kind == ATTR_INT ? shape->arr.elems[i].i : -1;
      if (e < 0 || e > (1 << 24)) {
        cc_error(c, op, "mem.alloca with a bad extent%s", "");
        return;
      }
      ai->shape[i] = e;
      count *= (size_t)e;
    }
    ai->bytes = count * ai->esize;
    if (ai->bytes > (64u << 20)) {
      cc_error(c, op, "mem.alloca of more than 64 MiB%s", "");
      return;
    }
    Attr *align = ir_op_attr(op, "align");
    ai->align = align && align->kind == ATTR_INT ? (size_t)align->i : 16;
    if (ai->align < 16) ai->align = 16; /* (a stronger alignment than asked for is one the GPU may give too) */
    if ((ai->align & (ai->align - 1)) || ai->align > (1u << 16)) {
      cc_error(c, op, "mem.alloca's align must be a power of 2 up to 65536%s", "");
      return;
    }
    /* the data at the first multiple of align after the SimArr: the SimArr at a multiple of 16 (every area's
     * size is one), that is at most align - 16 bytes past the header; the next SimArr is 16-aligned too */
    ai->offset = c->local_bytes;
    c->local_bytes += ((sizeof(SimArr) + 15) & ~(size_t)15) + ((ai->bytes + 15) & ~(size_t)15) + (ai->align - 16);
    k = emit(c, SI_ALLOCA, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->ext = ai;
    return;
  }
  case OP_GLOBAL_REF: {
    unsigned index;
    if (!global_of(c, op, &index)) return;
    k = emit(c, SI_GREF, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->imm = index;
    return;
  }
  case OP_SUBVIEW: {
    const Type *base = op_operand(op, 0)->type, *t = op_result(op, 0)->type;
    Attr *dims = ir_op_attr(op, "dims");
    if (!ty_is_array(base) || !ty_is_array(t) || base->rank > SIM_MAX_RANK || t->rank > SIM_MAX_RANK || !dims ||
        dims->kind != ATTR_ARRAY || dims->arr.n != t->rank || op->noperands != 1 + base->rank + 2 * t->rank) {
      cc_error(c, op, "malformed mem.subview%s", "");
      return;
    }
    SubviewInfo *si = cc_alloc(c, sizeof *si);
    si->base_rank = base->rank;
    si->rank = t->rank;
    for (unsigned k = 0; k < base->rank; k++) si->origin[k] = opnd(c, op, 1 + k);
    for (unsigned d = 0; d < t->rank; d++) {
      const Attr *e = &dims->arr.elems[d];
      if (e->kind != ATTR_INT || e->i < -1 || e->i >= (int64_t)base->rank) {
        cc_error(c, op, "mem.subview names an axis the array does not have%s", "");
        return;
      }
      si->dims[d] = (int8_t)e->i;
      si->extent[d] = opnd(c, op, 1 + base->rank + 2 * d);
      si->step[d] = opnd(c, op, 2 + base->rank + 2 * d);
    }
    si->offset = local_array(c);
    k = emit(c, SI_SUBVIEW, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->a = opnd(c, op, 0);
    INS(c, k)->ext = si;
    return;
  }
  case OP_REINTERPRET: {
    const Type *t = op_result(op, 0)->type;
    if (!ty_is_array(op_operand(op, 0)->type) || !ty_is_array(t) || t->rank > SIM_MAX_RANK ||
        op->noperands != 1 + 2 * t->rank) {
      cc_error(c, op, "malformed mem.reinterpret%s", "");
      return;
    }
    ReinterpInfo *ri = view_info(c, op, t);
    ri->base_esize = sim_type_size(op_operand(op, 0)->type->elem);
    k = emit(c, SI_REINTERP, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->a = opnd(c, op, 0);
    INS(c, k)->ext = ri;
    return;
  }
  case OP_PTR_ARRAY: {
    const Type *t = op_result(op, 0)->type;
    if (op_operand(op, 0)->type->kind != TY_PTR || !ty_is_array(t) || t->rank > SIM_MAX_RANK ||
        op->noperands != 1 + 2 * t->rank) {
      cc_error(c, op, "malformed mem.ptr_array%s", "");
      return;
    }
    ReinterpInfo *ri = view_info(c, op, t);
    k = emit(c, SI_PTRARRAY, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->a = opnd(c, op, 0);
    INS(c, k)->imm = (int64_t)ri->esize;
    INS(c, k)->ext = ri;
    return;
  }
  case OP_FIELD: {
    const Type *base = op_operand(op, 0)->type, *t = op_result(op, 0)->type;
    const char *name = ir_op_attr_str(op, "name");
    int f = name && ty_is_array(base) ? ty_record_field(base->elem, name, strlen(name)) : -1;
    if (f < 0 || !ty_is_array(t) || t->rank > SIM_MAX_RANK) {
      cc_error(c, op, "malformed mem.field%s", "");
      return;
    }
    const RecordField *rf = &base->elem->fields[f];
    FieldInfo *fi = cc_alloc(c, sizeof *fi);
    fi->offset_bytes = rf->offset;
    fi->ndims = rf->ndims;
    fi->esize = sim_type_size(t->elem);
    for (unsigned d = 0; d < rf->ndims; d++) fi->dims[d] = rf->dims[d];
    fi->offset = local_array(c);
    k = emit(c, SI_FIELD, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->a = opnd(c, op, 0);
    INS(c, k)->ext = fi;
    return;
  }
  case OP_RECORD_ARRAY: /* a record parameter is its array of one record already */
    k = emit(c, SI_MOV, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->a = opnd(c, op, 0);
    return;
  case OP_DYN_SHARED: {
    const Type *t = op_result(op, 0)->type;
    if (!ty_is_array(t) || t->rank != 1) {
      cc_error(c, op, "mem.dynamic_shared must be a rank-1 array%s", "");
      return;
    }
    ElemKind ek = sim_elem_kind(t->elem);
    unsigned gs = t->elem->kind == TY_RECORD ? 0 : log2u(sim_elem_size(ek));
    if (!c->p->uses_dyn || gs < c->p->dyn_gshift) c->p->dyn_gshift = gs;
    c->p->uses_dyn = true;
    k = emit(c, SI_DYNSH, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->aux = (uint8_t)ek;
    return;
  }

  /* ---- gpu ---- */
  case OP_THREAD_ID:
  case OP_BLOCK_ID:
  case OP_BLOCK_DIM:
  case OP_GRID_DIM: {
    int64_t dim = ir_op_attr_int(op, "dim", -1);
    if (dim < 0 || dim > 2) {
      cc_error(c, op, "gpu id with a bad dim%s", "");
      return;
    }
    SimOpcode code = op->kind == OP_THREAD_ID ? SI_TID : op->kind == OP_BLOCK_ID ? SI_BID
                     : op->kind == OP_BLOCK_DIM ? SI_BDIM : SI_GDIM;
    k = emit(c, code, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->aux = (uint8_t)dim;
    set_norm(I, op_result(op, 0)->type);
    return;
  }
  case OP_LANE_ID:
  case OP_LANEMASK_LT:
    k = emit(c, op->kind == OP_LANE_ID ? SI_LANE : SI_LANEMASK_LT, op);
    INS(c, k)->d = res(c, op, 0);
    set_norm(INS(c, k), op_result(op, 0)->type);
    return;
  case OP_WARP_SIZE:
    c->init[res(c, op, 0)].i = 32;
    return;
  case OP_BARRIER: emit(c, SI_BARRIER, op); return;
  case OP_GRID_SYNC: emit(c, SI_GRIDSYNC, op); return;
  case OP_BARRIER_RED: {
    int kind = choice(c, op, IR_ENUM_BARRIER_REDUCE);
    if (kind < 0) return;
    k = emit(c, SI_BARRED, op);
    I = INS(c, k);
    I->d = res(c, op, 0);
    I->a = opnd(c, op, 0);
    I->aux = (uint8_t)kind;
    set_norm(I, op_result(op, 0)->type);
    return;
  }
  case OP_FENCE: return; /* threads of a block run one at a time: memory is always coherent */
  case OP_NANOSLEEP: return; /* PTX's nanosleep sleeps between 0 and twice the time: the simulator's is 0 */
  case OP_PRINT: {
    const char *fmt = ir_op_attr_str(op, "format");
    if (!fmt) {
      cc_error(c, op, "gpu.print without a format%s", "");
      return;
    }
    PrintInfo *pi = cc_alloc(c, sizeof *pi);
    pi->format = fmt;
    pi->n = op->noperands;
    pi->slots = cc_alloc(c, sizeof(uint32_t) * (pi->n ? pi->n : 1));
    pi->kinds = cc_alloc(c, pi->n ? pi->n : 1);
    for (unsigned i = 0; i < pi->n; i++) {
      const Type *t = op_operand(op, i)->type;
      pi->slots[i] = opnd(c, op, i);
      pi->kinds[i] = t->kind == TY_BOOL ? PK_BOOL : t->kind == TY_FLOAT ? PK_F64 : t->is_unsigned ? PK_U64 : PK_I64;
    }
    k = emit(c, SI_PRINT, op);
    INS(c, k)->ext = pi;
    return;
  }
  case OP_SYNCWARP:
  case OP_SHFL:
  case OP_VOTE:
  case OP_MATCH:
  case OP_ACTIVEMASK: {
    WarpInfo *w = cc_alloc(c, sizeof *w);
    if (op->kind == OP_SYNCWARP) {
      w->kind = WK_SYNCWARP;
      w->mask = opnd(c, op, 0);
    } else if (op->kind == OP_SHFL) {
      w->kind = WK_SHFL;
      if ((w->mode = choice(c, op, IR_ENUM_SHUFFLE)) < 0) return;
      w->mask = opnd(c, op, 0);
      w->val = opnd(c, op, 1);
      w->lane = opnd(c, op, 2);
      w->width = opnd(c, op, 3);
      w->vty = sem_ty(op_operand(op, 1)->type);
    } else if (op->kind == OP_VOTE) {
      w->kind = WK_VOTE;
      if ((w->mode = choice(c, op, IR_ENUM_VOTE)) < 0) return;
      w->mask = opnd(c, op, 0);
      w->val = opnd(c, op, 1);
    } else if (op->kind == OP_MATCH) {
      w->kind = WK_MATCH;
      if ((w->mode = choice(c, op, IR_ENUM_MATCH)) < 0) return;
      w->mask = opnd(c, op, 0);
      w->val = opnd(c, op, 1);
      const Type *vt = op_operand(op, 1)->type;
      w->vk = vt->kind == TY_FLOAT && vt->bits == 32 ? MV_F32 : vt->bits == 32 ? MV_BITS32 : MV_BITS64;
      if (w->mode == IR_MATCH_ALL) w->pred = res(c, op, 1);
    } else {
      w->kind = WK_ACTIVEMASK;
    }
    k = emit(c, SI_WARP, op);
    I = INS(c, k);
    I->d = op->nresults ? res(c, op, 0) : 0;
    I->ext = w;
    if (op->nresults) set_norm(I, op_result(op, 0)->type);
    return;
  }
  case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS: {
    const Type *t = op->noperands ? op_operand(op, 0)->type : NULL;
    unsigned extra = op->kind == OP_ATOMIC_CAS ? 2 : 1;
    if (!t || !ty_is_array(t) || op->noperands != 1 + t->rank + extra) {
      cc_error(c, op, "malformed %s", op_name(op));
      return;
    }
    AtomicInfo *ai = cc_alloc(c, sizeof *ai);
    if (op->kind == OP_ATOMIC_RMW) {
      int kind = choice(c, op, IR_ENUM_ATOMIC);
      if (kind < 0) return;
      ai->kind = (IrAtomicKind)kind;
    }
    ai->ek = sim_elem_kind(t->elem);
    if (ai->ek == EK_BOOL) {
      cc_error(c, op, "atomics on i1 arrays are not supported%s", "");
      return;
    }
    ai->arr = opnd(c, op, 0);
    ai->idx = slot_list(c, op, 1, t->rank);
    if (op->kind == OP_ATOMIC_CAS) {
      ai->cmp = opnd(c, op, 1 + t->rank);
      ai->val = opnd(c, op, 2 + t->rank);
    } else {
      ai->val = opnd(c, op, 1 + t->rank);
    }
    k = emit(c, op->kind == OP_ATOMIC_CAS ? SI_CAS : SI_ATOMIC, op);
    INS(c, k)->d = res(c, op, 0);
    INS(c, k)->ext = ai;
    return;
  }
  case OP_BOUNDS:
    k = emit(c, SI_BOUNDS, op);
    I = INS(c, k);
    I->a = opnd(c, op, 0);
    I->b = opnd(c, op, 1);
    I->imm = ir_op_attr_int(op, "axis", 0);
    return;
  case OP_RAISE:
    k = emit(c, SI_RAISE, op);
    I = INS(c, k);
    I->a = op->noperands ? opnd(c, op, 0) : UINT32_MAX;
    I->aux = ir_op_attr(op, "silent") != NULL;
    I->ext = (void *)ir_op_attr_str(op, "exception");
    if (!I->ext) cc_error(c, op, "%s without an exception", "check.raise");
    return;

  /* ---- calls ---- */
  case OP_FUNC_CALL: {
    const char *name = ir_op_attr_str(op, "callee");
    Op *f = name ? ir_module_lookup(c->p->m, name) : NULL;
    if (f && f->kind == OP_FUNC_FUNC && ir_op_attr(f, "foreign")) {
      cc_error(c, op, "'%s' is a foreign device function (cuda.declare_device): its code is CUDA C/C++, PTX or "
               "another GPU binary, which the simulator cannot run; it needs a GPU", name);
      return;
    }
    if (!f || f->kind != OP_FUNC_FUNC || !f->regions[0].first) {
      cc_error(c, op, "call of an unknown function @%s", name ? name : "?");
      return;
    }
    CallInfo *ci = cc_alloc(c, sizeof *ci);
    ci->callee = sim_get_fn(c->p, f);
    ci->args = slot_list(c, op, 0, op->noperands);
    ci->results.n = op->nresults;
    ci->results.s = result_slots(c, op);
    ci->result_buf = cc_alloc(c, sizeof(size_t) * (op->nresults ? op->nresults : 1));
    for (unsigned i = 0; i < op->nresults; i++) ci->result_buf[i] = array_buf(c, ci->results.s[i]);
    if (ci->args.n != ir_func_entry(f)->nargs) {
      cc_error(c, op, "call of @%s with the wrong number of arguments", name);
      return;
    }
    k = emit(c, SI_CALL, op);
    INS(c, k)->ext = ci;
    return;
  }
  case OP_FUNC_RETURN: {
    SlotList *l = cc_alloc(c, sizeof *l);
    *l = slot_list(c, op, 0, op->noperands);
    k = emit(c, SI_RET, op);
    INS(c, k)->ext = l;
    return;
  }

  default:
    if (ir_op_sem[op->kind].f1 || ir_op_sem[op->kind].f2) {
      math_fn(c, op, &ir_op_sem[op->kind]);
      return;
    }
    break;
  }
  if (!sem_generic(c, op)) cc_error(c, op, "'%s' cannot appear in a function the simulator runs", op_name(op));
}

/* The value the op right before br makes for target argument `arg`, made in that argument's slot instead:
 * a scalar used by br alone, when no other value br passes reads the slot. */
static void coalesce_into_target(Cc *c, const Op *br) {
  const Op *d = br->prev;
  if (br->kind != OP_BR || !d || d->nresults != 1 || d->kind == OP_CONSTANT || d->kind == OP_FUNC_CALL) return;
  const Value *v = op_result((Op *)d, 0);
  if (ty_is_array(v->type) || !v->uses || v->uses->next || ptrmap_get(&c->slots, v)) return;
  const Block *target = br->successors[0];
  unsigned n = br->succ_operand_count[0], at = n;
  for (unsigned i = 0; i < n; i++)
    if (op_operand((Op *)br, i) == v) at = i;
  if (at == n || target == br->block) return;
  uint32_t dst = slot_of(c, target->args[at]);
  for (unsigned i = 0; i < n; i++)
    if (i != at && slot_of(c, op_operand((Op *)br, i)) == dst) return;
  ptrmap_put(&c->slots, v, (void *)(uintptr_t)(dst + 1));
}

static void compile_blocks(Cc *c, const Region *r) {
  for (const Block *b = r->first; b && c->ok; b = b->next) {
    place_label(c, label_of_block(c, b));
    const Op *term = b->last;
    if (!term || (term->kind != OP_BR && term->kind != OP_COND_BR)) {
      /* ends in func.return (or, unverified, in nothing: then on to the return compile_fn adds) */
      for (const Op *op = b->first; op && c->ok; op = op->next) compile_op(c, op);
      continue;
    }
    coalesce_into_target(c, term);
    c->fused = fusable_compare(term);
    c->stepped = latch_step(c, term, c->fused);
    for (const Op *op = b->first; op != term && c->ok; op = op->next)
      if (op != c->fused && op != c->stepped) compile_op(c, op);
    if (c->ok) compile_terminator(c, term, b->next, false);
    c->fused = NULL;
    c->stepped = NULL;
  }
}

static void compile_fn(SimProgram *p, SimFn *fn) {
  Cc c = {.p = p, .fn = fn, .ok = true};
  const Op *func = fn->func;
  const Block *entry = func->regions[0].first;
  fn->nparams = entry->nargs;
  fn->params = arena_alloc(&p->arena, sizeof(uint32_t) * (entry->nargs ? entry->nargs : 1));
  for (unsigned i = 0; i < entry->nargs; i++) fn->params[i] = slot_of(&c, entry->args[i]);
  compile_blocks(&c, &func->regions[0]);
  /* falling off the end returns (a verified function never does) */
  uint32_t k = emit(&c, SI_RET, func);
  SlotList *none = cc_alloc(&c, sizeof *none);
  none->s = cc_alloc(&c, sizeof(uint32_t));
  INS(&c, k)->ext = none;
  for (uint32_t i = 0; i < c.npatches && c.ok; i++) {
    Patch *pt = &c.patches[i];
    int64_t target = c.labels[pt->label];
    if (target < 0) {
      cc_error(&c, c.code[pt->ins].op, "branch to a block outside the function%s", "");
      break;
    }
    if (pt->in_b) c.code[pt->ins].b = (uint32_t)target;
    else c.code[pt->ins].imm = target;
  }
  if (c.ok) {
    fn->ncode = c.n;
    fn->code = arena_alloc(&p->arena, sizeof(Ins) * c.n);
    memcpy(fn->code, c.code, sizeof(Ins) * c.n);
    fn->nslots = c.nslots ? c.nslots : 1;
    fn->init = arena_alloc(&p->arena, sizeof(Slot) * fn->nslots);
    if (c.nslots) memcpy(fn->init, c.init, sizeof(Slot) * c.nslots);
    fn->local_bytes = c.local_bytes;
    fn->frame_bytes = ((sizeof(Slot) * fn->nslots + 15) & ~(size_t)15) + c.local_bytes;
    fn->round = p->round;
    fn->compiled = true;
  } else {
    p->failed = true;
  }
  mem_free(c.code);
  mem_free(c.init);
  mem_free(c.labels);
  mem_free(c.patches);
  ptrmap_free(&c.slots);
  ptrmap_free(&c.array_bufs);
  ptrmap_free(&c.block_labels);
}

/* Under the compile's guard: the program's tables and arena belong to the program, and change only once what
 * they point to is complete (a SimFn is made, then mapped, then queued). */
SimFn *sim_get_fn(SimProgram *p, const Op *func) {
  SimFn *fn = ptrmap_get(&p->fns, func);
  if (!fn) {
    fn = arena_alloc(&p->arena, sizeof *fn);
    fn->func = func;
    fn->name = ir_func_name(func);
    if (!fn->name) fn->name = "?";
    fn->is_kernel = ir_op_attr(func, "kernel") != NULL;
    ptrmap_put(&p->fns, func, fn);
  }
  if (!fn->compiled && !fn->queued) {
    GROW_LIKE(p, p->pending, p->npending, p->pending_cap, 16);
    p->pending[p->npending++] = fn;
    fn->queued = true;
  }
  return fn;
}

bool sim_compile_pending(SimProgram *p) {
  while (p->npending && !p->failed) {
    SimFn *fn = p->pending[--p->npending];
    fn->queued = false;
    if (!fn->func->regions[0].first) {
      diag_error(p->diag, fn->func->loc, "simulator: function @%s has no body", fn->name);
      p->failed = true;
      break;
    }
    compile_fn(p, fn);
  }
  return !p->failed;
}

typedef struct PendingJob {
  SimProgram *p;
  const Op *func;
  SimFn *fn;
  bool ok;
} PendingJob;

static void pending_job(void *arg) {
  PendingJob *j = arg;
  j->fn = sim_get_fn(j->p, j->func);
  j->ok = sim_compile_pending(j->p);
}

SimFn *sim_compile_function(SimProgram *p, const Op *func, bool *oom) {
  *oom = false;
  if (p->m != p->given) {
    /* a function of the module given: its copy, of the same name, in the module that runs */
    const char *name = ir_func_name(func);
    Op *copy = name ? ir_module_lookup(p->m, name) : NULL;
    if (!copy || copy->kind != OP_FUNC_FUNC) {
      diag_error(p->diag, func->loc, "simulator: function @%s is not in the program", name ? name : "?");
      return NULL;
    }
    func = copy;
  }
  PendingJob j = {p, func, NULL, false};
  p->round++;
  if (!diag_guard(p->diag, pending_job, &j)) {
    /* out of memory: forget this round's work, so that the next launch compiles all of it again (a function
     * compiled in this round may call one that was not) */
    for (size_t i = 0; i < p->fns.cap; i++) {
      SimFn *fn = p->fns.keys[i] ? p->fns.vals[i] : NULL;
      if (!fn) continue;
      fn->queued = false;
      if (fn->round == p->round) fn->compiled = false;
    }
    p->npending = 0;
    *oom = true;
    return NULL;
  }
  return j.ok ? j.fn : NULL;
}

/* ---- programs and globals -------------------------------------------------------------------- */

static bool add_global(SimProgram *p, const Op *g) {
  Type *t = ir_op_attr_type(g, "type");
  Attr *shape = ir_op_attr(g, "shape");
  const char *space = ir_op_attr_str(g, "space");
  const char *name = ir_op_attr_str(g, "sym_name");
  if (!t || !ty_is_array(t) || !shape || shape->kind != ATTR_ARRAY || shape->arr.n != t->rank || !space || !name ||
      (strcmp(space, "shared") != 0 && strcmp(space, "const") != 0 && strcmp(space, "captured") != 0)) {
    diag_error(p->diag, g->loc, "simulator: malformed mem.global");
    return false;
  }
  GROW_LIKE(p, p->globals_v, p->nglobals, p->globals_cap, 8);
  SimGlobal *sg = &p->globals_v[p->nglobals];
  memset(sg, 0, sizeof *sg);
  sg->op = g;
  sg->name = name;
  sg->shared = strcmp(space, "shared") == 0;
  sg->ek = sim_elem_kind(t->elem);
  sg->esize = sim_type_size(t->elem);
  sg->granule = t->elem->kind == TY_RECORD ? 1 : sg->esize;
  sg->rank = t->rank;
  sg->layout = t->layout;
  size_t count = 1;
  for (unsigned i = 0; i < t->rank; i++) {
    int64_t e = shape->arr.elems[i].kind == ATTR_INT ? shape->arr.elems[i].i : -1;
    if (e < 0 || e > (1 << 28) || (e && count > ((size_t)1 << 32) / (size_t)e)) {
      diag_error(p->diag, g->loc, "simulator: mem.global @%s has a bad shape", name);
      return false;
    }
    sg->shape[i] = e;
    count *= (size_t)e;
  }
  sg->nbytes = count * sg->esize;
  Attr *align = ir_op_attr(g, "align");
  sg->align = align && align->kind == ATTR_INT && align->i > 16 ? (size_t)align->i : 16;
  if ((sg->align & (sg->align - 1)) || sg->align > (1u << 16)) {
    diag_error(p->diag, g->loc, "simulator: mem.global @%s's align must be a power of 2 up to 65536", name);
    return false;
  }
  if (strcmp(space, "captured") == 0) { /* the simulator's device memory is the host's: the address is a pointer */
    Attr *addr = ir_op_attr(g, "address"), *st = ir_op_attr(g, "strides");
    if (!addr || addr->kind != ATTR_INT || !st || st->kind != ATTR_ARRAY || st->arr.n != t->rank) {
      diag_error(p->diag, g->loc, "simulator: the captured mem.global @%s needs an address and strides", name);
      return false;
    }
    sg->captured = true;
    sg->data = (char *)(uintptr_t)(uint64_t)addr->i;
    for (unsigned i = 0; i < t->rank; i++) sg->strides[i] = st->arr.elems[i].i;
  } else if (!sg->shared) {
    sg->data = arena_alloc(&p->arena, sg->nbytes ? sg->nbytes : 1);
    Attr *v = ir_op_attr(g, "value");
    if (v && v->kind == ATTR_ARRAY) {
      for (size_t i = 0; i < count && i < v->arr.n; i++) {
        const Attr *e = &v->arr.elems[i];
        double f = attr_number_f(e);
        int64_t x = attr_number_i(e);
        char *dst = sg->data + i * sg->esize;
        switch (sg->ek) {
        case EK_BOOL: dst[0] = x != 0; break;
        case EK_I8: case EK_U8: { uint8_t b = (uint8_t)x; memcpy(dst, &b, 1); break; }
        case EK_I16: case EK_U16: { uint16_t b = (uint16_t)x; memcpy(dst, &b, 2); break; }
        case EK_I32: case EK_U32: { uint32_t b = (uint32_t)x; memcpy(dst, &b, 4); break; }
        case EK_I64: case EK_U64: memcpy(dst, &x, 8); break;
        case EK_F16: { uint16_t h = sem_f16_bits(f); memcpy(dst, &h, 2); break; }
        case EK_BF16: { uint16_t h = sem_bf16_bits(f); memcpy(dst, &h, 2); break; }
        case EK__COUNT: break;
        case EK_F32: { float ff = (float)f; memcpy(dst, &ff, 4); break; }
        case EK_F64: memcpy(dst, &f, 8); break;
        case EK_C64: case EK_C128: { /* [re, im] (as the verifier checks it) */
          if (e->kind != ATTR_ARRAY || e->arr.n != 2) break;
          const Attr *re = &e->arr.elems[0], *im = &e->arr.elems[1];
          if (sg->ek == EK_C64) {
            float parts[2] = {(float)attr_number_f(re), (float)attr_number_f(im)};
            memcpy(dst, parts, sizeof parts);
          } else {
            double parts[2] = {attr_number_f(re), attr_number_f(im)};
            memcpy(dst, parts, sizeof parts);
          }
          break;
        }
        }
      }
    }
  }
  ptrmap_put(&p->globals, g, (void *)(uintptr_t)(++p->nglobals));
  return true;
}

typedef struct NewJob {
  Module *m;
  Diag *diag;
  SimProgram *p;
} NewJob;

static void new_job(void *arg) {
  NewJob *j = arg;
  SimProgram *p = mem_calloc(1, sizeof *p);
  p->given = j->m;
  p->m = lower_for_execution(j->m, j->diag);
  p->diag = j->diag;
  if (!p->m) { /* lower-complex failed (reported) */
    mem_free(p);
    return;
  }
  /* the program outlives this guard and is compiled into under later ones: its memory is its own */
  arena_init_owned(&p->arena, p);
  p->fns.owner = p;
  p->globals.owner = p;
  for (Op *op = ir_module_body(p->m)->first; op; op = op->next)
    if (op->kind == OP_GLOBAL && !add_global(p, op)) {
      sim_program_free(p);
      return;
    }
  j->p = p;
}

SimProgram *sim_program_new(Module *m, Diag *diag, bool *oom) {
  NewJob j = {m, diag, NULL};
  *oom = !diag_guard(diag, new_job, &j);
  return j.p;
}

void sim_program_free(SimProgram *p) {
  if (!p) return;
  ptrmap_free(&p->fns);
  ptrmap_free(&p->globals);
  mem_free(p->globals_v);
  mem_free(p->pending);
  arena_free(&p->arena);
  if (p->m != p->given) ir_module_free(p->m);
  mem_free(p);
}
