/* lexer.h — the Python 3 tokenizer of the frontend.
 *
 * lex_next() turns source bytes into tokens in one pass, on demand, with no allocation:
 * a Token is a span of the source text (text/len) plus its kind, flags and location.
 * Layout is tokenized as Python does: NEWLINE ends a logical line, INDENT and DEDENT
 * bracket indented blocks (tabs advance to the next multiple of 8; a file whose meaning
 * depends on the tab size is an error, as in CPython), blank and comment-only lines are
 * skipped, newlines inside (), [] and {} and after a backslash join lines.
 *
 * Literals are only delimited and validated here; their values are decoded on request by
 * lex_int_value(), lex_float_value() and lex_string_decode() (the parser calls them).
 * Every error is reported to the Diag with its location (`file:line:col: error: ...`)
 * and comes back as a TK_ERROR token; lexing can go on after it. With base_indent set, the text
 * may be indented as a whole (one nested function's lines): its first logical line sets level 0.
 * Columns are 1-based and count characters (a UTF-8 sequence or a tab counts as one). */
#ifndef KF_FRONTEND_LEXER_H
#define KF_FRONTEND_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utils/arena.h"
#include "utils/diag.h"

/* X(NAME, spelling): token kinds without fixed spelling, keywords, then operators. */
#define LEX_SPECIAL_TOKENS(X)                                                               \
  X(EOF, "end of file") X(NEWLINE, "newline") X(INDENT, "indent") X(DEDENT, "dedent")     \
  X(NAME, "name") X(INT, "integer") X(FLOAT, "float") X(IMAG, "imaginary number")         \
  X(STRING, "string") X(ERROR, "invalid token")

#define LEX_KEYWORDS(X)                                                                      \
  X(FALSE, "False") X(NONE, "None") X(TRUE, "True") X(AND, "and") X(AS, "as")             \
  X(ASSERT, "assert") X(ASYNC, "async") X(AWAIT, "await") X(BREAK, "break")               \
  X(CLASS, "class") X(CONTINUE, "continue") X(DEF, "def") X(DEL, "del") X(ELIF, "elif")   \
  X(ELSE, "else") X(EXCEPT, "except") X(FINALLY, "finally") X(FOR, "for") X(FROM, "from") \
  X(GLOBAL, "global") X(IF, "if") X(IMPORT, "import") X(IN, "in") X(IS, "is")             \
  X(LAMBDA, "lambda") X(NONLOCAL, "nonlocal") X(NOT, "not") X(OR, "or") X(PASS, "pass")   \
  X(RAISE, "raise") X(RETURN, "return") X(TRY, "try") X(WHILE, "while") X(WITH, "with")   \
  X(YIELD, "yield")

#define LEX_OPERATORS(X)                                                                     \
  X(LPAR, "(") X(RPAR, ")") X(LSQB, "[") X(RSQB, "]") X(LBRACE, "{") X(RBRACE, "}")       \
  X(COMMA, ",") X(COLON, ":") X(SEMI, ";") X(DOT, ".") X(ELLIPSIS, "...") X(AT, "@")      \
  X(EQUAL, "=") X(RARROW, "->") X(COLONEQUAL, ":=") X(EXCLAMATION, "!")                   \
  X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(DOUBLESLASH, "//")              \
  X(PERCENT, "%") X(DOUBLESTAR, "**") X(LSHIFT, "<<") X(RSHIFT, ">>") X(AMPER, "&")       \
  X(VBAR, "|") X(CIRCUMFLEX, "^") X(TILDE, "~")                                           \
  X(LESS, "<") X(GREATER, ">") X(LESSEQUAL, "<=") X(GREATEREQUAL, ">=")                   \
  X(EQEQUAL, "==") X(NOTEQUAL, "!=")                                                      \
  X(PLUSEQUAL, "+=") X(MINEQUAL, "-=") X(STAREQUAL, "*=") X(SLASHEQUAL, "/=")             \
  X(DOUBLESLASHEQUAL, "//=") X(PERCENTEQUAL, "%=") X(DOUBLESTAREQUAL, "**=")              \
  X(ATEQUAL, "@=") X(AMPEREQUAL, "&=") X(VBAREQUAL, "|=") X(CIRCUMFLEXEQUAL, "^=")        \
  X(LEFTSHIFTEQUAL, "<<=") X(RIGHTSHIFTEQUAL, ">>=")

typedef enum TokKind {
#define X(name, spelling) TK_##name,
  LEX_SPECIAL_TOKENS(X) LEX_KEYWORDS(X) LEX_OPERATORS(X)
#undef X
  TK_COUNT
} TokKind;

enum {
  TK_FIRST_KEYWORD = TK_FALSE,
  TK_LAST_KEYWORD = TK_YIELD,
  TK_FIRST_OPERATOR = TK_LPAR,
};

