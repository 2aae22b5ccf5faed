/* backend_compile.c — how long the backend takes per module, split into kfront's own share (kir -> LLVM IR
 * text through the LLVM-C API) and the PTX compilers' (libNVVM; LLVM's NVPTX with libdevice linked).
 *
 *   build/bin/backend_compile [INPUT.kir ...]     (default: every .kir in test/backend/Inputs; run from the repo root)
 *
 * For each input: the best of REPS runs of (1) kir -> NVVM IR text (kf_module_emit_llvm: lowering, the
 * LLVM verifier, printing, the NVVM text fixes), (2) kir -> PTX through libNVVM (the whole of (1) plus
 * nvvmCompileProgram), (3) kir -> PTX through LLVM's NVPTX target. Wall-clock milliseconds. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfront/kfront.h"

enum { REPS = 15 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
  buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* Best time of REPS runs of one step (0: NVVM IR text, 1: PTX by libNVVM, 2: PTX by LLVM); -1 on failure. */
static double best(kf_module *m, int step) {
  kf_codegen_options o;
  kf_codegen_options_init(&o);
  o.backend = step == 2 ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
  double t = 1e30;
  for (int r = 0; r < REPS; r++) {
    char *out = NULL;
    double t0 = now_ms();
    kf_status st = step == 0 ? kf_module_emit_llvm(m, &o, &out, NULL) : kf_module_emit_ptx(m, &o, &out, NULL);
    double dt = now_ms() - t0;
    kf_free(out);
    if (st != KF_OK) return -1;
    if (dt < t) t = dt;
  }
  return t;
}

static void run(const char *path) {
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    printf("%-40s cannot read\n", path);
    return;
  }
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  if (kf_module_parse(ctx, path, text, len, &m) != KF_OK) {
    printf("%-40s %s", path, kf_context_diagnostics(ctx));
  } else {
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    double a = best(m, 0), b = best(m, 1), c = best(m, 2);
    printf("%-24s %10.3f %12.2f %12.2f\n", name, a, b, c);
  }
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  free(text);
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  printf("%-24s %10s %12s %12s   (ms, best of %d)\n", "input", "kir->NVVM", "->PTX nvvm", "->PTX llvm", REPS);
  if (argc > 1) {
    for (int i = 1; i < argc; i++) run(argv[i]);
    return 0;
  }
  const char *dir = "test/backend/Inputs";
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "backend_compile: cannot open %s (run from the repository root)\n", dir);
    return 1;
  }
  char *names[256];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < 256;) {
    size_t l = strlen(e->d_name);
    if (l > 4 && strcmp(e->d_name + l - 4, ".kir") == 0) {
      names[n] = malloc(strlen(dir) + l + 2);
      sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], cmp);
  for (int i = 0; i < n; i++) {
    run(names[i]);
    free(names[i]);
  }
  return 0;
}
