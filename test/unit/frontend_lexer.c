/* frontend_lexer.c — unit tests of frontend/lexer.c: every operator, keyword, numeric and
 * string literal form with its location; layout (INDENT/DEDENT with blank lines, comments,
 * continuations, brackets, tabs, CRLF, end of file); literal values; every lexical error
 * with its exact `file:line:col: error:` text and caret; speed on a large input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/lexer.h"
#include "utils/strbuf.h"
#include "utils/mem.h"

static int passed, failed;

#define CHECK(cond) check((cond), __LINE__, #cond)
static void check(int ok, int line, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "frontend_lexer.c:%d: check failed: %s\n", line, what);
  }
}

#define CHECK_STR(got, want) check_str((got), (want), __LINE__)
static void check_str(const char *got, const char *want, int line) {
  if (strcmp(got, want) == 0) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "frontend_lexer.c:%d: mismatch\n--- want\n%s\n--- got\n%s\n", line, want, got);
  }
}

/* Lexes src completely into a one-line description: `NAME(x)@1:1 =@1:3 INT(1)@1:5 NEWLINE@1:6 ...`.
 * Diagnostics go to *diag_out (the rendered text). */
static char *lex_all(const char *src, char **diag_out) {
  Diag d;
  diag_init(&d);
  diag_add_source(&d, "t.py", src, strlen(src));
  Lexer lx;
  lex_init(&lx, &d, "t.py", src, strlen(src));
  StrBuf b;
  sb_init(&b);
  Token t;
  int guard = 0;
  do {
    lex_next(&lx, &t);
    if (b.len) sb_putc(&b, ' ');
    switch (t.kind) {
    case TK_NAME: case TK_INT: case TK_FLOAT: case TK_IMAG: case TK_STRING: {
      static const char *names[] = {[TK_NAME] = "NAME", [TK_INT] = "INT", [TK_FLOAT] = "FLOAT",
                                    [TK_IMAG] = "IMAG", [TK_STRING] = "STRING"};
      sb_printf(&b, "%s(%.*s)", names[t.kind], (int)t.len, t.text);
      break;
    }
    case TK_EOF: sb_puts(&b, "EOF"); break;
    case TK_NEWLINE: sb_puts(&b, "NEWLINE"); break;
    case TK_INDENT: sb_puts(&b, "INDENT"); break;
    case TK_DEDENT: sb_puts(&b, "DEDENT"); break;
    case TK_ERROR: sb_puts(&b, "ERROR"); break;
    default: sb_puts(&b, lex_token_spelling((TokKind)t.kind));
    }
    sb_printf(&b, "@%u:%u", t.loc.line, t.loc.col);
  } while (t.kind != TK_EOF && ++guard < 10000);
  if (diag_out) *diag_out = strdup(diag_text(&d));
  diag_free(&d);
  return sb_take(&b);
}

static void expect_tokens(const char *src, const char *want, int line) {
  char *diag;
  char *got = lex_all(src, &diag);
  check_str(got, want, line);
  if (diag[0]) {
    failed++;
    fprintf(stderr, "frontend_lexer.c:%d: unexpected diagnostics:\n%s", line, diag);
  }
  mem_free(got);
  free(diag);
}
#define TOKENS(src, want) expect_tokens((src), (want), __LINE__)

/* Lexing src reports exactly `want` (all diagnostics, rendered). */
static void expect_error(const char *src, const char *want, int line) {
  char *diag;
  mem_free(lex_all(src, &diag));
  check_str(diag, want, line);
  free(diag);
}
#define LEX_ERROR(src, want) expect_error((src), (want), __LINE__)

/* The first token of src. */
static Token first_token(const char *src) {
  Lexer lx;
  Token t;
  lex_init(&lx, NULL, "t.py", src, strlen(src));
  lex_next(&lx, &t);
  return t;
}

/* ---- tokens ---- */

