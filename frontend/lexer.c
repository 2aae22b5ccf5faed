/* lexer.c — the Python 3 tokenizer: one pass over the bytes, one token per lex_next() call.
 *
 * How it works. The Lexer keeps a cursor into the text and CPython's tokenizer state: the
 * indentation stack (measured twice, with tabs to 8 columns and to 1, so that a file whose
 * meaning depends on the tab size is a TabError), the stack of open brackets (inside them
 * newlines are not tokens), and whether the cursor is at the beginning of a logical line.
 * At the beginning of a line, blank and comment-only lines are skipped and INDENT/DEDENT
 * tokens are queued by comparing the indentation with the stack.
 *
 * Columns count characters: UTF-8 continuation bytes are subtracted, counted lazily and
 * only on lines that hold a non-ASCII byte, so ASCII lines cost nothing extra.
 * String literals are delimited here, including f-strings whose replacement fields hold
 * nested strings of the same quote (Python 3.12); their contents are decoded on request. */
#include "frontend/lexer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils/mem.h"

static const char *const token_names[TK_COUNT] = {
#define X(name, spelling) spelling,
    LEX_SPECIAL_TOKENS(X)
#undef X
#define X(name, spelling) "'" spelling "'",
    LEX_KEYWORDS(X) LEX_OPERATORS(X)
#undef X
};

static const char *const token_spellings[TK_COUNT] = {
#define X(name, spelling) NULL,
    LEX_SPECIAL_TOKENS(X)
#undef X
#define X(name, spelling) spelling,
    LEX_KEYWORDS(X) LEX_OPERATORS(X)
#undef X
};

const char *lex_token_name(TokKind kind) { return kind < TK_COUNT ? token_names[kind] : "?"; }
const char *lex_token_spelling(TokKind kind) { return kind < TK_COUNT ? token_spellings[kind] : NULL; }

TokKind lex_keyword(const char *s, size_t n) {
#define KW(str, k) \
  if (n == sizeof(str) - 1 && memcmp(s, str, n) == 0) return k
  if (n < 2 || n > 8) return TK_NAME;
  switch (s[0]) {
  case 'F': KW("False", TK_FALSE); break;
  case 'N': KW("None", TK_NONE); break;
  case 'T': KW("True", TK_TRUE); break;
  case 'a': KW("and", TK_AND); KW("as", TK_AS); KW("assert", TK_ASSERT); KW("async", TK_ASYNC);
            KW("await", TK_AWAIT); break;
  case 'b': KW("break", TK_BREAK); break;
  case 'c': KW("class", TK_CLASS); KW("continue", TK_CONTINUE); break;
  case 'd': KW("def", TK_DEF); KW("del", TK_DEL); break;
  case 'e': KW("elif", TK_ELIF); KW("else", TK_ELSE); KW("except", TK_EXCEPT); break;
  case 'f': KW("finally", TK_FINALLY); KW("for", TK_FOR); KW("from", TK_FROM); break;
  case 'g': KW("global", TK_GLOBAL); break;
  case 'i': KW("if", TK_IF); KW("import", TK_IMPORT); KW("in", TK_IN); KW("is", TK_IS); break;
  case 'l': KW("lambda", TK_LAMBDA); break;
  case 'n': KW("nonlocal", TK_NONLOCAL); KW("not", TK_NOT); break;
  case 'o': KW("or", TK_OR); break;
  case 'p': KW("pass", TK_PASS); break;
  case 'r': KW("raise", TK_RAISE); KW("return", TK_RETURN); break;
  case 't': KW("try", TK_TRY); break;
  case 'w': KW("while", TK_WHILE); KW("with", TK_WITH); break;
  case 'y': KW("yield", TK_YIELD); break;
  }
  return TK_NAME;
#undef KW
}

/* ---- positions and errors ---- */

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ascii_ident(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || is_digit(c);
}

static unsigned col_of(Lexer *lx, const char *p) {
  unsigned extra = 0;
  if (lx->nonascii) {
    if (p >= lx->col_scan) {
      for (const char *q = lx->col_scan; q < p; q++) lx->col_extra += ((unsigned char)*q & 0xC0) == 0x80;
      lx->col_scan = p;
      extra = lx->col_extra;
    } else {
      for (const char *q = lx->line_start; q < p; q++) extra += ((unsigned char)*q & 0xC0) == 0x80;
    }
  }
  unsigned col = (unsigned)(p - lx->line_start) - extra + 1;
  if (lx->line == lx->first_line) col += lx->first_col - 1;
  return col;
}

static SrcLoc loc_of(Lexer *lx, const char *p) { return srcloc(lx->file, lx->line, col_of(lx, p)); }

static void new_line(Lexer *lx, const char *next) {
  lx->line++;
  lx->line_start = lx->col_scan = next;
  lx->col_extra = 0;
  lx->nonascii = false;
}

