/* exec_warp.c — the simulator's warps and barriers (exec.c's top comment describes the execution model): a
 * barrier or warp-op divergence, the warp ops (shfl, vote, match, syncwarp, activemask) resolved in groups as PTX
 * matches them since sm_70, and the release of a block barrier. */
#include <string.h>

#include "runtime/sim/sim_internal.h"

/* ---- warps and barriers ----------------------------------------------------------------------- */

/* A barrier (or a warp op, whose mask names `other`) that `waiter` waits at while `other` has exited or waits at
 * another barrier. */
static void divergence(BlockCtx *B, Thread *waiter, Thread *other) {
  Launch *L = B->L;
  char msg[SIM_MSG_MAX], lb[300], lb2[300], what[400];
  if (other->state == T_EXITED)
    snprintf(what, sizeof what, "thread (%u,%u,%u) has exited", other->tid[0], other->tid[1], other->tid[2]);
  else
    snprintf(what, sizeof what, "thread (%u,%u,%u) waits at %s", other->tid[0], other->tid[1], other->tid[2],
             loc_text(waiting_at(other)->op->loc, lb2, sizeof lb2));
  msgf(msg, sizeof msg,
           "error: barrier divergence in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) waits here, but %s",
           L->kname, loc_text(waiting_at(waiter)->op->loc, lb, sizeof lb), waiter->tid[0], waiter->tid[1],
           waiter->tid[2], B->bid[0], B->bid[1], B->bid[2], what);
  lock(L);
  if (!L->res->barrier_divergence) {
    L->res->barrier_divergence = true;
    snprintf(L->res->barrier_message, SIM_MSG_MAX, "%s", msg);
  }
  set_status(L, SIM_ERR_BARRIER, msg);
  unlock(L);
  stop_launch(L);
}

/* ---- warp ops: PTX's matching on sm_70 and later (exec.c's top comment); only sm_6x and earlier ask for
 * the same instruction, in convergence. The CUDA Programming Guide's shfl_xor_sync in both branches of an if is valid
 * code, and on the GPU each lane gets its partner's value. ------------------------------------------------ */

static inline bool lane_gone(const Thread *t) { return t->state == T_EXITED || t->state == T_FAILED; }

/* The mask of the warp op (not activemask) that t waits at. */
static uint32_t op_mask(const Thread *t) {
  const WarpInfo *wi = waiting_at(t)->ext;
  return (uint32_t)t->regs[wi->mask].u;
}

/* Whether lanes at warp ops a and b match: the same kind and mode and, for shuffles, as many shfl.sync.b32 (the
 * backend's lowering: a 64-bit value takes two, anything narrower one). */
static bool warp_ops_match(const WarpInfo *a, const WarpInfo *b) {
  if (a->kind != b->kind || a->mode != b->mode) return false;
  if (a->kind == WK_MATCH) return (a->vk == MV_BITS64) == (b->vk == MV_BITS64); /* match.sync.b32 or .b64 */
  return a->kind != WK_SHFL || (a->vty.bits == 64) == (b->vty.bits == 64);
}

/* The bits a gpu.match compares of the value in a lane's registers R. */
static uint64_t match_bits(const WarpInfo *wi, const Slot *R) {
  const Slot *v = &R[wi->val];
  if (wi->vk == MV_F32) {
    uint32_t b;
    memcpy(&b, &v->f, sizeof b);
    return b;
  }
  return wi->vk == MV_BITS32 ? (uint32_t)v->u : v->u;
}

/* The warp op that t waits at, for messages: "a shuffle (mode xor) of a 32-bit value with mask 0xffffffff". */
static const char *warp_op_text(const Thread *t, char *buf, size_t n) {
  const Ins *I = waiting_at(t);
  const WarpInfo *wi = I->ext;
  const char *mode = wi->kind == WK_SHFL    ? ir_shuffle_mode_name((IrShuffleMode)wi->mode)
                     : wi->kind == WK_VOTE  ? ir_vote_mode_name((IrVoteMode)wi->mode)
                     : wi->kind == WK_MATCH ? ir_match_mode_name((IrMatchMode)wi->mode)
                                            : NULL;
  uint32_t mask = wi->kind == WK_ACTIVEMASK ? 0 : op_mask(t);
  if (wi->kind == WK_SHFL)
    snprintf(buf, n, "a shuffle (mode %s) of a %u-bit value with mask 0x%08x", mode, wi->vty.bits == 64 ? 64 : 32,
             mask);
  else if (wi->kind == WK_VOTE) snprintf(buf, n, "a vote (mode %s) with mask 0x%08x", mode, mask);
  else if (wi->kind == WK_SYNCWARP) snprintf(buf, n, "a syncwarp with mask 0x%08x", mask);
  else if (wi->kind == WK_MATCH)
    snprintf(buf, n, "a match (mode %s) of a %u-bit value with mask 0x%08x", mode, wi->vk == MV_BITS64 ? 64 : 32,
             mask);
  else snprintf(buf, n, "an activemask");
  return buf;
}