static void test_operators(void) {
  static const char *const ops[] = {
#define X(name, spelling) spelling,
      LEX_OPERATORS(X)
#undef X
  };
  size_t n = sizeof ops / sizeof *ops;
  StrBuf src;
  sb_init(&src);
  unsigned cols[128];
  for (size_t i = 0; i < n; i++) {
    cols[i] = (unsigned)src.len + 1;
    sb_puts(&src, ops[i]);
    sb_putc(&src, ' ');
  }
  Lexer lx;
  Diag d;
  diag_init(&d);
  lex_init(&lx, &d, "t.py", src.data, src.len);
  for (size_t i = 0; i < n; i++) {
    Token t;
    lex_next(&lx, &t);
    CHECK(t.kind == TK_FIRST_OPERATOR + i);
    CHECK(t.loc.line == 1 && t.loc.col == cols[i]);
    CHECK(t.len == strlen(ops[i]) && memcmp(t.text, ops[i], t.len) == 0);
    CHECK(strcmp(lex_token_spelling((TokKind)t.kind), ops[i]) == 0);
  }
  CHECK(d.nerrors == 0);
  diag_free(&d);
  sb_free(&src);

  /* longest match without spaces */
  TOKENS("a//=b**=c->d:=e...f<<=g>>=h!=i==j<=k>=l", "NAME(a)@1:1 //=@1:2 NAME(b)@1:5 **=@1:6 NAME(c)@1:9 ->@1:10 "
         "NAME(d)@1:12 :=@1:13 NAME(e)@1:15 ...@1:16 NAME(f)@1:19 <<=@1:20 NAME(g)@1:23 >>=@1:24 NAME(h)@1:27 "
         "!=@1:28 NAME(i)@1:30 ==@1:31 NAME(j)@1:33 <=@1:34 NAME(k)@1:36 >=@1:37 NAME(l)@1:39 NEWLINE@1:40 EOF@1:40");
  TOKENS("x[a:b,...]@y.z", "NAME(x)@1:1 [@1:2 NAME(a)@1:3 :@1:4 NAME(b)@1:5 ,@1:6 ...@1:7 ]@1:10 @@1:11 NAME(y)@1:12 "
         ".@1:13 NAME(z)@1:14 NEWLINE@1:15 EOF@1:15");
  TOKENS("a.b ..", "NAME(a)@1:1 .@1:2 NAME(b)@1:3 .@1:5 .@1:6 NEWLINE@1:7 EOF@1:7");
  CHECK(strcmp(lex_token_name(TK_PLUSEQUAL), "'+='") == 0);
  CHECK(strcmp(lex_token_name(TK_IF), "'if'") == 0);
  CHECK(strcmp(lex_token_name(TK_NAME), "name") == 0);
}

static void test_keywords(void) {
  static const char *const kws[] = {
#define X(name, spelling) spelling,
      LEX_KEYWORDS(X)
#undef X
  };
  for (size_t i = 0; i < sizeof kws / sizeof *kws; i++) {
    Token t = first_token(kws[i]);
    CHECK(t.kind == TK_FIRST_KEYWORD + i);
    CHECK(lex_keyword(kws[i], strlen(kws[i])) == (TokKind)(TK_FIRST_KEYWORD + i));
  }
  /* soft keywords and near-misses are names */
  static const char *const names[] = {"match", "case", "type", "_", "print", "If", "none", "true", "iff", "i",
                                      "async_", "__name__", "élan", "数据", "x1"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    Token t = first_token(names[i]);
    CHECK(t.kind == TK_NAME && t.len == strlen(names[i]));
  }
}

