/* api_walk.c — kir.h's walking and mutation API over a parsed module:
 *
 *  iterate   the module's functions (globals skipped), a block's ops both ways, an op's operands, results,
 *            regions, successors and attributes (by index and by name, each attribute kind read back), a value's
 *            defining op, owning block, index and uses, an op's block, parent op, function and location;
 *  walk      pre- and post-order orders checked against the text's order, KF_WALK_SKIP leaving an scf.for's body
 *            unvisited, KF_WALK_INTERRUPT stopping at the first mem.store, an erase in a post-order walk;
 *  mutate    a pass's rewrite done by hand: x * 2.0 replaced by x + x (a new op at the builder's insertion point,
 *            kf_value_replace_all_uses, kf_op_erase of the multiply and the dead constant), an op moved by
 *            kf_builder_insert_op, an operand set, an attribute removed; the result verifies and prints as
 *            expected;
 *  refuse    each refusal with its located diagnostic: erasing an op whose result is used (and an op whose nested
 *            value is used outside it), a replacement of another type, an operand out of range or of another type,
 *            moving an op into itself or a function, removing a function's sym_name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kir.h"
#include "runtime_test.h"

#define OK(call) CHECK((call) == KF_OK)

static char diags[8192];
static void on_diag(void *user, int level, const char *text) {
  (void)user;
  (void)level;
  strncat(diags, text, sizeof diags - strlen(diags) - 1);
}

static const char *src =
    "mem.global() {sym_name = @table, type = array<f32, 1, C>, shape = [2], space = \"const\", value = [1.0 : f32, 2.0 : f32]} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %n: i64):\n"
    "  %zero = arith.constant() {value = 0} : () -> (i64)\n"
    "  %one = arith.constant() {value = 1} : () -> (i64)\n"
    "  %two = arith.constant() {value = 2.0 : f32} : () -> (f32)\n"
    "  scf.for(%zero, %n, %one) ({\n"
    "  ^bb0(%i: i64):\n"
    "    %x = mem.load(%a, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "    %y = arith.mulf(%x, %two) : (f32, f32) -> (f32)\n"
    "    mem.store(%y, %a, %i) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i64, i64, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @k, function_type = (array<f32, 1, C>, i64) -> (), kernel} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%v: f32):\n"
    "  func.return(%v) : (f32) -> ()\n"
    "}) {sym_name = @id, function_type = (f32) -> (f32), device} : () -> ()\n";

/* Op names in walk order, into a buffer. */
typedef struct Names {
  char text[1024];
  const char *skip_at;   /* KF_WALK_SKIP at an op of this name */
  const char *stop_at;   /* KF_WALK_INTERRUPT at one of this name */
} Names;

static kf_walk_result record(kf_op *op, void *user) {
  Names *n = user;
  strncat(n->text, kf_op_name(op), sizeof n->text - strlen(n->text) - 2);
  strcat(n->text, " ");
  if (n->stop_at && strcmp(kf_op_name(op), n->stop_at) == 0) return KF_WALK_INTERRUPT;
  if (n->skip_at && strcmp(kf_op_name(op), n->skip_at) == 0) return KF_WALK_SKIP;
  return KF_WALK_ADVANCE;
}

static kf_op *find(kf_op *root, const char *name) {
  kf_op *found = NULL;
  for (kf_op *o = kf_block_first_op(kf_function_entry(root)); o && !found; o = kf_op_next(o)) {
    if (strcmp(kf_op_name(o), name) == 0) found = o;
    for (unsigned r = 0; r < kf_op_num_regions(o) && !found; r++)
      for (kf_block *b = kf_region_first_block(kf_op_region(o, r)); b && !found; b = kf_block_next(b))
        for (kf_op *p = kf_block_first_op(b); p && !found; p = kf_op_next(p))
          if (strcmp(kf_op_name(p), name) == 0) found = p;
  }
  return found;
}

