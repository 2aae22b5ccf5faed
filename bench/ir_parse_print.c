/* ir_parse_print.c — kir text throughput: builds a module of about a million ops (kernels of scf loops
 * and ifs, loads, stores, bounds checks, integer and float arithmetic, math, casts) with the builder, then
 * times print, parse, verify and print again, and reports ops/s, peak RSS and bytes per op.
 *
 *   build/bin/ir_parse_print [NOPS]      (default 1000000; each phase runs 3 times, the best time counts)
 *
 * Also checks that the second print equals the first (the round trip is byte-stable) and that the
 * module verifies. Exit status 1 if either fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ir/ir.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: what a phase costs, whatever else the machine runs meanwhile. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best (smallest) wall-clock and CPU seconds of the repetitions of one phase. */
typedef struct {
  double wall, cpu, w0, c0;
} Timer;

static void timer_start(Timer *t) {
  t->w0 = now();
  t->c0 = cpu_now();
}

static void timer_stop(Timer *t) {
  double w = now() - t->w0, c = cpu_now() - t->c0;
  if (w < t->wall) t->wall = w;
  if (c < t->cpu) t->cpu = c;
}

static double peak_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
}

typedef struct {
  IrContext *ctx;
  Module *m;
  IrBuilder b;
  Type *i1, *i32, *i64, *f32, *arr1, *arr2;
  unsigned line;
} Gen;

static Value *cst(Gen *g, int64_t v) { return ib_const_int(&g->b, g->i64, v); }

static void loc_next(Gen *g) { g->b.loc = srcloc("gen.py", ++g->line, 5); }

static Op *op_at(Gen *g, OpKind k, unsigned n, Value *const *opnds, Type *rt, unsigned nregions) {
  loc_next(g);
  return ib_op(&g->b, k, n, opnds, rt ? 1 : 0, rt ? &rt : NULL, nregions);
}

static void yield(Gen *g, unsigned n, Value *const *vals) { op_at(g, OP_YIELD, n, vals, NULL, 0); }

static Block *new_entry(Gen *g, Region *r) {
  Block *blk = ir_block_new(g->m);
  ir_region_append_block(r, blk);
  return blk;
}

/* acc = sum over i < n of (a[i] * b[i], negated when negative) — an scf.for with an scf.if inside. */
static Value *dot_loop(Gen *g, Value *a, Value *b, Value *n, Value *lb, Value *step, Value *init) {
  Value *ops[4] = {lb, n, step, init};
  Op *loop = op_at(g, OP_FOR, 4, ops, g->f32, 1);
  Block *body = new_entry(g, &loop->regions[0]);
  Value *iv = ir_block_add_arg(g->m, body, g->i64), *acc = ir_block_add_arg(g->m, body, g->f32);
  IrBuilder saved = g->b;
  ib_set_end(&g->b, body);
  Value *chk[2] = {iv, n};
  ir_op_set_attr(g->m, op_at(g, OP_BOUNDS, 2, chk, NULL, 0), "axis", attr_int(g->i64, 0));
  Value *la[2] = {a, iv}, *lb2[2] = {b, iv};
  Value *x = op_result(op_at(g, OP_LOAD, 2, la, g->f32, 0), 0);
  Value *y = op_result(op_at(g, OP_LOAD, 2, lb2, g->f32, 0), 0);
  loc_next(g);
  Value *p = ib_binary(&g->b, OP_MULF, x, y);
  Value *s = ib_binary(&g->b, OP_ADDF, acc, p);
  Value *zero = ib_const_float(&g->b, g->f32, 0.0);
  Value *neg = ib_cmpf(&g->b, IR_CMPF_OLT, s, zero);
  Op *sif = op_at(g, OP_IF, 1, &neg, g->f32, 2);
  ib_set_end(&g->b, new_entry(g, &sif->regions[0]));
  Value *t = ib_unary(&g->b, OP_NEGF, s, NULL);
  yield(g, 1, &t);
  ib_set_end(&g->b, new_entry(g, &sif->regions[1]));
  yield(g, 1, &s);
  ib_set_end(&g->b, body);
  Value *r = op_result(sif, 0);
  yield(g, 1, &r);
  g->b = saved;
  return op_result(loop, 0);
}

/* if (i < n) b[i] = sqrt(a[i]) * alpha */
static void guarded_store(Gen *g, Value *a, Value *b, Value *i, Value *n, Value *alpha) {
  loc_next(g);
  Value *in = ib_cmpi(&g->b, IR_CMPI_SLT, i, n);
  Op *sif = op_at(g, OP_IF, 1, &in, NULL, 2);
  IrBuilder saved = g->b;
  ib_set_end(&g->b, new_entry(g, &sif->regions[0]));
  Value *chk[2] = {i, n};
  ir_op_set_attr(g->m, op_at(g, OP_BOUNDS, 2, chk, NULL, 0), "axis", attr_int(g->i64, 0));
  Value *la[2] = {a, i};
  Value *x = op_result(op_at(g, OP_LOAD, 2, la, g->f32, 0), 0);
  Value *sq = ib_unary(&g->b, OP_SQRT, x, NULL);
  Value *z = ib_binary(&g->b, OP_MULF, sq, alpha);
  Value *st[3] = {z, b, i};
  op_at(g, OP_STORE, 3, st, NULL, 0);
  yield(g, 0, NULL);
  ib_set_end(&g->b, new_entry(g, &sif->regions[1]));
  yield(g, 0, NULL);
  g->b = saved;
}

