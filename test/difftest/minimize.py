"""minimize — shrinks a difftest program while kfront's difference from the oracle persists (delta debugging
over the program tree of kgen, not its text).

Reductions, tried until none applies: delete statements (halves, then quarters, ..., then single ones) in every
block; replace an `if` by one of its arms, drop its elif arms and else; replace a loop by its body, drop a loop's
else; replace an expression by a child of the same NumPy type whose interval lies inside its own, or by a literal
at its interval's low end; drop unused device functions. Every candidate keeps the generator's invariants sound:
variables keep their declared types and intervals, so an expression's interval still bounds its value, and a
candidate the oracle cannot run (a name left undefined, a `break` outside a loop) is simply not interesting.
"""
import ast
import copy

import kgen


def definitely_assigned(prog):
    """every name a function reads is bound on every path to the read (a conservative definite-assignment
    check, as the generator's scoping guarantees): the oracle runs a kernel as Python and never notices a read
    on a path not taken, so a deletion must not leave one, or the minimiser drifts to an invalid program"""
    tree = ast.parse(prog.source())
    globals_ = {"np", "math", "cuda", "range", "min", "max", "abs"} | {f.name for f in prog.functions}

    def reads(node):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

    def targets(node):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def block(stmts, bound):
        """the names bound after stmts, None where control cannot reach the end; False on a bad read"""
        for s in stmts:
            if bound is None:
                return None          # unreachable code: Python accepts whatever it reads
            if isinstance(s, ast.If):
                if not reads(s.test) <= bound:
                    return False
                a, b = block(s.body, set(bound)), block(s.orelse, set(bound))
                if a is False or b is False:
                    return False
                bound = None if a is None and b is None else (a if b is None else b if a is None else a & b)
            elif isinstance(s, (ast.For, ast.While)):
                head = s.iter if isinstance(s, ast.For) else s.test
                if not reads(head) <= bound:
                    return False
                inner = set(bound) | (targets(s.target) if isinstance(s, ast.For) else set())
                if block(s.body, inner) is False or block(s.orelse, set(bound)) is False:
                    return False
            elif isinstance(s, (ast.Break, ast.Continue, ast.Return)):
                if isinstance(s, ast.Return) and s.value is not None and not reads(s.value) <= bound:
                    return False
                return None
            elif isinstance(s, ast.AugAssign):
                if not (reads(s.value) | targets(s.target)) <= bound:
                    return False
            else:
                value = s.value if isinstance(s, (ast.Assign, ast.Expr)) else s
                if not reads(value) <= bound:
                    return False
                if isinstance(s, ast.Assign):
                    for t in s.targets:
                        if not reads(t) <= bound:   # the array of a subscript store
                            return False
                        bound |= targets(t)
        return bound

    for fn in tree.body:
        if block(fn.body, globals_ | {a.arg for a in fn.args.args}) is False:
            return False
    return True


def _blocks(fn_list):
    """every statement list of the program, outermost first"""
    out = []

    def walk(stmts):
        out.append(stmts)
        for s in stmts:
            for b in s.blocks():
                walk(b)
    for f in fn_list:
        walk(f.body)
    return out


def _expr_slots(prog):
    """(holder, attribute or index, expr) for every expression slot of the program"""
    slots = []

    def visit_expr(holder, key, e):
        if not isinstance(e, kgen.Expr) or e.ty is None:
            return
        slots.append((holder, key, e))
        for attr in ("a", "b", "cond", "index"):
            sub = getattr(e, attr, None)
            if isinstance(sub, kgen.Expr):
                visit_expr(e, attr, sub)
        for lst_name in ("args", "operands"):
            lst = getattr(e, lst_name, None)
            if isinstance(lst, list):
                for k, sub in enumerate(lst):
                    visit_expr(lst, k, sub)

    def visit_stmt(s):
        for attr in ("value", "index", "cond"):
            v = getattr(s, attr, None)
            if isinstance(v, kgen.Expr):
                visit_expr(s, attr, v)
            elif isinstance(v, list):
                for k, sub in enumerate(v):
                    visit_expr(v, k, sub)
        if isinstance(s, kgen.If):
            for k, (c, _) in enumerate(s.arms):
                slots.append((s, ("arm", k), c))
        if isinstance(s, kgen.For):
            for k, b in enumerate(s.bounds):
                visit_expr(s.bounds, k, b)
        for b in s.blocks():
            for t in b:
                visit_stmt(t)
    for f in prog.functions:
        for s in f.body:
            visit_stmt(s)
    return slots


def _set(holder, key, value):
    if isinstance(key, tuple) and key[0] == "arm":
        holder.arms[key[1]] = (value, holder.arms[key[1]][1])
    elif isinstance(holder, list):
        holder[key] = value
    else:
        setattr(holder, key, value)