/* p points at '\n' or '\r'; returns the first byte of the next line. */
static const char *skip_newline(const char *p, const char *end) {
  if (*p == '\r' && p + 1 < end && p[1] == '\n') return p + 2;
  return p + 1;
}

static void lex_error(Lexer *lx, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void lex_error(Lexer *lx, SrcLoc loc, const char *fmt, ...) {
  lx->nerrors++;
  va_list ap;
  va_start(ap, fmt);
  if (lx->quiet) {
    if (!lx->quiet_msg[0]) {
      vsnprintf(lx->quiet_msg, sizeof lx->quiet_msg, fmt, ap);
      lx->quiet_loc = loc;
    }
  } else if (lx->diag) {
    DiagKind prev = diag_set_kind(DIAG_KIND_SYNTAX);
    diag_report(lx->diag, DIAG_ERROR, loc, fmt, ap);
    diag_set_kind(prev);
  }
  va_end(ap);
}

/* Indentation errors are not kept in quiet mode: like CPython, the parser reports its own
 * error rather than an indentation error found further on. */
static void layout_error(Lexer *lx, SrcLoc loc, const char *msg) {
  if (lx->quiet) lx->nerrors++;
  else lex_error(lx, loc, "%s", msg);
}

static void make(Token *t, TokKind kind, SrcLoc loc, const char *text, const char *end) {
  t->loc = loc;
  t->text = text;
  t->len = (uint32_t)(end - text);
  t->kind = (uint16_t)kind;
  t->flags = 0;
}

void lex_init_at(Lexer *lx, Diag *diag, const char *file, const char *text, size_t len, unsigned line,
                 unsigned col, bool no_indent) {
  memset(lx, 0, offsetof(Lexer, paren));
  lx->diag = diag;
  lx->file = file;
  lx->src = lx->cur = text;
  lx->end = text + len;
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) lx->cur += 3; /* UTF-8 byte order mark */
  lx->line_start = lx->col_scan = lx->cur;
  lx->line = lx->first_line = line ? line : 1;
  lx->first_col = col ? col : 1;
  lx->at_bol = true;
  lx->no_indent = no_indent;
  lx->nerrors = 0;
  lx->unclosed = lx->quiet_loc = srcloc(NULL, 0, 0);
  lx->unclosed_char = 0;
  lx->quiet_msg[0] = 0;
}

void lex_init(Lexer *lx, Diag *diag, const char *file, const char *text, size_t len) {
  lex_init_at(lx, diag, file, text, len, 1, 1, false);
}

/* ---- UTF-8 ---- */

/* Decodes one UTF-8 sequence at p; returns its length, 0 if malformed. */
static int utf8_decode(const char *p, const char *end, uint32_t *cp) {
  const unsigned char *s = (const unsigned char *)p;
  size_t avail = (size_t)(end - p);
  if (s[0] < 0x80) { *cp = s[0]; return 1; }
  int n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  if (n == 0 || s[0] > 0xF4 || avail < (size_t)n) return 0;
  uint32_t c = s[0] & (0x7F >> n);
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return n;
}

/* Non-ASCII characters that cannot be part of an identifier but are often pasted into code
 * (no-break spaces, typographic quotes and dashes, math symbols). Others are accepted as
 * identifier characters: kfront does not carry Unicode's XID tables. */
static bool non_ident_codepoint(uint32_t c) {
  return c == 0x00A0 || c == 0x00AB || c == 0x00BB || c == 0x00D7 || c == 0x00F7 || c == 0x00AD ||
         (c >= 0x2000 && c <= 0x206F) || (c >= 0x2190 && c <= 0x23FF) || (c >= 0x2500 && c <= 0x27BF) ||
         (c >= 0x3000 && c <= 0x3003) || c == 0xFEFF || (c >= 0xFF01 && c <= 0xFF0F);
}

static bool non_printable(uint32_t c) {
  return c < 0x20 || c == 0x7F || c == 0x00A0 || c == 0x00AD || (c >= 0x2000 && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202F) || c == 0x3000 || c == 0xFEFF;
}

static void invalid_char(Lexer *lx, Token *t, const char *p, int n, uint32_t cp) {
  SrcLoc loc = loc_of(lx, p);
  if (n == 0)
    lex_error(lx, loc, "invalid UTF-8 byte 0x%02X", (unsigned char)*p);
  else if (non_printable(cp))
    lex_error(lx, loc, "invalid non-printable character U+%04X", (unsigned)cp);
  else
    lex_error(lx, loc, "invalid character '%.*s' (U+%04X)", n, p, (unsigned)cp);
  const char *e = p + (n ? n : 1);
  make(t, TK_ERROR, loc, p, e);
  lx->cur = e;
}