static void test_iterate(kf_context *ctx, kf_module *m) {
  kf_op *k = kf_module_first_function(m);
  CHECK(k && strcmp(kf_function_name(k), "k") == 0);
  CHECK(kf_function_flags(k) == KF_FUNCTION_FLAG_KERNEL);
  kf_op *id = kf_function_next(k);
  CHECK(id && strcmp(kf_function_name(id), "id") == 0 && kf_function_flags(id) == KF_FUNCTION_FLAG_DEVICE);
  CHECK(kf_function_next(id) == NULL);
  CHECK(kf_module_lookup(m, "table") == kf_block_first_op(kf_module_body(m)));
  CHECK(strcmp(kf_op_name(kf_module_lookup(m, "table")), "mem.global") == 0);
  CHECK(kf_module_lookup(m, "nothing") == NULL);
  char *ty = NULL;
  OK(kf_type_print(ctx, kf_function_type(id), &ty));
  CHECK(ty && strcmp(ty, "(f32) -> (f32)") == 0);
  kf_free(ty);

  kf_block *entry = kf_function_entry(k);
  kf_op *first = kf_block_first_op(entry), *last = kf_block_last_op(entry);
  CHECK(strcmp(kf_op_name(first), "arith.constant") == 0 && strcmp(kf_op_name(last), "func.return") == 0);
  CHECK(kf_block_terminator(entry) == last);
  unsigned fwd = 0, back = 0;
  for (kf_op *o = first; o; o = kf_op_next(o)) fwd++;
  for (kf_op *o = last; o; o = kf_op_prev(o)) back++;
  CHECK(fwd == 5 && back == 5);
  CHECK(kf_block_parent_op(entry) == k && kf_region_parent_op(kf_block_region(entry)) == k);
  CHECK(kf_block_parent_op(kf_module_body(m)) == NULL);

  kf_op *loop = find(k, "scf.for"), *mul = find(k, "arith.mulf"), *load = find(k, "mem.load");
  CHECK(loop && mul && load);
  CHECK(kf_op_num_operands(loop) == 3 && kf_op_num_regions(loop) == 1 && kf_op_num_results(loop) == 0);
  CHECK(kf_op_operand(loop, 3) == NULL && kf_op_region(loop, 1) == NULL);
  kf_block *body = kf_region_first_block(kf_op_region(loop, 0));
  CHECK(kf_op_block(mul) == body && kf_op_parent_op(mul) == loop && kf_op_parent_function(mul) == k);
  CHECK(kf_op_parent_function(k) == NULL && kf_op_parent_function(loop) == k);
  kf_location loc = kf_op_location(mul);
  CHECK(loc.file && strcmp(loc.file, "walk.kir") == 0 && loc.line == 10 && loc.col == 5);

  /* values: a block argument, a result, their uses */
  kf_ir_value *i = kf_block_arg(body, 0);
  CHECK(kf_value_is_block_arg(i) && kf_value_defining_op(i) == NULL && kf_value_owner_block(i) == body);
  CHECK(kf_value_index(i) == 0 && kf_value_num_uses(i) == 2);
  kf_ir_value *x = kf_op_result(load, 0);
  CHECK(!kf_value_is_block_arg(x) && kf_value_defining_op(x) == load && kf_value_owner_block(x) == body);
  CHECK(kf_op_operand(mul, 0) == x && kf_value_num_uses(x) == 1);
  kf_op *user = NULL;
  unsigned operand = 9;
  OK(kf_value_use(x, 0, &user, &operand));
  CHECK(user == mul && operand == 0);
  CHECK(kf_value_use(x, 1, &user, &operand) == KF_ERROR_INVALID_INPUT && user == NULL);
  kf_ir_value *two = kf_op_operand(mul, 1);
  CHECK(kf_value_owner_block(two) == entry);

  /* attributes by index and by name, each kind */
  kf_op *table = kf_module_lookup(m, "table");
  CHECK(kf_op_num_attrs(table) == 5);
  const char *name = NULL;
  kf_attr *a0 = kf_op_attr_at(table, 0, &name);
  CHECK_MSG(a0 && name && strcmp(name, "sym_name") == 0, "%s", name ? name : "(null)");
  CHECK(kf_attr_get_kind(a0) == KF_ATTR_SYMBOL && strcmp(kf_attr_get_string(a0), "table") == 0);
  CHECK(kf_op_attr_at(table, 5, &name) == NULL && name == NULL);
  kf_attr *space = kf_op_attr(table, "space");
  CHECK(kf_attr_get_kind(space) == KF_ATTR_STRING && strcmp(kf_attr_get_string(space), "const") == 0);
  kf_attr *shape = kf_op_attr(table, "shape");
  CHECK(kf_attr_get_kind(shape) == KF_ATTR_ARRAY && kf_attr_array_size(shape) == 1);
  CHECK(kf_attr_get_kind(kf_attr_array_elem(shape, 0)) == KF_ATTR_INT && kf_attr_get_int(kf_attr_array_elem(shape, 0)) == 2);
  CHECK(kf_attr_array_elem(shape, 1) == NULL);
  kf_attr *value = kf_op_attr(table, "value");
  CHECK(kf_attr_get_float(kf_attr_array_elem(value, 1)) == 2.0);
  CHECK(kf_attr_get_kind(kf_op_attr(table, "type")) == KF_ATTR_TYPE && kf_attr_get_type(kf_op_attr(table, "type")));
  CHECK(kf_attr_get_kind(kf_op_attr(k, "kernel")) == KF_ATTR_UNIT);
  CHECK(kf_op_attr(k, "device") == NULL);
  CHECK(kf_attr_get_string(shape) == NULL && kf_attr_get_int(space) == 0);
}

