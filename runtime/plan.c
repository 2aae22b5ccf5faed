/* plan.c — launch plans: how a compiled kernel is launched, computed once from what the passes left on its
 * kir function, stored in the cache manifest, and applied by the one launch path of both devices.
 *
 * What the passes leave (the only place that reads it):
 *   - trailing parameters whose arg_names are in the hidden-parameter table below ("__kf_grid_x", ...):
 *     values the runtime supplies, not the user (signatures, argument checks and queries never see them);
 *   - `grid_stride` (unit): the kernel loops over the user's blocks, so it runs on a 1-D physical grid of
 *     min(user blocks, blocks the device holds at once) (grid rule "resident");
 *   - `launch_block` (array of 3 ints): the block shape the variant was built for (any other is refused:
 *     the program must launch another variant); `launch_block_divisor` (3 ints): the physical block is
 *     the user's divided by it (register blocking); `launch_dynamic_shared` (int): bytes of dynamic shared
 *     memory the variant adds to the user's;
 *   - `cooperative` (unit): the kernel synchronises its grid (cuda.cg): a cooperative launch, every block of the
 *     user's grid resident at once (the launch refuses a grid the device cannot hold; plan.rt_plan_fit_coop);
 *   - `launch_grid_divisor` (3 ints): the physical grid is the user's divided by it, rounded up (a tiled
 *     variant whose blocks each compute those of several of the user's, passes/tile_shared.c; it takes the
 *     user's grid as hidden parameters); `launch_disjoint` (ints, pairs): the arrays of each pair of the
 *     user's parameters must not overlap for the variant to run (checked at each launch).
 * Text form (manifest): `hidden=grid_x,grid_y,grid_z grid=resident block=0,0,0 divisor=1,1,1 shared=0`, then
 * where they are not the defaults ` gdiv=4,4,1`, ` disjoint=0:2,1:2` and ` coop`. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

static const struct {
  const char *name;      /* in the manifest */
  const char *arg_name;  /* the kir parameter's arg_names entry */
} hidden_table[RT_HIDDEN__COUNT] = {
    [RT_HIDDEN_GRID_X] = {"grid_x", "__kf_grid_x"},
    [RT_HIDDEN_GRID_Y] = {"grid_y", "__kf_grid_y"},
    [RT_HIDDEN_GRID_Z] = {"grid_z", "__kf_grid_z"},
};

static const char *grid_rule_names[] = {[RT_GRID_AS_GIVEN] = "given", [RT_GRID_RESIDENT] = "resident"};

void rt_plan_init(RtLaunchPlan *p) {
  memset(p, 0, sizeof *p);
  for (int d = 0; d < 3; d++) p->block_divisor[d] = p->grid_divisor[d] = 1;
}

static int hidden_by_arg_name(const char *s) {
  for (int h = 0; h < RT_HIDDEN__COUNT; h++)
    if (s && strcmp(s, hidden_table[h].arg_name) == 0) return h;
  return -1;
}

static bool int_triple(Op *func, const char *name, unsigned out[3], Diag *diag) {
  Attr *a = ir_op_attr(func, name);
  if (!a) return true;
  bool ok = a->kind == ATTR_ARRAY && a->arr.n == 3;
  for (unsigned i = 0; ok && i < 3; i++) {
    ok = a->arr.elems[i].kind == ATTR_INT && a->arr.elems[i].i >= 0 && a->arr.elems[i].i <= 1 << 20;
    if (ok) out[i] = (unsigned)a->arr.elems[i].i;
  }
  if (!ok) diag_error(diag, func->loc, "the kernel's %s attribute is not an array of 3 small integers", name);
  return ok;
}

