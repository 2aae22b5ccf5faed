/* cse.c — common-subexpression elimination of pure ops, scoped by dominance.
 *
 * Requires: valid IR, structured or cf form. Preserves: validity, every op but the duplicates it erases,
 * block structure. Linear in the number of ops (expected), with one scoped hash table.
 *
 * Two ops are the same expression when they have the same kind, the same operands (in either order for
 * a commutative op of two operands), equal attributes (attr_equal, in any order) and the same result
 * types. Only pure ops without regions or successors take part (arith.constant included); ops that read
 * or write memory (mem.load, gpu.shfl, gpu.atomic_*), barriers and calls never do.
 *
 * An op may replace a later one only when it dominates it. The table is scoped along the dominator
 * tree: a structured (single-block) region is walked in order, an op's nested regions see the entries
 * of the blocks around them that precede the op, and each region gets its own scope (sibling regions,
 * such as scf.if's then and else, see nothing of each other). A region of several blocks (cf form) is
 * walked along its dominator tree in pre-order (dom_preorder, dom_idom), one scope per block; unreachable
 * blocks are left alone. func.func sees nothing of the module around it. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "utils/mem.h"

#define NONE ((size_t)-1)

typedef struct Entry {
  uint64_t hash;
  Op *op;
  size_t next;       /* next entry of the same bucket, or NONE */
} Entry;

/* A hash table whose entries are undone in LIFO order when a scope closes. */
typedef struct Cse {
  size_t *buckets;   /* head entry per bucket, or NONE */
  size_t nbuckets;   /* a power of two */
  Entry *entries;    /* in insertion order: the newest is the head of its bucket */
  size_t n, cap;
  unsigned erased;
} Cse;

/* Passes run under a guard (mem.h): an allocation failure unwinds to it, never returns NULL here. */
static void *xrealloc(void *p, size_t size) { return mem_realloc(p, size ? size : 1); }

/* ---- hashing and equality of expressions -------------------------------------------------------- */

static uint64_t hash_ptr(const void *p) { return hash_mix(0x5bd1e995u, (uint64_t)(uintptr_t)p); }

static uint64_t attr_hash(const Attr *a) {
  uint64_t h = hash_mix(a->kind, a->type ? a->type->id : 0);
  switch (a->kind) {
  case ATTR_UNIT:
  case ATTR_TYPE: break;
  case ATTR_BOOL: h = hash_mix(h, a->b); break;
  case ATTR_INT: h = hash_mix(h, (uint64_t)a->i); break;
  case ATTR_FLOAT: {
    uint64_t bits;
    memcpy(&bits, &a->f, sizeof bits);
    h = hash_mix(h, bits);
    break;
  }
  case ATTR_STR:
  case ATTR_SYM: h = hash_mix(h, hash_bytes(a->s, strlen(a->s))); break;
  case ATTR_ARRAY:
    for (unsigned i = 0; i < a->arr.n; i++) h = hash_mix(h, attr_hash(&a->arr.elems[i]));
    break;
  }
  return h;
}

static bool is_commutative_pair(const Op *op) { return op_has(op, OPT_COMM) && op->noperands == 2; }

static uint64_t op_hash(const Op *op) {
  uint64_t h = hash_mix(op->kind, op->noperands);
  if (is_commutative_pair(op)) {
    h = hash_mix(h, hash_ptr(op_operand(op, 0)) + hash_ptr(op_operand(op, 1)));
  } else {
    for (unsigned i = 0; i < op->noperands; i++) h = hash_mix(h, (uint64_t)(uintptr_t)op_operand(op, i));
  }
  for (unsigned i = 0; i < op->nresults; i++) h = hash_mix(h, op->results[i].type->id);
  uint64_t ah = 0; /* attributes in any order */
  for (unsigned i = 0; i < op->nattrs; i++)
    ah += hash_mix(hash_bytes(op->attrs[i].name, strlen(op->attrs[i].name)), attr_hash(&op->attrs[i].value));
  return hash_mix(h, ah);
}

static bool ops_equal(const Op *a, const Op *b) {
  if (a->kind != b->kind || a->noperands != b->noperands || a->nresults != b->nresults || a->nattrs != b->nattrs)
    return false;
  for (unsigned i = 0; i < a->nresults; i++)
    if (a->results[i].type != b->results[i].type) return false;
  bool same = true;
  for (unsigned i = 0; i < a->noperands && same; i++) same = op_operand(a, i) == op_operand(b, i);
  if (!same && !(is_commutative_pair(a) && op_operand(a, 0) == op_operand(b, 1) && op_operand(a, 1) == op_operand(b, 0)))
    return false;
  for (unsigned i = 0; i < a->nattrs; i++) {
    const Attr *other = ir_op_attr(b, a->attrs[i].name);
    if (!other || !attr_equal(&a->attrs[i].value, other)) return false;
  }
  return true;
}

