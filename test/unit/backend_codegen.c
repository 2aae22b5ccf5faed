/* backend_codegen.c — the backend on every input in test/backend/Inputs/ (every .kir file), through the public API.
 *
 * Each input is kir text with check lines in comments:
 *   // NVVM: s       s occurs in the LLVM IR for libNVVM (NVVM dialect)      // NVVM-NOT: s   it does not
 *   // LLVM: s       s occurs in the LLVM IR for LLVM's NVPTX target          // LLVM-NOT: s
 *   // PTX: s        s occurs in both PTX outputs (libNVVM's and LLVM's)      // PTX-NOT: s
 *   // NVVMPTX: s    only in libNVVM's PTX          // LLVMPTX: s   only in LLVM's PTX
 *   // OPTIONS: fastmath | lineinfo | O0..O3 | sm_NN
 * Every PTX output must also pass `ptxas -arch=sm_90` (ptxas from $KFRONT_PTXAS, PATH, $CUDA_HOME/bin or
 * /usr/local/cuda/bin). A missing ptxas or libNVVM prints SKIP and is not a pass: with
 * KFRONT_REQUIRE_PTXAS=1 (CI) it is a failure. Run from test/ (ctest does) or give the Inputs folder. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfront/kfront.h"
#include "backend_test.h"

typedef struct Check {
  char kind[16];
  char text[512];
} Check;

static int parse_checks(const char *src, Check *checks, int max, kf_codegen_options *opts) {
  int n = 0;
  for (const char *p = src; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len > 3 && strncmp(p, "// ", 3) == 0) {
      const char *colon = memchr(p + 3, ':', len - 3);
      size_t klen = colon ? (size_t)(colon - (p + 3)) : 0;
      static const char *kinds[] = {"NVVM",    "NVVM-NOT", "LLVM",    "LLVM-NOT", "PTX",
                                    "PTX-NOT", "NVVMPTX",  "LLVMPTX", "OPTIONS"};
      for (size_t k = 0; colon && k < sizeof kinds / sizeof kinds[0]; k++) {
        if (strlen(kinds[k]) != klen || strncmp(p + 3, kinds[k], klen) != 0) continue;
        const char *t = colon + 1;
        while (*t == ' ') t++;
        size_t tlen = len - (size_t)(t - p);
        if (strcmp(kinds[k], "OPTIONS") == 0) {
          char buf[256];
          snprintf(buf, sizeof buf, "%.*s", (int)tlen, t);
          for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
            if (strcmp(tok, "fastmath") == 0) opts->fastmath = 1;
            else if (strcmp(tok, "lineinfo") == 0) opts->lineinfo = 1;
            else if (tok[0] == 'O') opts->opt_level = atoi(tok + 1);
            else if (strncmp(tok, "sm_", 3) == 0) opts->arch = (unsigned)atoi(tok + 3);
          }
        } else if (n < max) {
          snprintf(checks[n].kind, sizeof checks[n].kind, "%s", kinds[k]);
          snprintf(checks[n].text, sizeof checks[n].text, "%.*s", (int)tlen, t);
          n++;
        }
      }
    }
    p = nl ? nl + 1 : NULL;
  }
  return n;
}

/* Applies the checks of the given kinds to text; prints each failure. */
static int apply(const char *name, const char *what, const char *text, const Check *checks, int n, const char *pos,
                 const char *neg, const char *pos2, const char *neg2) {
  int fails = 0;
  for (int i = 0; i < n; i++) {
    bool want = (pos && strcmp(checks[i].kind, pos) == 0) || (pos2 && strcmp(checks[i].kind, pos2) == 0);
    bool reject = (neg && strcmp(checks[i].kind, neg) == 0) || (neg2 && strcmp(checks[i].kind, neg2) == 0);
    if (!want && !reject) continue;
    bool found = strstr(text, checks[i].text) != NULL;
    if (want && !found) {
      printf("FAIL %s: %s lacks '%s'\n", name, what, checks[i].text);
      fails++;
    } else if (reject && found) {
      printf("FAIL %s: %s contains '%s'\n", name, what, checks[i].text);
      fails++;
    }
  }
  return fails;
}

/* Compiles m through both backends and applies the checks; `variant` names the input's form. */
static int run_module(kf_context *ctx, kf_module *m, const char *file, const char *variant, const Check *checks, int n,
                      const kf_codegen_options *opts, const char *ptxas, bool require);