static void test_numbers(void) {
  static const struct { const char *text; TokKind kind; int64_t ival; double fval; } cases[] = {
      {"0", TK_INT, 0, 0}, {"7", TK_INT, 7, 0}, {"1_000", TK_INT, 1000, 0}, {"0xFF", TK_INT, 255, 0},
      {"0XfF", TK_INT, 255, 0}, {"0o17", TK_INT, 15, 0}, {"0O17", TK_INT, 15, 0}, {"0b101", TK_INT, 5, 0},
      {"0B1_0", TK_INT, 2, 0}, {"0x_1f", TK_INT, 31, 0}, {"00", TK_INT, 0, 0}, {"0_0", TK_INT, 0, 0},
      {"9223372036854775807", TK_INT, INT64_MAX, 0},
      {"1e-3", TK_FLOAT, 0, 1e-3}, {"0.", TK_FLOAT, 0, 0.0}, {".5", TK_FLOAT, 0, 0.5}, {"1.5", TK_FLOAT, 0, 1.5},
      {"1E+10", TK_FLOAT, 0, 1e10}, {"1_0.2_5e1_0", TK_FLOAT, 0, 10.25e10}, {"09.5", TK_FLOAT, 0, 9.5},
      {"00e1", TK_FLOAT, 0, 0.0}, {"3.14e-2", TK_FLOAT, 0, 3.14e-2}, {"1e400", TK_FLOAT, 0, 1e300 * 1e300},
      {"1j", TK_IMAG, 0, 1.0}, {"1.5J", TK_IMAG, 0, 1.5}, {"09j", TK_IMAG, 0, 9.0}, {".5e1j", TK_IMAG, 0, 5.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Token t = first_token(cases[i].text);
    CHECK(t.kind == cases[i].kind);
    CHECK(t.len == strlen(cases[i].text));
    if (t.kind == TK_INT) {
      int64_t v;
      CHECK(lex_int_value(&t, &v) == 0 && v == cases[i].ival);
    } else if (t.kind == TK_FLOAT || t.kind == TK_IMAG) {
      CHECK(lex_float_value(&t) == cases[i].fval);
    }
  }
  int64_t v;
  Token t = first_token("9223372036854775808");
  CHECK(lex_int_value(&t, &v) == 1 && (uint64_t)v == 9223372036854775808ull);
  t = first_token("0xFFFF_FFFF_FFFF_FFFF");
  CHECK(lex_int_value(&t, &v) == 1 && (uint64_t)v == UINT64_MAX);
  t = first_token("18446744073709551616");
  CHECK(lex_int_value(&t, &v) == 2);
  t = first_token("123456789012345678901234567890");
  CHECK(t.kind == TK_INT && lex_int_value(&t, &v) == 2);
  /* a number followed directly by a keyword, as CPython accepts */
  TOKENS("1if x else 2", "INT(1)@1:1 if@1:2 NAME(x)@1:5 else@1:7 INT(2)@1:12 NEWLINE@1:13 EOF@1:13");
  TOKENS("0x1for", "INT(0x1f)@1:1 or@1:5 NEWLINE@1:7 EOF@1:7");
  TOKENS("x[1:2]", "NAME(x)@1:1 [@1:2 INT(1)@1:3 :@1:4 INT(2)@1:5 ]@1:6 NEWLINE@1:7 EOF@1:7");
  TOKENS("1 .real", "INT(1)@1:1 .@1:3 NAME(real)@1:4 NEWLINE@1:8 EOF@1:8");
  TOKENS("1..real", "FLOAT(1.)@1:1 .@1:3 NAME(real)@1:4 NEWLINE@1:8 EOF@1:8");
}

static void test_number_errors(void) {
  LEX_ERROR("x = 1_\n", "t.py:1:5: error: invalid decimal literal\nx = 1_\n    ^\n");
  LEX_ERROR("x = 1__0\n", "t.py:1:5: error: invalid decimal literal\nx = 1__0\n    ^\n");
  LEX_ERROR("x = 0x\n", "t.py:1:5: error: invalid hexadecimal literal\nx = 0x\n    ^\n");
  LEX_ERROR("x = 0xg\n", "t.py:1:5: error: invalid hexadecimal literal\nx = 0xg\n    ^\n");
  LEX_ERROR("x = 012\n", "t.py:1:5: error: leading zeros in decimal integer literals are not permitted; use an 0o "
                         "prefix for octal integers\nx = 012\n    ^\n");
  LEX_ERROR("x = 0b102\n", "t.py:1:9: error: invalid digit '2' in binary literal\nx = 0b102\n        ^\n");
  LEX_ERROR("x = 0o8\n", "t.py:1:7: error: invalid digit '8' in octal literal\nx = 0o8\n      ^\n");
  LEX_ERROR("x = 1e\n", "t.py:1:5: error: invalid decimal literal\nx = 1e\n    ^\n");
  LEX_ERROR("x = 1.5abc\n", "t.py:1:5: error: invalid decimal literal\nx = 1.5abc\n    ^\n");
  LEX_ERROR("x = 2jx\n", "t.py:1:5: error: invalid imaginary literal\nx = 2jx\n    ^\n");
  LEX_ERROR("x = 1._5\n", "t.py:1:5: error: invalid decimal literal\nx = 1._5\n    ^\n");
}

/* ---- strings ---- */

static void test_strings(void) {
  static const struct { const char *text; unsigned flags; const char *value; size_t len; } cases[] = {
      {"'abc'", 0, "abc", 3},
      {"\"abc\"", 0, "abc", 3},
      {"''", 0, "", 0},
      {"'''a'b\"c'''", LEXF_TRIPLE, "a'b\"c", 5},
      {"\"\"\"x\ny\"\"\"", LEXF_TRIPLE, "x\ny", 3},
      {"\"\"\"\"\"\"", LEXF_TRIPLE, "", 0},
      {"'a\\'b'", 0, "a'b", 3},
      {"'\\n\\t\\\\\\\"\\a\\b\\f\\v\\r'", 0, "\n\t\\\"\a\b\f\v\r", 9},
      {"'\\x41\\101\\0'", 0, "AA\0", 3},
      {"'\\u00e9\\U0001F600'", 0, "\xC3\xA9\xF0\x9F\x98\x80", 6},
      {"'\\N{DASH}'", 0, "\\N{DASH}", 8},
      {"'\\d\\q'", 0, "\\d\\q", 4},
      {"'a\\\nb'", 0, "ab", 2},
      {"r'\\d\\n'", LEXF_RAW, "\\d\\n", 4},
      {"R'\\''", LEXF_RAW, "\\'", 2},
      {"b'\\x41\\xff'", LEXF_BYTES, "A\xff", 2},
      {"B'\\u0041'", LEXF_BYTES, "\\u0041", 6},
      {"rb'\\x'", LEXF_RAW | LEXF_BYTES, "\\x", 2},
      {"bR'x'", LEXF_RAW | LEXF_BYTES, "x", 1},
      {"Br\"x\"", LEXF_RAW | LEXF_BYTES, "x", 1},
      {"u'x'", LEXF_UNICODE, "x", 1},
      {"U'x'", LEXF_UNICODE, "x", 1},
      {"f'{x}'", LEXF_FSTRING, "{x}", 3},
      {"F'{x!r:>{w}}'", LEXF_FSTRING, "{x!r:>{w}}", 10},
      {"rf'\\d{x}'", LEXF_FSTRING | LEXF_RAW, "\\d{x}", 5},
      {"fR'{x}'", LEXF_FSTRING | LEXF_RAW, "{x}", 3},
      {"f'{{}}'", LEXF_FSTRING, "{{}}", 4},
      {"f\"{x[\"k\"]}\"", LEXF_FSTRING, "{x[\"k\"]}", 8},           /* Python 3.12: same quotes nest */
      {"f'{f'{1}'}'", LEXF_FSTRING, "{f'{1}'}", 8},
      {"f'{\"}\"}'", LEXF_FSTRING, "{\"}\"}", 5},
      {"f'{a:{b}.{c}}'", LEXF_FSTRING, "{a:{b}.{c}}", 11},
      {"f'''{\nx\n}'''", LEXF_FSTRING | LEXF_TRIPLE, "{\nx\n}", 5},
      {"t'{x}'", LEXF_FSTRING, "{x}", 3},
      {"'é'", 0, "\xC3\xA9", 2},
      {"\"void(float32[:], int64)\"", 0, "void(float32[:], int64)", 23},
      {"\"(m,n)->(m,n)\"", 0, "(m,n)->(m,n)", 12},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Token t = first_token(cases[i].text);
    CHECK(t.kind == TK_STRING);
    CHECK(t.len == strlen(cases[i].text));
    CHECK(t.flags == cases[i].flags);
    char out[64];
    const char *bad, *why;
    long n = lex_string_decode(&t, out, &bad, &why);
    if (n != (long)cases[i].len || memcmp(out, cases[i].value, cases[i].len) != 0) {
      failed++;
      fprintf(stderr, "frontend_lexer.c: string case %zu (%s) decoded wrong (%ld bytes)\n", i, cases[i].text, n);
    } else {
      passed++;
    }
  }
  /* malformed escapes are reported by the decoder, with their position */
  static const struct { const char *text; size_t at; const char *why; } bad_cases[] = {
      {"'ab\\x4'", 3, "truncated \\xXX escape"},
      {"'\\u12'", 1, "truncated \\uXXXX escape"},
      {"'\\U0011ffff'", 1, "illegal Unicode character"},
      {"'\\N'", 1, "malformed \\N character escape"},
      {"b'\\xZZ'", 2, "truncated \\xXX escape"},
      {"b'\xc3\xa9'", 2, "bytes can only contain ASCII literal characters"},
  };
  for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
    Token t = first_token(bad_cases[i].text);
    char out[64];
    const char *bad = NULL, *why = NULL;
    CHECK(t.kind == TK_STRING);
    CHECK(lex_string_decode(&t, out, &bad, &why) == -1);
    CHECK(bad == t.text + bad_cases[i].at && why && strcmp(why, bad_cases[i].why) == 0);
  }
  /* a prefix is only a prefix right before a quote */
  TOKENS("rb 'x' br", "NAME(rb)@1:1 STRING('x')@1:4 NAME(br)@1:8 NEWLINE@1:10 EOF@1:10");
  TOKENS("ur'x'", "NAME(ur)@1:1 STRING('x')@1:3 NEWLINE@1:6 EOF@1:6");
  /* tokens after a multi-line string are on the right line */
  TOKENS("x = '''a\nb''' + y\nz", "NAME(x)@1:1 =@1:3 STRING('''a\nb''')@1:5 +@2:6 NAME(y)@2:8 NEWLINE@2:9 NAME(z)@3:1 "
                                 "NEWLINE@3:2 EOF@3:2");
  TOKENS("s = 'a\\\nb' + c", "NAME(s)@1:1 =@1:3 STRING('a\\\nb')@1:5 +@2:4 NAME(c)@2:6 NEWLINE@2:7 EOF@2:7");
  TOKENS("f\"{x:{'}'}}\" + 1", "STRING(f\"{x:{'}'}}\")@1:1 +@1:14 INT(1)@1:16 NEWLINE@1:17 EOF@1:17");
  TOKENS("f'{a # c\n}' 1", "STRING(f'{a # c\n}')@1:1 INT(1)@2:4 NEWLINE@2:5 EOF@2:5");
}

