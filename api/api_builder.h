/* api_builder.h — what a kf_builder (include/kfront/kir.h) holds, shared by api_builder.c (types, attributes,
 * ops, functions, blocks) and api_ssa.c (variables to SSA: Braun et al.'s algorithm over the builder's nodes).
 *
 * The SSA model. Every place where a variable can have a value of its own is a node: a block of a function body
 * (NODE_BLOCK: its predecessors are the branches built to it, its phis are block arguments), a region of an scf.if
 * or the continuation after an scf construct (NODE_SCF: one predecessor, never a phi), the body of an scf.for
 * (NODE_LOOP: one predecessor before the loop, unsealed until the loop ends; its phis are the body's arguments,
 * which become the loop-carried values), and each region of an scf.while (two NODE_LOOPs: the before-region's
 * phis are its arguments, the carried values; the after-region's are its arguments, the values scf.condition
 * passes on, which are also the loop's results). Each node keeps the value each variable has at its end (defs, by
 * variable number; UNDEF when it has none on some path). Nodes are numbered in the order they are made, so the
 * nodes of a construct's regions are those from its first node on while it is open.
 *
 * Memory: the builder and its tables belong to no guard (made outside guards, grown with mem_*_like the builder),
 * so they survive the guard each entry point runs its work under. */
#ifndef KF_API_BUILDER_H
#define KF_API_BUILDER_H

#include "api/api_internal.h"
#include "kfront/kir.h"

typedef enum NodeKind { NODE_BLOCK, NODE_SCF, NODE_LOOP } NodeKind;

typedef struct SsaNode SsaNode;

/* A branch to a NODE_BLOCK: successor `succ` of op `branch`, built at the end of node `from`. */
typedef struct SsaEdge {
  SsaNode *from;
  Op *branch;
  unsigned succ;
} SsaEdge;

/* A phi not yet given its operands (its node was not sealed when a read made it), and where that read was. */
typedef struct SsaPhi {
  kf_var *var;
  Value *arg;
  SrcLoc loc;
  bool quiet;          /* made by the builder's own bookkeeping, not by a read of the embedder's */
} SsaPhi;

struct SsaNode {
  unsigned id;
  NodeKind kind;
  Block *block;          /* NODE_BLOCK: the block; NODE_LOOP: the scf.for's body; NODE_SCF: its block (or NULL) */
  SsaNode *pred;         /* NODE_SCF, NODE_LOOP: the one predecessor (NULL: none) */
  SsaEdge *edges;        /* NODE_BLOCK */
  unsigned nedges, edges_cap;
  bool sealed;
  Value **defs;          /* by kf_var id; NULL: not known here (ask the predecessors) */
  unsigned ndefs;
  SsaPhi *incomplete;
  unsigned nincomplete, incomplete_cap;
};

struct kf_var {
  unsigned id;
  const char *name;      /* in the module's arena */
  Type *type;
  Op *func;
  Value *undef;          /* a 0 of its type at the function's start, for phi operands where it is unset (or NULL) */
};

typedef enum ConstructKind { CONSTRUCT_IF, CONSTRUCT_FOR, CONSTRUCT_WHILE } ConstructKind;

/* An scf.if, scf.for or scf.while the builder has open. */
typedef struct OpenConstruct {
  ConstructKind kind;
  Op *placeholder;       /* the op as begun (no results); replaced by the finished one */
  SsaNode *pre;          /* the node before the construct */
  SsaNode *first;        /* its first node (then-region, loop body, while's before-region) */
  SsaNode *then_end;     /* scf.if with an else: the then-region's last node; scf.while: the before-region's */
  bool has_else;         /* scf.if: in its else-region; scf.while: in its after-region (the body) */
  SsaNode *after;        /* scf.while: the after-region's first node (NODE_LOOP: its phis are its arguments) */
  Op *condition;         /* scf.while: its scf.condition (the i1 only, until the loop ends) */
  Block *outer;          /* the block the construct is in */
  Op *outer_before;      /* the builder's insertion point there */
} OpenConstruct;

struct kf_builder {
  kf_module *km;
  IrBuilder ib;
  bool spent;            /* an allocation failed under one of its calls */
  SsaNode *cur;          /* the node of the insertion point (NULL: none) */
  SsaNode **nodes;
  unsigned nnodes, nodes_cap;
  PtrMap block_nodes;    /* Block * -> the SsaNode at its end */
  PtrMap phis;           /* Value * (a phi the builder made) -> its SsaNode */
  PtrMap maybe_undef;    /* Value * -> itself: phis that may be unset on some path (and the undef zeros) */
  bool quiet;            /* reading for the builder's own bookkeeping: no phi it makes is a read to report */
  kf_var **vars;
  unsigned nvars, vars_cap;
  OpenConstruct *open;
  unsigned nopen, open_cap;
};

/* The value a variable's table holds where it has no value on some path. */
extern Value api_ssa_undef;

/* Reports an error at the builder's location (KF_ERROR_INVALID_INPUT). */
kf_status api_build_error(kf_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
kf_status api_build_error_at(kf_builder *b, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Grows an array of the builder (owned like it): false when out of memory (outside a guard). */
bool api_build_grow(kf_builder *b, void **items, unsigned *cap, unsigned need, size_t size);

/* ---- api_ssa.c (each under the entry point's guard) ---- */
/* A new node of kind for block (registered as the block's node when it is a NODE_BLOCK). */
SsaNode *ssa_node_new(kf_builder *b, NodeKind kind, Block *block, SsaNode *pred);
/* Records a branch from the current node to NODE_BLOCK `to` (successor succ of op). */
kf_status ssa_add_edge(kf_builder *b, SsaNode *to, Op *branch, unsigned succ);
kf_status ssa_seal(kf_builder *b, SsaNode *n);
kf_status ssa_write(kf_builder *b, kf_var *v, SsaNode *n, Value *val);
/* The value of v at the end of n; NULL when it has none there. */
Value *ssa_read(kf_builder *b, kf_var *v, SsaNode *n);
/* Whether val may be unset on some path (a phi with an operand where the variable was unset). */
bool ssa_maybe_undefined(kf_builder *b, const Value *val);
/* The embedder's read of v at the insertion point: an error (reported) where it may be unset. */
kf_status ssa_read_checked(kf_builder *b, kf_var *v, Value **out);
/* Finishes the innermost open construct: builds its real op (results, carried values, yields). */
kf_status ssa_finish_if(kf_builder *b, Op **out);
kf_status ssa_finish_for(kf_builder *b, Op **out);
kf_status ssa_finish_while(kf_builder *b, Op **out);

#endif
