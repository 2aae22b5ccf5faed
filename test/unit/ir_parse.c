/* ir_parse.c — unit tests of ir/parse.c, the kir text parser:
 *   - every op's ops.def example, wrapped in a func.func whose entry block defines the values it uses,
 *     parses, and print -> parse -> print is byte-stable with and without debug info; every OpKind is seen;
 *   - a module built with the builder (unknown locations, every kind of attribute) prints, parses back
 *     and prints the same;
 *   - forward references across blocks resolve to their definitions;
 *   - malformed inputs get their exact diagnostic at their line:col, and NULL;
 *   - robustness: every truncation and thousands of byte mutations of a valid module never crash, and
 *     every failure is located (run it under ASan: -DKFRONT_SANITIZE=ON). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "utils/mem.h"

static int failures;
static const char *current = "";

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__, __LINE__, current, #cond); \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)

static IrContext *ctx;

/* Parses text (copied into an exact-size heap buffer, not NUL-terminated, so overreads show under ASan). */
static Module *parse(const char *file, const char *text, size_t len, Diag *d) {
  char *buf = malloc(len ? len : 1);
  memcpy(buf, text, len);
  Module *m = ir_parse_module(ctx, d, file, buf, len);
  if (m) diag_remove_source(d, buf);
  free(buf);
  return m;
}

static char *print(Module *m, bool debug) {
  StrBuf b;
  sb_init(&b);
  IrPrintOptions o = {debug};
  ir_print_module(m, &o, &b);
  sb_cstr(&b);
  return sb_take(&b);
}

/* Parses text; checks that it parses and that print -> parse -> print is stable both ways. Returns the module
 * (caller frees) or NULL. */
static Module *roundtrip(const char *file, const char *text) {
  Diag d;
  diag_init(&d);
  Module *m = parse(file, text, strlen(text), &d);
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "[%s] parse failed:\n%s--- input:\n%s\n", current, diag_text(&d), text);
    diag_free(&d);
    return NULL;
  }
  for (int debug = 0; debug < 2; debug++) {
    char *p1 = print(m, debug);
    Module *m2 = parse("p1.kir", p1, strlen(p1), &d);
    CHECK(m2 != NULL);
    if (!m2) {
      fprintf(stderr, "[%s] reparse failed:\n%s--- printed:\n%s\n", current, diag_text(&d), p1);
      mem_free(p1);
      continue;
    }
    char *p2 = print(m2, debug);
    CHECK(strcmp(p1, p2) == 0);
    if (strcmp(p1, p2) != 0) fprintf(stderr, "[%s] unstable print (debug %d):\n%s--- then:\n%s", current, debug, p1, p2);
    mem_free(p1);
    mem_free(p2);
    ir_module_free(m2);
  }
  diag_free(&d);
  return m;
}

/* ---- ops.def examples ---------------------------------------------------------------------------- */

typedef struct {
  char name[32], type[192];
} Arg;

typedef struct {
  char name[32];
  unsigned nargs;
  char types[4][192];
} Succ;

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