static void test_string_errors(void) {
  LEX_ERROR("x = 'abc\ny = 1\n", "t.py:1:5: error: unterminated string literal (detected at line 1)\nx = 'abc\n    ^\n");
  LEX_ERROR("x = rb\"abc", "t.py:1:5: error: unterminated string literal (detected at line 1)\nx = rb\"abc\n    ^\n");
  LEX_ERROR("x = 1\ns = \"\"\"doc\n\nmore\n",
            "t.py:2:5: error: unterminated triple-quoted string literal (detected at line 5)\ns = \"\"\"doc\n    ^\n");
  LEX_ERROR("f'{x'\n", "t.py:1:1: error: unterminated string literal (detected at line 1)\nf'{x'\n^\n");
  LEX_ERROR("f'{x:abc'\n", "t.py:1:1: error: f-string: expecting '}'\nf'{x:abc'\n^\n");
  /* the file is UTF-8 inside literals and comments too, as Python reads it: a malformed sequence is located */
  LEX_ERROR("s = 'a\xff" "b'\n", "t.py:1:7: error: invalid UTF-8 byte 0xFF\ns = 'a\xff" "b'\n      ^\n");
  LEX_ERROR("s = '''\n\xc3('''\n", "t.py:2:1: error: invalid UTF-8 byte 0xC3\n\xc3('''\n^\n");
  LEX_ERROR("s = 'a\\\xe9'\n", "t.py:1:8: error: invalid UTF-8 byte 0xE9\ns = 'a\\\xe9'\n       ^\n");
  LEX_ERROR("s = f'{x:\xed\xa0\x80}'\n", "t.py:1:10: error: invalid UTF-8 byte 0xED\ns = f'{x:\xed\xa0\x80}'\n         ^\n");
  LEX_ERROR("x = 1  # caf\xe9\n", "t.py:1:13: error: invalid UTF-8 byte 0xE9\nx = 1  # caf\xe9\n            ^\n");
}