/* Records msg as the launch's error (a warp op mismatch also as its barrier divergence) and stops it. */
static void warp_error(Launch *L, SimStatus s, const char *msg) {
  lock(L);
  if (s == SIM_ERR_BARRIER && !L->res->barrier_divergence) {
    L->res->barrier_divergence = true;
    snprintf(L->res->barrier_message, SIM_MSG_MAX, "%s", msg);
  }
  set_status(L, s, msg);
  unlock(L);
  stop_launch(L);
}

/* Lane t waits at a warp op whose mask does not name it (PTX: undefined). */
static void mask_without_caller(BlockCtx *B, Thread *t) {
  Launch *L = B->L;
  char msg[SIM_MSG_MAX], lb[300], what[200];
  msgf(msg, sizeof msg,
       "error: warp op mask without its own lane in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u), lane %u "
       "of its warp, calls %s, which does not name it (on the GPU the behaviour is undefined)",
       L->kname, loc_text(waiting_at(t)->op->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0],
       B->bid[1], B->bid[2], t->linear % 32, warp_op_text(t, what, sizeof what));
  warp_error(L, SIM_ERR_RUNTIME, msg);
}

/* A shuffle of lane t that reads lane src of its warp, which is absent (has exited, or is past the block's last
 * thread) or live but not named by the mask: PTX leaves the value undefined (an exited lane named in the mask
 * does not hold the shuffle up, but it has nothing to give). Stops the launch. */
static void bad_shuffle_source(BlockCtx *B, Thread *t, unsigned src, unsigned nlanes, bool absent) {
  Launch *L = B->L;
  char msg[SIM_MSG_MAX], lb[300], what[200];
  uint32_t linear = t->linear - t->linear % 32 + src, tid[3];
  xyz_of(L, linear, tid);
  if (src >= nlanes)
    snprintf(what, sizeof what, "which the block does not have (its last warp has %u threads)", nlanes);
  else if (absent)
    snprintf(what, sizeof what, "thread (%u,%u,%u), which has exited", tid[0], tid[1], tid[2]);
  else
    snprintf(what, sizeof what, "thread (%u,%u,%u), which its mask 0x%08x does not name", tid[0], tid[1], tid[2],
             op_mask(t));
  msgf(msg, sizeof msg,
       "error: shuffle from %s in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) reads lane %u of its warp, "
       "%s (on the GPU the value read is undefined)",
       absent ? "an absent lane" : "a lane outside its mask", L->kname, loc_text(waiting_at(t)->op->loc, lb, sizeof lb),
       t->tid[0], t->tid[1], t->tid[2], B->bid[0], B->bid[1], B->bid[2], src, what);
  warp_error(L, SIM_ERR_RUNTIME, msg);
}

/* No group of the warp can complete (pending: its lanes at warp ops): the first of them waits for a lane its mask
 * names that waits at a warp op of another kind or mode, or with another mask. Stops the launch. */
static void warp_op_mismatch(BlockCtx *B, Thread *lanes, uint32_t pending, uint32_t live) {
  Launch *L = B->L;
  Thread *t = &lanes[__builtin_ctz(pending)], *other = NULL;
  const WarpInfo *wi = waiting_at(t)->ext;
  for (uint32_t m = op_mask(t) & live; m && !other; m &= m - 1) {
    Thread *o = &lanes[__builtin_ctz(m)];
    if (o->state == T_WARP && (!warp_ops_match(wi, waiting_at(o)->ext) || op_mask(o) != op_mask(t))) other = o;
  }
  char msg[SIM_MSG_MAX], lb[300], lb2[300], what[200], what2[200];
  if (!other) {
    sim_report_fatal(B, t, SIM_ERR_RUNTIME, waiting_at(t), "internal error: a warp op that can neither run nor fail");
    return;
  }
  msgf(msg, sizeof msg,
       "error: warp op mismatch in kernel %s at %s: thread (%u,%u,%u) of block (%u,%u,%u) waits here at %s, but "
       "thread (%u,%u,%u), which that mask names, waits at %s at %s (the two never match: the GPU would hang or "
       "give undefined values)",
       L->kname, loc_text(waiting_at(t)->op->loc, lb, sizeof lb), t->tid[0], t->tid[1], t->tid[2], B->bid[0],
       B->bid[1], B->bid[2], warp_op_text(t, what, sizeof what), other->tid[0], other->tid[1], other->tid[2],
       loc_text(waiting_at(other)->op->loc, lb2, sizeof lb2), warp_op_text(other, what2, sizeof what2));
  warp_error(L, SIM_ERR_BARRIER, msg);
}