/* Index just past the bracket matching s[i] (one of ( [ { <). */
static size_t match(const char *s, size_t i) {
  int level = 0;
  for (;; i++) {
    char c = s[i];
    if (!c) return i;
    if (c == '"') {
      for (i++; s[i] && s[i] != '"'; i++)
        if (s[i] == '\\' && s[i + 1]) i++;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') level++;
    if (c == ')' || c == ']' || c == '}' || (c == '>' && s[i - 1] != '-')) {
      if (--level == 0) return i + 1;
    }
  }
}

static size_t skip_sp(const char *s, size_t i) {
  while (s[i] == ' ' || s[i] == '\n') i++;
  return i;
}

/* The %names of s[a..b) in order. */
static unsigned names_in(const char *s, size_t a, size_t b, char out[][32], unsigned cap) {
  unsigned n = 0;
  for (size_t i = a; i < b; i++) {
    if (s[i] != '%' && s[i] != '^') continue;
    size_t j = i + 1;
    while (j < b && ident_char(s[j])) j++;
    if (n < cap) snprintf(out[n++], 32, "%.*s", (int)(j - i), s + i);
    i = j - 1;
  }
  return n;
}

/* The comma-separated types of s[a..b) (inside the parentheses). */
static unsigned types_in(const char *s, size_t a, size_t b, char out[][192], unsigned cap) {
  unsigned n = 0;
  int level = 0;
  size_t start = a;
  for (size_t i = a; i <= b; i++) {
    if (i < b && (s[i] == '<' || s[i] == '(')) level++;
    if (i < b && (s[i] == '>' || s[i] == ')') && s[i - 1] != '-') level--;
    if (i == b || (s[i] == ',' && level == 0)) {
      while (start < i && s[start] == ' ') start++;
      if (i > start && n < cap) snprintf(out[n++], 192, "%.*s", (int)(i - start), s + start);
      start = i + 1;
    }
  }
  return n;
}

static bool has_name(char (*names)[32], unsigned n, const char *name) {
  for (unsigned i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

/* Wraps an example op in a func.func whose entry block defines, as arguments, every value the example
 * uses without defining, typed from the signatures of the ops that use it, and whose successors exist. */
static char *wrap_example(OpKind k) {
  const char *ex = ir_op_info[k].example;
  char defs[64][32];
  unsigned ndefs = 0;
  Arg args[16];
  unsigned nargs = 0;
  Succ succs[4];
  unsigned nsuccs = 0;
  /* definitions: result names (before " = " at the start of a line) and block arguments ("%x:") */
  for (const char *line = ex; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    size_t i = skip_sp(line, 0);
    const char *eq = strstr(line + i, " = ");
    const char *nl = strchr(line, '\n');
    if (line[i] == '%' && eq && (!nl || eq < nl)) ndefs += names_in(line, i, (size_t)(eq - line), defs + ndefs, 64 - ndefs);
    if (line[i] == '^') {
      size_t e = nl ? (size_t)(nl - line) : strlen(line);
      char names[8][32];
      unsigned n = names_in(line, i, e, names, 8);
      for (unsigned j = 1; j < n; j++) snprintf(defs[ndefs++], 32, "%.31s", names[j]);
    }
  }
  /* uses: each op occurrence "dialect.name(" with its operand list and signature */
  for (size_t i = 0; ex[i]; i++) {
    if (!(ex[i] >= 'a' && ex[i] <= 'z') || (i && ident_char(ex[i - 1]))) continue;
    size_t j = i;
    while (ident_char(ex[j])) j++;
    if (ex[j] != '(' || !memchr(ex + i, '.', j - i)) {
      i = j ? j - 1 : 0;
      continue;
    }
    size_t opnds = j, opnds_end = match(ex, j), p = skip_sp(ex, opnds_end), succ = 0, succ_end = 0;
    if (ex[p] == '[') succ = p, succ_end = match(ex, p), p = skip_sp(ex, succ_end);
    if (ex[p] == '(') p = skip_sp(ex, match(ex, p));
    if (ex[p] == '{') p = skip_sp(ex, match(ex, p));
    if (ex[p] != ':') break;
    p = skip_sp(ex, p + 1);
    size_t sig = p, sig_end = match(ex, p);
    char names[16][32], types[16][192];
    unsigned n = names_in(ex, opnds, opnds_end, names, 16);
    unsigned nmain = n;
    if (succ) n += names_in(ex, succ, succ_end, names + n, 16 - n);
    unsigned nt = types_in(ex, sig + 1, sig_end - 1, types, 16);
    for (unsigned a = 0, t = 0; a < n; a++) {
      if (names[a][0] == '^') {
        Succ *s = &succs[nsuccs++];
        snprintf(s->name, sizeof s->name, "%.31s", names[a]);
        s->nargs = 0;
        continue;
      }
      if (t >= nt) break;
      if (a >= nmain && nsuccs) snprintf(succs[nsuccs - 1].types[succs[nsuccs - 1].nargs++], 192, "%.191s", types[t]);
      if (!has_name(defs, ndefs, names[a])) {
        bool seen = false;
        for (unsigned q = 0; q < nargs; q++) seen |= strcmp(args[q].name, names[a]) == 0;
        if (!seen) {
          snprintf(args[nargs].name, 32, "%.31s", names[a]);
          snprintf(args[nargs].type, 192, "%.191s", types[t]);
          nargs++;
        }
      }
      t++;
    }
    i = opnds; /* nested ops inside the regions are found as the scan goes on */
  }
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, "// ops.def example, wrapped\nfunc.func() ({\n^entry");
  if (nargs) {
    sb_putc(&b, '(');
    for (unsigned a = 0; a < nargs; a++) sb_printf(&b, "%s%s: %s", a ? ", " : "", args[a].name, args[a].type);
    sb_putc(&b, ')');
  }
  sb_puts(&b, ":\n");
  sb_puts(&b, ex);
  sb_putc(&b, '\n');
  if (!op_kind_has(k, OPT_TERM)) sb_puts(&b, "  func.return() : () -> ()\n");
  for (unsigned s = 0; s < nsuccs; s++) {
    sb_puts(&b, succs[s].name);
    if (succs[s].nargs) {
      sb_putc(&b, '(');
      for (unsigned a = 0; a < succs[s].nargs; a++) sb_printf(&b, "%s%%s%u_%u: %s", a ? ", " : "", s, a, succs[s].types[a]);
      sb_putc(&b, ')');
    }
    sb_puts(&b, ":\n  func.return() : () -> ()\n");
  }
  sb_puts(&b, "}) {sym_name = @wrapped, function_type = (");
  for (unsigned a = 0; a < nargs; a++) sb_printf(&b, "%s%s", a ? ", " : "", args[a].type);
  sb_puts(&b, ") -> ()} : () -> ()\n");
  return sb_take(&b);
}

static bool mark_kind(Op *op, void *user) {
  ((bool *)user)[op->kind] = true;
  return true;
}

static void test_examples(void) {
  bool covered[OP__COUNT] = {0};
  for (int k = 0; k < OP__COUNT; k++) {
    current = ir_op_info[k].name;
    bool top_level = k == OP_FUNC_FUNC || k == OP_GLOBAL;
    char *text = top_level ? mem_strdup(ir_op_info[k].example) : wrap_example((OpKind)k);
    if (getenv("IR_PARSE_DUMP")) fprintf(stderr, "--- %s:\n%s", current, text);
    Module *m = roundtrip("example.kir", text);
    if (m) {
      bool seen[OP__COUNT] = {0};
      ir_walk_module(m, mark_kind, seen);
      CHECK(seen[k]);
      covered[k] = seen[k];
      ir_module_free(m);
    }
    mem_free(text);
  }
  current = "coverage";
  for (int k = 0; k < OP__COUNT; k++) {
    if (!covered[k]) fprintf(stderr, "op %s: example not covered\n", ir_op_info[k].name);
    CHECK(covered[k]);
  }
}

/* ---- a module from the builder: unknown locations, every kind of attribute ------------------------ */

static void test_builder_module(void) {
  current = "builder module";
  Module *m = ir_module_new(ctx, "b");
  Type *i64 = ty_i64(ctx), *f32 = ty_f32(ctx), *u64 = ty_int(ctx, 64, true), *i8 = ty_int(ctx, 8, false);
  Type *arr = ty_array(ctx, f32, 2, 'C');
  Type *params[] = {arr, i64};
  Op *fn = ir_func_create(m, "kernel", ty_func(ctx, 2, params, 0, NULL), (SrcLoc){0});
  ir_op_set_attr(m, fn, "kernel", attr_unit());
  IrBuilder b;
  ib_init(&b, m);
  ib_set_end(&b, ir_func_entry(fn));
  Value *n = ir_func_entry(fn)->args[1];
  Value *c = ib_const_int(&b, i64, INT64_MIN);
  ib_const_int(&b, u64, -1);
  ib_const_int(&b, i8, -128);
  ib_const_bool(&b, true);
  ib_const_float(&b, f32, 0.1);
  ib_const_float(&b, ty_f64(ctx), 1e-300);
  ib_const_float(&b, ty_float(ctx, 16), 1.5);
  ib_const_float(&b, f32, NAN);
  ib_const_float(&b, ty_f64(ctx), -INFINITY);
  ib_const_float(&b, f32, INFINITY);
  ib_const_float(&b, ty_f64(ctx), 4.9406564584124654e-324);
  Value *s = ib_binary(&b, OP_ADDI, c, n);
  Value *lt = ib_cmpi(&b, IR_CMPI_SLT, s, n);
  Op *g = ib_op(&b, OP_FENCE, 0, NULL, 0, NULL, 0);
  Attr inner[] = {attr_int(i64, 1), attr_float(f32, 2.5f), attr_array(m, 0, NULL)};
  Attr elems[] = {attr_str(m, "q\"uo\\te\n\t\x01\xe9"), attr_sym(m, "has space"), attr_sym(m, "a.b$c"),
                  attr_type(ty_tuple(ctx, 2, params)), attr_bool(false), attr_array(m, 3, inner),
                  attr_type(ty_ptr(ctx, f32, 3)), attr_type(ty_func(ctx, 0, NULL, 0, NULL))};
  ir_op_set_attr(m, g, "scope", attr_str(m, "device"));
  ir_op_set_attr(m, g, "misc", attr_array(m, 8, elems));
  ir_op_set_attr(m, g, "flag", attr_unit());
  Value *sel = ib_select(&b, lt, s, n);
  ib_op(&b, OP_FUNC_RETURN, 0, NULL, 0, NULL, 0);
  (void)sel;
  Op *glob = ir_op_create(m, OP_GLOBAL, srcloc("src.py", 3, 7), 0, NULL, 0, NULL, 0);
  ir_op_set_attr(m, glob, "sym_name", attr_sym(m, "tile"));
  ir_op_set_attr(m, glob, "type", attr_type(arr));
  Attr shape[] = {attr_int(i64, 16), attr_int(i64, 16)};
  ir_op_set_attr(m, glob, "shape", attr_array(m, 2, shape));
  ir_op_set_attr(m, glob, "space", attr_str(m, "shared"));
  ir_block_append(ir_module_body(m), glob);
  ir_module_add_symbol(m, glob);

  for (int debug = 0; debug < 2; debug++) {
    char *p0 = print(m, debug);
    CHECK(!debug || strstr(p0, "loc(unknown)") != NULL);
    CHECK(!debug || strstr(p0, "loc(\"src.py\":3:7)") != NULL);
    Module *back = roundtrip("b.kir", p0);
    if (back) {
      char *p1 = print(back, debug);
      CHECK(strcmp(p0, p1) == 0); /* the parsed module is the built one */
      if (strcmp(p0, p1) != 0) fprintf(stderr, "built:\n%s--- parsed:\n%s", p0, p1);
      mem_free(p1);
      /* values compare equal too, not just their text */
      Op *c2 = ir_func_entry(ir_module_lookup(back, "kernel"))->first;
      CHECK(c2->kind == OP_CONSTANT && ir_op_attr(c2, "value")->i == INT64_MIN);
      Op *f32c = c2->next->next->next->next;
      CHECK(f32c->kind == OP_CONSTANT && ir_op_attr(f32c, "value")->f == (double)0.1f);
      CHECK(ir_module_lookup(back, "tile") != NULL);
      ir_module_free(back);
    }
    mem_free(p0);
  }
  ir_module_free(m);
}

/* ---- forward references ------------------------------------------------------------------------ */

static void test_forward_refs(void) {
  current = "forward references";
  const char *text =
      "func.func() ({\n"
      "^bb0(%n: i64):\n"
      "  cf.br() [^bb2(%n)] : (i64) -> ()\n"
      "^bb1(%k: i64):\n"
      "  %y = arith.addi(%x, %k) : (i64, i64) -> (i64)\n"   /* %x: defined in ^bb2, below */
      "  %z = scf.if(%c) ({\n"
      "    scf.yield(%x) : (i64) -> ()\n"                    /* nested region, forward too */
      "  }, {\n"
      "    scf.yield(%y) : (i64) -> ()\n"
      "  }) : (i1) -> (i64)\n"
      "  func.return(%z) : (i64) -> ()\n"
      "^bb2(%a: i64):\n"
      "  %x = arith.muli(%a, %a) : (i64, i64) -> (i64)\n"
      "  %c = arith.cmpi(%x, %a) {pred = \"sgt\"} : (i64, i64) -> (i1)\n"
      "  cf.cond_br(%c) [^bb1(%x), ^bb3] : (i1, i64) -> ()\n"
      "^bb3:\n"
      "  func.return(%a) : (i64) -> ()\n"
      "}) {sym_name = @f, function_type = (i64) -> (i64)} : () -> ()\n";
  Module *m = roundtrip("fwd.kir", text);
  if (!m) return;
  Op *f = ir_module_lookup(m, "f");
  CHECK(f != NULL);
  Block *b0 = ir_func_entry(f), *b1 = b0->next, *b2 = b1->next, *b3 = b2->next;
  CHECK(b3 && !b3->next);
  Op *add = b1->first, *mul = b2->first, *cmp = mul->next, *cbr = cmp->next, *sif = add->next;
  CHECK(add->kind == OP_ADDI && mul->kind == OP_MULI && cbr->kind == OP_COND_BR && sif->kind == OP_IF);
  CHECK(op_operand(add, 0) == op_result(mul, 0));
  CHECK(op_operand(add, 1) == b1->args[0]);
  CHECK(op_operand(sif, 0) == op_result(cmp, 0));
  CHECK(op_operand(sif->regions[0].first->first, 0) == op_result(mul, 0));
  CHECK(sif->regions[0].parent == sif && sif->regions[0].first->region == &sif->regions[0]);
  CHECK(ir_value_num_uses(op_result(mul, 0)) == 4); /* addi, yield, cmpi, cond_br */
  CHECK(cbr->nsuccessors == 2 && cbr->successors[0] == b1 && cbr->successors[1] == b3);
  CHECK(cbr->succ_operand_count[0] == 1 && cbr->succ_operand_count[1] == 0 && op_num_main_operands(cbr) == 1);
  CHECK(b0->first->successors[0] == b2 && op_operand(b0->first, 0) == b0->args[0]);
  CHECK(b1->region == &f->regions[0] && b2->region == &f->regions[0]);
  /* locations: the op's first token */
  CHECK(add->loc.line == 5 && add->loc.col == 3 && strcmp(add->loc.file, "fwd.kir") == 0);
  CHECK(b0->first->loc.line == 3 && b0->first->loc.col == 3);
  CHECK(f->loc.line == 1 && f->loc.col == 1);
  Diag d;
  diag_init(&d);
  CHECK(ir_verify_module(m, &d));
  if (diag_errors(&d)) fprintf(stderr, "%s", diag_text(&d));
  diag_free(&d);
  ir_module_free(m);
}

/* ---- small valid inputs ------------------------------------------------------------------------ */

static void test_valid_misc(void) {
  current = "empty";
  Diag d;
  diag_init(&d);
  Module *m = parse("e.kir", "", 0, &d);
  CHECK(m && !ir_module_body(m)->first && diag_errors(&d) == 0);
  ir_module_free(m);
  m = parse("e.kir", "// only a comment\n\n  // another", 31, &d);
  CHECK(m && !ir_module_body(m)->first && diag_errors(&d) == 0);
  ir_module_free(m);
  diag_free(&d);

  current = "names, comments, spacing, loc";
  const char *text =
      "// names of every allowed shape, comments everywhere, CRLF and tabs\r\n"
      "func.func() ({   // the body\r\n"
      "^entry.0(%arg0: i64, %x.1$-y: f32):\r\n"
      "\t%0 = arith.constant() {value = -5 : i32} : () -> (i32) loc(\"a \\\"b\\\".py\":12:4)\n"
      "  %r = arith.addi(%arg0,%arg0):(i64,i64)->(i64)loc(unknown)\n"
      "  func.return(%x.1$-y) : (f32) -> ()\n"
      "}) {sym_name = @\"weird name\", function_type = (i64, f32) -> (f32), k1, k2 = [], k3 = [[1, 2], [3]],\n"
      "    big = 18446744073709551615 : u64, f = 1 : f32, e = 1e3, ty = ptr<tuple<i1, u16>, 5>,\n"
      "    vt = vector<f32, 4>, vt1 = tuple<vector<u8, 1>, f32>, s2 = slice2, s3 = tuple<slice3, i64>} : () -> ()\n"
      "mem.global() {sym_name = @g, type = array<f32, 1, C>, shape = [4], space = \"const\", value = [1.0, 2.0, inf, -inf]} : () -> ()\n";
  m = roundtrip("n.kir", text);
  if (m) {
    Op *f = ir_module_lookup(m, "weird name");
    CHECK(f != NULL && ir_module_lookup(m, "g") != NULL);
    if (f) {
      Op *c = ir_func_entry(f)->first;
      CHECK(c->loc.line == 12 && c->loc.col == 4 && strcmp(c->loc.file, "a \"b\".py") == 0);
      CHECK(c->next->loc.file == NULL);
      CHECK(ir_op_attr(f, "k1")->kind == ATTR_UNIT);
      CHECK(ir_op_attr(f, "big")->kind == ATTR_INT && (uint64_t)ir_op_attr(f, "big")->i == UINT64_MAX);
      CHECK(ir_op_attr(f, "f")->kind == ATTR_FLOAT && ir_op_attr(f, "f")->f == 1.0);
      CHECK(ir_op_attr(f, "e")->kind == ATTR_FLOAT && ir_op_attr(f, "e")->f == 1000.0);
      CHECK(ir_op_attr(f, "k3")->arr.n == 2 && ir_op_attr(f, "k3")->arr.elems[0].arr.elems[1].i == 2);
      const Attr *vt = ir_op_attr(f, "vt");
      CHECK(vt && vt->kind == ATTR_TYPE && vt->type->vector && vt->type->n == 4 &&
            vt->type != ty_tuple(ctx, 4, vt->type->elems));
      const Attr *s2 = ir_op_attr(f, "s2"), *s3 = ir_op_attr(f, "s3");
      CHECK(s2 && s2->kind == ATTR_TYPE && s2->type == ty_slice(ctx, false) && s2->type->n == 3 &&
            s2->type != ty_tuple(ctx, 3, s2->type->elems) && s2->type != ty_slice(ctx, true));
      CHECK(s3 && s3->kind == ATTR_TYPE && s3->type->elems[0] == ty_slice(ctx, true));
    }
    ir_module_free(m);
  }

  current = "deep nesting within the limit";
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, "func.func() ({\n^bb0(%c: i1):\n");
  for (int i = 0; i < 200; i++) sb_puts(&b, "scf.if(%c) ({\n");
  for (int i = 0; i < 200; i++) sb_puts(&b, "scf.yield() : () -> ()\n}, {\nscf.yield() : () -> ()\n}) : (i1) -> ()\n");
  sb_puts(&b, "func.return() : () -> ()\n}) {sym_name = @deep, function_type = (i1) -> ()} : () -> ()\n");
  m = roundtrip("deep.kir", sb_cstr(&b));
  ir_module_free(m);
  sb_free(&b);
}

/* ---- malformed inputs ----------------------------------------------------------------------------- */

/* text must fail with `expected` as the first line of the diagnostics, followed by the quoted source line. */
static void expect_error_n(const char *name, const char *text, size_t len, const char *expected) {
  current = name;
  Diag d;
  diag_init(&d);
  Module *m = parse("t.kir", text, len, &d);
  CHECK(m == NULL);
  CHECK(diag_errors(&d) == 1);
  const char *got = diag_text(&d);
  size_t n = strlen(expected);
  bool ok = strncmp(got, expected, n) == 0 && got[n] == '\n';
  CHECK(ok);
  if (!ok) fprintf(stderr, "  expected: %s\n  got:      %s", expected, got);
  /* the quoted line and a caret follow */
  CHECK(memchr(got + n + 1, '^', d.text.len - n - 1) != NULL);
  ir_module_free(m);
  diag_free(&d);
}

static void expect_error(const char *name, const char *text, const char *expected) {
  expect_error_n(name, text, strlen(text), expected);
}

#define FN_OPEN "func.func() ({\n^bb0(%a: i64, %f: f32):\n"
#define FN_CLOSE "  func.return() : () -> ()\n}) : () -> ()\n"

static void test_errors(void) {
  expect_error("unknown op", FN_OPEN "  %r = foo.bar(%a) : (i64) -> (i64)\n" FN_CLOSE,
               "t.kir:3:8: error: unknown op 'foo.bar'");
  expect_error("undefined value", FN_OPEN "  %r = arith.addi(%a, %b) : (i64, i64) -> (i64)\n" FN_CLOSE,
               "t.kir:3:23: error: use of undefined value '%b'");
  expect_error("redefinition", FN_OPEN "  %a = arith.addi(%a, %a) : (i64, i64) -> (i64)\n" FN_CLOSE,
               "t.kir:3:3: error: redefinition of value '%a'");
  expect_error("type mismatch", FN_OPEN "  %r = arith.addf(%f, %a) : (f32, f32) -> (f32)\n" FN_CLOSE,
               "t.kir:3:23: error: type mismatch: '%a' is i64, but the signature says f32");
  expect_error("type mismatch, forward",
               "func.func() ({\n  cf.br() [^bb2] : () -> ()\n^bb1:\n  func.return(%v) : (f32) -> ()\n^bb2:\n"
               "  %v = arith.constant() {value = 1} : () -> (i64)\n  cf.br() [^bb1] : () -> ()\n}) : () -> ()\n",
               "t.kir:6:3: error: type mismatch: '%v' is defined as i64, but was used as f32");
  expect_error("type mismatch, two forward uses",
               "func.func() ({\n  func.return(%v) : (f32) -> ()\n^bb1:\n  func.return(%v) : (i64) -> ()\n}) : () -> ()\n",
               "t.kir:4:15: error: type mismatch: '%v' was used as f32 before, but the signature here says i64");
  expect_error("operand count", FN_OPEN "  %r = arith.addi(%a) : (i64, i64) -> (i64)\n" FN_CLOSE,
               "t.kir:3:8: error: 'arith.addi' has 1 operand but its signature lists 2 operand types");
  expect_error("result count", FN_OPEN "  arith.addi(%a, %a) : (i64, i64) -> (i64)\n" FN_CLOSE,
               "t.kir:3:3: error: 'arith.addi' has 0 results but its signature lists 1 result type");
  expect_error("truncated in a region", "func.func() ({\n  func.return() : () -> ()\n",
               "t.kir:3:1: error: expected '}', found end of file");
  expect_error("truncated in an op", "func.func() ({\n  func.return(", "t.kir:2:15: error: expected an operand (%name), found end of file");
  expect_error("truncated signature", "gpu.barrier() : () ->", "t.kir:1:22: error: expected '(', found end of file");
  expect_error("unbalanced brace", "func.func() ({\n  func.return() : () -> ()\n}}) : () -> ()\n",
               "t.kir:3:2: error: expected ')', found '}'");
  expect_error("stray brace at top level", "gpu.barrier() : () -> ()\n}\n", "t.kir:2:1: error: expected an op, found '}'");
  expect_error("stray character", "gpu.barrier() : () -> () # no\n", "t.kir:1:26: error: expected an op, found '#'");
  expect_error_n("NUL byte", "gpu.barrier(\0) : () -> ()", 25, "t.kir:1:13: error: expected an operand (%name), found a NUL byte");
  expect_error("high byte", "gpu.barrier() : () -> () \xff", "t.kir:1:26: error: expected an op, found byte 0xFF");
  expect_error("bad number", "%c = arith.constant() {value = 12abc} : () -> (i64)",
               "t.kir:1:32: error: invalid number '12abc'");
  expect_error("integer out of range", "%c = arith.constant() {value = 300 : i8} : () -> (i8)",
               "t.kir:1:32: error: integer literal 300 is out of range for i8");
  expect_error("integer overflow", "%c = arith.constant() {value = 99999999999999999999} : () -> (i64)",
               "t.kir:1:32: error: integer literal 99999999999999999999 is out of range for i64");
  expect_error("negative unsigned", "%c = arith.constant() {value = -1 : u32} : () -> (u32)",
               "t.kir:1:32: error: integer literal -1 is out of range for u32");
  expect_error("float with integer type", "%c = arith.constant() {value = 2.5 : i32} : () -> (i32)",
               "t.kir:1:32: error: float literal 2.5 with integer type i32");
  expect_error("float out of range", "%c = arith.constant() {value = 1e39 : f32} : () -> (f32)",
               "t.kir:1:32: error: float literal 1e39 is out of range for f32");
  expect_error("number with a non-numeric type", "%c = arith.constant() {value = 1 : ptr<f32, 1>} : () -> (i64)",
               "t.kir:1:36: error: a number needs an integer or float type, not ptr<f32, 1>");
  expect_error("bad type", "%c = arith.constant() {value = 1} : () -> (i7)", "t.kir:1:44: error: invalid type 'i7'");
  expect_error("bad array type", "%c = mem.alloca() : () -> (array<f32, 9, C>)",
               "t.kir:1:28: error: invalid type 'array<f32, 9, C>'");
  expect_error("not a type", "gpu.barrier() : (%a) -> ()", "t.kir:1:18: error: expected a type, found '%a'");
  expect_error("bad attribute value", "gpu.fence() {scope = } : () -> ()",
               "t.kir:1:22: error: expected an attribute value, found '}'");
  expect_error("bad attribute name", "gpu.fence() {= 1} : () -> ()", "t.kir:1:14: error: expected an attribute name, found '='");
  expect_error("duplicate attribute", "gpu.fence() {scope = \"device\", scope = \"block\"} : () -> ()",
               "t.kir:1:32: error: duplicate attribute 'scope'");
  expect_error("unterminated string", "gpu.fence() {scope = \"device} : () -> ()\ngpu.barrier() : () -> ()\n",
               "t.kir:1:22: error: unterminated string");
  expect_error("bad escape", "gpu.fence() {scope = \"dev\\qice\"} : () -> ()", "t.kir:1:26: error: invalid escape '\\q' in string");
  expect_error("NUL escape", "gpu.fence() {scope = \"dev\\00\"} : () -> ()",
               "t.kir:1:26: error: a string may not contain a NUL byte");
  expect_error("bad symbol", "gpu.fence() {callee = @} : () -> ()", "t.kir:1:23: error: expected a symbol name after '@'");
  expect_error("undefined block", "func.func() ({\n  cf.br() [^bb9] : () -> ()\n}) : () -> ()\n",
               "t.kir:2:12: error: use of undefined block '^bb9'");
  expect_error("redefined block",
               "func.func() ({\n  cf.br() [^bb1] : () -> ()\n^bb1:\n  cf.br() [^bb1] : () -> ()\n^bb1:\n  func.return() : () -> ()\n}) : () -> ()\n",
               "t.kir:5:1: error: redefinition of block '^bb1'");
  expect_error("missing arrow", "gpu.barrier() : () ()", "t.kir:1:20: error: expected '->', found '('");
  expect_error("missing signature", "gpu.barrier()\ngpu.barrier() : () -> ()\n", "t.kir:2:1: error: expected ':', found 'gpu.barrier'");
  expect_error("missing =", FN_OPEN "  %r arith.addi(%a, %a) : (i64, i64) -> (i64)\n" FN_CLOSE,
               "t.kir:3:6: error: expected '=', found 'arith.addi'");
  expect_error("empty value name", FN_OPEN "  func.return(% ) : (i64) -> ()\n" FN_CLOSE, "t.kir:3:15: error: expected a name after '%'");
  expect_error("bad location", "gpu.barrier() : () -> () loc(42)",
               "t.kir:1:30: error: expected a location (\"file\":line:col or unknown), found '42'");
  expect_error("bad location line", "gpu.barrier() : () -> () loc(\"f\":x:1)", "t.kir:1:34: error: expected a line number, found 'x'");
  expect_error("bad block argument", "func.func() ({\n^bb0(%a i64):\n  func.return() : () -> ()\n}) : () -> ()\n",
               "t.kir:2:9: error: expected ':', found 'i64'");

  /* nesting: regions and attribute arrays */
  StrBuf b;
  sb_init(&b);
  sb_puts(&b, "func.func() ");
  for (int i = 0; i < 300; i++) sb_puts(&b, "({\nscf.if() ");
  expect_error("regions nested too deep", sb_cstr(&b), "t.kir:257:11: error: nesting too deep (more than 256 levels)");
  sb_reset(&b);
  sb_puts(&b, "gpu.fence() {x = ");
  for (int i = 0; i < 100000; i++) sb_putc(&b, '[');
  expect_error("arrays nested too deep", sb_cstr(&b), "t.kir:1:274: error: nesting too deep (more than 256 levels)");
  sb_reset(&b);
  sb_puts(&b, "gpu.fence() {t = ");
  for (int i = 0; i < 1000; i++) sb_puts(&b, "ptr<");
  expect_error("types nested too deep", sb_cstr(&b), "t.kir:1:18: error: invalid type 'ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<ptr<'");
  sb_free(&b);

  /* the note on a truncated region points at its brace */
  current = "truncation note";
  Diag d;
  diag_init(&d);
  const char *t = "func.func() ({\n  func.return() : () -> ()\n";
  CHECK(parse("t.kir", t, strlen(t), &d) == NULL);
  CHECK(strstr(diag_text(&d), "t.kir:1:14: note: to close this region\nfunc.func() ({\n             ^\n") != NULL);
  diag_free(&d);
}

/* ---- robustness -------------------------------------------------------------------------------- */

static const char *seed_text =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %n: i64, %m: u32):\n"
    "  %0 = arith.constant() {value = 0} : () -> (i64)\n"
    "  %1 = arith.constant() {value = 1} : () -> (i64)\n"
    "  %z = arith.constant() {value = 0.5 : f32} : () -> (f32)\n"
    "  %s = scf.for(%0, %n, %1, %z) ({\n"
    "  ^bb0(%i: i64, %acc: f32):\n"
    "    check.bounds(%i, %n) {axis = 0} : (i64, i64) -> ()\n"
    "    %v = mem.load(%a, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "    %w = arith.addf(%acc, %v) : (f32, f32) -> (f32)\n"
    "    %c = arith.cmpf(%w, %z) {pred = \"olt\"} : (f32, f32) -> (i1)\n"
    "    %r = scf.if(%c) ({\n"
    "      scf.yield(%w) : (f32) -> ()\n"
    "    }, {\n"
    "      %q = math.sqrt(%w) : (f32) -> (f32)\n"
    "      scf.yield(%q) : (f32) -> ()\n"
    "    }) : (i1) -> (f32)\n"
    "    scf.yield(%r) : (f32) -> ()\n"
    "  }) : (i64, i64, i64, f32) -> (f32)\n"
    "  %t = gpu.shfl(%m, %s, %k, %k) {mode = \"down\"} : (u32, f32, i32, i32) -> (f32)\n"
    "  cf.br() [^bb1(%t)] : (f32) -> ()\n"
    "^bb1(%x: f32):\n"
    "  mem.store(%x, %a, %0) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "^bb2:\n"
    "  %k = gpu.lane_id() : () -> (i32)\n"
    "  cf.br() [^bb1(%z)] : (f32) -> ()\n"
    "}) {sym_name = @k, function_type = (array<f32, 1, C>, i64, u32) -> (), kernel, tag = [\"a\\n\", @\"s s\", -inf, 3 : u8]} : () -> ()\n"
    "mem.global() {sym_name = @g, type = array<f32, 2, C>, shape = [16, 16], space = \"shared\"} : () -> () loc(\"k.py\":3:1)\n";