/* Steps over the non-ASCII character at s in a string literal or a comment, which Python reads as UTF-8 as
 * it does the rest of the file: a malformed sequence is an error at its first byte, and the continuation
 * bytes after that byte belong to the same error. */
static const char *skip_utf8(Lexer *lx, const char *s) {
  uint32_t cp;
  int n = utf8_decode(s, lx->end, &cp);
  lx->nonascii = true;
  if (n > 0) return s + n;
  lex_error(lx, loc_of(lx, s), "invalid UTF-8 byte 0x%02X", (unsigned char)*s);
  for (s++; s < lx->end && ((unsigned char)*s & 0xC0) == 0x80; s++) {} /* one error per malformed sequence */
  return s;
}

/* ---- strings ---- */

/* String prefix letters [p, p+n) -> LEXF_* flags, or -1 if they are not a prefix. */
static int string_prefix(const char *p, size_t n) {
  if (n > 2) return -1;
  int flags = 0;
  for (size_t i = 0; i < n; i++) {
    int f;
    switch (p[i]) {
    case 'r': case 'R': f = LEXF_RAW; break;
    case 'b': case 'B': f = LEXF_BYTES; break;
    case 'f': case 'F': case 't': case 'T': f = LEXF_FSTRING; break;
    case 'u': case 'U': f = LEXF_UNICODE; break;
    default: return -1;
    }
    if (flags & f) return -1;
    flags |= f;
  }
  if ((flags & LEXF_UNICODE) && n > 1) return -1;              /* u combines with nothing */
  if ((flags & LEXF_BYTES) && (flags & LEXF_FSTRING)) return -1; /* no bf */
  return flags;
}

static void unterminated(Lexer *lx, SrcLoc start, bool triple) {
  lex_error(lx, start, "unterminated %sstring literal (detected at line %u)", triple ? "triple-quoted " : "",
            lx->line);
}

static const char *skip_string(Lexer *lx, const char *q, int flags, int depth, SrcLoc start);

enum { FSTRING_MAX_DEPTH = 16 };

/* Inside an f-string replacement field, just after its '{'. Skips the expression, the
 * conversion and the format spec (whose own fields nest) up to the closing '}'.
 * Returns the byte after it, or NULL after reporting an error. */
static const char *skip_fexpr(Lexer *lx, const char *s, char quote, bool triple, int depth, SrcLoc start) {
  const char *end = lx->end;
  int brackets = 0;
  bool spec = false;
  if (depth >= FSTRING_MAX_DEPTH) {
    lex_error(lx, start, "f-string: expressions nested too deeply");
    lx->cur = s;
    return NULL;
  }
  for (;;) {
    if (s >= end) { unterminated(lx, start, triple); lx->cur = end; return NULL; }
    unsigned char c = (unsigned char)*s;
    if (c == '\n' || c == '\r') {
      if (spec && !triple) { unterminated(lx, start, triple); lx->cur = s; return NULL; }
      s = skip_newline(s, end);
      new_line(lx, s);
      continue;
    }
    if (c & 0x80) {
      s = skip_utf8(lx, s);
      continue;
    }
    if (spec) { /* format spec: literal text with nested fields */
      if (c == '{') {
        s = skip_fexpr(lx, s + 1, quote, triple, depth + 1, start);
        if (!s) return NULL;
        continue;
      }
      if (c == '}') return s + 1;
      if (c == (unsigned char)quote && (!triple || (s + 2 < end && s[1] == quote && s[2] == quote))) {
        lex_error(lx, start, "f-string: expecting '}'");
        lx->cur = s + (triple ? 3 : 1);
        return NULL;
      }
      s += (c == '\\' && s + 1 < end && s[1] != '\n' && s[1] != '\r') ? 2 : 1;
      continue;
    }
    switch (c) {
    case '\'': case '"':
      s = skip_string(lx, s, 0, depth + 1, start);
      if (!s) return NULL;
      continue;
    case '#':
      while (s < end && *s != '\n' && *s != '\r') s++;
      continue;
    case '(': case '[': case '{': brackets++; break;
    case ')': case ']': if (brackets > 0) brackets--; break;
    case '}':
      if (brackets == 0) return s + 1;
      brackets--;
      break;
    case ':':
      if (brackets == 0) spec = true;
      break;
    case '\\':
      if (s + 1 < end && s[1] != '\n' && s[1] != '\r') s++;
      break;
    default:
      if (is_ascii_ident(c)) { /* a name, or the prefix of a nested string */
        const char *w = s;
        while (s < end && is_ascii_ident((unsigned char)*s)) s++;
        if (s < end && (*s == '\'' || *s == '"')) {
          int f = string_prefix(w, (size_t)(s - w));
          if (f >= 0) {
            s = skip_string(lx, s, f, depth + 1, start);
            if (!s) return NULL;
          }
        }
        continue;
      }
    }
    s++;
  }
}

