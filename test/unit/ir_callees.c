/* ir_callees.c — unit tests of ir_walk_callees (ir/ir.c), the one walk over a kernel's transitive callees:
 * each function once, in the order of first call, depth first; the kernel itself never (a recursive call
 * back to it is skipped); a call naming nothing defined comes with callee NULL; calls in nested regions
 * count; a callback returning false stops the walk and makes it return false. ir_func_recursive: self and
 * mutual recursion found, a function that only calls others not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime_test.h"


#define DEV(name, body) \
  "func.func() ({\n^bb0(%x: i64):\n" body "  func.return() : () -> ()\n}) {sym_name = @" name ", function_type = (i64) -> (), device} : () -> ()\n"
#define CALL(name) "  func.call(%x) {callee = @" name "} : (i64) -> ()\n"

static const char *text =
    DEV("leaf", "")
    DEV("mid", CALL("leaf") CALL("leaf"))
    DEV("rec", CALL("rec") CALL("k"))
    DEV("unused", CALL("leaf"))
    "func.func() ({\n^bb0(%x: i64):\n"
    "  %c = arith.constant() {value = true} : () -> (i1)\n"
    "  scf.if(%c) ({\n"
    CALL("mid")
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    CALL("missing")
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    CALL("rec")
    CALL("leaf")
    "  func.return() : () -> ()\n"
    "}) {sym_name = @k, function_type = (i64) -> (), kernel} : () -> ()\n";

typedef struct Log {
  char text[256];
  int stop_after;   /* stop when this many have been seen (0: never) */
  int n;
} Log;

static bool record(Op *callee, Op *call, void *user) {
  Log *l = user;
  CHECK(call && call->kind == OP_FUNC_CALL);
  size_t len = strlen(l->text);
  snprintf(l->text + len, sizeof l->text - len, "%s%s", len ? "," : "", callee ? ir_func_name(callee) : "?");
  return !(l->stop_after && ++l->n >= l->stop_after);
}

int main(void) {
  IrContext *ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  Module *m = ir_parse_module(ctx, &d, "callees.kir", text, strlen(text));
  if (!m) {
    fprintf(stderr, "%s", diag_text(&d));
    return 1;
  }
  Op *k = ir_module_lookup(m, "k");
  Log l = {"", 0, 0};
  CHECK(ir_walk_callees(m, k, record, &l) == IR_WALK_DONE);
  CHECK(strcmp(l.text, "mid,leaf,?,rec") == 0);
  if (strcmp(l.text, "mid,leaf,?,rec") != 0) fprintf(stderr, "walk: %s\n", l.text);
  Log s = {"", 2, 0};
  CHECK(ir_walk_callees(m, k, record, &s) == IR_WALK_STOPPED);
  CHECK(strcmp(s.text, "mid,leaf") == 0);
  Log r = {"", 0, 0};
  CHECK(ir_walk_callees(m, ir_module_lookup(m, "rec"), record, &r) == IR_WALK_DONE);
  CHECK(strcmp(r.text, "k,mid,leaf,?") == 0);
  if (strcmp(r.text, "k,mid,leaf,?") != 0) fprintf(stderr, "walk from rec: %s\n", r.text);
  Log e = {"", 0, 0};
  CHECK(ir_walk_callees(m, ir_module_lookup(m, "leaf"), record, &e) == IR_WALK_DONE);
  CHECK(e.text[0] == 0);
  /* recursion: rec calls itself; k calls rec which calls k (mutual); mid and leaf call nothing that comes back */
  bool oom;
  CHECK(ir_func_recursive(m, ir_module_lookup(m, "rec"), &oom) && !oom);
  CHECK(ir_func_recursive(m, k, &oom) && !oom);
  CHECK(!ir_func_recursive(m, ir_module_lookup(m, "mid"), &oom) && !oom);
  CHECK(!ir_func_recursive(m, ir_module_lookup(m, "leaf"), &oom));
  CHECK(!ir_func_recursive(m, ir_module_lookup(m, "unused"), &oom));
  ir_module_free(m);
  diag_free(&d);
  ir_context_free(ctx);
  return test_result("ir_callees");
}