static unsigned fuzz_parsed, fuzz_failed;

/* Parses one mutant: must not crash; a failure must be one located error; a success must print, and when it
 * verifies, print -> parse -> print must be stable. */
static void fuzz_one(const char *text, size_t len) {
  Diag d;
  diag_init(&d);
  Module *m = parse("f.kir", text, len, &d);
  if (!m) {
    fuzz_failed++;
    const char *msg = diag_text(&d);
    bool located = strncmp(msg, "f.kir:", 6) == 0 && strstr(msg, ": error: ") != NULL;
    CHECK(diag_errors(&d) == 1 && located);
    if (!located) fprintf(stderr, "unlocated: %s\n", msg);
  } else {
    fuzz_parsed++;
    char *p1 = print(m, true);
    Diag vd;
    diag_init(&vd);
    if (ir_verify_module(m, &vd)) {
      Module *m2 = parse("p.kir", p1, strlen(p1), &d);
      CHECK(m2 != NULL);
      if (m2) {
        char *p2 = print(m2, true);
        CHECK(strcmp(p1, p2) == 0);
        mem_free(p2);
        ir_module_free(m2);
      } else {
        fprintf(stderr, "reparse failed: %s\n--- of:\n%s", diag_text(&d), p1);
      }
    }
    diag_free(&vd);
    mem_free(p1);
    ir_module_free(m);
  }
  diag_free(&d);
}

