/* frontend_parser.c — unit tests of frontend/parser.c and ast_dump.c: every seed module parses
 * without a diagnostic; a module full of host code (classes, comprehensions, f-strings, async,
 * match, decorators with arguments, walrus, star-expressions, Python 3.12 syntax) parses; the
 * tree of each construct the kernels use, with locations; syntax errors, each with its exact
 * `file:line:col: error:` text and caret; nesting limits; every prefix of a seed module fails
 * or succeeds cleanly; parse_expression for signature strings; fragments of a file (parse_fragment);
 * speed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/parser.h"
#include "utils/mem.h"

static int passed, failed;

#define CHECK(cond) check((cond), __LINE__, #cond)
static void check(int ok, int line, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "frontend_parser.c:%d: check failed: %s\n", line, what);
  }
}

static void check_str(const char *got, const char *want, int line) {
  if (strcmp(got, want) == 0) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "frontend_parser.c:%d: mismatch\n--- want\n%s\n--- got\n%s\n", line, want, got);
  }
}

/* The statements of src dumped one per line (no module header); or the diagnostics if it fails. */
static char *dump_of(const char *src) {
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyModule *m = parse_module(&a, &d, "t.py", src, strlen(src));
  StrBuf b;
  sb_init(&b);
  if (!m) {
    sb_puts(&b, diag_text(&d));
  } else {
    for (unsigned i = 0; i < m->body.n; i++) {
      if (i) sb_putc(&b, '\n');
      ast_dump_stmt(m->body.items[i], &b, 0);
    }
  }
  arena_free(&a);
  diag_free(&d);
  return sb_take(&b);
}

static void expect_dump(const char *src, const char *want, int line) {
  char *got = dump_of(src);
  check_str(got, want, line);
  mem_free(got);
}
#define DUMP(src, want) expect_dump((src), (want), __LINE__)

/* Parsing src fails with exactly the diagnostic `want`, and returns NULL. */
static void expect_error(const char *src, const char *want, int line) {
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyModule *m = parse_module(&a, &d, "t.py", src, strlen(src));
  check(m == NULL && d.nerrors == 1, line, "parse fails with one error");
  check_str(diag_text(&d), want, line);
  arena_free(&a);
  diag_free(&d);
}
#define SYNTAX_ERROR(src, want) expect_error((src), (want), __LINE__)

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = 0;
  *len = (size_t)n;
  return buf;
}

static const PyStmt *find_def(const PyModule *m, const char *name) {
  for (unsigned i = 0; i < m->body.n; i++)
    if (m->body.items[i]->kind == ST_FUNCDEF && strcmp(m->body.items[i]->funcdef.name, name) == 0)
      return m->body.items[i];
  return NULL;
}

/* ---- seeds ---- */

#define SEEDS "acceptance/seeds"

static void test_seeds(void) {
  DIR *dir = opendir(SEEDS);
  CHECK(dir != NULL);
  if (!dir) return;
  int nfiles = 0;
  struct dirent *ent;
  while ((ent = readdir(dir))) {
    size_t n = strlen(ent->d_name);
    if (n < 3 || strcmp(ent->d_name + n - 3, ".py") != 0) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SEEDS, ent->d_name);
    size_t len;
    char *text = read_file(path, &len);
    CHECK(text != NULL);
    if (!text) continue;
    Diag d;
    Arena a;
    diag_init(&d);
    arena_init(&a);
    PyModule *m = parse_module(&a, &d, path, text, len);
    CHECK(m != NULL);
    CHECK(d.nerrors == 0 && d.nwarnings == 0);
    if (d.nerrors) fprintf(stderr, "%s", diag_text(&d));
    nfiles++;
    /* every function of a seed is decorated, has a body, and knows its extent */
    if (m) {
      unsigned ndefs = 0;
      for (unsigned i = 0; i < m->body.n; i++) {
        const PyStmt *s = m->body.items[i];
        if (s->kind != ST_FUNCDEF) continue;
        ndefs++;
        CHECK(s->funcdef.decorators.n == 1 && s->funcdef.body.n > 0);
        CHECK(s->end_line >= s->loc.line && s->end_off > s->start_off && s->end_off <= len);
        CHECK(text[s->start_off] == '@');
      }
      CHECK(ndefs >= 2);
    }
    arena_free(&a);
    diag_free(&d);
    free(text);
  }
  closedir(dir);
  CHECK(nfiles >= 5);
}

/* The kernels of seed 002, checked node by node. */
static void test_seed_shapes(void) {
  size_t len;
  char *text = read_file(SEEDS "/s002_kernels.py", &len);
  CHECK(text != NULL);
  if (!text) return;
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyModule *m = parse_module(&a, &d, "s002_kernels.py", text, len);
  CHECK(m != NULL);
  if (m) {
    const PyStmt *mm = find_def(m, "fast_matmul");
    CHECK(mm != NULL);
    if (mm) {
      const PyExpr *dec = mm->funcdef.decorators.items[0];
      CHECK(dec->kind == EX_ATTRIBUTE && strcmp(dec->attribute.attr, "jit") == 0);
      CHECK(dec->attribute.value->kind == EX_NAME && strcmp(dec->attribute.value->name, "cuda") == 0);
      CHECK(mm->funcdef.params.n == 3 && strcmp(mm->funcdef.params.items[2]->name, "C") == 0);
      const PyExpr *doc = ast_docstring(mm->funcdef.body);
      CHECK(doc && strstr(doc->str.s, "Perform matrix multiplication") != NULL);
      /* sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32) */
      const PyStmt *s = mm->funcdef.body.items[1];
      CHECK(s->kind == ST_ASSIGN && s->loc.line == 44 && s->loc.col == 5);
      const PyExpr *call = s->assign.value;
      CHECK(call->kind == EX_CALL && call->call.args.n == 0 && call->call.nkeywords == 2);
      CHECK(strcmp(call->call.keywords[0]->arg, "shape") == 0 && call->call.keywords[0]->value->kind == EX_TUPLE);
      CHECK(strcmp(call->call.keywords[1]->arg, "dtype") == 0);
      /* x, y = cuda.grid(2) */
      s = mm->funcdef.body.items[3];
      CHECK(s->kind == ST_ASSIGN && s->assign.targets.n == 1 && s->assign.targets.items[0]->kind == EX_TUPLE);
      /* the for loop over range(int(A.shape[1] / TPB)), with its nested loop */
      const PyStmt *loop = mm->funcdef.body.items[8];
      CHECK(loop->kind == ST_FOR && loop->loc.line == 59 && loop->end_line == 72);
      CHECK(loop->for_.body.n == 5 && loop->for_.body.items[3]->kind == ST_FOR);
      /* identifiers are interned: the same name is the same pointer */
      const PyExpr *i_use = loop->for_.body.items[0]->assign.value->subscript.index->elts.items[1]->binary.rhs->binary.lhs;
      CHECK(i_use->kind == EX_NAME && loop->for_.target->name == i_use->name);
    }
    const PyStmt *main = m->body.items[m->body.n - 1];
    CHECK(main->kind == ST_IF && main->if_.body.n > 10);
  }
  arena_free(&a);
  diag_free(&d);
  free(text);
}