static bool cse_candidate(const Op *op) {
  return op_has(op, OPT_PURE) && !op_has(op, OPT_TERM) && op->nregions == 0 && op->nsuccessors == 0 && op->nresults > 0;
}

/* ---- the scoped table ---------------------------------------------------------------------------- */

static void table_rehash(Cse *s, size_t nbuckets) {
  mem_free(s->buckets);
  s->buckets = xrealloc(NULL, nbuckets * sizeof *s->buckets);
  s->nbuckets = nbuckets;
  for (size_t i = 0; i < nbuckets; i++) s->buckets[i] = NONE;
  /* re-link in insertion order so that newer entries stay ahead of older ones */
  for (size_t i = 0; i < s->n; i++) {
    size_t b = s->entries[i].hash & (nbuckets - 1);
    s->entries[i].next = s->buckets[b];
    s->buckets[b] = i;
  }
}

static Op *table_find(const Cse *s, const Op *op, uint64_t h) {
  for (size_t i = s->buckets[h & (s->nbuckets - 1)]; i != NONE; i = s->entries[i].next)
    if (s->entries[i].hash == h && ops_equal(s->entries[i].op, op)) return s->entries[i].op;
  return NULL;
}

static void table_insert(Cse *s, Op *op, uint64_t h) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 256;
    s->entries = xrealloc(s->entries, s->cap * sizeof *s->entries);
  }
  size_t i = s->n++;
  s->entries[i].hash = h;
  s->entries[i].op = op;
  if (s->n * 2 > s->nbuckets) {
    table_rehash(s, s->nbuckets * 2);
    return;
  }
  size_t b = h & (s->nbuckets - 1);
  s->entries[i].next = s->buckets[b];
  s->buckets[b] = i;
}

/* Closes the scopes opened since the table held `mark` entries. */
static void table_pop(Cse *s, size_t mark) {
  while (s->n > mark) {
    Entry *e = &s->entries[--s->n];
    s->buckets[e->hash & (s->nbuckets - 1)] = e->next; /* e is the head of its bucket */
  }
}

/* ---- the walk -------------------------------------------------------------------------------------- */

static void cse_region(Cse *s, Region *r);

static void cse_block(Cse *s, Block *b) {
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    for (unsigned i = 0; i < op->nregions; i++) cse_region(s, &op->regions[i]);
    if (!cse_candidate(op)) continue;
    uint64_t h = op_hash(op);
    Op *prev = table_find(s, op, h);
    if (!prev) {
      table_insert(s, op, h);
      continue;
    }
    for (unsigned i = 0; i < op->nresults; i++) ir_value_replace_all_uses(op_result(op, i), op_result(prev, i));
    ir_op_erase(op);
    s->erased++;
  }
}

/* A region of several blocks: walk its dominator tree, one scope per block (unreachable blocks are left). */
static void cse_cfg(Cse *s, Region *r) {
  DomTree *dt = dom_compute(r);
  unsigned n;
  Block *const *order = dom_preorder(dt, &n);
  Block **open = xrealloc(NULL, n * sizeof *open); /* the blocks whose scopes are open, innermost last */
  size_t *mark = xrealloc(NULL, n * sizeof *mark); /* the table size when each of those opened */
  size_t sp = 0;
  for (unsigned k = 0; k < n; k++) {
    Block *idom = dom_idom(dt, order[k]);
    while (sp && open[sp - 1] != idom) table_pop(s, mark[--sp]);
    open[sp] = order[k];
    mark[sp++] = s->n;
    cse_block(s, order[k]);
  }
  while (sp) table_pop(s, mark[--sp]);
  mem_free(mark);
  mem_free(open);
  dom_free(dt);
}

static void cse_region(Cse *s, Region *r) {
  if (!r->first) return;
  if (r->first != r->last) {
    cse_cfg(s, r);
    return;
  }
  size_t mark = s->n;
  cse_block(s, r->first);
  table_pop(s, mark);
}

bool pass_cse(Module *m, const PassContext *pc) {
  (void)pc;
  Cse s = {0};
  table_rehash(&s, 256);
  for (Op *op = ir_module_body(m)->first; op; op = op->next) {
    /* a function sees nothing from outside it: start each top-level op with an empty table */
    table_pop(&s, 0);
    for (unsigned i = 0; i < op->nregions; i++) cse_region(&s, &op->regions[i]);
  }
  mem_free(s.buckets);
  mem_free(s.entries);
  return true;
}