static void test_robustness(void) {
  current = "robustness";
  size_t len = strlen(seed_text);
  {
    Diag d;
    diag_init(&d);
    Module *m = parse("f.kir", seed_text, len, &d);
    CHECK(m != NULL);
    if (!m) fprintf(stderr, "%s", diag_text(&d));
    ir_module_free(m);
    diag_free(&d);
  }
  for (size_t n = 0; n <= len; n++) fuzz_one(seed_text, n);
  static const char interesting[] = "%^@()[]{},:=\"\\\n -0x9.e<>/ ";
  char *buf = malloc(len + 8);
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  for (int iter = 0; iter < 20000; iter++) {
    memcpy(buf, seed_text, len);
    size_t n = len;
    int edits = 1 + iter % 3;
    for (int e = 0; e < edits; e++) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      size_t pos = (size_t)(rng >> 33) % n;
      unsigned r = (unsigned)(rng >> 20);
      switch (r % 4) {
      case 0: buf[pos] = interesting[(r >> 4) % (sizeof interesting - 1)]; break;
      case 1: buf[pos] = (char)(r >> 8); break;
      case 2: memmove(buf + pos, buf + pos + 1, n - pos - 1), n--; break; /* delete a byte */
      default: buf[pos] = buf[(pos + (r >> 8) % 64) % n]; break;          /* copy a nearby byte */
      }
    }
    fuzz_one(buf, n);
  }
  free(buf);
  CHECK(fuzz_failed > 1000 && fuzz_parsed > 100);
  printf("robustness: %u mutants parsed, %u rejected with a located error\n", fuzz_parsed, fuzz_failed);
}

int main(void) {
  ctx = ir_context_new();
  test_examples();
  test_builder_module();
  test_forward_refs();
  test_valid_misc();
  test_errors();
  test_robustness();
  ir_context_free(ctx);
  if (failures) {
    fprintf(stderr, "ir_parse: %d check(s) failed\n", failures);
    return 1;
  }
  printf("ir_parse: all checks passed\n");
  return 0;
}