/* ---- host code ---- */

static const char host_module[] =
    "#!/usr/bin/env python3\n"
    "# -*- coding: utf-8 -*-\n"
    "\"\"\"Host-code-heavy module: everything kfront must read without complaint.\"\"\"\n"
    "from __future__ import annotations\n"
    "\n"
    "import os, sys as system\n"
    "import numpy as np\n"
    "from numba import cuda, float32 as f32\n"
    "from collections import (\n"
    "    OrderedDict,\n"
    "    defaultdict as dd,\n"
    ")\n"
    "from . import sibling\n"
    "from ..pkg.mod import *\n"
    "\n"
    "TPB = 16\n"
    "TILE_PAD = TPB + 1\n"
    "SCALE: float = 2.5e-3\n"
    "HEX, OCT, BIN = 0xFF_FF, 0o17, 0b1010_0101\n"
    "BIG = 123456789012345678901234567890\n"
    "CPLX = 1 + 2j\n"
    "SHAPE = (TPB, TPB)\n"
    "_private = __name__\n"
    "π = 3.14159\n"
    "MSG = (\"implicit \" 'concatenation '\n"
    "       \"\"\"of three\"\"\" r'\\raw' u\"nicode\")\n"
    "RAW = rb'\\x00' + b\"\\x41\\n\"\n"
    "LINE = 1 + \\\n"
    "    2\n"
    "\n"
    "\n"
    "@dataclass(frozen=True, slots=True)\n"
    "class Point(Base, metaclass=Meta, **extra):\n"
    "    \"\"\"A point.\"\"\"\n"
    "    x: int = 0\n"
    "    y: int = field(default=0)\n"
    "\n"
    "    def __post_init__(self) -> None:\n"
    "        object.__setattr__(self, \"norm\", (self.x ** 2 + self.y ** 2) ** 0.5)\n"
    "\n"
    "    @property\n"
    "    def total(self):\n"
    "        return self.x + self.y\n"
    "\n"
    "    @staticmethod\n"
    "    def make(*args, sep=\", \", **kwargs) -> \"Point\":\n"
    "        return Point(*args, **kwargs)\n"
    "\n"
    "    async def fetch(self, url, /, timeout=None, *, retries=3):\n"
    "        async with session.get(url) as resp, lock:\n"
    "            async for chunk in resp.content:\n"
    "                await process(chunk)\n"
    "        return [x async for x in agen() if await check(x)]\n"
    "\n"
    "\n"
    "def comprehensions(data):\n"
    "    squares = [x * x for x in data if x % 2 == 0 if x > 3]\n"
    "    pairs = {(i, j) for i in range(3) for j in range(i)}\n"
    "    index = {k: v for k, v in zip(\"abc\", range(3))}\n"
    "    total = sum(x for x in data)\n"
    "    nested = [[y for y in row] for row in data]\n"
    "    merged = {**index, \"z\": 26, **{}}\n"
    "    star = [*data, *pairs]\n"
    "    first, *rest = data\n"
    "    (a, b), c = (1, 2), 3\n"
    "    [d, e] = 4, 5\n"
    "    return squares, pairs, index, total, nested, merged, star, first, rest\n"
    "\n"
    "\n"
    "def strings(name, width=10, items=()):\n"
    "    s = f\"{name!r:>{width}} and {{braces}} {items[0]['key']} {3.14:.2f}\"\n"
    "    t = f'{\"nested\"}' F\"{name=}\" rf\"\\d{name}\"\n"
    "    u = f\"\"\"multi\n"
    "line {name}\n"
    "\"\"\"\n"
    "    return s + t + u\n"
    "\n"
    "\n"
    "def control(n):\n"
    "    global TPB\n"
    "    i = 0\n"
    "    while i < n:\n"
    "        i += 1\n"
    "        if i == 2:\n"
    "            continue\n"
    "        elif i == 7:\n"
    "            break\n"
    "    else:\n"
    "        pass\n"
    "    for k in range(10):\n"
    "        pass\n"
    "    else:\n"
    "        i -= 1\n"
    "    try:\n"
    "        risky()\n"
    "    except (ValueError, TypeError) as exc:\n"
    "        raise RuntimeError(\"bad\") from exc\n"
    "    except Exception:\n"
    "        raise\n"
    "    else:\n"
    "        i //= 2\n"
    "    finally:\n"
    "        cleanup()\n"
    "    with open(os.devnull) as f, open(os.devnull) as g:\n"
    "        pass\n"
    "    with (open(os.devnull) as f,\n"
    "          open(os.devnull) as g,):\n"
    "        pass\n"
    "    assert i >= 0, \"negative\"\n"
    "    del i\n"
    "    lam = lambda x, y=1, *a, k, **kw: x + y\n"
    "    lam2 = lambda: None\n"
    "    if (m := n * 2) > 10:\n"
    "        print(m, file=system.stderr, end=\"\", flush=True)\n"
    "    val = 1 if n else 2 if n > 1 else 3\n"
    "    x = y = z = 0\n"
    "    x += 1; y -= 1; z *= 2\n"
    "    x **= 2; x //= 3; x %= 4; x @= 5; x &= 6; x |= 7; x ^= 8; x <<= 1; x >>= 1; x /= 2\n"
    "    big = [\n"
    "        1,\n"
    "        2,  # comment inside brackets\n"
    "    # comment at odd indent\n"
    "            3,\n"
    "    ]\n"
    "    res = not x and y or z\n"
    "    chain = 0 <= x < y <= z != 3 is not None\n"
    "    neg = -x ** -2\n"
    "    inv = ~x & 0xF | 1 ^ 2 << 3 >> 1\n"
    "    sl = big[1:2], big[::2], big[:-1], big[...], big[::]\n"
    "    return res, chain, neg, inv, sl, lam, lam2, val, big\n"
    "\n"
    "\n"
    "def gen():\n"
    "    yield\n"
    "    yield 1\n"
    "    x = yield from range(3)\n"
    "    y = yield 1, 2\n"
    "    return x, y\n"
    "\n"
    "\n"
    "def outer():\n"
    "    v = 1\n"
    "\n"
    "    def inner():\n"
    "        nonlocal v\n"
    "        v += 1\n"
    "        return v\n"
    "    return inner\n"
    "\n"
    "\n"
    "class Empty: pass\n"
    "\n"
    "\n"
    "class Meta(type):\n"
    "    def __new__(mcs, name, bases, ns, **kw):\n"
    "        return super().__new__(mcs, name, bases, ns)\n"
    "\n"
    "\n"
    "@decorator_one\n"
    "@decorator.two(arg=1)\n"
    "@(lambda f: f)\n"
    "def decorated(): ...\n"
    "\n"
    "\n"
    "def kw_forms(a, b=2, /, c=3, *args, d, e=5, **kwargs):\n"
    "    return kw_forms(1, 2, *args, d=4, **kwargs)\n"
    "\n"
    "\n"
    "def matcher(command):\n"
    "    match command.split():\n"
    "        case [action]:\n"
    "            return action\n"
    "        case [action, obj]:\n"
    "            return action, obj\n"
    "        case Point(x=0, y=0):\n"
    "            return \"origin\"\n"
    "        case {\"x\": x, \"y\": y, **rest}:\n"
    "            return x, y, rest\n"
    "        case [1, 2, *others] if others:\n"
    "            return others\n"
    "        case (1 | 2 | 3) as small:\n"
    "            return small\n"
    "        case -1 | 1.5 | 2 + 3j | \"s\" | b\"b\" | None | True:\n"
    "            return None\n"
    "        case Color.RED:\n"
    "            return \"red\"\n"
    "        case _:\n"
    "            return None\n"
    "    match = 1\n"
    "    case = match\n"
    "    return case\n"
    "\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    import argparse\n"
    "    parser = argparse.ArgumentParser()\n"
    "    args = parser.parse_args()\n"
    "    data = np.arange(10, dtype=np.float32)\n"
    "    kernel[(data.size + TPB - 1) // TPB, TPB](data)\n"
    "    print(comprehensions(range(10)), sep=\"\\n\")\n"
    "type Vec[T] = list[T]\n"
    "type Alias = int\n"
    "def first[T: (int, str), *Ts, **P](x: T, *a: *Ts) -> T: return x\n"
    "class Box[T = int]: pass\n"
    "s = f\"{\", \".join(['a', 'b'])}\" f'{x['k']}' f\"{f\"{1}\"}\"\n"
    "m = f\"{a # comment\n"
    "      + b}\"\n"
    "try:\n"
    "    pass\n"
    "except* ValueError as e:\n"
    "    pass\n"
    "except* (TypeError, KeyError):\n"
    "    pass\n"
    "try:\n"
    "    pass\n"
    "except ValueError, TypeError:\n"
    "    pass\n"
    "type = 5\n"
    "type(x)\n"
    "print(type)\n";