static void test_walk(kf_module *m) {
  kf_op *k = kf_module_first_function(m);
  Names pre = {{0}, NULL, NULL}, post = {{0}, NULL, NULL}, skip = {{0}, "scf.for", NULL}, stop = {{0}, NULL, "mem.store"};
  CHECK(kf_op_walk(k, KF_WALK_PRE_ORDER, record, &pre) == KF_WALK_ADVANCE);
  CHECK(strcmp(pre.text, "func.func arith.constant arith.constant arith.constant scf.for mem.load arith.mulf mem.store "
                         "scf.yield func.return ") == 0);
  CHECK(kf_op_walk(k, KF_WALK_POST_ORDER, record, &post) == KF_WALK_ADVANCE);
  CHECK(strcmp(post.text, "arith.constant arith.constant arith.constant mem.load arith.mulf mem.store scf.yield "
                          "scf.for func.return func.func ") == 0);
  CHECK(kf_op_walk(k, KF_WALK_PRE_ORDER, record, &skip) == KF_WALK_ADVANCE);
  CHECK(strcmp(skip.text, "func.func arith.constant arith.constant arith.constant scf.for func.return ") == 0);
  CHECK(kf_op_walk(k, KF_WALK_PRE_ORDER, record, &stop) == KF_WALK_INTERRUPT);
  CHECK(strcmp(stop.text, "func.func arith.constant arith.constant arith.constant scf.for mem.load arith.mulf mem.store ") == 0);
  Names all = {{0}, NULL, NULL};
  CHECK(kf_module_walk(m, KF_WALK_PRE_ORDER, record, &all) == KF_WALK_ADVANCE);
  CHECK(strncmp(all.text, "mem.global func.func arith.constant", 35) == 0);
  CHECK(strstr(all.text, "func.return func.func func.return ") != NULL);
  Names post_stop = {{0}, NULL, "scf.yield"};
  CHECK(kf_module_walk(m, KF_WALK_POST_ORDER, record, &post_stop) == KF_WALK_INTERRUPT);
  CHECK(strcmp(post_stop.text, "mem.global arith.constant arith.constant arith.constant mem.load arith.mulf mem.store "
                               "scf.yield ") == 0);
}

/* Erases every unused arith.constant (in a post-order walk, which allows erasing the op given). */
static kf_walk_result erase_dead_constants(kf_op *op, void *user) {
  kf_module *m = user;
  if (strcmp(kf_op_name(op), "arith.constant") == 0 && kf_value_num_uses(kf_op_result(op, 0)) == 0)
    CHECK(kf_op_erase(m, op) == KF_OK);
  return KF_WALK_ADVANCE;
}

static char *print(kf_module *m) {
  char *text = NULL;
  size_t len = 0;
  OK(kf_module_print(m, 0, &text, &len));
  return text;
}

static void test_mutate(kf_context *ctx, kf_module *m) {
  kf_op *k = kf_module_first_function(m);
  kf_op *mul = find(k, "arith.mulf"), *loop = find(k, "scf.for");
  kf_ir_value *x = kf_op_operand(mul, 0);
  kf_builder *b = NULL;
  OK(kf_builder_create(m, &b));
  OK(kf_builder_set_insertion_before(b, mul));
  OK(kf_builder_set_location(b, kf_op_location(mul)));  /* the new op where the one it replaces was */
  kf_ir_value *ops[2] = {x, x}, *sum = NULL;
  OK(kf_build_simple(b, "arith.addf", 2, ops, NULL, &sum));
  OK(kf_value_replace_all_uses(m, kf_op_result(mul, 0), sum));
  CHECK(kf_value_num_uses(kf_op_result(mul, 0)) == 0);
  OK(kf_op_erase(m, mul));
  CHECK(kf_module_walk(m, KF_WALK_POST_ORDER, erase_dead_constants, m) == KF_WALK_ADVANCE);

  /* move the constant 0 (the loop's lower bound) just before the loop: still dominates it */
  kf_op *zero = kf_block_first_op(kf_function_entry(k));
  OK(kf_builder_set_insertion_before(b, loop));
  OK(kf_builder_insert_op(b, zero));
  CHECK(kf_op_prev(loop) == zero && kf_op_next(zero) == loop);
  OK(kf_builder_insert_op(b, zero));  /* already there */
  CHECK(kf_op_prev(loop) == zero);
  /* the loop's step becomes its lower bound's constant... and back */
  kf_ir_value *step = kf_op_operand(loop, 2);
  OK(kf_op_set_operand(m, loop, 2, kf_op_result(zero, 0)));
  CHECK(kf_op_operand(loop, 2) == kf_op_result(zero, 0) && kf_value_num_uses(step) == 0);
  OK(kf_op_set_operand(m, loop, 2, step));
  OK(kf_op_remove_attr(m, kf_function_next(k), "device"));
  OK(kf_op_remove_attr(m, kf_function_next(k), "device"));  /* none: fine */
  CHECK(kf_function_flags(kf_function_next(k)) == 0);
  kf_builder_destroy(b);

  OK(kf_module_verify(m));
  char *text = print(m);
  CHECK_CONTAINS(text, "%2 = arith.constant() {value = 1} : () -> (i64)\n  %3 = arith.constant() {value = 0} : () -> (i64)\n  scf.for(%3, %1, %2)");
  CHECK_CONTAINS(text, "%6 = arith.addf(%5, %5) : (f32, f32) -> (f32)\n    mem.store(%6, %0, %4)");
  CHECK(!strstr(text, "arith.mulf") && !strstr(text, "value = 2.0") && !strstr(text, "device"));
  kf_free(text);
  CHECK(kf_context_error_count(ctx) == 0);
}

