/* print.c — kir's text form, the generic syntax of every op:
 *
 *   %0, %1 = dialect.op(%a, %b) [^bb1(%c), ^bb2] ({ region }, { region }) {attr = value} : (ta, tb, tc) -> (t0, t1)
 *
 * Values and blocks are numbered afresh per top-level op (%0, %1, ... and ^bb0, ^bb1, ...) in a first
 * walk, so forward references in unstructured regions print correctly; the numbers live in the scratch
 * `id` fields of Value and Block. A region's entry block prints its `^bbN(...):` header only when it
 * has arguments; every other block always does. With debug_info, each op ends in loc("file":line:col),
 * or loc(unknown) when it has none (so that the parser does not give it its position in the text).
 * The parser (parse.c) reads exactly this, so print -> parse -> print is byte-stable. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ir.h"

typedef struct {
  const IrPrintOptions *opts;
  StrBuf *out;
  unsigned next_value, next_block;
} Printer;

static void number_op(Printer *p, Op *op);

static void number_region(Printer *p, Region *r) {
  for (Block *b = r->first; b; b = b->next) {
    b->id = p->next_block++;
    for (unsigned i = 0; i < b->nargs; i++) b->args[i]->id = p->next_value++;
    for (Op *o = b->first; o; o = o->next) number_op(p, o);
  }
}

static void number_op(Printer *p, Op *op) {
  for (unsigned i = 0; i < op->nresults; i++) op->results[i].id = p->next_value++;
  for (unsigned r = 0; r < op->nregions; r++) number_region(p, &op->regions[r]);
}

static void indent(Printer *p, int depth) {
  for (int i = 0; i < depth; i++) sb_puts(p->out, "  ");
}

static void print_value(Printer *p, const Value *v) {
  if (v) sb_printf(p->out, "%%%u", v->id);
  else sb_puts(p->out, "%<null>");
}

static bool is_bare_ident(const char *s) {
  if (!*s) return false;
  for (const char *c = s; *c; c++) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' || *c == '.' || *c == '$' ||
              (c != s && *c >= '0' && *c <= '9');
    if (!ok) return false;
  }
  return true;
}

static void print_quoted(StrBuf *out, const char *s) {
  sb_putc(out, '"');
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') sb_printf(out, "\\%c", *c);
    else if (*c == '\n') sb_puts(out, "\\n");
    else if (*c == '\t') sb_puts(out, "\\t");
    else if (*c < 0x20 || *c >= 0x7f) sb_printf(out, "\\%02X", *c);
    else sb_putc(out, (char)*c);
  }
  sb_putc(out, '"');
}

static void print_float(StrBuf *out, double f, unsigned bits) {
  if (isnan(f)) { sb_puts(out, "nan"); return; }
  if (isinf(f)) { sb_puts(out, f < 0 ? "-inf" : "inf"); return; }
  char buf[64];
  snprintf(buf, sizeof buf, bits == 64 ? "%.17g" : "%.9g", f);
  /* shortest form that reads back to the same value */
  for (int prec = 1; prec < 17; prec++) {
    char t[64];
    snprintf(t, sizeof t, "%.*g", prec, f);
    double back = strtod(t, NULL);
    if (bits == 64 ? back == f : (float)back == (float)f) {
      memcpy(buf, t, sizeof t);
      break;
    }
  }
  sb_puts(out, buf);
  if (!strpbrk(buf, ".e")) sb_puts(out, ".0");
}

void attr_print(const Attr *a, StrBuf *out) {
  switch (a->kind) {
  case ATTR_UNIT: break;
  case ATTR_BOOL: sb_puts(out, a->b ? "true" : "false"); break;
  case ATTR_INT:
    if (a->type && a->type->kind == TY_INT && a->type->is_unsigned) sb_printf(out, "%llu", (unsigned long long)a->i);
    else sb_printf(out, "%lld", (long long)a->i);
    if (a->type && !(a->type->kind == TY_INT && a->type->bits == 64 && !a->type->is_unsigned)) {
      sb_puts(out, " : ");
      ty_print(a->type, out);
    }
    break;
  case ATTR_FLOAT:
    print_float(out, a->f, a->type ? a->type->bits : 64);
    if (a->type && a->type->bits != 64) {
      sb_puts(out, " : ");
      ty_print(a->type, out);
    }
    break;
  case ATTR_STR: print_quoted(out, a->s); break;
  case ATTR_SYM:
    sb_putc(out, '@');
    if (is_bare_ident(a->s)) sb_puts(out, a->s);
    else print_quoted(out, a->s);
    break;
  case ATTR_TYPE: ty_print(a->type, out); break;
  case ATTR_ARRAY:
    sb_putc(out, '[');
    for (unsigned i = 0; i < a->arr.n; i++) {
      if (i) sb_puts(out, ", ");
      attr_print(&a->arr.elems[i], out);
    }
    sb_putc(out, ']');
    break;
  }
}