static void test_host_code(void) {
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyModule *m = parse_module(&a, &d, "host.py", host_module, strlen(host_module));
  CHECK(m != NULL && d.nerrors == 0);
  if (d.nerrors) fprintf(stderr, "%s", diag_text(&d));
  if (m) {
    CHECK(ast_docstring(m->body) != NULL);
    const PyStmt *matcher = find_def(m, "matcher");
    CHECK(matcher && matcher->funcdef.body.items[0]->kind == ST_MATCH);
    CHECK(matcher && matcher->funcdef.body.items[0]->match.ncases == 9);
    const PyStmt *fetch = NULL;
    for (unsigned i = 0; i < m->body.n; i++)
      if (m->body.items[i]->kind == ST_CLASSDEF && strcmp(m->body.items[i]->classdef.name, "Point") == 0) {
        const PyStmt *c = m->body.items[i];
        CHECK(c->classdef.bases.n == 1 && c->classdef.nkeywords == 2 && c->classdef.decorators.n == 1);
        fetch = c->classdef.body.items[c->classdef.body.n - 1];
      }
    CHECK(fetch && fetch->kind == ST_FUNCDEF && fetch->funcdef.is_async);
    CHECK(fetch && fetch->funcdef.params.n == 4 && fetch->funcdef.params.items[0]->kind == PARAM_POSONLY &&
          fetch->funcdef.params.items[3]->kind == PARAM_KWONLY);
    StrBuf b;
    sb_init(&b);
    ast_dump(m, &b);
    CHECK(strstr(b.data, "(fstring@") && strstr(b.data, "(listcomp@") && strstr(b.data, "(lambda@") &&
          strstr(b.data, "(named@") && strstr(b.data, "(async-with@") && strstr(b.data, "(dictcomp@") &&
          strstr(b.data, "(type@") && strstr(b.data, "(try*@") && strstr(b.data, "(yieldfrom@"));
    sb_free(&b);
  }
  arena_free(&a);
  diag_free(&d);
}

/* ---- trees ---- */