bool rt_plan_from_kir(Op *func, RtLaunchPlan *p, Diag *diag) {
  rt_plan_init(p);
  unsigned n;
  Type *const *params = rt_kir_params(func, &n);
  Attr *names = ir_op_attr(func, "arg_names");
  /* the hidden parameters: the longest run of table names at the end of the parameter list */
  unsigned first = n;
  while (names && names->kind == ATTR_ARRAY && names->arr.n == n && first > 0) {
    const Attr *a = &names->arr.elems[first - 1];
    int h = a->kind == ATTR_STR || a->kind == ATTR_SYM ? hidden_by_arg_name(a->s) : -1;
    if (h < 0 || !ty_is_scalar(params[first - 1])) break;
    first--;
  }
  if (n - first > RT_PLAN_MAX_HIDDEN) {
    diag_error(diag, func->loc, "the kernel has %u hidden parameters; at most %d are supported", n - first,
               RT_PLAN_MAX_HIDDEN);
    return false;
  }
  for (unsigned i = first; i < n; i++) p->hidden[p->nhidden++] = (RtHidden)hidden_by_arg_name(names->arr.elems[i].s);
  if (ir_op_attr(func, "grid_stride")) {
    bool has[3] = {false, false, false};
    for (unsigned i = 0; i < p->nhidden; i++)
      if (p->hidden[i] <= RT_HIDDEN_GRID_Z) has[p->hidden[i] - RT_HIDDEN_GRID_X] = true;
    if (!has[0] || !has[1] || !has[2]) {
      diag_error(diag, func->loc, "a grid_stride kernel must take the user's grid dims as hidden parameters "
                 "(arg_names __kf_grid_x/y/z)");
      return false;
    }
    p->grid = RT_GRID_RESIDENT;
  }
  if (!int_triple(func, "launch_block", p->required_block, diag) ||
      !int_triple(func, "launch_block_divisor", p->block_divisor, diag) ||
      !int_triple(func, "launch_grid_divisor", p->grid_divisor, diag))
    return false;
  for (int d = 0; d < 3; d++) {
    if (p->block_divisor[d] == 0 || p->grid_divisor[d] == 0) {
      diag_error(diag, func->loc, "the kernel's launch_block_divisor or launch_grid_divisor has a zero");
      return false;
    }
  }
  Attr *dj = ir_op_attr(func, "launch_disjoint");
  if (dj) {
    unsigned nuser = n - p->nhidden;
    bool ok = dj->kind == ATTR_ARRAY && dj->arr.n % 2 == 0 && dj->arr.n / 2 <= RT_PLAN_MAX_DISJOINT;
    for (unsigned i = 0; ok && i < dj->arr.n; i++)
      ok = dj->arr.elems[i].kind == ATTR_INT && dj->arr.elems[i].i >= 0 && dj->arr.elems[i].i < nuser;
    if (!ok) {
      diag_error(diag, func->loc, "the kernel's launch_disjoint is not a list of at most %d pairs of its parameters",
                 RT_PLAN_MAX_DISJOINT);
      return false;
    }
    p->ndisjoint = dj->arr.n / 2;
    for (unsigned i = 0; i < p->ndisjoint; i++)
      for (unsigned j = 0; j < 2; j++) p->disjoint[i][j] = (unsigned)dj->arr.elems[2 * i + j].i;
  }
  int64_t shared = ir_op_attr_int(func, "launch_dynamic_shared", 0);
  if (shared < 0) {
    diag_error(diag, func->loc, "the kernel's launch_dynamic_shared is negative");
    return false;
  }
  p->dynamic_shared = (size_t)shared;
  p->cooperative = ir_op_attr(func, "cooperative") != NULL;
  if (p->cooperative && (p->grid != RT_GRID_AS_GIVEN || p->grid_divisor[0] != 1 || p->grid_divisor[1] != 1 ||
                         p->grid_divisor[2] != 1)) {
    diag_error(diag, func->loc, "a cooperative kernel runs on the user's grid: it cannot be grid_stride or have a "
               "launch_grid_divisor");
    return false;
  }
  return true;
}

void rt_plan_print(const RtLaunchPlan *p, StrBuf *out) {
  sb_puts(out, "hidden=");
  for (unsigned i = 0; i < p->nhidden; i++) sb_printf(out, "%s%s", i ? "," : "", hidden_table[p->hidden[i]].name);
  if (!p->nhidden) sb_puts(out, "-");
  sb_printf(out, " grid=%s block=%u,%u,%u divisor=%u,%u,%u shared=%zu", grid_rule_names[p->grid],
            p->required_block[0], p->required_block[1], p->required_block[2], p->block_divisor[0],
            p->block_divisor[1], p->block_divisor[2], p->dynamic_shared);
  if (p->grid_divisor[0] != 1 || p->grid_divisor[1] != 1 || p->grid_divisor[2] != 1)
    sb_printf(out, " gdiv=%u,%u,%u", p->grid_divisor[0], p->grid_divisor[1], p->grid_divisor[2]);
  for (unsigned i = 0; i < p->ndisjoint; i++)
    sb_printf(out, "%s%u:%u", i ? "," : " disjoint=", p->disjoint[i][0], p->disjoint[i][1]);
  if (p->cooperative) sb_puts(out, " coop");
}

