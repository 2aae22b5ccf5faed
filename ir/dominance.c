/* dominance.c — dominator trees of the blocks of a region, and SSA visibility of values across regions.
 *
 * dom_compute numbers the blocks reachable from a region's entry in reverse post-order (successors are
 * those of each block's last op that lie in the same region), runs the iterative algorithm of Cooper,
 * Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001) over that order, then numbers the
 * dominator tree depth-first (children in region order) so that "a dominates b" is an interval test in
 * O(1); the walk also records the blocks in pre-order, and dom_idom / dom_preorder hand both out.
 * Unreachable blocks have no dominator: dom_block_dominates(a, b) is false when either is unreachable,
 * unless a == b.
 *
 * dom_value_dominates answers "is value v visible at op user": it climbs from user through enclosing ops
 * to the region that holds v's definition (a value defined outside an op with regions is visible inside
 * it, except across a NOREC op such as func.func), then compares positions in one block or, between
 * blocks, asks the region's dominator tree. A use in an unreachable block sees every value of its region.
 * A DomCache keeps one tree per region and numbers the ops of a block (in the Op.id scratch field) the
 * first time two ops of that block are compared; it is valid only while the IR does not change.
 * Blocks are never numbered through Block.id: the trees map blocks to indices with a PtrMap. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "utils/ptrmap.h"
#include "utils/mem.h"

/* Runs under a guard (mem.h): an allocation failure unwinds to it, never returns NULL here. */
static void *xcalloc(size_t n, size_t size) { return mem_calloc(n ? n : 1, size); }

/* ---- dominator trees ---------------------------------------------------------------------------- */

#define NONE UINT_MAX

struct DomTree {
  const Region *region;
  unsigned nblocks;     /* all blocks of the region */
  unsigned n;           /* reachable blocks */
  unsigned *rpo_of;     /* block sequence number (region order) -> rpo number, NONE if unreachable */
  unsigned *idom;       /* rpo number -> rpo number of the immediate dominator (entry: itself) */
  Block **block;        /* rpo number -> block */
  Block **preorder;     /* the reachable blocks in dominator-tree pre-order */
  unsigned *pre, *post; /* rpo number -> dominator-tree DFS interval */
  PtrMap seq;           /* Block* -> sequence number + 1 (only for regions of more than one block) */
};

/* Sequence number of b in d's region, or NONE if b is not a block of it. */
static unsigned block_seq(const DomTree *d, const Block *b) {
  if (!b || b->region != d->region) return NONE;
  if (d->nblocks == 1) return 0;
  uintptr_t s = (uintptr_t)ptrmap_get(&d->seq, b);
  return s ? (unsigned)(s - 1) : NONE;
}

static unsigned block_rpo(const DomTree *d, const Block *b) {
  unsigned s = block_seq(d, b);
  return s == NONE ? NONE : d->rpo_of[s];
}

static unsigned intersect(const unsigned *idom, unsigned a, unsigned b) {
  while (a != b) {
    while (a > b) a = idom[a];
    while (b > a) b = idom[b];
  }
  return a;
}