static void test_expressions(void) {
  /* precedence, from ** up to |; unary minus binds looser than ** */
  DUMP("x = -a ** -b * c + d << 1 & e ^ f | g",
       "(assign@1:1 (name@1:1 x) = (binop@1:5 | (binop@1:5 ^ (binop@1:5 & (binop@1:5 << (binop@1:5 + (binop@1:5 * "
       "(unary@1:5 - (binop@1:6 ** (name@1:6 a) (unary@1:11 - (name@1:12 b)))) (name@1:16 c)) (name@1:20 d)) "
       "(int@1:25 1)) (name@1:29 e)) (name@1:33 f)) (name@1:37 g)))");
  DUMP("x = a ** b ** c",
       "(assign@1:1 (name@1:1 x) = (binop@1:5 ** (name@1:5 a) (binop@1:10 ** (name@1:10 b) (name@1:15 c))))");
  DUMP("x = a - b - c", "(assign@1:1 (name@1:1 x) = (binop@1:5 - (binop@1:5 - (name@1:5 a) (name@1:9 b)) (name@1:13 c)))");
  DUMP("x = a // b % c @ d / e", "(assign@1:1 (name@1:1 x) = (binop@1:5 / (binop@1:5 @ (binop@1:5 % (binop@1:5 // "
                             "(name@1:5 a) (name@1:10 b)) (name@1:14 c)) (name@1:18 d)) (name@1:22 e)))");
  DUMP("x = (a + b) * ~c", "(assign@1:1 (name@1:1 x) = (binop@1:5 * (binop@1:6 + (name@1:6 a) (name@1:10 b)) "
                       "(unary@1:15 ~ (name@1:16 c))))");
  DUMP("y = a if b else c if d else e",
       "(assign@1:1 (name@1:1 y) = (ifexp@1:5 (name@1:5 a) if (name@1:10 b) else (ifexp@1:17 (name@1:17 c) if "
       "(name@1:22 d) else (name@1:29 e))))");
  DUMP("z = not a and b or c and not d",
       "(assign@1:1 (name@1:1 z) = (or@1:5 (and@1:5 (unary@1:5 not (name@1:9 a)) (name@1:15 b)) (and@1:20 "
       "(name@1:20 c) (unary@1:26 not (name@1:30 d)))))");
  DUMP("a < b <= c is not d not in e == f",
       "(expr@1:1 (compare@1:1 (name@1:1 a) < (name@1:5 b) <= (name@1:10 c) is not (name@1:19 d) not in "
       "(name@1:28 e) == (name@1:33 f)))");
  DUMP("x = a | b < c & d", "(assign@1:1 (name@1:1 x) = (compare@1:5 (binop@1:5 | (name@1:5 a) (name@1:9 b)) < "
                        "(binop@1:13 & (name@1:13 c) (name@1:17 d))))");
  /* calls: positional, starred, keyword, ** and a bare generator argument */
  DUMP("sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)",
       "(assign@1:1 (name@1:1 sA) = (call@1:6 (attr@1:6 (attr@1:6 (name@1:6 cuda) shared) array) (kw@1:24 shape "
       "(tuple@1:30 (name@1:31 TPB) (name@1:36 TPB))) (kw@1:42 dtype (name@1:48 float32))))");
  DUMP("f(*a, b, *c, k=1, **kw)", "(expr@1:1 (call@1:1 (name@1:1 f) (starred@1:3 (name@1:4 a)) (name@1:7 b) "
                              "(starred@1:10 (name@1:11 c)) (kw@1:14 k (int@1:16 1)) (kw@1:19 ** (name@1:21 kw))))");
  DUMP("total = sum(x for x in y if x)", "(assign@1:1 (name@1:1 total) = (call@1:9 (name@1:9 sum) (genexp@1:12 "
                                     "(name@1:13 x) (for@1:15 (name@1:19 x) in (name@1:24 y) (if (name@1:29 x))))))");
  DUMP("f()(1)[2].g", "(expr@1:1 (attr@1:1 (subscript@1:1 (call@1:1 (call@1:1 (name@1:1 f)) (int@1:5 1)) (int@1:8 2)) g))");
  /* subscripts: an index, a tuple of indices, slices with omitted parts */
  DUMP("a[:, ::1] = b[1:2, 3] + c[i] + d[()] + e[::-1, :n]",
       "(assign@1:1 (subscript@1:1 (name@1:1 a) (tuple@1:3 (slice@1:3 _ _ _) (slice@1:6 _ _ (int@1:8 1)))) = "
       "(binop@1:13 + (binop@1:13 + (binop@1:13 + (subscript@1:13 (name@1:13 b) (tuple@1:15 (slice@1:15 (int@1:15 1) "
       "(int@1:17 2) _) (int@1:20 3))) (subscript@1:25 (name@1:25 c) (name@1:27 i))) (subscript@1:32 (name@1:32 d) "
       "(tuple@1:34))) (subscript@1:40 (name@1:40 e) (tuple@1:42 (slice@1:42 _ _ (unary@1:44 - (int@1:45 1))) "
       "(slice@1:48 _ (name@1:49 n) _)))))");
  DUMP("x = a[i, j,]", "(assign@1:1 (name@1:1 x) = (subscript@1:5 (name@1:5 a) (tuple@1:7 (name@1:7 i) (name@1:10 j))))");
  /* literals */
  DUMP("x = 0, 1_000, 0xFF, 0o17, 0b101, 1e-3, 0., .5, 2j, 1.5e300 * 1e10",
       "(assign@1:1 (name@1:1 x) = (tuple@1:5 (int@1:5 0) (int@1:8 1000) (int@1:15 255) (int@1:21 15) (int@1:27 5) "
       "(float@1:34 0.001) (float@1:40 0.0) (float@1:44 0.5) (complex@1:48 2.0j) (binop@1:52 * (float@1:52 1.5e+300) "
       "(float@1:62 1e+10))))");
  DUMP("x = 9223372036854775807, 9223372036854775808, 123456789012345678901234567890, -1",
       "(assign@1:1 (name@1:1 x) = (tuple@1:5 (int@1:5 9223372036854775807) (int@1:26 9223372036854775808) "
       "(int@1:47 123456789012345678901234567890 overflow) (unary@1:79 - (int@1:80 1))))");
  DUMP("s = 'a' \"b\" '''c''' r'\\d' + b'\\x00' + f'{x}' 'y'",
       "(assign@1:1 (name@1:1 s) = (binop@1:5 + (binop@1:5 + (str@1:5 \"abc\\\\d\") (bytes@1:29 \"\\x00\")) "
       "(fstring@1:39 \"f'{x}' 'y'\")))");
  DUMP("x = True, False, None, ...", "(assign@1:1 (name@1:1 x) = (tuple@1:5 (True@1:5) (False@1:11) (None@1:18) "
                                 "(Ellipsis@1:24)))");
  /* displays, comprehensions, lambda, walrus, star */
  DUMP("x = [1, *a], {1, 2}, {'k': v, **d}, {}, ()",
       "(assign@1:1 (name@1:1 x) = (tuple@1:5 (list@1:5 (int@1:6 1) (starred@1:9 (name@1:10 a))) (set@1:14 "
       "(int@1:15 1) (int@1:18 2)) (dict@1:22 ((str@1:23 \"k\") (name@1:28 v)) (** (name@1:33 d))) (dict@1:37) "
       "(tuple@1:41)))");
  DUMP("x = [i * j for i in a if i for j in b], {k: v for k, v in d}",
       "(assign@1:1 (name@1:1 x) = (tuple@1:5 (listcomp@1:5 (binop@1:6 * (name@1:6 i) (name@1:10 j)) (for@1:12 "
       "(name@1:16 i) in (name@1:21 a) (if (name@1:26 i))) (for@1:28 (name@1:32 j) in (name@1:37 b))) (dictcomp@1:41 "
       "(name@1:42 k) (name@1:45 v) (for@1:47 (tuple@1:51 (name@1:51 k) (name@1:54 v)) in (name@1:59 d)))))");
  DUMP("f = lambda x, y=1, *a, k, **kw: (n := x + y)",
       "(assign@1:1 (name@1:1 f) = (lambda@1:5 (params (param@1:12 x) (param@1:15 y = (int@1:17 1)) (param@1:21 a "
       "vararg) (param@1:24 k kwonly) (param@1:29 kw varkw)) (named@1:34 (name@1:34 n) (binop@1:39 + (name@1:39 x) "
       "(name@1:43 y)))))");
}