static void print_op(Printer *p, Op *op, int depth);

static void print_block_header(Printer *p, Block *b, int depth) {
  indent(p, depth > 0 ? depth - 1 : 0);
  sb_printf(p->out, "^bb%u", b->id);
  if (b->nargs) {
    sb_putc(p->out, '(');
    for (unsigned i = 0; i < b->nargs; i++) {
      if (i) sb_puts(p->out, ", ");
      print_value(p, b->args[i]);
      sb_puts(p->out, ": ");
      ty_print(b->args[i]->type, p->out);
    }
    sb_putc(p->out, ')');
  }
  sb_puts(p->out, ":\n");
}

static void print_region(Printer *p, Region *r, int depth) {
  sb_puts(p->out, "{\n");
  for (Block *b = r->first; b; b = b->next) {
    if (b != r->first || b->nargs) print_block_header(p, b, depth + 1);
    for (Op *o = b->first; o; o = o->next) print_op(p, o, depth + 1);
  }
  indent(p, depth);
  sb_putc(p->out, '}');
}

static void print_op(Printer *p, Op *op, int depth) {
  StrBuf *out = p->out;
  indent(p, depth);
  for (unsigned i = 0; i < op->nresults; i++) {
    if (i) sb_puts(out, ", ");
    print_value(p, &op->results[i]);
  }
  if (op->nresults) sb_puts(out, " = ");
  sb_puts(out, op_name(op));
  sb_putc(out, '(');
  unsigned nmain = op_num_main_operands(op);
  for (unsigned i = 0; i < nmain; i++) {
    if (i) sb_puts(out, ", ");
    print_value(p, op_operand(op, i));
  }
  sb_putc(out, ')');
  if (op->nsuccessors) {
    sb_puts(out, " [");
    unsigned k = nmain;
    for (unsigned s = 0; s < op->nsuccessors; s++) {
      if (s) sb_puts(out, ", ");
      sb_printf(out, "^bb%u", op->successors[s]->id);
      if (op->succ_operand_count[s]) {
        sb_putc(out, '(');
        for (unsigned i = 0; i < op->succ_operand_count[s]; i++, k++) {
          if (i) sb_puts(out, ", ");
          print_value(p, op_operand(op, k));
        }
        sb_putc(out, ')');
      }
    }
    sb_putc(out, ']');
  }
  if (op->nregions) {
    sb_puts(out, " (");
    for (unsigned r = 0; r < op->nregions; r++) {
      if (r) sb_puts(out, ", ");
      print_region(p, &op->regions[r], depth);
    }
    sb_putc(out, ')');
  }
  if (op->nattrs) {
    sb_puts(out, " {");
    for (unsigned i = 0; i < op->nattrs; i++) {
      if (i) sb_puts(out, ", ");
      sb_puts(out, op->attrs[i].name);
      if (op->attrs[i].value.kind != ATTR_UNIT) {
        sb_puts(out, " = ");
        attr_print(&op->attrs[i].value, out);
      }
    }
    sb_putc(out, '}');
  }
  sb_puts(out, " : (");
  for (unsigned i = 0; i < op->noperands; i++) {
    if (i) sb_puts(out, ", ");
    Value *v = op_operand(op, i);
    if (v) ty_print(v->type, out);
    else sb_puts(out, "<null>");
  }
  sb_puts(out, ") -> (");
  for (unsigned i = 0; i < op->nresults; i++) {
    if (i) sb_puts(out, ", ");
    ty_print(op->results[i].type, out);
  }
  sb_putc(out, ')');
  if (p->opts && p->opts->debug_info) {
    if (op->loc.file) {
      sb_puts(out, " loc(");
      print_quoted(out, op->loc.file);
      sb_printf(out, ":%u:%u)", op->loc.line, op->loc.col);
    } else {
      sb_puts(out, " loc(unknown)");
    }
  }
  sb_putc(out, '\n');
}

void ir_print_op(Op *op, const IrPrintOptions *opts, StrBuf *out) {
  Printer p = {opts, out, 0, 0};
  number_op(&p, op);
  print_op(&p, op, 0);
}

void ir_print_module(Module *m, const IrPrintOptions *opts, StrBuf *out) {
  for (Op *op = ir_module_body(m)->first; op; op = op->next) {
    if (op != ir_module_body(m)->first) sb_putc(out, '\n');
    ir_print_op(op, opts, out);
  }
}