static void test_refuse(kf_context *ctx, kf_module *m) {
  kf_op *k = kf_module_first_function(m);
  kf_op *load = find(k, "mem.load"), *loop = find(k, "scf.for"), *add = find(k, "arith.addf");
  diags[0] = 0;
  CHECK(kf_op_erase(m, load) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "walk.kir:9:5: error: kf_op_erase: the mem.load cannot be erased while its result is used "
                        "(operand 1 of arith.addf)");
  CHECK_CONTAINS(diags, "walk.kir:10:5: note: the use is here");
  /* the loop's body value %x is used only inside it: erasing the loop would be fine; a use outside is not */
  kf_op *ret = kf_block_last_op(kf_function_entry(kf_function_next(k)));
  kf_ir_value *v = kf_op_operand(ret, 0);
  diags[0] = 0;
  CHECK(kf_op_set_operand(m, ret, 0, kf_op_result(load, 0)) == KF_OK);  /* a use of %x outside the loop (invalid IR) */
  CHECK(kf_op_erase(m, loop) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "walk.kir:7:3: error: kf_op_erase: the scf.for cannot be erased while a value defined inside it "
                        "is used (operand 0 of func.return)");
  OK(kf_op_set_operand(m, ret, 0, v));
  diags[0] = 0;
  CHECK(kf_value_replace_all_uses(m, kf_op_result(add, 0), kf_op_operand(loop, 0)) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "error: kf_value_replace_all_uses: the new value is of type i64, the value replaced of type f32");
  CHECK(kf_op_set_operand(m, add, 2, v) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_op_set_operand: arith.addf has 2 operands, not an operand 2");
  CHECK(kf_op_set_operand(m, loop, 0, v) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "walk.kir:7:3: error: kf_op_set_operand: operand 0 of scf.for is of type i64, the new value of type f32");
  kf_builder *b = NULL;
  OK(kf_builder_create(m, &b));
  OK(kf_builder_set_insertion_before(b, add));
  CHECK(kf_builder_insert_op(b, loop) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "walk.kir:7:3: error: kf_builder_insert_op: the insertion point is inside the scf.for moved");
  CHECK(kf_builder_insert_op(b, k) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_builder_insert_op: a function or global stays where it is");
  kf_builder_destroy(b);
  CHECK(kf_op_remove_attr(m, k, "sym_name") == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_op_remove_attr: a function's sym_name is its name and stays");
  CHECK(kf_op_erase(m, NULL) == KF_ERROR_INVALID_INPUT && kf_op_erase(NULL, load) == KF_ERROR_INVALID_INPUT);
  OK(kf_module_verify(m));  /* every refusal left the module as it was */
  /* erasing a whole function: its symbol goes */
  kf_context_clear_diagnostics(ctx);
  kf_op *id = kf_function_next(k);
  OK(kf_op_erase(m, id));
  CHECK(kf_module_lookup(m, "id") == NULL && kf_function_next(k) == NULL);
  OK(kf_module_verify(m));
}

int main(void) {
  kf_context *ctx = kf_context_create();
  kf_context_set_diagnostic_handler(ctx, on_diag, NULL);
  kf_module *m = NULL;
  OK(kf_module_parse(ctx, "walk.kir", src, strlen(src), &m));
  if (!m) {
    fprintf(stderr, "%s", diags);
    return 1;
  }
  OK(kf_module_verify(m));
  test_iterate(ctx, m);
  test_walk(m);
  test_mutate(ctx, m);
  test_refuse(ctx, m);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
  return test_result("api_walk");
}