static void test_statements(void) {
  /* assignments: tuple targets, chains, augmented, annotated */
  DUMP("x, y = cuda.grid(2)", "(assign@1:1 (tuple@1:1 (name@1:1 x) (name@1:4 y)) = (call@1:8 (attr@1:8 (name@1:8 cuda) "
                          "grid) (int@1:18 2)))");
  DUMP("a = b = 1", "(assign@1:1 (name@1:1 a) (name@1:5 b) = (int@1:9 1))");
  DUMP("(a, b), [c, *d] = e", "(assign@1:1 (tuple@1:1 (tuple@1:1 (name@1:2 a) (name@1:5 b)) (list@1:9 (name@1:10 c) "
                          "(starred@1:13 (name@1:14 d)))) = (name@1:19 e))");
  DUMP("x //= 2; y **= 3; a[i] += 1",
       "(augassign@1:1 (name@1:1 x) //= (int@1:7 2))\n(augassign@1:10 (name@1:10 y) **= (int@1:16 3))\n"
       "(augassign@1:19 (subscript@1:19 (name@1:19 a) (name@1:21 i)) += (int@1:27 1))");
  DUMP("x: int = 5\ny: float", "(annassign@1:1 (name@1:1 x) : (name@1:4 int) = (int@1:10 5))\n"
                           "(annassign@2:1 (name@2:1 y) : (name@2:4 float))");
  /* control flow */
  DUMP("if a:\n    pass\nelif b:\n    x = 1\nelif c: y = 2\nelse:\n    return_ = 3\n",
       "(if@1:1 (name@1:4 a)\n  (body\n    (pass@2:5))\n  (elif@3:1 (name@3:6 b)\n    (body\n      (assign@4:5 "
       "(name@4:5 x) = (int@4:9 1)))\n    (elif@5:1 (name@5:6 c)\n      (body\n        (assign@5:9 (name@5:9 y) = "
       "(int@5:13 2)))\n      (else\n        (assign@7:5 (name@7:5 return_) = (int@7:15 3))))))");
  DUMP("for i in range(0, n, -1):\n    if i: break\n    continue\nelse:\n    pass\n",
       "(for@1:1 (name@1:5 i) in (call@1:10 (name@1:10 range) (int@1:16 0) (name@1:19 n) (unary@1:22 - (int@1:23 1)))\n"
       "  (body\n    (if@2:5 (name@2:8 i)\n      (body\n        (break@2:11)))\n    (continue@3:5))\n  (else\n"
       "    (pass@5:5)))");
  DUMP("while i < n:\n    i += 1\n", "(while@1:1 (compare@1:7 (name@1:7 i) < (name@1:11 n))\n  (body\n    (augassign@2:5 "
                                     "(name@2:5 i) += (int@2:10 1))))");
  DUMP("for x, in y: pass", "(for@1:1 (tuple@1:5 (name@1:5 x)) in (name@1:11 y)\n  (body\n    (pass@1:14)))");
  /* functions: decorators with arguments, parameters of every kind, return annotation */
  DUMP("@cuda.jit(\"void(float32[:], int64)\", fastmath=True)\n@other\ndef k(a, n: int = 2, /, b=3, *, c) -> None:\n"
       "    return\n",
       "(def@3:1 k\n  (decorator (call@1:2 (attr@1:2 (name@1:2 cuda) jit) (str@1:11 \"void(float32[:], int64)\") "
       "(kw@1:38 fastmath (True@1:47))))\n  (decorator (name@2:2 other))\n  (params (param@3:7 a posonly) (param@3:10 n "
       "posonly : (name@3:13 int) = (int@3:19 2)) (param@3:25 b = (int@3:27 3)) (param@3:33 c kwonly))\n  (returns "
       "(None@3:39))\n  (body\n    (return@4:5)))");
  DUMP("@cuda.jit(device=True)\ndef f(x): return x, x\n",
       "(def@2:1 f\n  (decorator (call@1:2 (attr@1:2 (name@1:2 cuda) jit) (kw@1:11 device (True@1:18))))\n  (params "
       "(param@2:7 x))\n  (body\n    (return@2:11 (tuple@2:18 (name@2:18 x) (name@2:21 x)))))");
  /* imports */
  DUMP("import numpy as np, math\nfrom numba import cuda, float32 as f32\nfrom .. import (a,\n  b,)\nfrom .m import *",
       "(import@1:1 (alias@1:8 numpy as np) (alias@1:21 math))\n(from@2:1 numba (alias@2:19 cuda) (alias@2:25 float32 as "
       "f32))\n(from@3:1 .. (alias@3:17 a) (alias@4:3 b))\n(from@5:1 .m (alias@5:16 *))");
  DUMP("import numba.cuda.random", "(import@1:1 (alias@1:8 numba.cuda.random))");
  /* the rest of Python */
  DUMP("global a, b\ndel a[0], b\nassert x, 'm'\nraise E from e",
       "(global@1:1 a b)\n(del@2:1 (subscript@2:5 (name@2:5 a) (int@2:7 0)) (name@2:11 b))\n(assert@3:1 (name@3:8 x) "
       "(str@3:11 \"m\"))\n(raise@4:1 (name@4:7 E) from (name@4:14 e))");
  DUMP("with a as b, c:\n    pass", "(with@1:1 (item (name@1:6 a) as (name@1:11 b)) (item (name@1:14 c))\n  (body\n"
                                    "    (pass@2:5)))");
  DUMP("with (a as b, c):\n    pass", "(with@1:1 (item (name@1:7 a) as (name@1:12 b)) (item (name@1:15 c))\n  (body\n"
                                      "    (pass@2:5)))");
  DUMP("with (a, b) as c:\n    pass", "(with@1:1 (item (tuple@1:6 (name@1:7 a) (name@1:10 b)) as (name@1:16 c))\n"
                                      "  (body\n    (pass@2:5)))");
  DUMP("try:\n    x\nexcept E as e:\n    y\nelse:\n    z\nfinally:\n    w",
       "(try@1:1\n  (body\n    (expr@2:5 (name@2:5 x)))\n  (except@3:1 (name@3:8 E) as e\n    (body\n      (expr@4:5 "
       "(name@4:5 y))))\n  (else\n    (expr@6:5 (name@6:5 z)))\n  (finally\n    (expr@8:5 (name@8:5 w))))");
  DUMP("class A(B, metaclass=M):\n    x = 1", "(class@1:1 A (bases (name@1:9 B) (kw@1:12 metaclass (name@1:22 M)))\n"
                                            "  (body\n    (assign@2:5 (name@2:5 x) = (int@2:9 1))))");
  DUMP("match p:\n    case [x, *r] if x: pass\n    case {'k': 1, **kw} | None as y: pass\n    case P(1, a=_): pass",
       "(match@1:1 (name@1:7 p)\n  (case@2:5 (list@2:10 (name@2:11 x) (starred@2:14 (name@2:15 r))) if (name@2:21 x)\n"
       "    (body\n      (pass@2:24)))\n  (case@3:5 (as@3:10 (binop@3:10 | (dict@3:10 ((str@3:11 \"k\") (int@3:16 1)) (** "
       "(name@3:21 kw))) (None@3:27)) y)\n    (body\n      (pass@3:38)))\n  (case@4:5 (call@4:10 (name@4:10 P) "
       "(int@4:12 1) (kw@4:15 a (name@4:17 _)))\n    (body\n      (pass@4:21))))");
  DUMP("match = 1\nmatch(x)\nmatch[0]: int = 2\ntype = 3\ntype(x)",
       "(assign@1:1 (name@1:1 match) = (int@1:9 1))\n(expr@2:1 (call@2:1 (name@2:1 match) (name@2:7 x)))\n(annassign@3:1 "
       "(subscript@3:1 (name@3:1 match) (int@3:7 0)) : (name@3:11 int) = (int@3:17 2))\n(assign@4:1 (name@4:1 type) = "
       "(int@4:8 3))\n(expr@5:1 (call@5:1 (name@5:1 type) (name@5:6 x)))");
  DUMP("def g():\n    x = yield\n    yield from y\n    await z",
       "(def@1:1 g\n  (params)\n  (body\n    (assign@2:5 (name@2:5 x) = (yield@2:9))\n    (expr@3:5 (yieldfrom@3:5 "
       "(name@3:16 y)))\n    (expr@4:5 (await@4:5 (name@4:11 z)))))");
}