/* ---- layout ---- */

static void test_layout(void) {
  TOKENS("if x:\n    y\nz\n", "if@1:1 NAME(x)@1:4 :@1:5 NEWLINE@1:6 INDENT@2:5 NAME(y)@2:5 NEWLINE@2:6 DEDENT@3:1 "
                               "NAME(z)@3:1 NEWLINE@3:2 EOF@4:1");
  /* blank lines, whitespace-only lines and comments at any indentation are not layout */
  TOKENS("def f():\n\n    a = 1\n  # odd comment\n        \n\t\n    # comment\n    b\n\n# end\n",
         "def@1:1 NAME(f)@1:5 (@1:6 )@1:7 :@1:8 NEWLINE@1:9 INDENT@3:5 NAME(a)@3:5 =@3:7 INT(1)@3:9 NEWLINE@3:10 "
         "NAME(b)@8:5 NEWLINE@8:6 DEDENT@11:1 EOF@11:1");
  /* several blocks closed at once, and at end of file without a final newline */
  TOKENS("a:\n b:\n  c:\n   d\ne", "NAME(a)@1:1 :@1:2 NEWLINE@1:3 INDENT@2:2 NAME(b)@2:2 :@2:3 NEWLINE@2:4 INDENT@3:3 "
                                   "NAME(c)@3:3 :@3:4 NEWLINE@3:5 INDENT@4:4 NAME(d)@4:4 NEWLINE@4:5 DEDENT@5:1 DEDENT@5:1 "
                                   "DEDENT@5:1 NAME(e)@5:1 NEWLINE@5:2 EOF@5:2");
  TOKENS("a:\n  b", "NAME(a)@1:1 :@1:2 NEWLINE@1:3 INDENT@2:3 NAME(b)@2:3 NEWLINE@2:4 DEDENT@2:4 EOF@2:4");
  TOKENS("a:\n  b\n  # trailing comment", "NAME(a)@1:1 :@1:2 NEWLINE@1:3 INDENT@2:3 NAME(b)@2:3 NEWLINE@2:4 "
                                          "DEDENT@3:21 EOF@3:21");
  /* brackets join lines; indentation inside them is ignored */
  TOKENS("x = (1,\n  2,\n        3)\ny", "NAME(x)@1:1 =@1:3 (@1:5 INT(1)@1:6 ,@1:7 INT(2)@2:3 ,@2:4 INT(3)@3:9 )@3:10 "
                                         "NEWLINE@3:11 NAME(y)@4:1 NEWLINE@4:2 EOF@4:2");
  TOKENS("f(a,  # comment\n\n  [b,\n{c:\nd}])\n", "NAME(f)@1:1 (@1:2 NAME(a)@1:3 ,@1:4 [@3:3 NAME(b)@3:4 ,@3:5 {@4:1 "
                                                  "NAME(c)@4:2 :@4:3 NAME(d)@5:1 }@5:2 ]@5:3 )@5:4 NEWLINE@5:5 EOF@6:1");
  /* backslash continuation: the next line's indentation does not count */
  TOKENS("if a:\n    x = 1 + \\\n2\n    y\n", "if@1:1 NAME(a)@1:4 :@1:5 NEWLINE@1:6 INDENT@2:5 NAME(x)@2:5 =@2:7 "
                                             "INT(1)@2:9 +@2:11 INT(2)@3:1 NEWLINE@3:2 NAME(y)@4:5 NEWLINE@4:6 "
                                             "DEDENT@5:1 EOF@5:1");
  /* tabs: a tab is one column for locations, and advances to the next multiple of 8 for indentation */
  TOKENS("if x:\n\ty = 1\n\tz\n", "if@1:1 NAME(x)@1:4 :@1:5 NEWLINE@1:6 INDENT@2:2 NAME(y)@2:2 =@2:4 INT(1)@2:6 "
                                  "NEWLINE@2:7 NAME(z)@3:2 NEWLINE@3:3 DEDENT@4:1 EOF@4:1");
  TOKENS("if x:\n\tif y:\n\t    z\n\tw\n", "if@1:1 NAME(x)@1:4 :@1:5 NEWLINE@1:6 INDENT@2:2 if@2:2 NAME(y)@2:5 :@2:6 "
                                            "NEWLINE@2:7 INDENT@3:6 NAME(z)@3:6 NEWLINE@3:7 DEDENT@4:2 NAME(w)@4:2 "
                                            "NEWLINE@4:3 DEDENT@5:1 EOF@5:1");
  /* CRLF and CR line ends, a byte order mark, a form feed */
  TOKENS("\xEF\xBB\xBFif x:\r\n  y\r\nz\r", "if@1:1 NAME(x)@1:4 :@1:5 NEWLINE@1:6 INDENT@2:3 NAME(y)@2:3 NEWLINE@2:4 "
                                            "DEDENT@3:1 NAME(z)@3:1 NEWLINE@3:2 EOF@4:1");
  TOKENS("a\n\x0c\nb\n", "NAME(a)@1:1 NEWLINE@1:2 NAME(b)@3:1 NEWLINE@3:2 EOF@4:1");
  /* semicolons and empty input */
  TOKENS("a; b;\n", "NAME(a)@1:1 ;@1:2 NAME(b)@1:4 ;@1:5 NEWLINE@1:6 EOF@2:1");
  TOKENS("", "EOF@1:1");
  TOKENS("\n\n   \n# only a comment", "EOF@4:17");
  /* UTF-8: columns count characters */
  TOKENS("é = 'ü' + π  # ç\nx", "NAME(é)@1:1 =@1:3 STRING('ü')@1:5 +@1:9 NAME(π)@1:11 NEWLINE@1:17 NAME(x)@2:1 "
                                 "NEWLINE@2:2 EOF@2:2");
  TOKENS("s = '''日本\n語''' ; t", "NAME(s)@1:1 =@1:3 STRING('''日本\n語''')@1:5 ;@2:6 NAME(t)@2:8 NEWLINE@2:9 EOF@2:9");
}

