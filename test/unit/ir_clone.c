/* ir_clone.c — unit tests of ir/clone.c (ir_op_clone):
 *   - a whole function (structured: scf.if and scf.for with carried values; and cf form: several blocks,
 *     branches with arguments, a forward reference to a later block's value) cloned under another name
 *     prints exactly as the original but for the name, verifies, and uses none of the original's values
 *     or blocks: every operand of the copy is defined inside the copy;
 *   - an op cloned inside its function with a map remaps the outside values given (and keeps the others);
 *     the map receives the copy's results;
 *   - erasing the original leaves the copy intact (no shared uses). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime_test.h"
#include "utils/mem.h"


static const char *text =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %n: i64, %x: f32):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  %o = arith.constant() {value = 1} : () -> (i64)\n"
    "  %c = arith.cmpi(%z, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  %r = scf.if(%c) ({\n"
    "    %s = scf.for(%z, %n, %o, %x) ({\n"
    "    ^bb0(%i: i64, %acc: f32):\n"
    "      %v = mem.load(%a, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "      %w = arith.addf(%acc, %v) : (f32, f32) -> (f32)\n"
    "      scf.yield(%w) : (f32) -> ()\n"
    "    }) : (i64, i64, i64, f32) -> (f32)\n"
    "    scf.yield(%s) : (f32) -> ()\n"
    "  }, {\n"
    "    scf.yield(%x) : (f32) -> ()\n"
    "  }) : (i1) -> (f32)\n"
    "  mem.store(%r, %a, %z) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @structured, function_type = (array<f32, 1, C>, i64, f32) -> (), kernel} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%n: i64):\n"
    "  %z = arith.constant() {value = 0} : () -> (i64)\n"
    "  cf.br() [^bb1(%z)] : (i64) -> ()\n"
    "^bb1(%i: i64):\n"
    "  %c = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  cf.cond_br(%c) [^bb2, ^bb3] : (i1) -> ()\n"
    "^bb2:\n"
    "  %o = arith.constant() {value = 1} : () -> (i64)\n"
    "  %j = arith.addi(%i, %o) : (i64, i64) -> (i64)\n"
    "  cf.br() [^bb1(%j)] : (i64) -> ()\n"
    "^bb3:\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @cfg, function_type = (i64) -> (), device} : () -> ()\n";

static char *print_op(Op *op) {
  StrBuf b;
  sb_init(&b);
  ir_print_op(op, NULL, &b);
  sb_cstr(&b);
  return sb_take(&b);
}

/* Every operand of the ops under root is a result or block argument of something under root. */
typedef struct Inside {
  Op *root;
  bool ok;
} Inside;

static bool defined_inside(const Op *root, const Value *v) {
  const Op *def = v->def;
  if (!def) def = ir_block_parent_op(v->block);
  return def && (def == root || ir_op_is_ancestor(root, def));
}

static bool check_inside(Op *op, void *user) {
  Inside *in = user;
  for (unsigned i = 0; i < op->noperands; i++)
    if (!defined_inside(in->root, op_operand(op, i))) in->ok = false;
  for (unsigned s = 0; s < op->nsuccessors; s++)
    if (ir_block_parent_op(op->successors[s]) != in->root && !ir_op_is_ancestor(in->root, ir_block_parent_op(op->successors[s])))
      in->ok = false;
  return true;
}

static void clone_function(Module *m, const char *name, const char *new_name) {
  Op *f = ir_module_lookup(m, name);
  CHECK(f != NULL);
  if (!f) return;
  char *before = print_op(f);
  Op *c = ir_op_clone(m, f, NULL);
  ir_op_set_attr(m, c, "sym_name", attr_sym(m, new_name));
  ir_block_append(ir_module_body(m), c);
  ir_module_add_symbol(m, c);
  char *orig = print_op(f), *copy = print_op(c);
  CHECK(strcmp(before, orig) == 0); /* the original is untouched (its name too) */
  /* the same text but for the name */
  char *p = strstr(copy, new_name);
  CHECK(p != NULL);
  if (p) {
    StrBuf fixed;
    sb_init(&fixed);
    sb_printf(&fixed, "%.*s%s%s", (int)(p - copy), copy, name, p + strlen(new_name));
    CHECK(strcmp(sb_cstr(&fixed), orig) == 0);
    sb_free(&fixed);
  }
  Inside in = {c, true};
  ir_walk_pre(c, check_inside, &in);
  CHECK(in.ok);
  mem_free(before);
  mem_free(orig);
  mem_free(copy);
}

typedef struct FindKind {
  OpKind kind;
  Op *found;
} FindKind;

static bool find_kind(Op *op, void *user) {
  FindKind *f = user;
  if (op->kind == f->kind && !f->found) f->found = op;
  return true;
}

int main(void) {
  IrContext *ctx = ir_context_new();
  Diag d;
  diag_init(&d);
  Module *m = ir_parse_module(ctx, &d, "clone.kir", text, strlen(text));
  if (!m) {
    fprintf(stderr, "%s", diag_text(&d));
    return 1;
  }
  clone_function(m, "structured", "structured_copy");
  clone_function(m, "cfg", "cfg_copy");
  CHECK(ir_verify_module(m, &d));

  /* the scf.for of @structured cloned in place with %x -> a new constant, %n kept */
  Op *f = ir_module_lookup(m, "structured");
  FindKind fk = {OP_FOR, NULL};
  ir_walk_pre(f, find_kind, &fk);
  Op *loop = fk.found;
  CHECK(loop != NULL);
  if (loop) {
    IrBuilder b;
    ib_init(&b, m);
    ib_set_before(&b, loop);
    Value *one = ib_const_float(&b, ty_f32(ctx), 1.0);
    PtrMap map = {0};
    ptrmap_put(&map, op_operand(loop, 3), one);
    Op *c = ir_op_clone(m, loop, &map);
    ir_op_insert_before(loop, c);
    CHECK(op_operand(c, 3) == one);
    CHECK(op_operand(c, 1) == op_operand(loop, 1));
    CHECK(ptrmap_get(&map, op_result(loop, 0)) == op_result(c, 0));
    CHECK(ptrmap_get(&map, loop->regions[0].first->args[0]) == c->regions[0].first->args[0]);
    /* the copy's body uses its own block arguments */
    Op *add = c->regions[0].first->first->next;
    CHECK(add->kind == OP_ADDF && op_operand(add, 0) == c->regions[0].first->args[1]);
    CHECK(ir_value_num_uses(loop->regions[0].first->args[1]) == 1);
    ptrmap_free(&map);
    /* erasing the original leaves the copy valid */
    ir_value_replace_all_uses(op_result(loop, 0), op_result(c, 0));
    ir_op_erase(loop);
    CHECK(ir_verify_module(m, &d));
  }
  if (test_failures) fprintf(stderr, "%s", diag_text(&d));
  ir_module_free(m);
  diag_free(&d);
  ir_context_free(ctx);
  return test_result("ir_clone");
}