/* statement extents, docstrings, kind names */
static void test_details(void) {
  const char *src = "# head\n@deco(1,\n      2)\ndef f(a):\n    '''doc'''\n    return (a +\n            1)\nx = 1\n";
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyModule *m = parse_module(&a, &d, "t.py", src, strlen(src));
  CHECK(m && m->body.n == 2);
  if (m && m->body.n == 2) {
    const PyStmt *f = m->body.items[0];
    CHECK(f->loc.line == 4 && f->loc.col == 1 && f->end_line == 7);
    CHECK(f->start_off == 7 && strncmp(src + f->end_off - 2, "1)", 2) == 0);
    CHECK(f->funcdef.name_loc.line == 4 && f->funcdef.name_loc.col == 5);
    const PyExpr *doc = ast_docstring(f->funcdef.body);
    CHECK(doc && doc->str.len == 3 && memcmp(doc->str.s, "doc", 3) == 0);
    const PyStmt *r = f->funcdef.body.items[1];
    CHECK(r->kind == ST_RETURN && r->value->parens == 1 && r->value->binary.op_loc.line == 6 &&
          r->value->binary.op_loc.col == 15);
    CHECK(m->body.items[1]->end_line == 8 && m->body.items[1]->start_off == (uint32_t)(strstr(src, "x = 1") - src));
    CHECK(strcmp(m->filename, "t.py") == 0);
  }
  arena_free(&a);
  diag_free(&d);
  CHECK(!ast_expr_unsupported(EX_LAMBDA) && ast_expr_unsupported(EX_LISTCOMP) && ast_expr_unsupported(EX_FSTRING));
  CHECK(!ast_expr_unsupported(EX_CALL) && !ast_expr_unsupported(EX_IFEXP) && !ast_expr_unsupported(EX_SUBSCRIPT));
  CHECK(ast_stmt_unsupported(ST_CLASSDEF) && ast_stmt_unsupported(ST_TRY) && ast_stmt_unsupported(ST_WITH) &&
        ast_stmt_unsupported(ST_GLOBAL));
  CHECK(!ast_stmt_unsupported(ST_FOR) && !ast_stmt_unsupported(ST_AUGASSIGN));
  CHECK(strcmp(ast_expr_kind_name(EX_GENEXP), "generator expression") == 0);
  CHECK(strcmp(ast_stmt_kind_name(ST_WITH), "with statement") == 0);
  CHECK(strcmp(ast_cmpop_str(CMP_NOTIN), "not in") == 0 && strcmp(ast_binop_str(BIN_FLOORDIV), "//") == 0);
}

/* ---- errors ---- */

/* parse_fragment: one function's lines as they stand in a file (indented, from line 40); locations are the
 * file's, the first line's indentation is the base level, and the diagnostics quote the right line. Two
 * pieces of one file registered with one Diag each quote their own lines. */
static void test_fragments(void) {
  static const char kernel[] = "    @cuda.jit\n    def k(a):\n        if a[0]:\n            a[1] = 2\n\n";
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyModule *m = parse_fragment(&a, &d, "f.py", kernel, strlen(kernel), 40, true);
  check(m && d.nerrors == 0 && m->body.n == 1, __LINE__, "an indented fragment parses");
  if (m) {
    StrBuf b;
    sb_init(&b);
    ast_dump_stmt(m->body.items[0], &b, 0);
    check(strstr(b.data, "(def@41:5 k") && strstr(b.data, "(decorator (attr@40:6 (name@40:6 cuda) jit))") &&
              strstr(b.data, "(if@42:9") && strstr(b.data, "@43:13"), __LINE__,
          "fragment locations are the file's lines and columns");
    sb_free(&b);
  }
  static const char helper[] = "def h(x):\n    return x +\n";
  check(parse_fragment(&a, &d, "f.py", helper, strlen(helper), 10, true) == NULL, __LINE__, "a syntax error");
  check_str(diag_text(&d), "f.py:11:15: error: invalid syntax\n    return x +\n              ^\n", __LINE__);
  size_t len;
  const char *line = diag_source_line(&d, "f.py", 43, &len);
  check(line && len == 20 && strncmp(line, "            a[1] = 2", len) == 0, __LINE__, "line 43 from the kernel piece");
  check(diag_source_line(&d, "f.py", 9, &len) == NULL && diag_source_line(&d, "f.py", 30, &len) == NULL, __LINE__,
        "lines no piece holds");
  static const char dedent[] = "    def k():\n        pass\n  x = 1\n";
  check(parse_fragment(&a, &d, "g.py", dedent, strlen(dedent), 5, true) == NULL, __LINE__, "a line left of the base");
  check(strstr(diag_text(&d), "g.py:7:3: error: unindent does not match any outer indentation level\n  x = 1\n  ^\n") != NULL,
        __LINE__, "dedent below the base level");
  arena_free(&a);
  diag_free(&d);
}