bool rt_plan_parse(const char *s, size_t len, RtLaunchPlan *p) {
  rt_plan_init(p);
  char buf[256];
  if (len >= sizeof buf) return false;
  memcpy(buf, s, len);
  buf[len] = 0;
  char hidden[128], grid[16];
  unsigned b[3], dv[3];
  size_t shared;
  int used = 0;
  if (sscanf(buf, "hidden=%127s grid=%15s block=%u,%u,%u divisor=%u,%u,%u shared=%zu%n", hidden, grid, &b[0], &b[1],
             &b[2], &dv[0], &dv[1], &dv[2], &shared, &used) != 9)
    return false;
  /* the optional fields, in order */
  const char *rest = buf + used;
  int more = 0;
  if (strncmp(rest, " gdiv=", 6) == 0) {
    unsigned *g = p->grid_divisor;
    if (sscanf(rest, " gdiv=%u,%u,%u%n", &g[0], &g[1], &g[2], &more) != 3 || !g[0] || !g[1] || !g[2]) return false;
    rest += more;
  }
  if (strncmp(rest, " disjoint=", 10) == 0) {
    rest += 10;
    do {
      if (p->ndisjoint == RT_PLAN_MAX_DISJOINT) return false;
      unsigned *pair = p->disjoint[p->ndisjoint++];
      if (sscanf(rest, "%u:%u%n", &pair[0], &pair[1], &more) != 2) return false;
      rest += more;
    } while (*rest == ',' && rest++);
  }
  if (strcmp(rest, " coop") == 0) {
    p->cooperative = true;
    rest += 5;
  }
  if (*rest) return false;
  if (strcmp(hidden, "-") != 0) {
    for (char *tok = strtok(hidden, ","); tok; tok = strtok(NULL, ",")) {
      int h = -1;
      for (int k = 0; k < RT_HIDDEN__COUNT; k++)
        if (strcmp(tok, hidden_table[k].name) == 0) h = k;
      if (h < 0 || p->nhidden >= RT_PLAN_MAX_HIDDEN) return false;
      p->hidden[p->nhidden++] = (RtHidden)h;
    }
  }
  if (strcmp(grid, "given") == 0) p->grid = RT_GRID_AS_GIVEN;
  else if (strcmp(grid, "resident") == 0) p->grid = RT_GRID_RESIDENT;
  else return false;
  for (int d = 0; d < 3; d++) {
    if (dv[d] == 0) return false;
    p->required_block[d] = b[d];
    p->block_divisor[d] = dv[d];
  }
  p->dynamic_shared = shared;
  return true;
}

bool rt_plan_args_disjoint(const RtLaunchPlan *p, const kf_arg *args, unsigned nargs) {
  for (unsigned i = 0; i < p->ndisjoint; i++) {
    unsigned a = p->disjoint[i][0], b = p->disjoint[i][1];
    if (a >= nargs || b >= nargs || args[a].kind != KF_ARG_ARRAY || args[b].kind != KF_ARG_ARRAY) continue;
    const kf_array *x = &args[a].array, *y = &args[b].array;
    int64_t xlo, xhi, ylo, yhi;
    rt_array_span(x, &xlo, &xhi);
    rt_array_span(y, &ylo, &yhi);
    if (xlo == xhi || ylo == yhi || x->memory != y->memory) continue;
    /* [data + lo, data + hi) of each, compared as addresses of the same space */
    uintptr_t xs = (uintptr_t)x->data + (uintptr_t)xlo, xe = (uintptr_t)x->data + (uintptr_t)xhi;
    uintptr_t ys = (uintptr_t)y->data + (uintptr_t)ylo, ye = (uintptr_t)y->data + (uintptr_t)yhi;
    if (xs < ye && ys < xe) return false;
  }
  return true;
}

bool rt_plan_block_fits(const RtLaunchPlan *p, const unsigned block[3]) {
  if (!p->required_block[0] && !p->required_block[1] && !p->required_block[2]) return true;
  return block[0] == p->required_block[0] && block[1] == p->required_block[1] && block[2] == p->required_block[2];
}

