/* fuzz_sim.c — libFuzzer harness: a compiled kernel run on the simulator, with a step limit.
 *
 * The input is a Python module (with optional `#@ NAME SIGNATURE` lines, see fuzz_common.h), compiled by
 * kf_compile_source with kfront's default pipeline; every kernel of the result is launched on the simulator
 * (runtime/sim) with arguments made from its parameter types — arrays of a few elements per axis holding a
 * small pattern, scalars 3 / 1.5 / true — on a small grid chosen from the input's bytes, with the step limits
 * low so that no input runs long. Kernel errors (IndexError, races, the step limit...) are results; a crash,
 * a sanitizer report or a leak is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "fuzz_common.h"
#include "runtime/sim/sim.h"
#include "utils/strmap.h"

enum { MAX_PARAMS = 16, MAX_EXTENT = 6 };

/* An argument for a parameter of type t (its memory appended to *bufs); false when the simulator's arguments
 * cannot express it. */
static bool make_arg(Type *t, uint64_t h, unsigned k, SimArg *out, void **buf) {
  if (t->kind == TY_ARRAY) {
    Type *e = t->elem;
    if (t->rank == 0 || t->rank > 3 || (e->kind != TY_INT && e->kind != TY_FLOAT && e->kind != TY_BOOL)) return false;
    size_t esize = e->kind == TY_BOOL ? 1 : e->bits / 8, count = 1;
    int64_t shape[3];
    for (unsigned d = 0; d < t->rank; d++) {
      shape[d] = 1 + (int64_t)((h >> (8 * ((k + d) % 8))) % MAX_EXTENT);
      count *= (size_t)shape[d];
    }
    unsigned char *mem = calloc(count, esize ? esize : 1);
    if (!mem) return false;
    for (size_t i = 0; i < count; i++) { /* a small pattern: i % 7 as the element type */
      unsigned char *p = mem + i * esize;
      int v = (int)(i % 7);
      if (e->kind == TY_FLOAT && e->bits == 64) *(double *)p = v * 0.5;
      else if (e->kind == TY_FLOAT && e->bits == 32) *(float *)p = (float)v * 0.5f;
      else if (e->kind == TY_FLOAT) *(uint16_t *)p = (uint16_t)(0x3c00 + v);  /* f16 near 1.0 */
      else if (e->kind == TY_BOOL) *p = (unsigned char)(v & 1);
      else memcpy(p, &(int64_t){v}, esize);                                  /* little-endian */
    }
    *buf = mem;
    *out = sim_arg_array_c(mem, e, t->rank, shape);
    return true;
  }
  *buf = NULL;
  if (t->kind == TY_FLOAT) *out = sim_arg_float(1.5);
  else if (t->kind == TY_INT || t->kind == TY_BOOL) *out = sim_arg_int(t->kind == TY_BOOL ? 1 : 3);
  else return false;
  return true;
}

static void launch_kernel(Module *ir, SimProgram *prog, Op *func, uint64_t h, Diag *diag) {
  Block *entry = func->regions[0].first;
  if (!entry || entry->nargs > MAX_PARAMS) return;
  SimArg args[MAX_PARAMS];
  void *bufs[MAX_PARAMS] = {0};
  bool ok = true;
  for (unsigned i = 0; i < entry->nargs && ok; i++) ok = make_arg(entry->args[i]->type, h, i, &args[i], &bufs[i]);
  if (ok) {
    uint32_t grid[3] = {1 + (uint32_t)(h % 3), 1 + (uint32_t)((h >> 3) % 2), 1};
    uint32_t block[3] = {1u << ((h >> 5) % 7), 1 + (uint32_t)((h >> 9) % 2), 1};
    SimOptions o;
    sim_options_init(&o);
    o.max_steps = 200000;
    o.max_thread_steps = 20000;
    SimResult r;
    sim_program_launch(prog, func, grid, block, 64, args, entry->nargs, &o, &r, diag);
  }
  for (unsigned i = 0; i < entry->nargs; i++) free(bufs[i]);
  (void)ir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzDirectives d;
  fuzz_directives_read(&d, data, size);
  if (!d.text || !d.buf) {
    fuzz_directives_free(&d);
    return 0;
  }
  kf_context *ctx = kf_context_create();
  kf_compile_options co;
  fuzz_compile_options(&d, &co);
  kf_module *m = NULL;
  if (kf_compile_source(ctx, "fuzz.py", d.text, size, &co, &m) == KF_OK) {
    Module *ir = m->ir;
    bool oom = false;
    SimProgram *prog = sim_program_new(ir, &ctx->diag, &oom);
    uint64_t h = hash_bytes(data, size);
    for (Op *op = ir_module_body(ir)->first; prog && op; op = op->next)
      if (op->kind == OP_FUNC_FUNC && ir_op_attr(op, "kernel")) launch_kernel(ir, prog, op, h, &ctx->diag);
    sim_program_free(prog);
  }
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  fuzz_directives_free(&d);
  return 0;
}
