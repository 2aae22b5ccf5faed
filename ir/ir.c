/* ir.c — the kir core: the op table, modules, ops, blocks, regions, use lists, attributes, walks.
 *
 * Use lists are doubly linked through Use.prevp so that setting an operand, replacing all uses
 * and erasing an op are O(1) per use. All memory comes from the module arena, whose chunks (like the
 * symbol table's) belong to the Module's own block (mem.h): a module made under a guard goes with it, one
 * made before keeps its memory whatever a later guard does. Building and changing IR runs under a guard
 * (allocation failures unwind); ir_module_new alone may also be called outside one (NULL when out of memory). */
#include "ir.h"

#include <math.h>
#include <string.h>

#include "ir/op_semantics.h"
#include "utils/mem.h"

#include "ir_internal.h"

const OpInfo ir_op_info[OP__COUNT] = {
#define OP(Id, name, nopnds, nres, nregions, nsuccs, traits, verifier, summary, example) \
  [OP_##Id] = {name, nopnds, nres, nregions, nsuccs, traits, summary, example},
#define PURE OPT_PURE
#define COMM OPT_COMM
#define TERM OPT_TERM
#define CONST OPT_CONST
#define NOREC OPT_NOREC
#define LOOP OPT_LOOP
#define MEM_READ OPT_MEM_READ
#define MEM_WRITE OPT_MEM_WRITE
#define BARRIER OPT_BARRIER
#define CONVERGENT OPT_CONVERGENT
#include "ops.def"
#undef PURE
#undef COMM
#undef TERM
#undef CONST
#undef NOREC
#undef LOOP
#undef MEM_READ
#undef MEM_WRITE
#undef BARRIER
#undef CONVERGENT
#undef OP
};

enum { OP_TABLE = 512 };  /* a power of two, more than twice OP__COUNT */
_Static_assert(OP__COUNT * 2 <= OP_TABLE, "OP_TABLE holds every op at half load");

int ir_op_lookup(const char *name, size_t len) {
  /* A small table: a linear scan keyed on length first is fast enough, but the parser calls this per op,
   * so keep a lazily built hash table (static: building allocates nothing). Immutable once built; building
   * is idempotent. Slots hold kind + 1 (0: empty). */
  static short table[OP_TABLE];
  static int built;
  if (!__atomic_load_n(&built, __ATOMIC_ACQUIRE)) {
    static int lock;
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {}
    if (!built) {
      for (int k = 0; k < OP__COUNT; k++) {
        const char *n = ir_op_info[k].name;
        size_t i = hash_bytes(n, strlen(n)) & (OP_TABLE - 1);
        while (table[i]) i = (i + 1) & (OP_TABLE - 1);
        table[i] = (short)(k + 1);
      }
      __atomic_store_n(&built, 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
  }
  for (size_t i = hash_bytes(name, len) & (OP_TABLE - 1); table[i]; i = (i + 1) & (OP_TABLE - 1)) {
    const char *n = ir_op_info[table[i] - 1].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return table[i] - 1;
  }
  return -1;
}

/* ---- modules ---------------------------------------------------------------------------------- */

Module *ir_module_new(IrContext *ctx, const char *name) {
  Module *m = mem_calloc(1, sizeof *m);
  if (!m) return NULL;
  m->ctx = ctx;
  arena_init_owned(&m->arena, m);
  strmap_init_owned(&m->symbols, m);
  m->name = arena_strdup(&m->arena, name ? name : "module");
  Block *b = m->name ? ir_block_new(m) : NULL;
  if (!b) {
    ir_module_free(m);
    return NULL;
  }
  ir_region_append_block(&m->body, b);
  return m;
}

void ir_module_free(Module *m) {
  if (!m) return;
  strmap_free(&m->symbols);
  arena_free(&m->arena);
  mem_free(m);
}

Block *ir_module_body(Module *m) { return m->body.first; }

/* ---- use lists -------------------------------------------------------------------------------- */

static void use_link(Use *u, Value *v) {
  u->value = v;
  if (!v) return;
  u->next = v->uses;
  if (v->uses) v->uses->prevp = &u->next;
  u->prevp = &v->uses;
  v->uses = u;
}

static void use_unlink(Use *u) {
  if (!u->value) return;
  *u->prevp = u->next;
  if (u->next) u->next->prevp = u->prevp;
  u->value = NULL;
  u->next = NULL;
  u->prevp = NULL;
}

void ir_op_set_operand(Op *op, unsigned i, Value *v) {
  Use *u = &op->operands[i];
  if (u->value == v) return;
  use_unlink(u);
  use_link(u, v);
}

void ir_op_set_operands(Module *m, Op *op, unsigned n, Value *const *operands) {
  for (unsigned i = 0; i < op->noperands; i++) use_unlink(&op->operands[i]);
  if (n > op->noperands) op->operands = ARENA_ARRAY(&m->arena, Use, n);
  op->noperands = n;
  for (unsigned i = 0; i < n; i++) {
    Use *u = &op->operands[i];
    memset(u, 0, sizeof *u);
    u->user = op;
    u->index = i;
    use_link(u, operands ? operands[i] : NULL);
  }
}

void ir_value_replace_all_uses(Value *from, Value *to) {
  if (from == to) return;
  while (from->uses) {
    Use *u = from->uses;
    use_unlink(u);
    use_link(u, to);
  }
}

unsigned ir_value_num_uses(const Value *v) {
  unsigned n = 0;
  for (Use *u = v->uses; u; u = u->next) n++;
  return n;
}

/* ---- ops -------------------------------------------------------------------------------------- */

Op *ir_op_create(Module *m, OpKind kind, SrcLoc loc, unsigned noperands, Value *const *operands,
                 unsigned nresults, Type *const *result_types, unsigned nregions) {
  Op *op = ARENA_NEW(&m->arena, Op);
  op->kind = kind;
  op->loc = loc;
  ir_op_set_operands(m, op, noperands, operands);
  op->nresults = nresults;
  if (nresults) {
    op->results = ARENA_ARRAY(&m->arena, Value, nresults);
    for (unsigned i = 0; i < nresults; i++) {
      op->results[i].type = result_types[i];
      op->results[i].def = op;
      op->results[i].index = i;
    }
  }
  op->nregions = nregions;
  if (nregions) {
    op->regions = ARENA_ARRAY(&m->arena, Region, nregions);
    for (unsigned i = 0; i < nregions; i++) op->regions[i].parent = op;
  }
  return op;
}

void ir_op_set_successors(Module *m, Op *op, unsigned n, Block *const *succs, const unsigned *succ_operand_count) {
  op->nsuccessors = n;
  op->successors = ARENA_ARRAY(&m->arena, Block *, n ? n : 1);
  op->succ_operand_count = ARENA_ARRAY(&m->arena, unsigned, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    op->successors[i] = succs[i];
    op->succ_operand_count[i] = succ_operand_count ? succ_operand_count[i] : 0;
  }
}

unsigned op_num_main_operands(const Op *op) {
  unsigned n = op->noperands;
  for (unsigned s = 0; s < op->nsuccessors; s++) n -= op->succ_operand_count[s];
  return n;
}

unsigned op_succ_operand_start(const Op *op, unsigned s) {
  unsigned start = op_num_main_operands(op);
  for (unsigned i = 0; i < s; i++) start += op->succ_operand_count[i];
  return start;
}

static void link_between(Block *b, Op *prev, Op *next, Op *op) {
  op->block = b;
  op->prev = prev;
  op->next = next;
  if (prev) prev->next = op; else b->first = op;
  if (next) next->prev = op; else b->last = op;
}

void ir_op_insert_before(Op *before, Op *op) { link_between(before->block, before->prev, before, op); }
void ir_op_insert_after(Op *after, Op *op) { link_between(after->block, after, after->next, op); }
void ir_block_append(Block *b, Op *op) { link_between(b, b->last, NULL, op); }
void ir_block_prepend(Block *b, Op *op) { link_between(b, NULL, b->first, op); }

void ir_op_unlink(Op *op) {
  Block *b = op->block;
  if (!b) return;
  if (op->prev) op->prev->next = op->next; else b->first = op->next;
  if (op->next) op->next->prev = op->prev; else b->last = op->prev;
  op->prev = op->next = NULL;
  op->block = NULL;
}

void ir_op_drop_uses(Op *op) {
  for (unsigned i = 0; i < op->noperands; i++) use_unlink(&op->operands[i]);
  for (unsigned r = 0; r < op->nregions; r++)
    for (Block *b = op->regions[r].first; b; b = b->next)
      for (Op *o = b->first; o; o = o->next) ir_op_drop_uses(o);
}

void ir_op_erase(Op *op) {
  ir_op_drop_uses(op);
  ir_op_unlink(op);
}

/* ---- attributes ------------------------------------------------------------------------------- */

Attr attr_unit(void) { return (Attr){.kind = ATTR_UNIT}; }
Attr attr_bool(bool b) { return (Attr){.kind = ATTR_BOOL, .b = b}; }
Attr attr_int(Type *type, int64_t v) { return (Attr){.kind = ATTR_INT, .type = type, .i = v}; }
Attr attr_float(Type *type, double v) { return (Attr){.kind = ATTR_FLOAT, .type = type, .f = v}; }

double attr_number_f(const Attr *a) {
  return a->kind == ATTR_FLOAT ? a->f : a->kind == ATTR_INT ? (double)a->i : a->kind == ATTR_BOOL ? a->b : 0;
}

bool attr_is_number(const Attr *a) { return a->kind == ATTR_INT || a->kind == ATTR_FLOAT || a->kind == ATTR_BOOL; }

int64_t attr_number_i(const Attr *a) {
  return a->kind == ATTR_INT    ? a->i
         : a->kind == ATTR_BOOL ? a->b
         : a->kind == ATTR_FLOAT ? (int64_t)sem_float_to_int(a->f, 64, true)
                                 : 0;
}
Attr attr_str(Module *m, const char *s) { return (Attr){.kind = ATTR_STR, .s = arena_strdup(&m->arena, s)}; }
Attr attr_sym(Module *m, const char *s) { return (Attr){.kind = ATTR_SYM, .s = arena_strdup(&m->arena, s)}; }
Attr attr_type(Type *t) { return (Attr){.kind = ATTR_TYPE, .type = t}; }
Attr attr_array(Module *m, unsigned n, const Attr *elems) {
  Attr a = {.kind = ATTR_ARRAY};
  a.arr.n = n;
  a.arr.elems = ARENA_ARRAY(&m->arena, Attr, n ? n : 1);
  if (n) memcpy(a.arr.elems, elems, sizeof(Attr) * n);
  return a;
}

bool attr_equal(const Attr *a, const Attr *b) {
  if (a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
  case ATTR_UNIT:
  case ATTR_TYPE: return true;
  case ATTR_BOOL: return a->b == b->b;
  case ATTR_INT: return a->i == b->i;
  case ATTR_FLOAT: return memcmp(&a->f, &b->f, sizeof a->f) == 0;
  case ATTR_STR:
  case ATTR_SYM: return strcmp(a->s, b->s) == 0;
  case ATTR_ARRAY:
    if (a->arr.n != b->arr.n) return false;
    for (unsigned i = 0; i < a->arr.n; i++)
      if (!attr_equal(&a->arr.elems[i], &b->arr.elems[i])) return false;
    return true;
  }
  return false;
}

Attr *ir_op_attr(const Op *op, const char *name) {
  for (unsigned i = 0; i < op->nattrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) return &op->attrs[i].value;
  return NULL;
}

void ir_op_set_attr(Module *m, Op *op, const char *name, Attr value) {
  Attr *a = ir_op_attr(op, name);
  if (a) {
    *a = value;
    return;
  }
  NamedAttr *attrs = ARENA_ARRAY(&m->arena, NamedAttr, op->nattrs + 1);
  if (op->nattrs) memcpy(attrs, op->attrs, sizeof(NamedAttr) * op->nattrs);
  attrs[op->nattrs].name = arena_strdup(&m->arena, name);
  attrs[op->nattrs].value = value;
  op->attrs = attrs;
  op->nattrs++;
}

bool ir_op_remove_attr(Op *op, const char *name) {
  for (unsigned i = 0; i < op->nattrs; i++) {
    if (strcmp(op->attrs[i].name, name) != 0) continue;
    memmove(&op->attrs[i], &op->attrs[i + 1], sizeof(NamedAttr) * (op->nattrs - i - 1));
    op->nattrs--;
    return true;
  }
  return false;
}

int64_t ir_op_attr_int(const Op *op, const char *name, int64_t dflt) {
  Attr *a = ir_op_attr(op, name);
  return a && a->kind == ATTR_INT ? a->i : dflt;
}

const char *ir_op_attr_str(const Op *op, const char *name) {
  Attr *a = ir_op_attr(op, name);
  return a && (a->kind == ATTR_STR || a->kind == ATTR_SYM) ? a->s : NULL;
}

Type *ir_op_attr_type(const Op *op, const char *name) {
  Attr *a = ir_op_attr(op, name);
  return a && a->kind == ATTR_TYPE ? a->type : NULL;
}

/* ---- blocks and regions ----------------------------------------------------------------------- */

Block *ir_block_new(Module *m) { return ARENA_NEW(&m->arena, Block); }

void ir_region_append_block(Region *r, Block *b) {
  b->region = r;
  b->prev = r->last;
  b->next = NULL;
  if (r->last) r->last->next = b; else r->first = b;
  r->last = b;
}

void ir_region_insert_block_after(Region *r, Block *after, Block *b) {
  b->region = r;
  b->prev = after;
  b->next = after->next;
  if (after->next) after->next->prev = b; else r->last = b;
  after->next = b;
}

void ir_block_unlink(Block *b) {
  Region *r = b->region;
  if (!r) return;
  if (b->prev) b->prev->next = b->next; else r->first = b->next;
  if (b->next) b->next->prev = b->prev; else r->last = b->prev;
  b->prev = b->next = NULL;
  b->region = NULL;
}

Value *ir_block_add_arg(Module *m, Block *b, Type *t) {
  if (b->nargs == b->args_cap) {
    unsigned cap = b->args_cap ? b->args_cap * 2 : 4;
    Value **args = ARENA_ARRAY(&m->arena, Value *, cap);
    if (b->nargs) memcpy(args, b->args, sizeof(Value *) * b->nargs);
    b->args = args;
    b->args_cap = cap;
  }
  Value *v = ARENA_NEW(&m->arena, Value);
  v->type = t;
  v->block = b;
  v->index = b->nargs;
  b->args[b->nargs++] = v;
  return v;
}

void ir_block_erase_arg(Block *b, unsigned i) {
  memmove(&b->args[i], &b->args[i + 1], sizeof(Value *) * (b->nargs - i - 1));
  b->nargs--;
  for (unsigned j = i; j < b->nargs; j++) b->args[j]->index = j;
}

void ir_block_splice_tail(Block *dest, Op *first) {
  Block *src = first->block;
  Op *last = src->last;
  /* detach [first, last] from src */
  if (first->prev) first->prev->next = NULL; else src->first = NULL;
  src->last = first->prev;
  for (Op *o = first; o; o = o->next) o->block = dest;
  first->prev = dest->last;
  if (dest->last) dest->last->next = first; else dest->first = first;
  dest->last = last;
}

Op *ir_block_terminator(const Block *b) {
  return b->last && op_has(b->last, OPT_TERM) ? b->last : NULL;
}

Op *ir_op_parent_func(const Op *op) {
  for (Op *p = op->block ? ir_block_parent_op(op->block) : NULL; p; p = p->block ? ir_block_parent_op(p->block) : NULL)
    if (p->kind == OP_FUNC_FUNC) return p;
  return op->kind == OP_FUNC_FUNC ? (Op *)op : NULL;
}

bool ir_op_is_ancestor(const Op *ancestor, const Op *op) {
  for (const Op *p = op; p; p = p->block ? ir_block_parent_op(p->block) : NULL)
    if (p == ancestor) return true;
  return false;
}

/* ---- functions and symbols -------------------------------------------------------------------- */

Op *ir_func_create(Module *m, const char *name, Type *fn_type, SrcLoc loc) {
  Op *f = ir_op_create(m, OP_FUNC_FUNC, loc, 0, NULL, 0, NULL, 1);
  ir_op_set_attr(m, f, "sym_name", attr_sym(m, name));
  ir_op_set_attr(m, f, "function_type", attr_type(fn_type));
  Block *entry = ir_block_new(m);
  ir_region_append_block(&f->regions[0], entry);
  for (unsigned i = 0; i < fn_type->n; i++) ir_block_add_arg(m, entry, fn_type->elems[i]);
  ir_block_append(ir_module_body(m), f);
  ir_module_add_symbol(m, f);
  return f;
}

const char *ir_func_name(const Op *func) { return ir_op_attr_str(func, "sym_name"); }
Type *ir_func_type(const Op *func) { return ir_op_attr_type(func, "function_type"); }
Block *ir_func_entry(const Op *func) { return func->regions[0].first; }

Op *ir_module_lookup(Module *m, const char *sym) { return strmap_get(&m->symbols, sym); }

Op *ir_call_target(Module *m, const Op *op) {
  if (op->kind != OP_FUNC_CALL) return NULL;
  const char *callee = ir_op_attr_str((Op *)op, "callee");
  Op *f = callee ? ir_module_lookup(m, callee) : NULL;
  return f && f->kind == OP_FUNC_FUNC ? f : NULL;
}

typedef struct CalleeWalk {
  Module *m;
  IrCalleeFn fn;
  void *user;
  PtrMap seen;
  IrWalkEnd end;
} CalleeWalk;

static bool callee_visit(Op *op, void *user) {
  CalleeWalk *w = user;
  if (op->kind != OP_FUNC_CALL) return true;
  Op *f = ir_call_target(w->m, op);
  if (f && ptrmap_get(&w->seen, f)) return true;
  if (f && !ptrmap_put(&w->seen, f, f)) {
    w->end = IR_WALK_NO_MEMORY;
    return false;
  }
  if (!w->fn(f, op, w->user)) {
    w->end = IR_WALK_STOPPED;
    return false;
  }
  return !f || ir_walk_pre(f, callee_visit, w);
}

IrWalkEnd ir_walk_callees(Module *m, Op *func, IrCalleeFn fn, void *user) {
  CalleeWalk w = {.m = m, .fn = fn, .user = user};
  if (ptrmap_put(&w.seen, func, func)) ir_walk_pre(func, callee_visit, &w);
  else w.end = IR_WALK_NO_MEMORY;
  ptrmap_free(&w.seen);
  return w.end;
}

typedef struct CallsBack {
  Module *m;
  Op *func;
  bool found;
} CallsBack;

static bool calls_func(Op *op, void *user) {
  CallsBack *c = user;
  if (op->kind == OP_FUNC_CALL && ir_call_target(c->m, op) == c->func) c->found = true;
  return !c->found;
}

static bool callee_calls_back(Op *callee, Op *call, void *user) {
  (void)call;
  if (callee) ir_walk_pre(callee, calls_func, user);
  return !((CallsBack *)user)->found;
}

bool ir_func_recursive(Module *m, Op *func, bool *no_memory) {
  CallsBack c = {m, func, false};
  *no_memory = false;
  ir_walk_pre(func, calls_func, &c);
  if (!c.found && ir_walk_callees(m, func, callee_calls_back, &c) == IR_WALK_NO_MEMORY) *no_memory = true;
  return c.found;
}

void ir_module_add_symbol(Module *m, Op *op) {
  const char *name = ir_op_attr_str(op, "sym_name");
  if (name) strmap_put(&m->symbols, name, op);
}

void ir_module_rebuild_symbols(Module *m) {
  strmap_free(&m->symbols);
  for (Op *op = ir_module_body(m)->first; op; op = op->next) ir_module_add_symbol(m, op);
}

/* ---- walks ------------------------------------------------------------------------------------ */

IrWalkStep ir_walk(Op *root, IrWalkOrder order, IrWalkStepFn fn, void *user) {
  if (order == IR_WALK_PRE) {
    IrWalkStep s = fn(root, user);
    if (s != IR_WALK_ADVANCE) return s == IR_WALK_INTERRUPT ? s : IR_WALK_ADVANCE;
  }
  for (unsigned r = 0; r < root->nregions; r++)
    for (Block *b = root->regions[r].first; b; b = b->next)
      for (Op *o = b->first, *next; o; o = next) {
        next = o->next;
        if (ir_walk(o, order, fn, user) == IR_WALK_INTERRUPT) return IR_WALK_INTERRUPT;
      }
  return order == IR_WALK_POST && fn(root, user) == IR_WALK_INTERRUPT ? IR_WALK_INTERRUPT : IR_WALK_ADVANCE;
}

/* ir_walk_pre and ir_walk_post: ir_walk with a callback that only goes on or stops. */
typedef struct BoolWalk {
  OpWalkFn fn;
  void *user;
} BoolWalk;

static IrWalkStep bool_step(Op *op, void *user) {
  BoolWalk *w = user;
  return w->fn(op, w->user) ? IR_WALK_ADVANCE : IR_WALK_INTERRUPT;
}

bool ir_walk_pre(Op *root, OpWalkFn fn, void *user) {
  BoolWalk w = {fn, user};
  return ir_walk(root, IR_WALK_PRE, bool_step, &w) != IR_WALK_INTERRUPT;
}

bool ir_walk_post(Op *root, OpWalkFn fn, void *user) {
  BoolWalk w = {fn, user};
  return ir_walk(root, IR_WALK_POST, bool_step, &w) != IR_WALK_INTERRUPT;
}

bool ir_walk_module(Module *m, OpWalkFn fn, void *user) {
  for (Op *o = ir_module_body(m)->first, *next; o; o = next) {
    next = o->next;
    if (!ir_walk_pre(o, fn, user)) return false;
  }
  return true;
}

static bool count_one(Op *op, void *user) {
  (void)op;
  ++*(size_t *)user;
  return true;
}

size_t ir_count_ops(Op *root) {
  size_t n = 0;
  ir_walk_pre(root, count_one, &n);
  return n;
}