static void test_syntax_errors(void) {
  SYNTAX_ERROR("@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i < a.size\n        a[i] = 1\n",
               "t.py:4:18: error: expected ':'\n    if i < a.size\n                 ^\n");
  SYNTAX_ERROR("def f():\nreturn 1\n",
               "t.py:2:1: error: expected an indented block after function definition on line 1\nreturn 1\n^\n");
  SYNTAX_ERROR("for i in x:\n\n# c\n", "t.py:4:1: error: expected an indented block after 'for' statement on line 1\n\n^\n");
  SYNTAX_ERROR("x = 1\n    y = 2\n", "t.py:2:5: error: unexpected indent\n    y = 2\n    ^\n");
  SYNTAX_ERROR("if x:\n    a\n  b\n", "t.py:3:3: error: unindent does not match any outer indentation level\n  b\n  ^\n");
  SYNTAX_ERROR("x = (1,\n     2\ny = 3\n", "t.py:1:5: error: '(' was never closed\nx = (1,\n    ^\n");
  SYNTAX_ERROR("def f():\n    x = (1 +\n    return x\n", "t.py:2:9: error: '(' was never closed\n    x = (1 +\n        ^\n");
  SYNTAX_ERROR("x = [1, 2", "t.py:1:5: error: '[' was never closed\nx = [1, 2\n    ^\n");
  SYNTAX_ERROR("f(a b)", "t.py:1:3: error: invalid syntax. Perhaps you forgot a comma?\nf(a b)\n  ^\n");
  SYNTAX_ERROR("x = cuda.grid(1 2)\n", "t.py:1:15: error: invalid syntax. Perhaps you forgot a comma?\n"
                                        "x = cuda.grid(1 2)\n              ^\n");
  SYNTAX_ERROR("a[i, j k] = (1, 2 3)\n", "t.py:1:6: error: invalid syntax. Perhaps you forgot a comma?\n"
                                          "a[i, j k] = (1, 2 3)\n     ^\n");
  SYNTAX_ERROR("f(a,\n  b c)\n", "t.py:2:3: error: invalid syntax. Perhaps you forgot a comma?\n  b c)\n  ^\n");
  SYNTAX_ERROR("f(a b\n", "t.py:1:2: error: '(' was never closed\nf(a b\n ^\n");
  SYNTAX_ERROR("x = 1 +\n", "t.py:1:8: error: invalid syntax\nx = 1 +\n       ^\n");
  SYNTAX_ERROR("x = 1 2\n", "t.py:1:7: error: invalid syntax\nx = 1 2\n      ^\n");
  SYNTAX_ERROR("else: pass\n", "t.py:1:1: error: invalid syntax\nelse: pass\n^\n");
  SYNTAX_ERROR("a[0] = 1 +* 2\n", "t.py:1:11: error: invalid syntax\na[0] = 1 +* 2\n          ^\n");
  SYNTAX_ERROR("if x = 1: pass\n",
               "t.py:1:6: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?\nif x = 1: pass\n     ^\n");
  SYNTAX_ERROR("for x y in z: pass\n", "t.py:1:7: error: expected 'in'\nfor x y in z: pass\n      ^\n");
  SYNTAX_ERROR("f() = 1\n", "t.py:1:1: error: cannot assign to function call\nf() = 1\n^\n");
  SYNTAX_ERROR("x + 1 = y\n", "t.py:1:1: error: cannot assign to expression\nx + 1 = y\n^\n");
  SYNTAX_ERROR("for 1 in x: pass\n", "t.py:1:5: error: cannot assign to literal\nfor 1 in x: pass\n    ^\n");
  SYNTAX_ERROR("a, b += 1\n", "t.py:1:1: error: 'tuple' is an illegal expression for augmented assignment\na, b += 1\n^\n");
  SYNTAX_ERROR("del f()\n", "t.py:1:5: error: cannot delete function call\ndel f()\n    ^\n");
  SYNTAX_ERROR("x = *a\n", "t.py:1:5: error: can't use starred expression here\nx = *a\n    ^\n");
  SYNTAX_ERROR("return 1\n", "t.py:1:1: error: 'return' outside function\nreturn 1\n^\n");
  SYNTAX_ERROR("def f(x):\n    for i in x:\n        pass\n    continue\n",
               "t.py:4:5: error: 'continue' not properly in loop\n    continue\n    ^\n");
  SYNTAX_ERROR("while x:\n    pass\nelse:\n    break\n", "t.py:4:5: error: 'break' outside loop\n    break\n    ^\n");
  SYNTAX_ERROR("class A:\n    return 1\n", "t.py:2:5: error: 'return' outside function\n    return 1\n    ^\n");
  SYNTAX_ERROR("def f(a=1, b): pass\n",
               "t.py:1:12: error: parameter without a default follows parameter with a default\ndef f(a=1, b): pass\n"
               "           ^\n");
  SYNTAX_ERROR("def f(a, a): pass\n",
               "t.py:1:10: error: duplicate argument 'a' in function definition\ndef f(a, a): pass\n         ^\n");
  SYNTAX_ERROR("def f(*, **k): pass\n", "t.py:1:7: error: named arguments must follow bare *\ndef f(*, **k): pass\n"
                                        "      ^\n");
  SYNTAX_ERROR("f(a=1, b)\n", "t.py:1:8: error: positional argument follows keyword argument\nf(a=1, b)\n       ^\n");
  SYNTAX_ERROR("f(a=1, a=2)\n", "t.py:1:8: error: keyword argument repeated: a\nf(a=1, a=2)\n       ^\n");
  SYNTAX_ERROR("f(x for x in y, 1)\n",
               "t.py:1:3: error: Generator expression must be parenthesized\nf(x for x in y, 1)\n  ^\n");
  SYNTAX_ERROR("try:\n    pass\nx = 1\n", "t.py:3:1: error: expected 'except' or 'finally' block\nx = 1\n^\n");
  SYNTAX_ERROR("@cuda.jit\nx = 1\n",
               "t.py:2:1: error: expected a function or class definition after decorators\nx = 1\n^\n");
  SYNTAX_ERROR("x = 'abc\n", "t.py:1:5: error: unterminated string literal (detected at line 1)\nx = 'abc\n    ^\n");
  SYNTAX_ERROR("x = 0x\n", "t.py:1:5: error: invalid hexadecimal literal\nx = 0x\n    ^\n");
  SYNTAX_ERROR("x = '\\x4'\n", "t.py:1:6: error: truncated \\xXX escape\nx = '\\x4'\n     ^\n");
  SYNTAX_ERROR("x = b'a' 'b'\n", "t.py:1:10: error: cannot mix bytes and nonbytes literals\nx = b'a' 'b'\n         ^\n");
  SYNTAX_ERROR("import a.b as\n", "t.py:1:14: error: invalid syntax\nimport a.b as\n             ^\n");
  SYNTAX_ERROR("from . import (a, b\n", "t.py:1:15: error: '(' was never closed\nfrom . import (a, b\n              ^\n");
  SYNTAX_ERROR("from m import a,\n", "t.py:1:16: error: trailing comma not allowed without surrounding parentheses\n"
                                     "from m import a,\n               ^\n");
  SYNTAX_ERROR("x = (a := 1) + (b.c := 2)\n",
               "t.py:1:17: error: cannot use assignment expressions with attribute\nx = (a := 1) + (b.c := 2)\n"
               "                ^\n");
  SYNTAX_ERROR("x = a if b\n", "t.py:1:11: error: expected 'else' after 'if' expression\nx = a if b\n          ^\n");
  SYNTAX_ERROR("x = $\n", "t.py:1:5: error: invalid character '$' (U+0024)\nx = $\n    ^\n");
  SYNTAX_ERROR("async x = 1\n", "t.py:1:7: error: invalid syntax\nasync x = 1\n      ^\n");
}