static int run_case(const char *dir, const char *file, const char *ptxas, bool require) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t len;
  char *src = bt_read_file(path, &len);
  if (!src) {
    printf("FAIL %s: cannot read\n", path);
    return 1;
  }
  kf_codegen_options opts;
  kf_codegen_options_init(&opts);
  Check checks[128];
  int n = parse_checks(src, checks, 128, &opts);
  int fails = 0;
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  if (kf_module_parse(ctx, file, src, len, &m) != KF_OK || kf_module_verify(m) != KF_OK) {
    printf("FAIL %s: invalid kir:\n%s\n", file, kf_context_diagnostics(ctx));
    fails++;
    goto done;
  }
  fails += run_module(ctx, m, file, "", checks, n, &opts, ptxas, require);
  /* the same after lower-scf: the backend takes scf and cf alike */
  char *lowered = NULL;
  size_t llen = 0;
  if (kf_module_run_pipeline(m, "lower-scf", NULL, NULL) == KF_OK &&
      kf_module_print(m, KF_PRINT_DEBUG_INFO, &lowered, &llen) == KF_OK) {
    kf_module *m2 = NULL;
    if (kf_module_parse(ctx, file, lowered, llen, &m2) != KF_OK) {
      printf("FAIL %s: lower-scf output does not parse:\n%s\n", file, kf_context_diagnostics(ctx));
      fails++;
    } else {
      fails += run_module(ctx, m2, file, " after lower-scf", checks, n, &opts, ptxas, require);
    }
    kf_module_destroy(m2);
  } else {
    printf("FAIL %s: lower-scf failed:\n%s\n", file, kf_context_diagnostics(ctx));
    fails++;
  }
  kf_free(lowered);
  kf_context_clear_diagnostics(ctx);
done:
  if (!fails) printf("PASS %s (%d checks)\n", file, n);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  free(src);
  return fails;
}

static int run_module(kf_context *ctx, kf_module *m, const char *file, const char *variant, const Check *checks, int n,
                      const kf_codegen_options *opts, const char *ptxas, bool require) {
  int fails = 0;
  char name[512];
  snprintf(name, sizeof name, "%s%s", file, variant);
  for (int backend = 0; backend < 2; backend++) {
    kf_codegen_options o = *opts;
    o.backend = backend ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
    const char *tag = backend ? "LLVM IR (llvm backend)" : "LLVM IR (nvvm dialect)";
    char *ir = NULL;
    if (kf_module_emit_llvm(m, &o, &ir, NULL) != KF_OK) {
      printf("FAIL %s: emit %s:\n%s\n", name, tag, kf_context_diagnostics(ctx));
      fails++;
      continue;
    }
    fails += apply(name, tag, ir, checks, n, backend ? "LLVM" : "NVVM", backend ? "LLVM-NOT" : "NVVM-NOT", NULL, NULL);
    if (getenv("KFRONT_TEST_DUMP")) printf("---- %s %s\n%s\n", name, tag, ir);
    kf_free(ir);
    char *ptx = NULL;
    const char *ptag = backend ? "PTX (llvm backend)" : "PTX (libNVVM)";
    kf_status st = kf_module_emit_ptx(m, &o, &ptx, NULL);
    if (st == KF_ERROR_NOT_FOUND && !backend) {
      printf("%s %s: libNVVM not found, libNVVM's PTX not checked:\n%s\n", require ? "FAIL" : "SKIP", name,
             kf_context_diagnostics(ctx));
      fails += require;
      kf_context_clear_diagnostics(ctx);
      continue;
    }
    if (st != KF_OK) {
      printf("FAIL %s: %s: %s\n%s\n", name, ptag, kf_status_name(st), kf_context_diagnostics(ctx));
      fails++;
      continue;
    }
    if (getenv("KFRONT_TEST_DUMP")) printf("---- %s %s\n%s\n", name, ptag, ptx);
    fails += apply(name, ptag, ptx, checks, n, "PTX", "PTX-NOT", backend ? "LLVMPTX" : "NVVMPTX", NULL);
    if (ptxas) {
      char *log = NULL;
      if (!bt_ptxas(ptxas, ptx, 90, &log)) {
        printf("FAIL %s: ptxas -arch=sm_90 rejects the %s:\n%s\n", name, ptag, log ? log : "");
        fails++;
      }
      free(log);
    }
    kf_free(ptx);
  }
  return fails;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "backend/Inputs";
  bool require = bt_require();
  char *ptxas = bt_find_ptxas();
  if (!ptxas) printf("%s: ptxas not found, PTX not assembled\n", require ? "FAIL" : "SKIP");
  DIR *d = opendir(dir);
  if (!d) {
    printf("FAIL: cannot open %s (run from test/)\n", dir);
    return 1;
  }
  char *names[256];
  int count = 0;
  for (struct dirent *e; (e = readdir(d)) && count < 256;) {
    size_t l = strlen(e->d_name);
    if (l > 4 && strcmp(e->d_name + l - 4, ".kir") == 0) names[count++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)count, sizeof names[0], cmp_names);
  int fails = (!ptxas && require) ? 1 : 0;
  for (int i = 0; i < count; i++) {
    if (argc > 2 && !strstr(names[i], argv[2])) continue;
    fails += run_case(dir, names[i], ptxas, require);
    free(names[i]);
  }
  if (count == 0) {
    printf("FAIL: no inputs in %s\n", dir);
    fails++;
  }
  free(ptxas);
  printf("%s: %d failure(s)\n", fails ? "FAILED" : "OK", fails);
  return fails ? 1 : 0;
}