DomTree *dom_compute(Region *r) {
  DomTree *d = xcalloc(1, sizeof *d);
  d->region = r;
  unsigned nb = 0;
  for (Block *b = r->first; b; b = b->next) nb++;
  d->nblocks = nb;
  d->rpo_of = xcalloc(nb, sizeof *d->rpo_of);
  if (nb == 0) return d;
  Block **blocks = xcalloc(nb, sizeof *blocks);
  unsigned i = 0;
  for (Block *b = r->first; b; b = b->next, i++) {
    blocks[i] = b;
    if (nb > 1) ptrmap_put(&d->seq, b, (void *)(uintptr_t)(i + 1));
  }

  /* successor lists (sequence numbers, in-region only), compressed rows */
  unsigned *succ_start = xcalloc(nb + 1, sizeof *succ_start);
  for (i = 0; i < nb; i++) {
    Op *t = blocks[i]->last;
    succ_start[i + 1] = succ_start[i] + (t ? t->nsuccessors : 0);
  }
  unsigned *succ = xcalloc(succ_start[nb], sizeof *succ);
  for (i = 0; i < nb; i++) {
    Op *t = blocks[i]->last;
    unsigned k = succ_start[i];
    for (unsigned s = 0; t && s < t->nsuccessors; s++) succ[k++] = block_seq(d, t->successors[s]);
  }

  /* iterative DFS from the entry: post-order */
  unsigned *post_order = xcalloc(nb, sizeof *post_order);
  unsigned *stack = xcalloc(nb, sizeof *stack), *next_succ = xcalloc(nb, sizeof *next_succ);
  bool *seen = xcalloc(nb, sizeof *seen);
  unsigned sp = 0, npost = 0;
  stack[sp++] = 0;
  seen[0] = true;
  next_succ[0] = succ_start[0];
  while (sp) {
    unsigned b = stack[sp - 1];
    if (next_succ[b] < succ_start[b + 1]) {
      unsigned s = succ[next_succ[b]++];
      if (s != NONE && !seen[s]) {
        seen[s] = true;
        next_succ[s] = succ_start[s];
        stack[sp++] = s;
      }
    } else {
      post_order[npost++] = b;
      sp--;
    }
  }
  unsigned n = d->n = npost;
  for (i = 0; i < nb; i++) d->rpo_of[i] = NONE;
  for (i = 0; i < n; i++) d->rpo_of[post_order[n - 1 - i]] = i;
  d->block = xcalloc(n, sizeof *d->block);
  for (i = 0; i < nb; i++)
    if (d->rpo_of[i] != NONE) d->block[d->rpo_of[i]] = blocks[i];

  /* predecessors of reachable blocks, by rpo number */
  unsigned *pred_start = xcalloc(n + 1, sizeof *pred_start);
  for (i = 0; i < nb; i++) {
    if (d->rpo_of[i] == NONE) continue;
    for (unsigned k = succ_start[i]; k < succ_start[i + 1]; k++)
      if (succ[k] != NONE) pred_start[d->rpo_of[succ[k]] + 1]++;
  }
  for (i = 0; i < n; i++) pred_start[i + 1] += pred_start[i];
  unsigned *pred = xcalloc(pred_start[n], sizeof *pred), *fill = xcalloc(n, sizeof *fill);
  for (i = 0; i < nb; i++) {
    unsigned from = d->rpo_of[i];
    if (from == NONE) continue;
    for (unsigned k = succ_start[i]; k < succ_start[i + 1]; k++) {
      if (succ[k] == NONE) continue;
      unsigned to = d->rpo_of[succ[k]];
      pred[pred_start[to] + fill[to]++] = from;
    }
  }

  /* Cooper-Harvey-Kennedy over rpo numbers (a smaller number is nearer the entry) */
  unsigned *idom = d->idom = xcalloc(n, sizeof *idom);
  for (i = 0; i < n; i++) idom[i] = NONE;
  idom[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned b = 1; b < n; b++) {
      unsigned new_idom = NONE;
      for (unsigned k = pred_start[b]; k < pred_start[b + 1]; k++) {
        unsigned p = pred[k];
        if (idom[p] == NONE) continue;
        new_idom = new_idom == NONE ? p : intersect(idom, p, new_idom);
      }
      if (new_idom != idom[b]) {
        idom[b] = new_idom;
        changed = true;
      }
    }
  }

  /* DFS intervals and pre-order of the dominator tree: children lists (in region order), then an
   * iterative walk */
  unsigned *child_start = xcalloc(n + 1, sizeof *child_start);
  for (i = 1; i < n; i++) child_start[idom[i] + 1]++;
  for (i = 0; i < n; i++) child_start[i + 1] += child_start[i];
  unsigned *child = xcalloc(n, sizeof *child);
  memset(fill, 0, sizeof *fill * n);
  for (i = 0; i < nb; i++) {
    unsigned c = d->rpo_of[i];
    if (c != NONE && c != 0) child[child_start[idom[c]] + fill[idom[c]]++] = c;
  }
  d->pre = xcalloc(n, sizeof *d->pre);
  d->post = xcalloc(n, sizeof *d->post);
  d->preorder = xcalloc(n, sizeof *d->preorder);
  unsigned clock = 0, npre = 0;
  sp = 0;
  stack[sp++] = 0;
  next_succ[0] = child_start[0];
  d->pre[0] = clock++;
  d->preorder[npre++] = d->block[0];
  while (sp) {
    unsigned b = stack[sp - 1];
    if (next_succ[b] < child_start[b + 1]) {
      unsigned c = child[next_succ[b]++];
      d->pre[c] = clock++;
      d->preorder[npre++] = d->block[c];
      next_succ[c] = child_start[c];
      stack[sp++] = c;
    } else {
      d->post[b] = clock++;
      sp--;
    }
  }

  mem_free(child);
  mem_free(child_start);
  mem_free(fill);
  mem_free(pred);
  mem_free(pred_start);
  mem_free(seen);
  mem_free(next_succ);
  mem_free(stack);
  mem_free(post_order);
  mem_free(succ);
  mem_free(succ_start);
  mem_free(blocks);
  return d;
}

