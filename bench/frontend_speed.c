/* frontend_speed.c — parse + type + lower of every seed kernel (issue 3's benchmark), in microseconds.
 *
 *   build/bin/frontend_speed [MANIFEST]     (default test/acceptance/seeds/manifest.tsv)
 *
 * For each `ptx` row of the manifest: kf_compile_source with the row's -k/--sig, in two configurations:
 *   frontend  = read the Python module, type the kernel, lower it to kir, verify once (pipeline "")
 *   +passes   = the same plus kfront's default pass pipeline, verifying after each pass (kfront compile)
 * Each is timed REPS times in a loop (one kf_context for all); the median and the minimum are printed per
 * kernel, then the totals over all kernels. Run from the repository root. The source text is read once;
 * file I/O is not timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfront/kfront.h"

enum { REPS = 201, MAX_ROWS = 64 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
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

/* Times one configuration; returns 0 on success, with the median and minimum in us. */
static int time_compile(kf_context *ctx, const char *path, const char *text, size_t len, const char *func,
                        const char *sig, const char *pipeline, double *median, double *min) {
  static double t[REPS];
  kf_compile_options o;
  kf_compile_options_init(&o);
  o.kernels = &func;
  o.nkernels = 1;
  o.signatures = &sig;
  o.nsignatures = 1;
  o.pipeline = pipeline;
  for (int r = 0; r < REPS; r++) {
    kf_module *m = NULL;
    double t0 = now_us();
    kf_status st = kf_compile_source(ctx, path, text, len, &o, &m);
    t[r] = now_us() - t0;
    kf_module_destroy(m);
    if (st != KF_OK) {
      fprintf(stderr, "%s", kf_context_diagnostics(ctx));
      return 1;
    }
  }
  qsort(t, REPS, sizeof t[0], cmp_double);
  *median = t[REPS / 2];
  *min = t[0];
  return 0;
}

int main(int argc, char **argv) {
  const char *manifest = argc > 1 ? argv[1] : "test/acceptance/seeds/manifest.tsv";
  size_t mlen;
  char *mtext = read_file(manifest, &mlen);
  if (!mtext) {
    fprintf(stderr, "frontend_speed: cannot read %s (run from the repository root)\n", manifest);
    return 1;
  }
  char dir[512];
  snprintf(dir, sizeof dir, "%s", manifest);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;

  kf_context *ctx = kf_context_create();
  printf("parse + type + lower (+ verify) per seed kernel, kf_compile_source in a loop of %d; microseconds\n", REPS);
  printf("%-24s %-52s %9s %9s %9s %9s\n", "kernel", "signature", "fe med", "fe min", "+pass med", "+pass min");
  double tot_fe = 0, tot_fe_min = 0, tot_all = 0, tot_all_min = 0;
  int rows = 0, failed = 0;
  for (char *line = strtok(mtext, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    char *file = line, *func = strchr(file, '\t');
    if (!func) continue;
    *func++ = 0;
    char *sig = strchr(func, '\t');
    if (!sig) continue;
    *sig++ = 0;
    char *expect = strchr(sig, '\t');
    if (!expect) continue;
    *expect++ = 0;
    if (strcmp(expect, "ptx") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    char *text = read_file(path, &len);
    double fe_med, fe_min, all_med, all_min;
    if (!text || time_compile(ctx, path, text, len, func, sig, "", &fe_med, &fe_min) ||
        time_compile(ctx, path, text, len, func, sig, NULL, &all_med, &all_min)) {
      printf("%-24s %-52s FAILED\n", func, sig);
      failed++;
      free(text);
      continue;
    }
    printf("%-24s %-52s %9.1f %9.1f %9.1f %9.1f\n", func, sig, fe_med, fe_min, all_med, all_min);
    tot_fe += fe_med;
    tot_fe_min += fe_min;
    tot_all += all_med;
    tot_all_min += all_min;
    rows++;
    free(text);
  }
  printf("%-24s %-52s %9.1f %9.1f %9.1f %9.1f\n", "total", "", tot_fe, tot_fe_min, tot_all, tot_all_min);
  printf("%d kernels: frontend %.1f us per kernel (median), %.0f us in total (aim: under 1000 us)\n", rows,
         rows ? tot_fe / rows : 0, tot_fe);
  kf_context_destroy(ctx);
  free(mtext);
  return failed ? 1 : 0;
}
