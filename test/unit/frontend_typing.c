/* frontend_typing.c — kfront's Numba typing tables against numba-cuda itself, and the frontend's speed.
 *
 *   - every line of frontend/Inputs/numba_scalar_typing.txt (dumped from numba-cuda's typing context by
 *     frontend/numba_scalar_typing.py: operators, math functions, abs, round and unify_types over the
 *     12 scalar types) must be what sema_op_case / sema_fn_cases + nb_resolve / nb_unify give;
 *   - the types kfront gives the variables of each seed kernel (FeOptions.on_type) are the ones numba-cuda
 *     gives them (frontend/Inputs/numba_seed_types.txt, from frontend/numba_types.py);
 *   - fe_compile of every seed kernel verifies, and parse + type + lower of all of them is timed (a
 *     benchmark line, not a timed test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/fe.h"

static int passed, failed;

static int kind_of(const char *s) {
  static const char *const names[NB_NKINDS] = {"bool",   "int8",   "int16",   "int32",   "int64",   "uint8",
                                               "uint16", "uint32", "uint64", "float16", "float32", "float64"};
  for (int k = 0; k < NB_NKINDS; k++)
    if (strcmp(s, names[k]) == 0) return k;
  return -1;
}

static const struct {
  const char *name;
  NbFamily fam;
  int op;
} ops[] = {
    {"add", NBF_BINOP, BIN_ADD},       {"sub", NBF_BINOP, BIN_SUB},       {"mul", NBF_BINOP, BIN_MUL},
    {"truediv", NBF_BINOP, BIN_DIV},   {"floordiv", NBF_BINOP, BIN_FLOORDIV}, {"mod", NBF_BINOP, BIN_MOD},
    {"pow", NBF_BINOP, BIN_POW},       {"lshift", NBF_BINOP, BIN_LSHIFT}, {"rshift", NBF_BINOP, BIN_RSHIFT},
    {"and", NBF_BINOP, BIN_BITAND},    {"or", NBF_BINOP, BIN_BITOR},      {"xor", NBF_BINOP, BIN_BITXOR},
    {"lt", NBF_CMP, CMP_LT},           {"le", NBF_CMP, CMP_LE},           {"eq", NBF_CMP, CMP_EQ},
    {"ne", NBF_CMP, CMP_NE},           {"neg", NBF_UNARY, UN_NEG},        {"pos", NBF_UNARY, UN_POS},
    {"invert", NBF_UNARY, UN_INVERT},  {"not", NBF_UNARY, UN_NOT},
};

static const struct {
  const char *name;
  int bi;
} fns[] = {
    {"abs", BI_ABS},           {"round", BI_ROUND},           {"math.sqrt", BI_MATH_SQRT},
    {"math.floor", BI_MATH_FLOOR}, {"math.sin", BI_MATH_SIN}, {"math.tanh", BI_MATH_TANH},
    {"math.isnan", BI_MATH_ISNAN}, {"math.atan2", BI_MATH_ATAN2}, {"math.hypot", BI_MATH_HYPOT},
    {"math.copysign", BI_MATH_COPYSIGN}, {"math.fmod", BI_MATH_FMOD}, {"math.pow", BI_MATH_POW},
};

static const NbCase *resolve(const char *op, const int *args, unsigned n, bool *known) {
  *known = true;
  for (unsigned i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(ops[i].name, op) == 0) return sema_op_case(ops[i].fam, ops[i].op, args, n);
  for (unsigned i = 0; i < sizeof fns / sizeof *fns; i++) {
    if (strcmp(fns[i].name, op) != 0) continue;
    unsigned nc;
    bool unsafe_ok, fp16;
    const NbCase *cases = sema_fn_cases(fns[i].bi, &nc, &unsafe_ok, &fp16);
    static const NbCase f16 = {NB_F16, 1, {NB_F16}};
    if (fp16 && n == 1 && args[0] == NB_F16) return &f16;
    return nb_resolve(cases, nc, args, n, unsafe_ok);
  }
  *known = false;
  return NULL;
}

static void test_table(void) {
  FILE *f = fopen("frontend/Inputs/numba_scalar_typing.txt", "r");
  if (!f) {
    fprintf(stderr, "frontend_typing.c: cannot open frontend/Inputs/numba_scalar_typing.txt\n");
    failed++;
    return;
  }
  IrContext *ctx = ir_context_new();
  char line[256];
  unsigned shown = 0;
  while (fgets(line, sizeof line, f)) {
    char *tok[8];
    unsigned nt = 0;
    for (char *p = strtok(line, " \n"); p && nt < 8; p = strtok(NULL, " \n")) tok[nt++] = p;
    unsigned arrow = 0;
    while (arrow < nt && strcmp(tok[arrow], "->") != 0) arrow++;
    if (arrow == nt) continue;
    unsigned nargs = arrow - 1;
    int args[2];
    for (unsigned i = 0; i < nargs && i < 2; i++) args[i] = kind_of(tok[1 + i]);
    char got[128], want[128];
    want[0] = got[0] = 0;
    for (unsigned i = arrow + 1; i < nt; i++) {
      strcat(want, tok[i]);
      if (i + 1 < nt) strcat(want, " ");
    }
    if (strcmp(tok[0], "unify") == 0) {
      StrBuf b;
      sb_init(&b);
      nb_type_name(nb_unify(ctx, nb_type(ctx, args[0]), nb_type(ctx, args[1])), &b);
      snprintf(got, sizeof got, "%s", sb_cstr(&b));
      sb_free(&b);
    } else {
      bool known;
      const NbCase *c = resolve(tok[0], args, nargs, &known);
      if (!known) continue;
      if (!c) {
        snprintf(got, sizeof got, "-");
      } else {
        StrBuf b;
        sb_init(&b);
        nb_type_name(nb_type(ctx, c->ret), &b);
        for (int i = 0; i < c->nargs; i++) {
          sb_putc(&b, ' ');
          nb_type_name(nb_type(ctx, c->args[i]), &b);
        }
        snprintf(got, sizeof got, "%s", sb_cstr(&b));
        sb_free(&b);
      }
    }
    if (strcmp(got, want) == 0) {
      passed++;
    } else {
      failed++;
      if (shown++ < 40)
        fprintf(stderr, "frontend_typing.c: %s %s%s%s: numba gives '%s', kfront '%s'\n", tok[0], tok[1],
                nargs > 1 ? " " : "", nargs > 1 ? tok[2] : "", want, got);
    }
  }
  fclose(f);
  ir_context_free(ctx);
}

static const struct {
  const char *file, *func, *sig;
} seeds[] = {
    {"s000_kernels.py", "foo_manual_index", "void(int64[:], float64[:])"},
    {"s000_kernels.py", "foo_grid", "void(int64[:], float64[:])"},
    {"s000_kernels.py", "add", "void(int64[:], int64[:], int64[:])"},
    {"s001_kernels.py", "foo_index", "void(int64[:], float64[:])"},
    {"s001_kernels.py", "double", "void(float64[:], float64[:])"},
    {"s002_kernels.py", "increment_by_one_manual", "void(float32[:])"},
    {"s002_kernels.py", "increment_by_one", "void(float32[:])"},
    {"s002_kernels.py", "increment_a_2D_array", "void(float32[:, :])"},
    {"s002_kernels.py", "fast_matmul", "void(float32[:, :], float32[:, :], float64[:, :])"},
    {"s002_kernels.py", "fast_matmul", "void(float32[:, :], float32[:, :], float32[:, :])"},
    {"s003_kernels.py", "doubled", "void(float32[:, :])"},
    {"s003_kernels.py", "doubled_auto_grid", "void(float32[:, :])"},
    {"s003_kernels.py", "doubled_man_copy", "void(float32[:, :], float32[:, :])"},
    {"s003_kernels.py", "reduce_gpu", "float32(float32, float32)"},
    {"s003_kernels.py", "doubled_ufunc", "float32(float32)"},
    {"s003_kernels.py", "doubled_gufunc", "void(float32[:, :], float32[:, :])"},
};

/* (function, variable) -> set of types, as one sorted "t1, t2" string per variable */
typedef struct TypeRec {
  char lines[64][160];
  unsigned n;
} TypeRec;