void dom_free(DomTree *d) {
  if (!d) return;
  ptrmap_free(&d->seq);
  mem_free(d->rpo_of);
  mem_free(d->idom);
  mem_free(d->block);
  mem_free(d->preorder);
  mem_free(d->pre);
  mem_free(d->post);
  mem_free(d);
}

bool dom_block_reachable(const DomTree *d, const Block *b) { return block_rpo(d, b) != NONE; }

bool dom_block_dominates(const DomTree *d, const Block *a, const Block *b) {
  unsigned ra = block_rpo(d, a), rb = block_rpo(d, b);
  if (a == b) return block_seq(d, a) != NONE;
  if (ra == NONE || rb == NONE) return false;
  return d->pre[ra] <= d->pre[rb] && d->post[rb] <= d->post[ra];
}

Block *dom_idom(const DomTree *d, const Block *b) {
  unsigned r = block_rpo(d, b);
  return r == NONE || r == 0 ? NULL : d->block[d->idom[r]];
}

Block *const *dom_preorder(const DomTree *d, unsigned *n) {
  *n = d->n;
  return d->preorder;
}

/* ---- values across regions --------------------------------------------------------------------- */

struct DomCache {
  PtrMap trees;               /* Region* -> DomTree* */
  PtrMap ordered;             /* Block* -> non-NULL once its ops are numbered in Op.id */
  const Block *last_ordered;  /* the block numbered or checked last (most queries repeat it) */
};

DomCache *dom_cache_new(void) { return xcalloc(1, sizeof(DomCache)); }

void dom_cache_free(DomCache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->trees.cap; i++)
    if (c->trees.keys[i]) dom_free(c->trees.vals[i]);
  ptrmap_free(&c->trees);
  ptrmap_free(&c->ordered);
  mem_free(c);
}

/* Whether op a comes strictly before op b of the same block. */
static bool op_before(DomCache *c, const Op *a, const Op *b) {
  if (a == b) return false;
  if (!c) {
    for (const Op *o = a->next; o; o = o->next)
      if (o == b) return true;
    return false;
  }
  const Block *blk = a->block;
  if (blk != c->last_ordered && !ptrmap_get(&c->ordered, blk)) {
    unsigned k = 0;
    for (Op *o = blk->first; o; o = o->next) o->id = k++;
    ptrmap_put(&c->ordered, blk, (void *)1);
  }
  c->last_ordered = blk;
  return a->id < b->id;
}

/* The dominator tree of a region of several blocks (cached when c is given; else the caller frees it). */
static DomTree *tree_of(DomCache *c, Region *r) {
  if (!c) return dom_compute(r);
  DomTree *t = ptrmap_get(&c->trees, r);
  if (!t) {
    t = dom_compute(r);
    ptrmap_put(&c->trees, r, t);
  }
  return t;
}

/* Whether block b, of a region of several blocks, is reachable from its entry. */
static bool reachable(DomCache *c, Block *b) {
  Region *r = b->region;
  if (r->first == r->last) return true;
  DomTree *t = tree_of(c, r);
  bool ok = dom_block_reachable(t, b);
  if (!c) dom_free(t);
  return ok;
}

bool dom_value_dominates(DomCache *c, const Value *v, const Op *user) {
  const Block *db = v->def ? v->def->block : v->block;
  if (!db || !db->region || !user->block) return false;
  const Region *dr = db->region;
  const Op *o = user;
  /* climb from the use to the ancestor op that sits in the definition's region */
  while (o->block->region != dr) {
    Block *ub = o->block;
    Op *p = ub->region ? ub->region->parent : NULL;
    if (!p || op_has(p, OPT_NOREC) || !p->block) return false;
    if (!reachable(c, ub)) return true;
    o = p;
  }
  Block *ub = o->block;
  if (ub == db) return v->def ? op_before(c, v->def, o) : true;
  /* different blocks of one region (so it has several) */
  DomTree *t = tree_of(c, ub->region);
  bool ok = !dom_block_reachable(t, ub) || dom_block_dominates(t, db, ub);
  if (!c) dom_free(t);
  return ok;
}