/* deep nesting is a diagnostic, not a stack overflow */
static void test_limits(void) {
  StrBuf src;
  sb_init(&src);
  sb_puts(&src, "x = ");
  for (int i = 0; i < 150; i++) sb_putc(&src, '(');
  sb_putc(&src, '1');
  for (int i = 0; i < 150; i++) sb_putc(&src, ')');
  char *got = dump_of(sb_cstr(&src));
  CHECK(strcmp(got, "(assign@1:1 (name@1:1 x) = (int@1:155 1))") == 0);
  mem_free(got);

  static const char *const deep_kinds[] = {"-", "not ", "(", "[", "{", "lambda: ", "a if b else ", "x[", "f(", "+~"};
  for (size_t k = 0; k < sizeof deep_kinds / sizeof *deep_kinds; k++) {
    sb_reset(&src);
    sb_puts(&src, "x = ");
    for (int i = 0; i < 100000; i++) sb_puts(&src, deep_kinds[k]);
    sb_puts(&src, "1\n");
    Diag d;
    Arena a;
    diag_init(&d);
    arena_init(&a);
    PyModule *m = parse_module(&a, &d, "t.py", src.data, src.len);
    CHECK(m == NULL && d.nerrors == 1);
    CHECK(strstr(diag_text(&d), "error: expression nested too deeply (more than 200 levels)") ||
          strstr(diag_text(&d), "error: too many nested parentheses"));
    arena_free(&a);
    diag_free(&d);
  }
  sb_reset(&src);
  for (int i = 0; i < 5000; i++) sb_printf(&src, "%sif x%d: pass\n", i ? "el" : "", i);
  sb_puts(&src, "else: pass\n");
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyModule *m = parse_module(&a, &d, "t.py", src.data, src.len);
  CHECK(m && m->body.n == 1); /* a long elif chain is not recursion */
  arena_free(&a);
  diag_free(&d);
  sb_free(&src);
}

/* Every prefix of a seed module either parses or fails with diagnostics; nothing crashes. */
static void test_prefixes(void) {
  size_t len;
  char *text = read_file(SEEDS "/s002_kernels.py", &len);
  CHECK(text != NULL);
  if (!text) return;
  int bad = 0, ok = 0;
  for (size_t n = 0; n <= len; n++) {
    Diag d;
    Arena a;
    diag_init(&d);
    arena_init(&a);
    PyModule *m = parse_module(&a, &d, "p.py", text, n);
    if ((m != NULL) != (d.nerrors == 0)) bad++;
    if (m) ok++;
    arena_free(&a);
    diag_free(&d);
  }
  CHECK(bad == 0);
  CHECK(ok > 100);
  free(text);
}

static void test_parse_expression(void) {
  const char *sig = "void(float32[:], int64)";
  Diag d;
  Arena a;
  diag_init(&d);
  arena_init(&a);
  PyExpr *e = parse_expression(&a, &d, "k.py", sig, strlen(sig), 5, 12);
  CHECK(e != NULL && d.nerrors == 0);
  if (e) {
    StrBuf b;
    sb_init(&b);
    ast_dump_expr(e, &b);
    check_str(b.data, "(call@5:12 (name@5:12 void) (subscript@5:17 (name@5:17 float32) (slice@5:25 _ _ _)) (name@5:29 "
                      "int64))", __LINE__);
    sb_free(&b);
  }
  const char *file = "@cuda.jit(\"void(float32[:, int64)\")\n";
  diag_add_source(&d, "k.py", file, strlen(file));
  e = parse_expression(&a, &d, "k.py", file + 11, 22, 1, 12);
  CHECK(e == NULL && d.nerrors == 1);
  check_str(diag_text(&d), "k.py:1:33: error: closing parenthesis ')' does not match opening parenthesis '['\n"
                           "@cuda.jit(\"void(float32[:, int64)\")\n                                ^\n", __LINE__);
  e = parse_expression(&a, &d, "k.py", " (a, b) ", 8, 1, 1);
  CHECK(e != NULL && e->kind == EX_TUPLE && e->elts.n == 2);
  e = parse_expression(&a, &d, "k.py", "a b", 3, 1, 1);
  CHECK(e == NULL && d.nerrors == 2);
  arena_free(&a);
  diag_free(&d);
}

static void test_speed(void) {
  static const char *const files[] = {"s000_kernels.py", "s001_kernels.py", "s002_kernels.py", "s003_kernels.py"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", SEEDS, files[i]);
    size_t len;
    char *text = read_file(path, &len);
    if (!text) continue;
    Diag d;
    diag_init(&d);
    enum { REPS = 200 };
    clock_t t0 = clock();
    for (int r = 0; r < REPS; r++) {
      Arena a;
      arena_init(&a);
      CHECK(parse_module(&a, &d, path, text, len) != NULL);
      arena_free(&a);
    }
    double us = (double)(clock() - t0) / CLOCKS_PER_SEC * 1e6 / REPS;
    printf("frontend_parser: %s: %zu bytes, lex+parse %.1f us\n", files[i], len, us);
    diag_free(&d);
    free(text);
  }
}

int main(void) {
  test_seeds();
  test_seed_shapes();
  test_host_code();
  test_expressions();
  test_statements();
  test_details();
  test_syntax_errors();
  test_fragments();
  test_limits();
  test_prefixes();
  test_parse_expression();
  test_speed();
  printf("frontend_parser: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