static void on_type(void *user, const char *func, const char *var, const char *type) {
  TypeRec *r = user;
  char key[160];
  snprintf(key, sizeof key, "%s|%s|", func, var);
  for (unsigned i = 0; i < r->n; i++) {
    if (strncmp(r->lines[i], key, strlen(key)) != 0) continue;
    /* add type to the sorted list if missing */
    char *types = r->lines[i] + strlen(key);
    char buf[160], *items[8];
    unsigned ni = 0;
    snprintf(buf, sizeof buf, "%s", types);
    for (char *p = strtok(buf, ","); p && ni < 7; p = strtok(NULL, ",")) items[ni++] = p[0] == ' ' ? p + 1 : p;
    for (unsigned k = 0; k < ni; k++)
      if (strcmp(items[k], type) == 0) return;
    items[ni++] = (char *)type;
    for (unsigned a = 0; a < ni; a++)
      for (unsigned b = a + 1; b < ni; b++)
        if (strcmp(items[b], items[a]) < 0) {
          char *t = items[a];
          items[a] = items[b];
          items[b] = t;
        }
    char out[160] = "";
    for (unsigned k = 0; k < ni; k++) {
      if (k) strncat(out, ", ", sizeof out - strlen(out) - 1);
      strncat(out, items[k], sizeof out - strlen(out) - 1);
    }
    snprintf(r->lines[i], sizeof r->lines[i], "%s%s", key, out);
    return;
  }
  if (r->n < 64) snprintf(r->lines[r->n++], sizeof r->lines[0], "%s%s", key, type);
}