static void test_layout_errors(void) {
  LEX_ERROR("if x:\n    a\n  b\n",
            "t.py:3:3: error: unindent does not match any outer indentation level\n  b\n  ^\n");
  LEX_ERROR("if x:\n        a\n\tb\n", "t.py:3:2: error: inconsistent use of tabs and spaces in indentation\n\tb\n\t^\n");
  LEX_ERROR("if x:\n    a\n\tb\n", "t.py:3:2: error: inconsistent use of tabs and spaces in indentation\n\tb\n\t^\n");
  LEX_ERROR("if x:\n\ta\n        b\n", "t.py:3:9: error: inconsistent use of tabs and spaces in indentation\n"
                                    "        b\n        ^\n");
  LEX_ERROR("x = (1,\n     2\n", "t.py:1:5: error: '(' was never closed\nx = (1,\n    ^\n");
  LEX_ERROR("x = 1)\n", "t.py:1:6: error: unmatched ')'\nx = 1)\n     ^\n");
  LEX_ERROR("x = [1)\n", "t.py:1:7: error: closing parenthesis ')' does not match opening parenthesis '['\n"
                         "x = [1)\n      ^\n");
  LEX_ERROR("x = {1,\n2]\n", "t.py:2:2: error: closing parenthesis ']' does not match opening parenthesis '{' on line 1\n"
                             "2]\n ^\n");
  LEX_ERROR("x = 1 \\ 2\n", "t.py:1:7: error: unexpected character after line continuation character\n"
                            "x = 1 \\ 2\n      ^\n");
  LEX_ERROR("x = 1 + \\", "t.py:1:9: error: unexpected end of file after line continuation character\n"
                          "x = 1 + \\\n        ^\n");
  LEX_ERROR("x = $a\n", "t.py:1:5: error: invalid character '$' (U+0024)\nx = $a\n    ^\n");
  LEX_ERROR("x = a ? b\n", "t.py:1:7: error: invalid character '?' (U+003F)\nx = a ? b\n      ^\n");
  LEX_ERROR("x = `a`\n", "t.py:1:5: error: invalid character '`' (U+0060)\nx = `a`\n    ^\n"
                         "t.py:1:7: error: invalid character '`' (U+0060)\nx = `a`\n      ^\n");
  LEX_ERROR("é = a × b\n", "t.py:1:7: error: invalid character '×' (U+00D7)\né = a × b\n      ^\n");
  LEX_ERROR("s = “x”\n", "t.py:1:5: error: invalid character '“' (U+201C)\ns = “x”\n    ^\n"
                         "t.py:1:7: error: invalid character '”' (U+201D)\ns = “x”\n      ^\n");
  LEX_ERROR("x =\xC2\xA0 1\n", "t.py:1:4: error: invalid non-printable character U+00A0\nx =\xC2\xA0 1\n   ^\n");
  /* control bytes are quoted as \xNN, and the caret follows them */
  LEX_ERROR("x = \x01\n", "t.py:1:5: error: invalid non-printable character U+0001\nx = \\x01\n    ^\n");
  LEX_ERROR("x = \x1b\n", "t.py:1:5: error: invalid non-printable character U+001B\nx = \\x1b\n    ^\n");
  LEX_ERROR("x\x7f = \x01\n", "t.py:1:2: error: invalid non-printable character U+007F\nx\\x7f = \\x01\n ^\n"
                             "t.py:1:6: error: invalid non-printable character U+0001\nx\\x7f = \\x01\n        ^\n");
  LEX_ERROR("x = \xff\n", "t.py:1:5: error: invalid UTF-8 byte 0xFF\nx = \xff\n    ^\n");
  /* nesting limits */
  {
    char deep[LEX_MAX_PAREN + 10];
    memset(deep, '(', sizeof deep - 1);
    deep[sizeof deep - 1] = 0;
    char *diag;
    mem_free(lex_all(deep, &diag));
    const char *want = "t.py:1:201: error: too many nested parentheses\n";
    CHECK(strncmp(diag, want, strlen(want)) == 0);
    free(diag);
  }
  {
    StrBuf src;
    sb_init(&src);
    for (int i = 0; i <= LEX_MAX_INDENT + 1; i++) {
      for (int j = 0; j < i; j++) sb_putc(&src, ' ');
      sb_puts(&src, "if x:\n");
    }
    char *diag;
    mem_free(lex_all(sb_cstr(&src), &diag));
    const char *want = "t.py:102:102: error: too many levels of indentation\n";
    CHECK(strncmp(diag, want, strlen(want)) == 0);
    free(diag);
    sb_free(&src);
  }
}

