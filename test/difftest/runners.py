"""runners — the driver's side of worker.py: long-lived worker processes (kfront, the numba-cuda simulator,
plain CPython) with a per-program timeout, a crashed or hung worker replaced by a fresh one, and the exact
comparison of two runs' outputs.

Outcomes of one program on one side: ("ok", [bytes of every array argument]), ("error", "Type: message"),
("crash", detail) when the worker died, ("timeout", seconds).
"""
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
WORKER = os.path.join(HERE, "worker.py")


def oracle_python():
    """the oracle's interpreter from scripts/oracle_env.sh (creating its venv on first use); a clear error if it
    cannot be had: the differential test must not pass without its oracle"""
    script = os.path.join(REPO, "scripts", "oracle_env.sh")
    try:
        res = subprocess.run(["bash", script], capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        raise RuntimeError("difftest: scripts/oracle_env.sh timed out installing the oracle (numba-cuda 0.30.4)")
    lines = res.stdout.strip().splitlines()
    if res.returncode != 0 or not lines:
        raise RuntimeError("difftest: the oracle (numba-cuda 0.30.4 from PyPI) is not available: "
                           "scripts/oracle_env.sh failed (rc %d):\n%s" % (res.returncode, res.stderr[-2000:]))
    return lines[-1]


def kfront_env(sim=True):
    env = dict(os.environ)
    if sim:
        env["KFRONT_SIM"] = "1"
    else:
        env.pop("KFRONT_SIM", None)
    return env


def numba_env(sim=True):
    env = dict(os.environ)
    if sim:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    env.pop("PYTHONPATH", None)      # the oracle must not see kfront's alias or the project's modules
    return env


class Worker:
    """one worker.py process in a mode; run() sends one program and waits at most timeout seconds"""

    RECYCLE = 400   # programs per process (kfront keeps every compiled kernel; numba's simulator leaks threads)

    def __init__(self, python, mode, env):
        self.python, self.mode, self.env = python, mode, env
        self.proc = None
        self.served = 0

    def start(self):
        # stderr to a file, not a pipe nobody drains (a worker that warns would block on a full pipe)
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([self.python, WORKER, self.mode], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, env=self.env,
                                     text=True, bufsize=1)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.served = 0

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.sel.close()
            self.proc.stdout.close()
            self.proc.stdin.close()
            self.stderr.close()
            self.proc = None

    def run(self, req, timeout):
        if self.proc is None or self.served >= self.RECYCLE:
            self.stop()
            self.start()
        self.served += 1
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                self.stop()
                return ("timeout", timeout)
            line = self.proc.stdout.readline()
            if not line:
                return self._died()
            ans = json.loads(line)
            if ans.get("id") != req["id"]:
                continue
            if ans["status"] == "ok":
                return ("ok", [bytes.fromhex(h) for h in ans["arrays"]])
            return ("error", ans["error"], ans.get("trace", ""))

    def _died(self):
        self.proc.wait()
        rc = self.proc.returncode
        self.stderr.seek(0)
        err = self.stderr.read()[-1500:]
        self.stop()
        return ("crash", "rc %s: %s" % (rc, err.strip()))


def arrays_of(req, raw):
    """the outcome's bytes as NumPy arrays, shaped and typed as the program's array arguments"""
    specs = [a for a in req["args"] if a["kind"] == "array"]
    return [np.frombuffer(b, dtype=s["dtype"]).reshape(s["shape"]) for b, s in zip(raw, specs)]


def same_arrays(req, a, b):
    """exact equality: dtype and bits; floats bit for bit except that any NaN equals any NaN"""
    for x, y in zip(arrays_of(req, a), arrays_of(req, b)):
        if x.dtype.kind == "f":
            bits = x.view("u%d" % x.itemsize) == y.view("u%d" % y.itemsize)
            if not np.all(bits | (np.isnan(x) & np.isnan(y))):
                return False
        elif x.tobytes() != y.tobytes():
            return False
    return True


def differs(req, kf, oracle):
    """None when kfront's outcome agrees with the oracle's; else the kind of finding"""
    if oracle[0] != "ok":
        raise ValueError("the oracle did not run the program")
    if kf[0] == "ok":
        return None if same_arrays(req, kf[1], oracle[1]) else "mismatch"
    if kf[0] == "error":
        return "refused" if kf[1].split(":")[0] in REFUSALS else "error"
    return kf[0]


# kfront's compile-time exception classes (python/kfront/errors.py): a valid program refused
REFUSALS = ("CompilerError", "TypingError", "UnsupportedError", "SourceUnavailableError")


def describe(req, outcome):
    """a readable form of an outcome: every array argument's values"""
    if outcome[0] != "ok":
        return "%s: %s" % outcome[:2] + ("\n" + outcome[2] if len(outcome) > 2 else "")
    names = [n for n in req.get("arg_names", [])]
    parts = []
    for k, arr in enumerate(arrays_of(req, outcome[1])):
        name = names[k] if k < len(names) else "arg%d" % k
        parts.append("%s = %s" % (name, np.array2string(arr, separator=", ", threshold=10000)))
    return "\n".join(parts)


class Sides:
    """the workers of one driver process: kfront on its simulator (or the GPU), the oracle (numba-cuda's
    simulator), and plain CPython for pure programs"""

    def __init__(self, kfront_python=None, oracle=None, kfront_sim=True, cpython=True, numba_gpu=False):
        kp = kfront_python or sys.executable
        self.kfront = Worker(kp, "kfront", kfront_env(kfront_sim))
        self.numba = Worker(oracle, "numba", numba_env(not numba_gpu)) if oracle else None
        self.cpython = Worker(sys.executable, "cpython", dict(os.environ)) if cpython else None

    def stop(self):
        for w in (self.kfront, self.numba, self.cpython):
            if w is not None:
                w.stop()