/* Token flags. Strings: which prefix letters, and whether triple-quoted. */
enum {
  LEXF_RAW = 1 << 0,     /* r/R: backslashes kept */
  LEXF_BYTES = 1 << 1,   /* b/B */
  LEXF_FSTRING = 1 << 2, /* f/F: formatted string (also t/T template strings) */
  LEXF_UNICODE = 1 << 3, /* u/U (no effect in Python 3) */
  LEXF_TRIPLE = 1 << 4,  /* ''' or """ */
  LEXF_HEX = 1 << 5,     /* INT with 0x/0o/0b prefix: base in the text */
};

typedef struct Token {
  SrcLoc loc;       /* first character; INDENT/DEDENT: the first token of the line */
  const char *text; /* span in the source (empty for INDENT/DEDENT/EOF, NEWLINE at EOF) */
  uint32_t len;
  uint16_t kind;    /* TokKind */
  uint16_t flags;   /* LEXF_* */
} Token;

enum { LEX_MAX_INDENT = 100, LEX_MAX_PAREN = 200 };

/* All lexer state; nothing global, so lexers on different threads do not interact.
 * Fields are private to lexer.c except where noted. */
typedef struct Lexer {
  Diag *diag;
  const char *file;
  const char *src, *end, *cur;
  const char *line_start;  /* first byte of the current physical line */
  const char *col_scan;    /* bytes before this on the line were counted for columns */
  unsigned col_extra;      /* UTF-8 continuation bytes seen on the line before col_scan */
  unsigned line;
  unsigned first_line, first_col; /* where the text starts (lex_init_at) */
  bool nonascii;           /* the current line has a byte >= 0x80 */
  bool at_bol;             /* at the beginning of a logical line: measure indentation */
  bool line_has_tokens;    /* a token was produced since the last NEWLINE */
  bool done;               /* EOF was returned */
  bool no_indent;          /* expression mode: no INDENT/DEDENT, leading blanks ignored */
  bool base_indent;        /* public, set after lex_init: the first logical line's indentation is the
                            * base level (a fragment of a file: one function's lines, possibly indented) */
  bool quiet;              /* errors are counted and the first one kept, not reported */
  int nindent;             /* indentation stack: indent[0] = 0 */
  int indent[LEX_MAX_INDENT + 1], altindent[LEX_MAX_INDENT + 1];
  int pending_dedents;
  int nparen;              /* open brackets, innermost last */
  char paren[LEX_MAX_PAREN];
  unsigned paren_line[LEX_MAX_PAREN], paren_col[LEX_MAX_PAREN];
  unsigned nerrors;        /* public: errors found so far */
  SrcLoc unclosed;         /* public: after EOF, the innermost bracket never closed (line 0: none) */
  char unclosed_char;
  SrcLoc quiet_loc;        /* public: in quiet mode, the first error other than an unclosed */
  char quiet_msg[160];     /*   bracket or an indentation error ("" if none) */
} Lexer;

/* Starts lexing text[0..len) of `file` (the file name is copied into no storage: it must
 * outlive the tokens). The text needs no terminating NUL. */
void lex_init(Lexer *lx, Diag *diag, const char *file, const char *text, size_t len);
/* Same, for text that starts at line:col of `file` (a fragment such as the inside of a
 * string literal); with no_indent, leading blanks are ignored and no INDENT/DEDENT come. */
void lex_init_at(Lexer *lx, Diag *diag, const char *file, const char *text, size_t len,
                 unsigned line, unsigned col, bool no_indent);
/* Fills *t with the next token. After TK_EOF, returns TK_EOF again. */
void lex_next(Lexer *lx, Token *t);

/* "name", "'if'", "'+='"...: how diagnostics name a token kind. */
const char *lex_token_name(TokKind kind);
/* The spelling of a keyword or operator ("if", "+="); NULL for the others. */
const char *lex_token_spelling(TokKind kind);
/* TK_NAME, or the keyword kind, for an identifier. */
TokKind lex_keyword(const char *s, size_t len);

/* Value of an INT token (any base, underscores allowed). Returns 0 when it fits in int64,
 * 1 when it only fits in uint64 (*out holds the bits), 2 when it needs more than 64 bits
 * (*out is then the low 64 bits). */
int lex_int_value(const Token *t, int64_t *out);
/* Value of a FLOAT token, or of the imaginary part of an IMAG token. Overflow gives inf,
 * as in Python. Uses strtod, so the process must not have set LC_NUMERIC to a locale
 * whose decimal point is not '.'. */
double lex_float_value(const Token *t);
/* The characters between the quotes of a STRING token. */
void lex_string_body(const Token *t, const char **body, size_t *len);
/* Decodes the escapes of a STRING token's body into out (which must hold the body length
 * plus one bytes): \n \t \\ \' \" \a \b \f \v \r, octal, \x, and for str \u and \U (to
 * UTF-8); \N{...}, unknown escapes and raw strings are copied as written.
 * Returns the decoded length, or -1 on a malformed escape: then *bad points at its
 * backslash and *why says what is wrong. */
long lex_string_decode(const Token *t, char *out, const char **bad, const char **why);

#endif