/* lexing goes on after errors, to the end of the input */
static void test_recovery(void) {
  const char *src = "a = $\nb = 'x\nc = 0x\nd)\ne";
  char *diag;
  char *toks = lex_all(src, &diag);
  CHECK(strstr(toks, "NAME(e)@5:1") != NULL);
  CHECK(strstr(toks, "EOF@5:2") != NULL);
  unsigned n = 0;
  for (const char *s = diag; (s = strstr(s, "error:")); s++) n++;
  CHECK(n == 4);
  mem_free(toks);
  free(diag);
  /* a quiet lexer counts errors without reporting them */
  Diag d;
  diag_init(&d);
  Lexer lx;
  lex_init(&lx, &d, "t.py", src, strlen(src));
  lx.quiet = true;
  Token t;
  do lex_next(&lx, &t);
  while (t.kind != TK_EOF);
  CHECK(lx.nerrors == 4 && d.nerrors == 0);
  diag_free(&d);
}

/* text that starts inside a file (a signature string) keeps the file's locations */
static void test_offset_start(void) {
  const char *sig = "void(float32[:], int64)";
  Lexer lx;
  Token t;
  lex_init_at(&lx, NULL, "k.py", sig, strlen(sig), 12, 16, true);
  lex_next(&lx, &t);
  CHECK(t.kind == TK_NAME && t.loc.line == 12 && t.loc.col == 16);
  lex_next(&lx, &t);
  CHECK(t.kind == TK_LPAR && t.loc.col == 20);
  lex_next(&lx, &t);
  CHECK(t.kind == TK_NAME && t.loc.col == 21);
  const char *multi = "  a\n  b";
  lex_init_at(&lx, NULL, "k.py", multi, strlen(multi), 3, 10, true);
  lex_next(&lx, &t);
  CHECK(t.kind == TK_NAME && t.loc.line == 3 && t.loc.col == 12);
  lex_next(&lx, &t);
  CHECK(t.kind == TK_NEWLINE);
  lex_next(&lx, &t);
  CHECK(t.kind == TK_NAME && t.loc.line == 4 && t.loc.col == 3);
}

static void test_speed(void) {
  StrBuf src;
  sb_init(&src);
  for (int i = 0; i < 20000; i++)
    sb_printf(&src, "def f%d(a, b):\n    x = a[i, j] * 2.5 + b // 3  # comment %d\n    return x\n\n", i, i);
  Lexer lx;
  Diag d;
  diag_init(&d);
  clock_t t0 = clock();
  lex_init(&lx, &d, "big.py", src.data, src.len);
  Token t;
  size_t n = 0;
  do {
    lex_next(&lx, &t);
    n++;
  } while (t.kind != TK_EOF);
  double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
  CHECK(d.nerrors == 0);
  CHECK(n == 20000 * 29 + 1);
  printf("frontend_lexer: %zu tokens from %zu bytes in %.2f ms (%.0f MB/s)\n", n, src.len, s * 1e3,
         s > 0 ? src.len / s / 1e6 : 0.0);
  diag_free(&d);
  sb_free(&src);
}

int main(void) {
  test_operators();
  test_keywords();
  test_numbers();
  test_number_errors();
  test_strings();
  test_string_errors();
  test_layout();
  test_layout_errors();
  test_recovery();
  test_offset_start();
  test_speed();
  printf("frontend_lexer: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