/* q points at the opening quote of a string with prefix flags `flags`. Returns the byte after
 * the closing quote, or NULL after reporting an error; the failing function leaves lx->cur
 * where lexing can resume. Newlines inside are counted. */
static const char *skip_string(Lexer *lx, const char *q, int flags, int depth, SrcLoc start) {
  const char *end = lx->end;
  char quote = *q;
  bool triple = q + 2 < end && q[1] == quote && q[2] == quote;
  const char *s = q + (triple ? 3 : 1);
  for (;;) {
    if (s >= end) { unterminated(lx, start, triple); lx->cur = end; return NULL; }
    unsigned char c = (unsigned char)*s;
    if (c == (unsigned char)quote) {
      if (!triple) return s + 1;
      if (s + 2 < end && s[1] == quote && s[2] == quote) return s + 3;
      s++;
      continue;
    }
    switch (c) {
    case '\\':
      s++;
      if (s < end) {
        if (*s == '\n' || *s == '\r') {
          s = skip_newline(s, end);
          new_line(lx, s);
        } else {
          s = (unsigned char)*s & 0x80 ? skip_utf8(lx, s) : s + 1;
        }
      }
      continue;
    case '\n': case '\r':
      if (!triple) { unterminated(lx, start, triple); lx->cur = s; return NULL; }
      s = skip_newline(s, end);
      new_line(lx, s);
      continue;
    case '{':
      if (flags & LEXF_FSTRING) {
        if (s + 1 < end && s[1] == '{') { s += 2; continue; }
        s = skip_fexpr(lx, s + 1, quote, triple, depth, start);
        if (!s) return NULL;
        continue;
      }
      break;
    default:
      if (c & 0x80) {
        s = skip_utf8(lx, s);
        continue;
      }
    }
    s++;
  }
}

/* A string literal: prefix [p, q), opening quote at q. */
static void scan_string(Lexer *lx, Token *t, const char *p, const char *q, int flags) {
  SrcLoc loc = loc_of(lx, p);
  const char *e = skip_string(lx, q, flags, 0, loc);
  if (!e) {
    make(t, TK_ERROR, loc, p, lx->cur);
    return;
  }
  make(t, TK_STRING, loc, p, e);
  t->flags = (uint16_t)flags;
  if (q + 2 < lx->end && q[1] == *q && q[2] == *q) t->flags |= LEXF_TRIPLE;
  lx->cur = e;
}

/* ---- numbers ---- */