/* integer index arithmetic and casts */
static Value *int_mix(Gen *g, Value *i, Value *n, int k) {
  loc_next(g);
  Value *c = cst(g, 3 + k);
  Value *x = ib_binary(&g->b, OP_MULI, i, c);
  Value *y = ib_binary(&g->b, OP_ADDI, x, n);
  Value *z = ib_binary(&g->b, OP_FLOORMODSI, y, n);
  Value *sh = ib_binary(&g->b, OP_SHLI, z, cst(g, 1));
  Value *lt = ib_cmpi(&g->b, IR_CMPI_SGE, sh, n);
  Value *sel = ib_select(&g->b, lt, z, sh);
  Value *tr = ib_cast(&g->b, sel, g->i32);
  Value *f = ib_cast(&g->b, tr, g->f32);
  Value *back = ib_cast(&g->b, f, g->i64);
  return ib_binary(&g->b, OP_MINSI, back, n);
}

/* c[i, j] += c[j, i] over a 2-D tile: two nested scf.for loops */
static void tile_loops(Gen *g, Value *c, Value *lb, Value *step) {
  loc_next(g);
  Value *n0 = ib_dim(&g->b, c, 0), *n1 = ib_dim(&g->b, c, 1);
  Value *outer_ops[3] = {lb, n0, step};
  Op *outer = op_at(g, OP_FOR, 3, outer_ops, NULL, 1);
  Block *ob = new_entry(g, &outer->regions[0]);
  Value *i = ir_block_add_arg(g->m, ob, g->i64);
  IrBuilder saved = g->b;
  ib_set_end(&g->b, ob);
  Value *inner_ops[3] = {lb, n1, step};
  Op *inner = op_at(g, OP_FOR, 3, inner_ops, NULL, 1);
  Block *ib = new_entry(g, &inner->regions[0]);
  Value *j = ir_block_add_arg(g->m, ib, g->i64);
  ib_set_end(&g->b, ib);
  Value *l1[3] = {c, i, j}, *l2[3] = {c, j, i};
  Value *x = op_result(op_at(g, OP_LOAD, 3, l1, g->f32, 0), 0);
  Value *y = op_result(op_at(g, OP_LOAD, 3, l2, g->f32, 0), 0);
  Value *s = ib_binary(&g->b, OP_ADDF, x, y);
  Value *st[4] = {s, c, i, j};
  op_at(g, OP_STORE, 4, st, NULL, 0);
  yield(g, 0, NULL);
  ib_set_end(&g->b, ob);
  yield(g, 0, NULL);
  g->b = saved;
}

/* One kernel of about `target` ops. */
static void gen_func(Gen *g, unsigned idx, size_t target) {
  char name[32];
  snprintf(name, sizeof name, "kernel_%u", idx);
  Type *params[5] = {g->arr1, g->arr1, g->arr2, g->i64, g->f32};
  Op *fn = ir_func_create(g->m, name, ty_func(g->ctx, 5, params, 0, NULL), srcloc("gen.py", ++g->line, 1));
  ir_op_set_attr(g->m, fn, "kernel", attr_unit());
  Block *entry = ir_func_entry(fn);
  Value *a = entry->args[0], *b = entry->args[1], *c = entry->args[2], *n = entry->args[3], *alpha = entry->args[4];
  ib_set_end(&g->b, entry);
  loc_next(g);
  Value *tx = ib_cast(&g->b, ib_gpu_id(&g->b, OP_THREAD_ID, 0), g->i64);
  Value *bx = ib_cast(&g->b, ib_gpu_id(&g->b, OP_BLOCK_ID, 0), g->i64);
  Value *bd = ib_cast(&g->b, ib_gpu_id(&g->b, OP_BLOCK_DIM, 0), g->i64);
  Value *i = ib_binary(&g->b, OP_ADDI, ib_binary(&g->b, OP_MULI, bx, bd), tx);
  Value *c0 = cst(g, 0), *c1 = cst(g, 1);
  Value *acc = ib_const_float(&g->b, g->f32, 0.5);
  size_t count = 16;
  for (int k = 0; count < target; k++) {
    switch (k % 4) {
    case 0: acc = dot_loop(g, a, b, n, c0, c1, acc), count += 13; break;
    case 1: guarded_store(g, a, b, i, n, alpha), count += 9; break;
    case 2: i = int_mix(g, i, n, k), count += 12; break;
    default: tile_loops(g, c, c0, c1), count += 10; break;
    }
  }
  Value *st[3] = {acc, a, c0};
  op_at(g, OP_STORE, 3, st, NULL, 0);
  op_at(g, OP_FUNC_RETURN, 0, NULL, NULL, 0);
}