def _replacements(e):
    """smaller expressions that may stand where e stands: same NumPy type, interval inside e's"""
    t = e.ty
    out = []
    for c in e.children():
        if isinstance(c, kgen.Expr) and c.ty is not None and (c.ty.np, c.ty.nb) == (t.np, t.nb) and \
                t.lo <= c.ty.lo and c.ty.hi <= t.hi:
            out.append(c)
    if not isinstance(e, kgen.Lit) and (t.nb == t.np or t.np == kgen.BOOL):
        # a literal's numba type is its NumPy type: only where e's is too (numba unifies by it)
        try:
            if t.np == kgen.BOOL:
                out.append(kgen.Lit(False, kgen.BOOL))
                out.append(kgen.Lit(True, kgen.BOOL))
            elif kgen.is_int(t.np):
                v = 0 if t.lo <= 0 <= t.hi else t.lo
                out.append(kgen.Lit(v, t.np))
            elif kgen.is_float(t.np):
                v = 0.0 if t.lo <= 0 <= t.hi else float(t.lo)
                if t.np == "float32":
                    import numpy as np
                    v = float(np.float32(v))
                out.append(kgen.Lit(v, t.np))
        except kgen.Invalid:
            pass
    return out


def _uses(prog, name):
    return any(name + "(" in line for f in prog.functions if f.name != name
               for line in _render_lines(f))


def _render_lines(f):
    out = []
    f.render(out)
    return out


def minimize(prog, interesting, log=None, max_tests=2000):
    """the smallest program found for which interesting(program) stays true; interesting(prog) must hold"""
    tests = [0]

    def check(candidate):
        if tests[0] >= max_tests:
            return False
        tests[0] += 1
        try:
            return definitely_assigned(candidate) and interesting(candidate)
        except kgen.Invalid:
            return False

    progress = True
    while progress and tests[0] < max_tests:
        progress = False
        # statements: chunked deletion in each block
        k = 0
        while True:
            blocks = _blocks(prog.functions)
            if k >= len(blocks):
                break
            n = len(blocks[k])
            chunk = max(1, n // 2)
            while chunk >= 1:
                start = 0
                while start < len(_blocks(prog.functions)[k]):
                    cand = copy.deepcopy(prog)
                    blk = _blocks(cand.functions)[k]
                    if len(blk) <= start:
                        break
                    if any(st.keep for st in blk[start:start + chunk]):
                        start += chunk
                        continue
                    del blk[start:start + chunk]
                    if check(cand):
                        prog = cand
                        progress = True
                    else:
                        start += chunk
                chunk //= 2
            k += 1
        # structure: an if by an arm, a loop by its body, drop elifs/else
        k = 0
        while True:
            blocks = _blocks(prog.functions)
            if k >= len(blocks):
                break
            j = 0
            while j < len(_blocks(prog.functions)[k]):
                stmt = _blocks(prog.functions)[k][j]
                variants = []
                if isinstance(stmt, kgen.If):
                    variants = [b for b in stmt.blocks()]
                    if len(stmt.arms) > 1 or stmt.orelse is not None:
                        variants.append("trim")
                elif isinstance(stmt, (kgen.For, kgen.While)):
                    variants = [stmt.body] + (["trim"] if stmt.orelse is not None else [])
                for v in variants:
                    cand = copy.deepcopy(prog)
                    blk = _blocks(cand.functions)[k]
                    s2 = blk[j]
                    if v == "trim":
                        if isinstance(s2, kgen.If) and len(s2.arms) > 1:
                            s2.arms = s2.arms[:1]
                        else:
                            s2.orelse = None
                    else:
                        idx = [id(b) for b in stmt.blocks()].index(id(v))
                        blk[j:j + 1] = s2.blocks()[idx]
                    if check(cand):
                        prog = cand
                        progress = True
                        break
                j += 1
            k += 1
        # expressions
        k = 0
        while k < len(_expr_slots(prog)):
            holder, key, e = _expr_slots(prog)[k]
            for rep_index in range(len(_replacements(e))):
                cand = copy.deepcopy(prog)
                h2, key2, e2 = _expr_slots(cand)[k]
                _set(h2, key2, _replacements(e2)[rep_index])
                if check(cand):
                    prog = cand
                    progress = True
                    break
            k += 1
        # unused device functions
        for f in list(prog.functions[:-1]):
            if not _uses(prog, f.name):
                cand = copy.deepcopy(prog)
                cand.functions = [g for g in cand.functions if g.name != f.name]
                if check(cand):
                    prog = cand
                    progress = True
        if log:
            log("minimize: %d tests, %d lines" % (tests[0], len(prog.source().splitlines())))
    return prog
