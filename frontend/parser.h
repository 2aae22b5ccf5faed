/* parser.h — Python source to the syntax tree of ast.h.
 *
 * The parser reads a whole module — kernels and host code alike — so that a valid Python
 * file is never rejected and the extent of every block is known. It stops at the first
 * syntax error, which it reports to the Diag as `file:line:col: error: message` with the
 * source line and a caret, and then returns NULL. It never prints, exits or aborts.
 *
 * Memory: every node and string is allocated from `arena` and lives until arena_free();
 * the parser's own scratch memory is freed before it returns. `filename` and `text` are
 * not copied and must outlive the Diag (which quotes source lines from them); the tree
 * holds its own copy of the file name. Nothing is global: parsers may run on several
 * threads at once. Nesting is limited (PARSE_MAX_DEPTH nested expressions, 100 indented
 * blocks, 200 open brackets): deeper input is a diagnostic, not a stack overflow. The
 * deepest input allowed needs about 200 KB of stack (optimized build); on a thread whose
 * stack is smaller (an embedder's), nesting that comes too close to its end is the same
 * located diagnostic (utils/stack.h). Chains through first operands (a + b + ... + z,
 * a.b.c, f()()) are parsed by loops and have no limit. */
#ifndef KF_FRONTEND_PARSER_H
#define KF_FRONTEND_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "frontend/ast.h"
#include "utils/arena.h"
#include "utils/diag.h"

enum { PARSE_MAX_DEPTH = 200 };

/* Parses text[0..len) (no NUL needed). Registers the text with diag for quoting source
 * lines, unless that file name is already registered. Returns NULL after syntax errors. */
PyModule *parse_module(Arena *arena, Diag *diag, const char *filename, const char *text, size_t len);
/* Parses a piece of a file: text whose first line is line first_line (0 means 1) of filename, so that every
 * location is the file's; with `indented`, the text may be indented as a whole (one function's lines as
 * they stand in the file, a def nested in a function or class: the first logical line's indentation is
 * the base level). Registers the text with diag at that line unless a registered text of that file
 * already holds the line. */
PyModule *parse_fragment(Arena *arena, Diag *diag, const char *filename, const char *text, size_t len,
                         unsigned first_line, bool indented);

/* Parses one expression (Python's `eval` input: an expression list, which becomes a
 * TUPLE if it has commas) from text that sits at line:col of `filename` — for instance
 * the contents of a signature string such as "void(float32[:], int64)" — so that
 * diagnostics point into the enclosing file. Returns NULL after reporting an error. */
PyExpr *parse_expression(Arena *arena, Diag *diag, const char *filename, const char *text, size_t len,
                         unsigned line, unsigned col);

#endif