static void report(const char *phase, const Timer *t, size_t nops, size_t bytes) {
  printf("  %-12s %7.3f   %7.2f       %7.3f   %7.2f", phase, t->cpu, nops / t->cpu / 1e6, t->wall, nops / t->wall / 1e6);
  if (bytes) printf("   (%.0f MiB/s CPU)", bytes / t->cpu / 1048576.0);
  putchar('\n');
}

static size_t count_module_ops(Module *m) {
  size_t n = 0;
  for (Op *op = ir_module_body(m)->first; op; op = op->next) n += ir_count_ops(op);
  return n;
}

int main(int argc, char **argv) {
  size_t want = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
  Gen g = {0};
  g.ctx = ir_context_new();
  g.m = ir_module_new(g.ctx, "bench");
  ib_init(&g.b, g.m);
  g.i1 = ty_bool(g.ctx);
  g.i32 = ty_i32(g.ctx);
  g.i64 = ty_i64(g.ctx);
  g.f32 = ty_f32(g.ctx);
  g.arr1 = ty_array(g.ctx, g.f32, 1, 'C');
  g.arr2 = ty_array(g.ctx, g.f32, 2, 'C');
  double t0 = now();
  size_t nops = 0;
  for (unsigned f = 0; nops < want; f++) {
    gen_func(&g, f, want - nops < 1000 ? want - nops : 1000);
    nops += ir_count_ops(ir_module_body(g.m)->last);
  }
  nops = count_module_ops(g.m);
  double t_build = now() - t0;
  unsigned nfuncs = 0;
  for (Op *op = ir_module_body(g.m)->first; op; op = op->next) nfuncs++;
  printf("module: %zu ops in %u functions (built in %.2f s: %.0f bytes/op of arena; peak RSS so far %.0f MiB)\n", nops,
         nfuncs, t_build, (double)g.m->arena.total / nops, peak_rss_mb());

  enum { REPS = 3 };
  int status = 0;
  for (int debug = 0; debug < 2; debug++) {
    IrPrintOptions po = {debug != 0};
    StrBuf text;
    sb_init(&text);
    Timer tprint = {1e9, 1e9, 0, 0}, tparse = tprint, tverify = tprint, tprint2 = tprint;
    Module *parsed = NULL;
    size_t arena_bytes = 0;
    for (int r = 0; r < REPS; r++) {
      sb_reset(&text);
      timer_start(&tprint);
      ir_print_module(g.m, &po, &text);
      timer_stop(&tprint);
    }
    for (int r = 0; r < REPS; r++) {
      ir_module_free(parsed);
      Diag d;
      diag_init(&d);
      timer_start(&tparse);
      parsed = ir_parse_module(g.ctx, &d, "bench.kir", text.data, text.len);
      timer_stop(&tparse);
      if (!parsed) {
        fprintf(stderr, "parse failed:\n%.2000s\n", diag_text(&d));
        return 1;
      }
      diag_remove_source(&d, text.data);
      diag_free(&d);
    }
    arena_bytes = parsed->arena.total;
    for (int r = 0; r < REPS; r++) {
      Diag d;
      diag_init(&d);
      timer_start(&tverify);
      bool ok = ir_verify_module(parsed, &d);
      timer_stop(&tverify);
      if (!ok) {
        fprintf(stderr, "verify failed:\n%.2000s\n", diag_text(&d));
        status = 1;
      }
      diag_free(&d);
    }
    StrBuf text2;
    sb_init(&text2);
    for (int r = 0; r < REPS; r++) {
      sb_reset(&text2);
      timer_start(&tprint2);
      ir_print_module(parsed, &po, &text2);
      timer_stop(&tprint2);
    }
    bool same = text.len == text2.len && memcmp(text.data, text2.data, text.len) == 0;
    if (!same) status = 1;
    printf("\n%s debug info (text: %.1f MiB, %.1f bytes/op):\n", debug ? "with" : "without", text.len / 1048576.0,
           (double)text.len / (double)nops);
    printf("                 CPU s   M ops/s (CPU)   wall s   M ops/s (wall)\n");
    report("print", &tprint, nops, text.len);
    report("parse", &tparse, nops, text.len);
    report("verify", &tverify, nops, 0);
    report("print again", &tprint2, nops, text.len);
    printf("  the second print is byte-identical to the first: %s\n", same ? "yes" : "NO");
    printf("  parsed module: %.1f MiB of arena, %.0f bytes/op\n", arena_bytes / 1048576.0, (double)arena_bytes / nops);
    ir_module_free(parsed);
    sb_free(&text);
    sb_free(&text2);
  }
  printf("\npeak RSS %.0f MiB (%.0f bytes/op; holds the built module, the text, the parsed module and a second text)\n",
         peak_rss_mb(), peak_rss_mb() * 1048576.0 / nops);
  ir_module_free(g.m);
  ir_context_free(g.ctx);
  return status;
}