static void test_seed_types(const char *file, const char *path, const char *text, size_t len, const char *func,
                            const char *sig) {
  TypeRec rec = {.n = 0};
  IrContext *ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  FeOptions o = {.kernels = &func, .nkernels = 1, .signatures = &sig, .nsignatures = 1, .bounds_check = true,
                 .on_type = on_type, .on_type_user = &rec};
  Module *m = fe_compile(ctx, &d, path, text, len, &o);
  if (m) ir_module_free(m);
  diag_free(&d);
  ir_context_free(ctx);
  FILE *f = fopen("frontend/Inputs/numba_seed_types.txt", "r");
  if (!f) {
    failed++;
    fprintf(stderr, "frontend_typing.c: cannot open frontend/Inputs/numba_seed_types.txt\n");
    return;
  }
  char line[400];
  char prefix[300];
  snprintf(prefix, sizeof prefix, "%s|%s|%s|", file, func, sig);
  unsigned seen = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, prefix, strlen(prefix)) != 0) continue;
    seen++;
    const char *want = line + strlen(prefix); /* VAR|TYPES */
    char key[160];
    snprintf(key, sizeof key, "%s|", func);
    bool found = false;
    for (unsigned i = 0; i < rec.n; i++) {
      char got[240];
      snprintf(got, sizeof got, "%s", rec.lines[i] + strlen(key));
      size_t vl = strcspn(want, "|");
      if (strncmp(got, want, vl + 1) != 0) continue;
      found = true;
      if (strcmp(got, want) == 0) passed++;
      else {
        failed++;
        fprintf(stderr, "frontend_typing.c: %s %s: numba types %s, kfront %s\n", file, func, want, got);
      }
    }
    if (!found) {
      failed++;
      fprintf(stderr, "frontend_typing.c: %s %s: kfront reported no type for %s\n", file, func, want);
    }
  }
  fclose(f);
  if (!seen) {
    failed++;
    fprintf(stderr, "frontend_typing.c: no numba types for %s %s %s\n", file, func, sig);
  }
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Every seed kernel compiles to kir that verifies; parse + type + lower of all of them, timed. */
static void test_seeds(void) {
  enum { N = sizeof seeds / sizeof *seeds };
  char *texts[N];
  size_t lens[N];
  char paths[N][256];
  for (unsigned i = 0; i < N; i++) {
    snprintf(paths[i], sizeof paths[i], "../../shared/acceptance/seeds/%s", seeds[i].file);
    texts[i] = read_file(paths[i], &lens[i]);
    if (!texts[i]) {
      fprintf(stderr, "frontend_typing.c: cannot read %s\n", paths[i]);
      failed++;
      return;
    }
  }
  for (unsigned i = 0; i < N; i++) test_seed_types(seeds[i].file, paths[i], texts[i], lens[i], seeds[i].func, seeds[i].sig);
  IrContext *ctx = ir_context_new();
  double best = 1e9;
  for (int rep = 0; rep < 50; rep++) {
    double t0 = now();
    for (unsigned i = 0; i < N; i++) {
      Diag d;
      diag_init(&d);
      FeOptions o = {.kernels = &seeds[i].func, .nkernels = 1, .signatures = &seeds[i].sig, .nsignatures = 1,
                     .bounds_check = true};
      Module *m = fe_compile(ctx, &d, paths[i], texts[i], lens[i], &o);
      if (rep == 0) {
        bool ok = m && ir_verify_module(m, &d);
        if (ok) passed++;
        else {
          failed++;
          fprintf(stderr, "frontend_typing.c: %s %s: %s\n", seeds[i].file, seeds[i].func, diag_text(&d));
        }
      }
      if (m) ir_module_free(m);
      diag_free(&d);
    }
    double t = now() - t0;
    if (t < best) best = t;
  }
  printf("frontend: parse + type + lower of %u seed kernels: %.0f us in total, %.1f us per kernel (best of 50)\n", N,
         best * 1e6, best * 1e6 / N);
  ir_context_free(ctx);
  for (unsigned i = 0; i < N; i++) free(texts[i]);
}

int main(void) {
  test_table();
  test_seeds();
  printf("frontend_typing: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