/* The device's resident blocks for (threads, shared), memoised in one 64-bit word: threads (16 bits),
 * shared bytes (24 bits), blocks (24 bits); 0 when empty. Racing writers store equal answers. */
static unsigned resident_blocks(RtDevice *dev, RtDevFunction *fn, unsigned threads, size_t shared,
                                _Atomic uint64_t *memo) {
  uint64_t key = (uint64_t)threads << 48 | (uint64_t)(shared & 0xFFFFFF) << 24;
  uint64_t m = atomic_load_explicit(memo, memory_order_relaxed);
  if (m && (m & ~(uint64_t)0xFFFFFF) == key && shared < (1u << 24)) return (unsigned)(m & 0xFFFFFF);
  unsigned blocks = dev->ops->resident_blocks(dev, fn, threads, shared);
  if (blocks == 0) blocks = 1;
  if (blocks < (1u << 24) && threads < (1u << 16) && shared < (1u << 24))
    atomic_store_explicit(memo, key | blocks, memory_order_relaxed);
  return blocks;
}

bool rt_plan_fit_coop(const RtLaunchPlan *p, const RtLaunchShape *phys, RtDevice *dev, RtDevFunction *fn,
                      _Atomic uint64_t *resident_memo, const char *kernel, Diag *diag) {
  if (!p->cooperative) return true;
  uint64_t total = (uint64_t)phys->grid[0] * phys->grid[1] * phys->grid[2];
  unsigned threads = phys->block[0] * phys->block[1] * phys->block[2];
  uint64_t resident = resident_blocks(dev, fn, threads, phys->shared, resident_memo);
  if (total <= resident) return true;
  DiagKind prev = diag_set_kind(DIAG_KIND_LAUNCH_CONFIG);
  char mem[64] = "";
  size_t shared = phys->shared + fn->static_shared;
  if (shared) snprintf(mem, sizeof mem, " using %zu bytes of shared memory", shared);
  diag_error(diag, srcloc(NULL, 0, 0), "invalid launch of %s: it synchronises its grid (cuda.cg.this_grid), so all "
             "%" PRIu64 " blocks of the grid (%u, %u, %u) must be resident at once, but the device holds at most %" PRIu64
             " blocks of %u threads%s (max_cooperative_grid_blocks; CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)", kernel,
             total, phys->grid[0], phys->grid[1], phys->grid[2], resident, threads, mem);
  diag_set_kind(prev);
  return false;
}

unsigned rt_plan_resident_blocks(RtDevice *dev, RtDevFunction *fn, unsigned threads, size_t shared,
                                 _Atomic uint64_t *resident_memo) {
  return resident_blocks(dev, fn, threads, shared, resident_memo);
}

void rt_plan_apply(const RtLaunchPlan *p, const RtLaunchShape *user, RtDevice *dev, RtDevFunction *fn,
                   _Atomic uint64_t *resident_memo, RtLaunchShape *phys, int64_t hidden[RT_PLAN_MAX_HIDDEN]) {
  for (int d = 0; d < 3; d++) {
    phys->grid[d] = (user->grid[d] + p->grid_divisor[d] - 1) / p->grid_divisor[d];
    phys->block[d] = user->block[d] / p->block_divisor[d] ? user->block[d] / p->block_divisor[d] : 1;
  }
  phys->shared = user->shared + p->dynamic_shared;
  for (unsigned i = 0; i < p->nhidden; i++) {
    switch (p->hidden[i]) {
    case RT_HIDDEN_GRID_X: hidden[i] = user->grid[0]; break;
    case RT_HIDDEN_GRID_Y: hidden[i] = user->grid[1]; break;
    case RT_HIDDEN_GRID_Z: hidden[i] = user->grid[2]; break;
    case RT_HIDDEN__COUNT: hidden[i] = 0; break;
    }
  }
  if (p->grid == RT_GRID_RESIDENT) {
    uint64_t total = (uint64_t)user->grid[0] * user->grid[1] * user->grid[2];
    unsigned threads = phys->block[0] * phys->block[1] * phys->block[2];
    uint64_t resident = resident_blocks(dev, fn, threads, phys->shared, resident_memo);
    phys->grid[0] = (unsigned)(total < resident ? total : resident);
    phys->grid[1] = phys->grid[2] = 1;
  }
}