/* The bits of a shuffled value of type from as a value of type to: shfl.sync moves 32-bit words (the backend
 * widens a narrower value and takes two for a 64-bit one), so at two sites an i32 and an f32 exchange their bits,
 * as on the GPU. */
static Slot shfl_value(Slot v, SemTy from, SemTy to) {
  if (from.bits == to.bits && from.is_float == to.is_float && from.sgn == to.sgn && from.bf == to.bf) return v;
  uint64_t bits;
  if (!from.is_float) {
    bits = from.bits == 64 ? v.u : v.u & ((1ull << from.bits) - 1);
  } else if (from.bits == 64) {
    memcpy(&bits, &v.d, 8);
  } else if (from.bits == 32) {
    uint32_t b32;
    memcpy(&b32, &v.f, 4);
    bits = b32;
  } else {
    bits = sem_narrow_bits(from, v.f);
  }
  Slot r;
  r.u = 0;
  if (!to.is_float) {
    r.u = bits << to.sh;
    if (to.sgn) r.i >>= to.sh;
    else r.u >>= to.sh;
  } else if (to.bits == 64) {
    memcpy(&r.d, &bits, 8);
  } else if (to.bits == 32) {
    uint32_t b32 = (uint32_t)bits;
    memcpy(&r.f, &b32, 4);
  } else {
    r.f = sem_narrow_value(to, (uint16_t)bits);
  }
  return r;
}

/* Runs the warp op of the lanes of group (of warp w, nl lanes), each at its own instruction (they match), and
 * sets them going. False when the launch stopped (a shuffle reading a lane it may not). */
static bool run_warp_group(BlockCtx *B, unsigned w, unsigned nl, uint32_t group) {
  Thread *lanes = &B->threads[w * 32];
  WarpKind kind = ((const WarpInfo *)waiting_at(&lanes[__builtin_ctz(group)])->ext)->kind;
  uint32_t ballot = 0;
  if (kind == WK_VOTE)
    for (uint32_t m = group; m; m &= m - 1) {
      const Thread *t = &lanes[__builtin_ctz(m)];
      if (t->regs[((const WarpInfo *)waiting_at(t)->ext)->val].u) ballot |= 1u << __builtin_ctz(m);
    }
  Slot out[32];
  bool pred[32] = {0};
  for (uint32_t m = group; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    Thread *t = &lanes[l];
    const WarpInfo *wi = waiting_at(t)->ext;
    const Slot *R = t->regs;
    Slot v;
    v.u = 0;
    switch (wi->kind) {
    case WK_SHFL: {
      int64_t width = R[wi->width].i;
      if (width < 1 || width > 32 || (width & (width - 1))) width = 32;
      unsigned b = (unsigned)(R[wi->lane].u & 31); /* PTX's shfl.sync reads b[4:0] */
      unsigned seg = l & ~(unsigned)(width - 1), last = seg + (unsigned)width - 1, src = l;
      switch (wi->mode) {
      case IR_SHUFFLE_IDX: src = seg | (b & (unsigned)(width - 1)); break;
      case IR_SHUFFLE_UP: src = l >= seg + b ? l - b : l; break;
      case IR_SHUFFLE_DOWN: src = l + b <= last ? l + b : l; break;
      case IR_SHUFFLE_XOR: src = (l ^ b) <= last ? l ^ b : l; break;
      }
      if (src == l) {
        v = R[wi->val];
      } else if (src >= nl || lane_gone(&lanes[src]) || !(group >> src & 1)) {
        bad_shuffle_source(B, t, src, nl, src >= nl || lane_gone(&lanes[src]));
        return false;
      } else {
        const Thread *s = &lanes[src];
        const WarpInfo *si = waiting_at(s)->ext;
        v = shfl_value(s->regs[si->val], si->vty, wi->vty);
      }
      break;
    }
    case WK_VOTE:
      if (wi->mode == IR_VOTE_BALLOT) v.u = ballot;
      else if (wi->mode == IR_VOTE_ALL) v.u = ballot == group;
      else if (wi->mode == IR_VOTE_ANY) v.u = ballot != 0;
      else v.u = ballot == 0 || ballot == group;
      break;
    case WK_MATCH: { /* the lanes of the group (its mask's live lanes) whose value has this lane's bits */
      uint32_t same = 0;
      uint64_t mine = match_bits(wi, R);
      for (uint32_t e = group; e; e &= e - 1) {
        const Thread *o = &lanes[__builtin_ctz(e)];
        if (match_bits(waiting_at(o)->ext, o->regs) == mine) same |= 1u << __builtin_ctz(e);
      }
      if (wi->mode == IR_MATCH_ANY) {
        v.u = same;
      } else {
        pred[l] = same == group;
        v.u = pred[l] ? group : 0;
      }
      break;
    }
    case WK_ACTIVEMASK: v.u = group; break;
    case WK_SYNCWARP: break;
    }
    out[l] = v;
  }
  if (kind == WK_SYNCWARP) B->wep[w]++;
  for (uint32_t m = group; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    Thread *t = &lanes[l];
    const Ins *I = waiting_at(t);
    if (kind == WK_SHFL) t->regs[I->d] = out[l]; /* any scalar type, bits as they are */
    else if (kind != WK_SYNCWARP) t->regs[I->d].u = norm(I, out[l].u);
    const WarpInfo *wi = I->ext;
    if (kind == WK_MATCH && wi->mode == IR_MATCH_ALL) t->regs[wi->pred].u = pred[l];
    t->pc++;
    t->state = T_READY;
  }
  return true;
}

