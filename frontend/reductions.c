/* reductions.c — NumPy's whole-array reductions in kernels (np.sum, np.prod, np.min/amin, np.max/amax, np.all,
 * np.any, np.mean, np.var, np.std, np.count_nonzero, np.nansum, np.nanprod, np.nanmin, np.nanmax, np.nanmean,
 * np.nanvar, np.nanstd and the array methods sum, prod, min, max, all, any, mean, var, std), written once in the
 * kernel language and compiled by kfront itself, as cmath.c's functions are. numba-cuda's implementations (its
 * np/arraymath.py: array_sum, array_prod, npy_min/npy_max, np_all/np_any, array_mean, array_var/array_std,
 * np_count_nonzero, np_nansum/np_nanprod/np_nanmean/np_nanvar, nan_min_max_factory) walk the array with np.nditer
 * in C order, accumulating from a start value; the source below does the same with one loop per axis, so a view of
 * any layout reduces in place and floating sums round as numba-cuda's do. A function's source depends on the rank
 * only (its loop nest), so each rank's functions are generated on first use (fe_reduce_function) and then
 * specialised on the argument types like any device function. lower_reductions.c (lower_reduction) types the call, passes the
 * start values of numba's types and converts the result where numba's typing fixes it. */
#include <stdio.h>
#include <string.h>

#include "frontend/fe.h"
#include "frontend/parser.h"

/* One reduction: its parameters, the statements before the loops, those run on each element `v` (lines,
 * '\n'-separated), the last statement. `v == v` is numba's not-isnan (false only for a NaN, or a complex value
 * with a NaN part). */
typedef struct {
  const char *name, *params, *prologue, *body, *result;
} Reduction;

static const Reduction reductions[] = {
    {"sum", "a, acc", NULL, "acc += v", "return acc"},
    {"prod", "a, acc", NULL, "acc *= v", "return acc"},
    /* acc: the first element (lower_reductions.c checks the size); a NaN is the answer, as NumPy's and numba's */
    {"min", "a, acc", NULL, "if v != v:\n    return v\nif v < acc:\n    acc = v", "return acc"},
    {"max", "a, acc", NULL, "if v != v:\n    return v\nif v > acc:\n    acc = v", "return acc"},
    {"all", "a", NULL, "if not v:\n    return False", "return True"},
    {"any", "a", NULL, "if v:\n    return True", "return False"},
    {"count_nonzero", "a, acc", NULL, "if v:\n    acc += 1", "return acc"},
    {"mean", "a, acc", NULL, "acc += v", "return acc / a.size"},
    /* m: the mean (np.mean's, float64 or complex128); ssd: 0.0 (numba's `ssd = 0` becomes float64 on its first addition) */
    {"var", "a, m, ssd", NULL, "val = v - m\nssd += np.real(val * np.conj(val))", "return ssd / a.size"},
    {"std", "a, m, ssd", NULL, "val = v - m\nssd += np.real(val * np.conj(val))", "return (ssd / a.size) ** 0.5"},
    {"nansum", "a, acc", NULL, "if v == v:\n    acc += v", "return acc"},
    {"nanprod", "a, acc", NULL, "if v == v:\n    acc *= v", "return acc"},
    /* acc: the first element, replaced by any later element not NaN that it is not below (above) */
    {"nanmin", "a, acc", NULL, "if v == v:\n    if not acc < v:\n        acc = v", "return acc"},
    {"nanmax", "a, acc", NULL, "if v == v:\n    if not acc > v:\n        acc = v", "return acc"},
    {"nanmean", "a, acc", "count = 0", "if v == v:\n    acc += v\n    count += 1", "return acc / count"},
    {"nanvar", "a, m, ssd", "count = 0",
     "if v == v:\n    val = v - m\n    ssd += np.real(val * np.conj(val))\n    count += 1", "return ssd / count"},
    {"nanstd", "a, m, ssd", "count = 0",
     "if v == v:\n    val = v - m\n    ssd += np.real(val * np.conj(val))\n    count += 1",
     "return (ssd / count) ** 0.5"},
};

/* Appends `depth` levels of indentation and the lines of `text`, each indented so. */
static void append_lines(Arena *a, char **buf, size_t *len, size_t *cap, unsigned depth, const char *text) {
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    size_t need = *len + 4 * depth + n + 2;
    if (need > *cap) {
      size_t ncap = need * 2;
      char *nb = arena_alloc(a, ncap);
      if (*len) memcpy(nb, *buf, *len);
      *buf = nb;
      *cap = ncap;
    }
    memset(*buf + *len, ' ', 4 * depth);
    *len += 4 * depth;
    memcpy(*buf + *len, p, n);
    *len += n;
    (*buf)[(*len)++] = '\n';
    p = nl ? nl + 1 : p + n;
  }
}

