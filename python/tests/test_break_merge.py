"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
values assigned on a path that then leaves a loop by break or continue (issue 22's silent wrong result), and
values assigned after an if that jumps (difftest finding 3).

kfront lowers break/continue to flags, so a value assigned before a break reaches the loop's exit through the
merges of every enclosing `if`. The liveness that decides which merged values become results had followed only the
fall-through path: an assignment after the `if` that holds the break made the value look dead, and it was lost
(numba-cuda's `k[1, 1](out, 3)` stores 2; kfront stored 0). Each kernel here is run with every input in a small
grid and compared with the same function run by CPython (one thread, so the kernel body is plain Python)."""
import itertools

import numpy as np
import pytest

from kfront import cuda


def issue_repro(out, c):
    idx = 0
    for level in range(2):
        if c > 0:
            if c > 5:
                idx = 1
            else:
                idx = 2
            break
        idx = 3
    out[0] = idx


def issue_repro_while(out, c):
    idx = 0
    level = 0
    while level < 2:
        if c > 0:
            if c > 5:
                idx = 1
            else:
                idx = 2
            break
        idx = 3
        level += 1
    out[0] = idx


def break_sometimes(out, c, d):
    # the if that holds the break may also fall through: its own merge must keep x for the break path
    x = 0
    for i in range(3):
        if c > 0:
            x = 1 + i
            if d > 0:
                break
        x = 5
    out[0] = x


def continue_then_assign(out, c, d):
    # a continue skips the assignment after the if; the next iteration reads the value
    x = 0
    s = 0
    for i in range(4):
        if c > i:
            if d > 0:
                x = x + 10
            else:
                x = x + 1
            continue
        x = 100
        s += x
    out[0] = x
    out[1] = s


def inner_loop_break(out, c, d):
    # a break of the inner loop only; the outer one goes on
    y = 0
    for j in range(3):
        for i in range(3):
            if c > i:
                if d > 0:
                    y = y + j
                else:
                    y = y - 1
                break
            y = 7
        y = y * 2
    out[0] = y


def break_in_else_clause(out, c, d):
    # a for ... else whose else clause breaks the outer loop
    z = 0
    for j in range(3):
        for i in range(2):
            if d > i:
                z = 10 + j
        else:
            if c > j:
                z = z + 1
                break
        z = -5
    out[0] = z


def while_true_search(out, c, d):
    # a binary search's shape (the real library's device function): lo/hi assigned in branches before break
    lo = 0
    hi = 16
    while True:
        mid = (lo + hi) // 2
        if mid * d >= c * 3:
            if hi - lo <= 1:
                lo = mid
                break
            hi = mid
        else:
            if hi - lo <= 1:
                hi = mid + 1
                break
            lo = mid
    out[0] = lo
    out[1] = hi


def return_beside_break(out, c, d):
    w = 0
    for i in range(4):
        if c > i:
            if d > 1:
                w = 3
                out[0] = w
                return
            elif d > 0:
                w = 4
            break
        w = 9
    out[0] = w


def inner_loop_after_jump(out, c, d):
    # difftest finding 3: the rest of the outer body after an if that always jumps is lowered in that if's else
    # branch; after it, control goes on after the outer body's last statement (not again at the if's successor)
    v = 1
    for i in range(3):
        if i > c + 5:
            continue
        v = 0
        w = 0
        while w < 3:
            w += 1
            v = 3 + d
    out[0] = v


def inner_loop_after_maybe_jump(out, c, d):
    # the same where the if only sometimes jumps: the rest is lowered under the flag's test
    v = 1
    for i in range(3):
        if i > c:
            if d > 100:
                break
        v = 0
        for w in range(2):
            v = 3 + w
    out[0] = v


CASES = [
    (issue_repro, 1),
    (issue_repro_while, 1),
    (break_sometimes, 2),
    (continue_then_assign, 2),
    (inner_loop_break, 2),
    (break_in_else_clause, 2),
    (while_true_search, 2),
    (return_beside_break, 2),
    (inner_loop_after_jump, 2),
    (inner_loop_after_maybe_jump, 2),
]


@pytest.mark.parametrize("fn,nargs", CASES, ids=[c[0].__name__ for c in CASES])
def test_matches_python(fn, nargs):
    kernel = cuda.jit(fn)
    values = (-1, 0, 1, 2, 3, 7)
    for args in itertools.product(values, repeat=nargs):
        want = np.full(2, -99, np.int64)
        fn(want, *args)
        got = np.full(2, -99, np.int64)
        kernel[1, 1](got, *args)
        assert got.tolist() == want.tolist(), (fn.__name__, args)