/* Resolves the groups of warp w's lanes waiting at warp ops that are complete: every live lane a lane's mask
 * names waits at a matching op with that mask (activemask: the lanes at the same instruction). Returns true if any
 * lane ran on; false when none did (then no lane waits, or the launch stopped: a warp op mismatch, a lane outside
 * its own mask, a shuffle reading a lane it may not, a lane the mask names that waits at a block barrier). */
bool sim_resolve_warp(BlockCtx *B, unsigned w) {
  Thread *lanes = &B->threads[w * 32];
  unsigned nl = B->nthreads - w * 32 < 32 ? B->nthreads - w * 32 : 32;
  uint32_t pending = 0, live = 0;
  for (unsigned l = 0; l < nl; l++) {
    if (lanes[l].state == T_WARP) pending |= 1u << l;
    if (!lane_gone(&lanes[l])) live |= 1u << l;
  }
  bool any = false;
  for (uint32_t todo = pending; todo;) {
    unsigned first = (unsigned)__builtin_ctz(todo);
    Thread *t = &lanes[first];
    const Ins *I = waiting_at(t);
    const WarpInfo *wi = I->ext;
    uint32_t group = 0;
    if (wi->kind == WK_ACTIVEMASK) {
      for (uint32_t m = todo; m; m &= m - 1)
        if (waiting_at(&lanes[__builtin_ctz(m)]) == I) group |= 1u << __builtin_ctz(m);
    } else {
      uint32_t mask = op_mask(t);
      if (!(mask >> first & 1)) {
        mask_without_caller(B, t);
        return false;
      }
      group = mask & live;
      for (uint32_t m = group; m; m &= m - 1) {
        Thread *o = &lanes[__builtin_ctz(m)];
        if (o->state == T_BARRIER) { /* neither could go on on the GPU */
          divergence(B, t, o);
          return false;
        }
        if (o->state != T_WARP || !warp_ops_match(wi, waiting_at(o)->ext) || op_mask(o) != mask) {
          group = 0; /* not complete: o has not arrived (or ran on from another group of this round) */
          break;
        }
      }
    }
    if (!group) {
      todo &= ~(1u << first);
      continue;
    }
    if (!run_warp_group(B, w, nl, group)) return false;
    todo &= ~group;
    pending &= ~group;
    any = true;
  }
  if (!any && pending) warp_op_mismatch(B, lanes, pending, live);
  return any;
}

/* Releases the barrier every waiting thread stands at. False on divergence (reported). */
bool sim_release_barrier(BlockCtx *B, Thread *first) {
  const Ins *I = waiting_at(first);
  Thread *exited = NULL, *other = NULL;
  uint32_t count = 0, n = 0;
  for (unsigned i = 0; i < B->nthreads; i++) {
    Thread *t = &B->threads[i];
    if (t->state == T_EXITED && !exited && B->L->opts.strict_barriers) exited = t;
    if (t->state != T_BARRIER) continue;
    if (waiting_at(t) != I) {
      if (!other) other = t;
      continue;
    }
    n++;
    if (I->code == SI_BARRED && t->regs[I->a].u) count++;
  }
  if (other || exited) {
    divergence(B, first, other ? other : exited);
    return false;
  }
  if (I->code == SI_GRIDSYNC) return true; /* the whole block waits at the grid barrier: released with the grid */
  uint64_t v = I->aux == IR_BARRIER_REDUCE_COUNT ? count : I->aux == IR_BARRIER_REDUCE_AND ? count == n : count != 0;
  for (unsigned i = 0; i < B->nthreads; i++) {
    Thread *t = &B->threads[i];
    if (t->state != T_BARRIER) continue;
    if (I->code == SI_BARRED) t->regs[I->d].u = norm(I, v);
    t->pc++;
    t->state = T_READY;
  }
  B->epoch++;
  B->barriers++;
  return true;
}
