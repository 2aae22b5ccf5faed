/* frontend_typing.c — kfront's Numba typing tables against numba-cuda itself, and the frontend's speed.
 *
 *   - every line of frontend/Inputs/numba_scalar_typing.txt (dumped from numba-cuda's typing context by
 *     frontend/numba_scalar_typing.py: operators, math functions, abs, round and unify_types over the
 *     12 scalar types) must be what sema_op_case / sema_builtin_case / nb_unify give;
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
                                               "uint16", "uint32", "uint64", "float16", "float32", "float64",
                                               "complex64", "complex128"};
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
    return sema_builtin_case(fns[i].bi, args, n);
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

/* (function, variable) -> the sorted set of types kfront gave it, as "func|var|t1, t2" */
typedef struct TypeRec {
  char lines[128][160];
  unsigned n;
} TypeRec;

static void on_type(void *user, const char *func, const char *var, const char *type) {
  TypeRec *r = user;
  char key[160];
  snprintf(key, sizeof key, "%s|%s|", func, var);
  for (unsigned i = 0; i < r->n; i++) {
    if (strncmp(r->lines[i], key, strlen(key)) != 0) continue;
    char buf[160], *items[8];
    unsigned ni = 0;
    snprintf(buf, sizeof buf, "%s", r->lines[i] + strlen(key));
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
  if (r->n < 128) snprintf(r->lines[r->n++], sizeof r->lines[0], "%s%s", key, type);
}

/* The types kfront gives the variables of func (compiled for sig) against numba's (types_file lines
 * FILE|FUNC|SIG|VAR|TYPES). */
static void test_types(const char *types_file, const char *file, const char *path, const char *text, size_t len,
                       const char *func, const char *sig) {
  TypeRec *rec = calloc(1, sizeof *rec);
  IrContext *ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  kf_compile_options co;
  kf_compile_options_init(&co);
  co.kernels = &func, co.nkernels = 1, co.signatures = &sig, co.nsignatures = 1;
  FeOptions o = {.compile = &co, .on_type = on_type, .on_type_user = rec};
  Module *m = fe_compile(ctx, &d, &(kf_source){path, text, len, 1}, &o);
  if (m) ir_module_free(m);
  diag_free(&d);
  ir_context_free(ctx);
  FILE *f = fopen(types_file, "r");
  if (!f) {
    failed++;
    fprintf(stderr, "frontend_typing.c: cannot open %s\n", types_file);
    free(rec);
    return;
  }
  char line[400], prefix[300];
  snprintf(prefix, sizeof prefix, "%s|%s|%s|", file, func, sig);
  unsigned seen = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, prefix, strlen(prefix)) != 0) continue;
    seen++;
    const char *want = line + strlen(prefix); /* VAR|TYPES */
    size_t vl = strcspn(want, "|");
    size_t kl = strlen(func) + 1;
    bool found = false;
    for (unsigned i = 0; i < rec->n; i++) {
      const char *got = rec->lines[i] + kl;
      if (strncmp(rec->lines[i], func, kl - 1) != 0 || rec->lines[i][kl - 1] != '|' || strncmp(got, want, vl + 1) != 0)
        continue;
      found = true;
      if (strcmp(got, want) == 0) {
        passed++;
      } else {
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
  free(rec);
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

/* The `ptx` rows of a manifest (FILE, FUNCTION, SIGNATURE, EXPECTED): each compiles to kir that verifies,
 * with Numba's variable types; parse + type + lower of all of them is timed. */
static void test_rows(const char *dir, const char *manifest, const char *types_file, bool timed) {
  enum { MAX = 64 };
  char files[MAX][64], funcs[MAX][64], sigs[MAX][128], paths[MAX][256];
  const char *fp[MAX], *sp[MAX];
  char *texts[MAX];
  size_t lens[MAX];
  unsigned N = 0;
  char mpath[256];
  snprintf(mpath, sizeof mpath, "%s/%s", dir, manifest);
  FILE *mf = fopen(mpath, "r");
  if (!mf) {
    failed++;
    fprintf(stderr, "frontend_typing.c: cannot open %s\n", mpath);
    return;
  }
  char line[512];
  while (fgets(line, sizeof line, mf) && N < MAX) {
    if (line[0] == '#') continue;
    char *cols[4];
    unsigned nc = 0;
    for (char *p = strtok(line, "\t\n"); p && nc < 4; p = strtok(NULL, "\t\n")) cols[nc++] = p;
    if (nc < 4 || strcmp(cols[3], "ptx") != 0) continue;
    snprintf(files[N], sizeof files[N], "%s", cols[0]);
    snprintf(funcs[N], sizeof funcs[N], "%s", cols[1]);
    snprintf(sigs[N], sizeof sigs[N], "%s", cols[2]);
    snprintf(paths[N], sizeof paths[N], "%s/%s", dir, cols[0]);
    fp[N] = funcs[N];
    sp[N] = sigs[N];
    texts[N] = read_file(paths[N], &lens[N]);
    if (!texts[N]) {
      fprintf(stderr, "frontend_typing.c: cannot read %s\n", paths[N]);
      failed++;
      fclose(mf);
      return;
    }
    N++;
  }
  fclose(mf);
  for (unsigned i = 0; i < N; i++) test_types(types_file, files[i], paths[i], texts[i], lens[i], funcs[i], sigs[i]);
  IrContext *ctx = ir_context_new();
  double best = 1e9;
  for (int rep = 0; rep < (timed ? 50 : 1); rep++) {
    double t0 = now();
    for (unsigned i = 0; i < N; i++) {
      Diag d;
      diag_init(&d);
      kf_compile_options co;
      kf_compile_options_init(&co);
      co.kernels = &fp[i], co.nkernels = 1, co.signatures = &sp[i], co.nsignatures = 1;
      FeOptions o = {.compile = &co};
      Module *m = fe_compile(ctx, &d, &(kf_source){paths[i], texts[i], lens[i], 1}, &o);
      if (rep == 0) {
        bool ok = m && ir_verify_module(m, &d);
        if (ok) passed++;
        else {
          failed++;
          fprintf(stderr, "frontend_typing.c: %s %s: %s\n", files[i], funcs[i], diag_text(&d));
        }
      }
      if (m) ir_module_free(m);
      diag_free(&d);
    }
    double t = now() - t0;
    if (t < best) best = t;
  }
  if (timed)
    printf("frontend: parse + type + lower of %u seed kernels: %.0f us in total, %.1f us per kernel (best of 50)\n", N,
           best * 1e6, best * 1e6 / N);
  ir_context_free(ctx);
  for (unsigned i = 0; i < N; i++) free(texts[i]);
}

/* The typing of calls the registry types without IR (builtins.def's TYPING; sema.c's atomics), against numba-cuda's
 * cudadecl: match_*_sync's (int32 mask, value) cases, the element kinds each cuda.atomic function takes. */
static void test_cuda_typing(void) {
  static const struct {
    int bi, mask, value, want; /* want: the value kind of the case picked, -1: none */
  } match[] = {{BI_MATCH_ANY_SYNC, NB_I32, NB_I32, NB_I32}, {BI_MATCH_ALL_SYNC, NB_I32, NB_I64, NB_I64},
               {BI_MATCH_ANY_SYNC, NB_I32, NB_F32, NB_F32}, {BI_MATCH_ANY_SYNC, NB_I64, NB_F64, NB_F64},
               {BI_MATCH_ANY_SYNC, NB_I32, NB_I16, NB_I32}, {BI_MATCH_ANY_SYNC, NB_I32, NB_C64, -1}};
  for (unsigned i = 0; i < sizeof match / sizeof *match; i++) {
    int kinds[2] = {match[i].mask, match[i].value};
    const NbCase *c = sema_builtin_case(match[i].bi, kinds, 2);
    int got = c ? c->args[1] : -1;
    if (got == match[i].want) {
      passed++;
    } else {
      fprintf(stderr, "match case %u: value kind %d, want %d\n", i, got, match[i].want);
      failed++;
    }
  }
  static const struct {
    int bi, kind;
    bool ok;
  } atomics[] = {{BI_ATOMIC_ADD, NB_F32, true},   {BI_ATOMIC_ADD, NB_I32, true},   {BI_ATOMIC_ADD, NB_F16, false},
                 {BI_ATOMIC_AND, NB_F64, false},  {BI_ATOMIC_AND, NB_U64, true},   {BI_ATOMIC_INC, NB_U32, true},
                 {BI_ATOMIC_INC, NB_I32, false},  {BI_ATOMIC_DEC, NB_U64, true},   {BI_ATOMIC_MAX, NB_F64, true},
                 {BI_ATOMIC_NANMIN, NB_F32, true}, {BI_ATOMIC_EXCH, NB_F32, false}, {BI_ATOMIC_CAS, NB_I64, true},
                 {BI_ATOMIC_SUB, NB_I16, false},  {BI_ATOMIC_XOR, NB_I8, false}};
  for (unsigned i = 0; i < sizeof atomics / sizeof *atomics; i++) {
    if (sema_atomic_element_ok(atomics[i].bi, atomics[i].kind) == atomics[i].ok) {
      passed++;
    } else {
      fprintf(stderr, "atomic case %u: %s, want %s\n", i, atomics[i].ok ? "refused" : "taken",
              atomics[i].ok ? "taken" : "refused");
      failed++;
    }
  }
}

int main(void) {
  test_table();
  test_cuda_typing();
  test_rows("acceptance/seeds", "manifest.tsv", "frontend/Inputs/numba_seed_types.txt", true);
  test_rows("frontend/Inputs", "typing_rows.tsv", "frontend/Inputs/numba_kernel_types.txt", false);
  printf("frontend_typing: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