static int digit_value(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

/* digitpart: digit (['_'] digit)*; with lead_us (after 0x, 0o, 0b): (['_'] digit)+.
 * Returns the end; clears *ok when there is no digit or a '_' is not followed by one. */
static const char *digitpart(const char *s, const char *end, int base, bool lead_us, bool *ok) {
  bool any = false;
  for (;;) {
    const char *u = s;
    if (s < end && *s == '_' && (any || lead_us)) s++;
    if (s < end && digit_value((unsigned char)*s) < base) { s++; any = true; continue; }
    if (s != u) *ok = false;
    break;
  }
  if (!any) *ok = false;
  return s;
}

/* CPython accepts a number followed directly by one of these keywords (`1if x else y`). */
static bool keyword_follows(const char *s, const char *end) {
  static const char *const kws[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
  for (size_t i = 0; i < sizeof kws / sizeof *kws; i++) {
    size_t n = strlen(kws[i]);
    if ((size_t)(end - s) >= n && memcmp(s, kws[i], n) == 0) return true;
  }
  return false;
}

static void scan_number(Lexer *lx, Token *t, const char *p) {
  const char *s = p, *end = lx->end;
  SrcLoc loc = loc_of(lx, p);
  TokKind kind = TK_INT;
  const char *what = "decimal";
  bool ok = true;
  uint16_t flags = 0;
  if (*s == '0' && s + 1 < end && s[1] && strchr("xXoObB", s[1])) {
    int b = s[1] | 0x20;
    int base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
    what = b == 'x' ? "hexadecimal" : b == 'o' ? "octal" : "binary";
    flags = LEXF_HEX;
    s = digitpart(s + 2, end, base, true, &ok);
    if (base < 10 && s < end && is_digit((unsigned char)*s)) {
      lex_error(lx, loc_of(lx, s), "invalid digit '%c' in %s literal", *s, what);
      while (s < end && is_ascii_ident((unsigned char)*s)) s++;
      make(t, TK_ERROR, loc, p, s);
      lx->cur = s;
      return;
    }
  } else {
    bool is_float = false, leading_zero = false;
    if (*s != '.') {
      const char *d0 = s;
      s = digitpart(s, end, 10, false, &ok);
      if (*d0 == '0')
        for (const char *d = d0; d < s; d++) leading_zero |= *d != '0' && *d != '_';
    }
    if (ok && s < end && *s == '.') {
      is_float = true;
      s++;
      if (s < end && is_digit((unsigned char)*s)) s = digitpart(s, end, 10, false, &ok);
    }
    if (ok && s < end && (*s == 'e' || *s == 'E')) {
      const char *e = s + 1;
      if (e < end && (*e == '+' || *e == '-')) e++;
      if (e < end && is_digit((unsigned char)*e)) {
        s = digitpart(e, end, 10, false, &ok);
        is_float = true;
      }
    }
    if (ok && s < end && (*s == 'j' || *s == 'J')) {
      s++;
      kind = TK_IMAG;
      what = "imaginary";
    } else if (is_float) {
      kind = TK_FLOAT;
    } else if (ok && leading_zero) {
      lex_error(lx, loc,
                "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
      make(t, TK_ERROR, loc, p, s);
      lx->cur = s;
      return;
    }
  }
  if (ok && s < end && (is_ascii_ident((unsigned char)*s) || ((unsigned char)*s & 0x80)) && !keyword_follows(s, end))
    ok = false;
  if (!ok) {
    lex_error(lx, loc, "invalid %s literal", what);
    while (s < end && (is_ascii_ident((unsigned char)*s) || *s == '.')) s++;
    make(t, TK_ERROR, loc, p, s);
    lx->cur = s;
    return;
  }
  make(t, kind, loc, p, s);
  t->flags = flags;
  lx->cur = s;
}

/* ---- layout ---- */

/* At the beginning of a logical line: skip blank and comment-only lines, measure the
 * indentation and queue INDENT/DEDENT. Returns true when *t holds a token. */
static bool indentation(Lexer *lx, Token *t) {
  const char *end = lx->end;
  for (;;) {
    const char *p = lx->cur;
    int col = 0, altcol = 0;
    for (; p < end; p++) {
      if (*p == ' ') col++, altcol++;
      else if (*p == '\t') col = (col / 8 + 1) * 8, altcol++;
      else if (*p == '\f') col = altcol = 0;
      else break;
    }
    if (p < end && *p == '#') {
      while (p < end && *p != '\n' && *p != '\r') p++;
    }
    if (p == end) { lx->cur = p; lx->at_bol = false; return false; }
    if (*p == '\n' || *p == '\r') {
      p = skip_newline(p, end);
      new_line(lx, p);
      lx->cur = p;
      continue;
    }
    lx->cur = p;
    lx->at_bol = false;
    if (lx->no_indent) return false;
    if (lx->base_indent) { /* the first logical line of a fragment: its indentation is level 0 */
      lx->base_indent = false;
      lx->indent[0] = col;
      lx->altindent[0] = altcol;
    }
    SrcLoc loc = loc_of(lx, p);
    int top = lx->indent[lx->nindent], alttop = lx->altindent[lx->nindent];
    if (col == top) {
      if (altcol != alttop) goto tab_error;
      return false;
    }
    if (col > top) {
      if (lx->nindent == LEX_MAX_INDENT) {
        layout_error(lx, loc, "too many levels of indentation");
        make(t, TK_ERROR, loc, lx->line_start, p);
        return true;
      }
      if (altcol <= alttop) goto tab_error;
      lx->nindent++;
      lx->indent[lx->nindent] = col;
      lx->altindent[lx->nindent] = altcol;
      make(t, TK_INDENT, loc, lx->line_start, p);
      return true;
    }
    while (lx->nindent > 0 && col < lx->indent[lx->nindent]) {
      lx->nindent--;
      lx->pending_dedents++;
    }
    if (col != lx->indent[lx->nindent]) {
      layout_error(lx, loc, "unindent does not match any outer indentation level");
      lx->pending_dedents = 0;
      make(t, TK_ERROR, loc, lx->line_start, p);
      return true;
    }
    if (altcol != lx->altindent[lx->nindent]) goto tab_error;
    lx->pending_dedents--;
    make(t, TK_DEDENT, loc, p, p);
    return true;
  tab_error:
    layout_error(lx, loc, "inconsistent use of tabs and spaces in indentation");
    make(t, TK_ERROR, loc, lx->line_start, p);
    return true;
  }
}

static void end_of_input(Lexer *lx, Token *t) {
  const char *p = lx->end;
  SrcLoc loc = loc_of(lx, p);
  if (lx->nparen > 0) {
    int i = lx->nparen - 1;
    lx->unclosed = srcloc(lx->file, lx->paren_line[i], lx->paren_col[i]);
    lx->unclosed_char = lx->paren[i];
    if (lx->quiet) lx->nerrors++; /* the parser decides how to report it */
    else lex_error(lx, lx->unclosed, "'%c' was never closed", lx->paren[i]);
    lx->nparen = 0;
    make(t, TK_ERROR, lx->unclosed, p, p);
    return;
  }
  if (lx->line_has_tokens) {
    lx->line_has_tokens = false;
    make(t, TK_NEWLINE, loc, p, p);
    return;
  }
  if (lx->nindent > 0) {
    lx->pending_dedents = lx->nindent - 1;
    lx->nindent = 0;
    make(t, TK_DEDENT, loc, p, p);
    return;
  }
  lx->done = true;
  make(t, TK_EOF, loc, p, p);
}

/* ---- brackets ---- */

static void open_paren(Lexer *lx, Token *t, const char *p) {
  if (lx->nparen == LEX_MAX_PAREN) {
    lex_error(lx, t->loc, "too many nested parentheses");
    t->kind = TK_ERROR;
    return;
  }
  lx->paren[lx->nparen] = *p;
  lx->paren_line[lx->nparen] = t->loc.line;
  lx->paren_col[lx->nparen] = t->loc.col;
  lx->nparen++;
}

static void close_paren(Lexer *lx, Token *t, const char *p) {
  if (lx->nparen == 0) {
    lex_error(lx, t->loc, "unmatched '%c'", *p);
    t->kind = TK_ERROR;
    return;
  }
  int i = --lx->nparen;
  char open = lx->paren[i];
  char want = open == '(' ? ')' : open == '[' ? ']' : '}';
  if (*p != want) {
    if (lx->paren_line[i] != t->loc.line)
      lex_error(lx, t->loc, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %u", *p, open,
                lx->paren_line[i]);
    else
      lex_error(lx, t->loc, "closing parenthesis '%c' does not match opening parenthesis '%c'", *p, open);
    t->kind = TK_ERROR;
  }
}

/* A name with non-ASCII characters: [p, q) is already known to belong to it. */
static void scan_name(Lexer *lx, Token *t, const char *p, const char *q) {
  const char *end = lx->end;
  lx->nonascii = true;
  SrcLoc loc = loc_of(lx, p);
  while (q < end) {
    unsigned char d = (unsigned char)*q;
    if (is_ascii_ident(d)) { q++; continue; }
    if (d < 0x80) break;
    uint32_t cp;
    int n = utf8_decode(q, end, &cp);
    if (n == 0 || non_ident_codepoint(cp)) break;
    q += n;
  }
  make(t, TK_NAME, loc, p, q);
  lx->cur = q;
}

/* ---- the tokenizer ---- */

void lex_next(Lexer *lx, Token *t) {
  const char *end = lx->end;
  for (;;) {
    if (lx->pending_dedents > 0) {
      lx->pending_dedents--;
      make(t, TK_DEDENT, loc_of(lx, lx->cur), lx->cur, lx->cur);
      return;
    }
    if (lx->done) {
      make(t, TK_EOF, loc_of(lx, end), end, end);
      return;
    }
    if (lx->at_bol && lx->nparen == 0 && indentation(lx, t)) return;
    const char *p = lx->cur;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\f')) p++;
    lx->cur = p;
    if (p == end) {
      end_of_input(lx, t);
      return;
    }
    unsigned char c = (unsigned char)*p;
    if (c == '#') {
      while (p < end && *p != '\n' && *p != '\r') p = (unsigned char)*p & 0x80 ? skip_utf8(lx, p) : p + 1;
      lx->cur = p;
      continue;
    }
    if (c == '\n' || c == '\r') {
      const char *next = skip_newline(p, end);
      bool emit = lx->nparen == 0 && lx->line_has_tokens;
      if (emit) make(t, TK_NEWLINE, loc_of(lx, p), p, next);
      new_line(lx, next);
      lx->cur = next;
      if (lx->nparen == 0) lx->at_bol = true;
      if (emit) {
        lx->line_has_tokens = false;
        return;
      }
      continue;
    }
    if (c == '\\') {
      const char *q = p + 1;
      if (q < end && (*q == '\n' || *q == '\r')) {
        q = skip_newline(q, end);
        new_line(lx, q);
        lx->cur = q;
        continue;
      }
      SrcLoc loc = loc_of(lx, p);
      if (q == end)
        lex_error(lx, loc, "unexpected end of file after line continuation character");
      else
        lex_error(lx, loc, "unexpected character after line continuation character");
      make(t, TK_ERROR, loc, p, q);
      lx->cur = q;
      return;
    }
    lx->line_has_tokens = true;

    /* names, keywords and prefixed strings */
    if (is_ascii_ident(c) && !is_digit(c)) {
      const char *q = p + 1;
      while (q < end && is_ascii_ident((unsigned char)*q)) q++;
      if (q < end && (*q == '\'' || *q == '"')) {
        int flags = string_prefix(p, (size_t)(q - p));
        if (flags >= 0) {
          scan_string(lx, t, p, q, flags);
          return;
        }
      }
      if (q == end || !((unsigned char)*q & 0x80)) {
        make(t, lex_keyword(p, (size_t)(q - p)), loc_of(lx, p), p, q);
        lx->cur = q;
        return;
      }
      scan_name(lx, t, p, q);
      return;
    }
    if (c >= 0x80) {
      uint32_t cp = 0;
      int n = utf8_decode(p, end, &cp);
      if (n == 0 || non_ident_codepoint(cp)) {
        invalid_char(lx, t, p, n, cp);
        return;
      }
      scan_name(lx, t, p, p);
      return;
    }
    if (c == '\'' || c == '"') {
      scan_string(lx, t, p, p, 0);
      return;
    }
    if (is_digit(c) || (c == '.' && p + 1 < end && is_digit((unsigned char)p[1]))) {
      scan_number(lx, t, p);
      return;
    }

    /* operators and delimiters: longest match */
    SrcLoc loc = loc_of(lx, p);
    char c1 = p + 1 < end ? p[1] : 0, c2 = p + 2 < end ? p[2] : 0;
    TokKind k;
    int n = 1;
#define OP3(a, b, kk) if (c1 == (a) && c2 == (b)) { k = kk; n = 3; break; }
#define OP2(a, kk) if (c1 == (a)) { k = kk; n = 2; break; }
    switch (c) {
    case '(': k = TK_LPAR; break;
    case ')': k = TK_RPAR; break;
    case '[': k = TK_LSQB; break;
    case ']': k = TK_RSQB; break;
    case '{': k = TK_LBRACE; break;
    case '}': k = TK_RBRACE; break;
    case ',': k = TK_COMMA; break;
    case ';': k = TK_SEMI; break;
    case '~': k = TK_TILDE; break;
    case '.': OP3('.', '.', TK_ELLIPSIS); k = TK_DOT; break;
    case ':': OP2('=', TK_COLONEQUAL); k = TK_COLON; break;
    case '=': OP2('=', TK_EQEQUAL); k = TK_EQUAL; break;
    case '!': OP2('=', TK_NOTEQUAL); k = TK_EXCLAMATION; break;
    case '+': OP2('=', TK_PLUSEQUAL); k = TK_PLUS; break;
    case '-': OP2('=', TK_MINEQUAL); OP2('>', TK_RARROW); k = TK_MINUS; break;
    case '*': OP3('*', '=', TK_DOUBLESTAREQUAL); OP2('*', TK_DOUBLESTAR); OP2('=', TK_STAREQUAL); k = TK_STAR; break;
    case '/': OP3('/', '=', TK_DOUBLESLASHEQUAL); OP2('/', TK_DOUBLESLASH); OP2('=', TK_SLASHEQUAL); k = TK_SLASH; break;
    case '%': OP2('=', TK_PERCENTEQUAL); k = TK_PERCENT; break;
    case '@': OP2('=', TK_ATEQUAL); k = TK_AT; break;
    case '&': OP2('=', TK_AMPEREQUAL); k = TK_AMPER; break;
    case '|': OP2('=', TK_VBAREQUAL); k = TK_VBAR; break;
    case '^': OP2('=', TK_CIRCUMFLEXEQUAL); k = TK_CIRCUMFLEX; break;
    case '<': OP3('<', '=', TK_LEFTSHIFTEQUAL); OP2('<', TK_LSHIFT); OP2('=', TK_LESSEQUAL); k = TK_LESS; break;
    case '>': OP3('>', '=', TK_RIGHTSHIFTEQUAL); OP2('>', TK_RSHIFT); OP2('=', TK_GREATEREQUAL); k = TK_GREATER; break;
    default:
      invalid_char(lx, t, p, 1, c);
      return;
    }
#undef OP2
#undef OP3
    make(t, k, loc, p, p + n);
    lx->cur = p + n;
    if (k == TK_LPAR || k == TK_LSQB || k == TK_LBRACE) open_paren(lx, t, p);
    else if (k == TK_RPAR || k == TK_RSQB || k == TK_RBRACE) close_paren(lx, t, p);
    return;
  }
}

/* ---- literal values ---- */

int lex_int_value(const Token *t, int64_t *out) {
  const char *s = t->text, *end = t->text + t->len;
  unsigned base = 10;
  if (t->len > 1 && s[0] == '0' && s[1] && strchr("xXoObB", s[1])) {
    int b = s[1] | 0x20;
    base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
    s += 2;
  }
  uint64_t v = 0;
  int big = 0;
  for (; s < end; s++) {
    if (*s == '_') continue;
    unsigned d = (unsigned)digit_value((unsigned char)*s);
    if (d >= base) break;
    if (v > (UINT64_MAX - d) / base) big = 2;
    v = v * base + d;
  }
  if (!big && v > (uint64_t)INT64_MAX) big = 1;
  *out = (int64_t)v;
  return big;
}

double lex_float_value(const Token *t) {
  char small[128];
  char *buf = t->len < sizeof small ? small : mem_alloc(t->len + 1);
  if (!buf) return 0.0;
  size_t n = 0;
  for (uint32_t i = 0; i < t->len; i++) {
    char c = t->text[i];
    if (c == '_') continue;
    if (c == 'j' || c == 'J') break;
    buf[n++] = c;
  }
  buf[n] = 0;
  double v = strtod(buf, NULL); /* the text is validated: digits, '.', exponent (C locale assumed) */
  if (buf != small) mem_free(buf);
  return v;
}

void lex_string_body(const Token *t, const char **body, size_t *len) {
  const char *s = t->text, *end = t->text + t->len;
  while (s < end && *s != '\'' && *s != '"') s++;
  size_t q = (t->flags & LEXF_TRIPLE) ? 3 : 1;
  if ((size_t)(end - s) < 2 * q) { *body = s; *len = 0; return; }
  *body = s + q;
  *len = (size_t)(end - s) - 2 * q;
}

static char *put_utf8(char *o, uint32_t c) {
  if (c < 0x80) { *o++ = (char)c; }
  else if (c < 0x800) { *o++ = (char)(0xC0 | c >> 6); *o++ = (char)(0x80 | (c & 0x3F)); }
  else if (c < 0x10000) {
    *o++ = (char)(0xE0 | c >> 12); *o++ = (char)(0x80 | ((c >> 6) & 0x3F)); *o++ = (char)(0x80 | (c & 0x3F));
  } else {
    *o++ = (char)(0xF0 | c >> 18); *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
    *o++ = (char)(0x80 | ((c >> 6) & 0x3F)); *o++ = (char)(0x80 | (c & 0x3F));
  }
  return o;
}

long lex_string_decode(const Token *t, char *out, const char **bad, const char **why) {
  const char *s, *end;
  size_t len;
  lex_string_body(t, &s, &len);
  end = s + len;
  bool bytes = (t->flags & LEXF_BYTES) != 0;
  char *o = out;
  if (bytes) {
    for (const char *q = s; q < end; q++)
      if ((unsigned char)*q >= 0x80) { *bad = q; *why = "bytes can only contain ASCII literal characters"; return -1; }
  }
  if (t->flags & (LEXF_RAW | LEXF_FSTRING)) {
    memcpy(out, s, len);
    out[len] = 0;
    return (long)len;
  }
  while (s < end) {
    if (*s != '\\' || s + 1 >= end) { *o++ = *s++; continue; }
    const char *bs = s;
    char c = s[1];
    s += 2;
    switch (c) {
    case '\n': continue;
    case '\r': if (s < end && *s == '\n') s++; continue;
    case '\\': *o++ = '\\'; continue;
    case '\'': *o++ = '\''; continue;
    case '"': *o++ = '"'; continue;
    case 'a': *o++ = '\a'; continue;
    case 'b': *o++ = '\b'; continue;
    case 'f': *o++ = '\f'; continue;
    case 'n': *o++ = '\n'; continue;
    case 'r': *o++ = '\r'; continue;
    case 't': *o++ = '\t'; continue;
    case 'v': *o++ = '\v'; continue;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      uint32_t v = (uint32_t)(c - '0');
      for (int i = 0; i < 2 && s < end && *s >= '0' && *s <= '7'; i++) v = v * 8 + (uint32_t)(*s++ - '0');
      if (bytes) *o++ = (char)(v & 0xFF);
      else o = put_utf8(o, v);
      continue;
    }
    case 'x': case 'u': case 'U': {
      int n = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      if (c != 'x' && bytes) { *o++ = '\\'; *o++ = c; continue; }
      uint32_t v = 0;
      for (int i = 0; i < n; i++) {
        int d = s + i < end ? digit_value((unsigned char)s[i]) : 99;
        if (d >= 16) {
          *bad = bs;
          *why = c == 'x' ? "truncated \\xXX escape" : c == 'u' ? "truncated \\uXXXX escape"
                                                                : "truncated \\UXXXXXXXX escape";
          return -1;
        }
        v = v * 16 + (uint32_t)d;
      }
      s += n;
      if (v > 0x10FFFF) { *bad = bs; *why = "illegal Unicode character"; return -1; }
      if (bytes) *o++ = (char)v;
      else o = put_utf8(o, v);
      continue;
    }
    case 'N':
      if (!bytes) {
        const char *r = s;
        if (r < end && *r == '{') {
          while (r < end && *r != '}') r++;
        }
        if (r >= end || *s != '{' || r == s + 1) { *bad = bs; *why = "malformed \\N character escape"; return -1; }
        memcpy(o, bs, (size_t)(r + 1 - bs));
        o += r + 1 - bs;
        s = r + 1;
        continue;
      }
      /* fall through */
    default: /* unknown escape: kept as written */
      *o++ = '\\';
      *o++ = c;
      continue;
    }
  }
  *o = 0;
  return (long)(o - out);
}