/* The source of every reduction over arrays of `rank` axes. */
static char *rank_source(Arena *a, unsigned rank, size_t *len_out) {
  char *buf = NULL, line[256];
  size_t len = 0, cap = 0;
  for (unsigned r = 0; r < sizeof reductions / sizeof *reductions; r++) {
    const Reduction *red = &reductions[r];
    snprintf(line, sizeof line, "def %s(%s):", red->name, red->params);
    append_lines(a, &buf, &len, &cap, 0, line);
    if (red->prologue) append_lines(a, &buf, &len, &cap, 1, red->prologue);
    for (unsigned d = 0; d < rank; d++) {
      snprintf(line, sizeof line, "for i%u in range(a.shape[%u]):", d, d);
      append_lines(a, &buf, &len, &cap, 1 + d, line);
    }
    int n = snprintf(line, sizeof line, "v = a[");
    for (unsigned d = 0; d < rank; d++) n += snprintf(line + n, sizeof line - (size_t)n, d ? ", i%u" : "i%u", d);
    snprintf(line + n, sizeof line - (size_t)n, rank ? "]" : "()]");
    append_lines(a, &buf, &len, &cap, 1 + rank, line);
    append_lines(a, &buf, &len, &cap, 1 + rank, red->body);
    append_lines(a, &buf, &len, &cap, 1, red->result);
    append_lines(a, &buf, &len, &cap, 0, "");
  }
  buf[len] = '\0';
  *len_out = len;
  return buf;
}

FeFunc *fe_reduce_function(FeCtx *fe, const char *name, unsigned rank) {
  if (!fe->reduce_funcs) {
    fe->reduce_funcs = ARENA_NEW(&fe->arena, StrMap);
    strmap_init(fe->reduce_funcs);
    fe->reduce_scope = ARENA_NEW(&fe->arena, StrMap);
    strmap_init(fe->reduce_scope);
    FeVal *np = ARENA_NEW(&fe->arena, FeVal);
    *np = (FeVal){.kind = FV_PATH};
    np->str.s = "numpy";
    np->str.len = strlen("numpy");
    strmap_put(fe->reduce_scope, "np", np);
  }
  const char *key = arena_printf(&fe->arena, "%s_%u", name, rank);
  FeFunc *f = strmap_get(fe->reduce_funcs, key);
  if (f) return f;
  char marker[32];
  snprintf(marker, sizeof marker, "#%u", rank);
  if (strmap_get(fe->reduce_funcs, marker)) return NULL; /* this rank's source is read: no such reduction */
  strmap_put(fe->reduce_funcs, arena_strdup(&fe->arena, marker), (void *)fe);
  size_t len;
  char *src = rank_source(&fe->arena, rank, &len);
  const char *fname = arena_printf(&fe->arena, "<kfront reductions, rank %u>", rank);
  PyModule *pm = parse_module(&fe->arena, fe->diag, fname, src, len);
  diag_remove_source(fe->diag, src);
  for (unsigned i = 0; pm && i < pm->body.n; i++) {
    const PyStmt *d = pm->body.items[i];
    if (d->kind != ST_FUNCDEF) continue;
    FeFunc *g = ARENA_NEW(&fe->arena, FeFunc);
    memset(g, 0, sizeof *g);
    g->def = d;
    g->name = d->funcdef.name;
    g->sym = arena_printf(&fe->arena, "numpy__%s_%u", d->funcdef.name, rank);
    g->src = fe->srcs;
    g->kind = FN_DEVICE;
    g->loc = d->loc;
    g->fastmath = g->debug = g->lineinfo = g->opt = g->cache = -1;
    g->inline_opt = "always"; /* a builtin: numba lowers it in place */
    g->scope = fe->reduce_scope;
    g->py_name = arena_printf(&fe->arena, "numpy.%s", d->funcdef.name);
    strmap_put(fe->reduce_funcs, arena_printf(&fe->arena, "%s_%u", d->funcdef.name, rank), g);
  }
  return strmap_get(fe->reduce_funcs, key);
}

void fe_reduce_free(FeCtx *fe) {
  if (!fe->reduce_funcs) return;
  StrMap *m = fe->reduce_funcs;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots || !m->slots[i].key || m->slots[i].key[0] == '#') continue;
    FeFunc *f = m->slots[i].value;
    if (f->analysed) strmap_free(&f->local_index);
  }
  strmap_free(fe->reduce_funcs);
  strmap_free(fe->reduce_scope);
  fe->reduce_funcs = fe->reduce_scope = NULL;
}
