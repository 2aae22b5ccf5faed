"""difftest — differential testing of kfront against numba-cuda (test/difftest/README.md).

Generates programs (kgen), runs each on kfront's simulator and on the oracle (numba-cuda's simulator under the
interpreter from scripts/oracle_env.sh; plain CPython besides for pure programs), and compares their outputs
exactly. A finding is a program the oracle runs whose kfront outcome differs: different outputs ("mismatch"), a
compile refusal ("refused"), a runtime error ("error"), a crash or a hang. A program the oracle itself rejects is
"invalid": a generator defect, reported and counted (a bounded run fails on it).

  python3 difftest.py --seed-start 0 --count 1000 --jobs 2        a campaign (summary line; findings to --out)
  python3 difftest.py --bounded                                   the ctest run (known.txt's seeds expected)
  python3 difftest.py --show SEED                                 print a seed's program
  python3 difftest.py --repro SEED                                run one seed on every side, print the outputs
  python3 difftest.py --minimize SEED                             shrink a finding, print the small program
  python3 difftest.py --kfront-gpu [--numba-gpu] ...              kfront on the GPU against kfront's simulator
"""
import argparse
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kgen      # noqa: E402
import minimize  # noqa: E402
import runners   # noqa: E402

BOUNDED = (0, 220)            # the ctest run: seeds [0, 220), about a minute on one core
TIMEOUT = 20.0                # seconds one program may take on one side


def request(prog):
    req = prog.to_json()
    req["id"] = str(prog.seed)
    req["arg_names"] = [a.name for a in prog.args if a.kind == "array"]
    return req


class Checker:
    """runs programs on the sides of one process and judges them"""

    def __init__(self, opts):
        self.opts = opts
        oracle = None if opts.kfront_gpu else opts.oracle
        self.sides = runners.Sides(oracle=oracle, kfront_sim=True, cpython=not opts.kfront_gpu)
        self.gpu = runners.Worker(sys.executable, "kfront", runners.kfront_env(sim=False)) if opts.kfront_gpu \
            else None
        self.numba_gpu = runners.Worker(opts.oracle, "numba", runners.numba_env(sim=False)) \
            if opts.numba_gpu else None
        self.n = 0

    def stop(self):
        self.sides.stop()
        for w in (self.gpu, self.numba_gpu):
            if w is not None:
                w.stop()

    def outcomes(self, prog):
        req = request(prog)
        self.n += 1
        req["id"] = "%s_%d" % (prog.seed, self.n)
        out = {"kfront": self.sides.kfront.run(req, TIMEOUT)}
        if self.gpu is not None:
            out["kfront_gpu"] = self.gpu.run(req, TIMEOUT)
        if self.numba_gpu is not None:
            out["numba_gpu"] = self.numba_gpu.run(req, TIMEOUT)
        if self.sides.numba is not None:
            out["oracle"] = self.sides.numba.run(req, TIMEOUT * 3)
        if prog.pure and self.sides.cpython is not None:
            out["cpython"] = self.sides.cpython.run(req, TIMEOUT)
        return req, out

    def judge(self, prog):
        """(verdict, detail): verdict 'ok', 'invalid', a finding kind, or 'oracles-disagree'"""
        req, out = self.outcomes(prog)
        if self.gpu is not None:
            # GPU mode: kfront on the GPU against kfront's simulator (and numba-cuda on the GPU if it runs)
            base = out["kfront"]
            if base[0] != "ok":
                return "sim-" + base[0], out
            kind = runners.differs(req, out["kfront_gpu"], base)
            if kind is None and "numba_gpu" in out:
                # numba-cuda compiled on the GPU: it must run the program (else the generator made a program
                # only its simulator accepts) and agree
                if out["numba_gpu"][0] != "ok":
                    kind = "numba-gpu-" + out["numba_gpu"][0]
                elif not runners.same_arrays(req, out["numba_gpu"][1], base[1]):
                    kind = "numba-gpu-differs"
            return kind or "ok", out
        oracle = out["oracle"]
        if oracle[0] != "ok":
            return "invalid", out
        if "cpython" in out:
            if out["cpython"][0] != "ok" or not runners.same_arrays(req, out["cpython"][1], oracle[1]):
                return "oracles-disagree", out
        kind = runners.differs(req, out["kfront"], oracle)
        return kind or "ok", out


def signature(verdict, out):
    """what makes two findings the same one: the kind and kfront's message with numbers and names blurred"""
    kf = out["numba_gpu"] if verdict.startswith("numba-gpu-") else out.get("kfront_gpu", out["kfront"])
    text = kf[1] if kf[0] in ("error", "crash") else ""
    text = re.sub(r"\b[a-z]+\d+\b", "N", text if isinstance(text, str) else "")
    text = re.sub(r"\d+", "0", text)
    return "%s|%s" % (verdict, text[:160])


def short(outcome):
    if outcome[0] == "ok":
        return "ok"
    return "%s: %s" % (outcome[0], str(outcome[1])[:300])


_checker = None


def _work(args):
    """a pool task: a list of seeds judged in this process (its workers kept between tasks)"""
    global _checker
    seeds, opts = args
    if _checker is None:
        _checker = Checker(opts)
    results = []
    for seed in seeds:
        t0 = time.monotonic()
        try:
            prog = kgen.generate(seed)
        except Exception as exc:      # the generator's own bug: recorded, the campaign goes on
            results.append({"seed": seed, "verdict": "generator-error", "pure": False,
                            "seconds": round(time.monotonic() - t0, 3),
                            "signature": "generator-error|%s: %s" % (type(exc).__name__, exc)})
            continue
        verdict, out = _checker.judge(prog)
        results.append({"seed": seed, "verdict": verdict, "pure": prog.pure,
                        "seconds": round(time.monotonic() - t0, 3),
                        "sides": {k: short(v) for k, v in out.items()},
                        "signature": signature(verdict, out) if verdict != "ok" else ""})
    return results


def load_known():
    """known.txt: seeds of the bounded range that hit a documented finding (FINDINGS.md), as `seed verdict N`"""
    known = {}
    path = os.path.join(HERE, "known.txt")
    if os.path.exists(path):
        for line in open(path):
            line = line.split("#")[0].split()
            if len(line) >= 2:
                known[int(line[0])] = line[1]
    return known


def campaign(opts):
    seeds = list(range(opts.seed_start, opts.seed_start + opts.count))
    chunk = 10
    tasks = [(seeds[i:i + chunk], opts) for i in range(0, len(seeds), chunk)]
    t0 = time.monotonic()
    counts = {}
    findings = {}
    records = []
    out_file = open(opts.out, "a") if opts.out else None
    done = 0
    if opts.jobs > 1:
        pool = multiprocessing.Pool(opts.jobs)
        results_iter = pool.imap(_work, tasks)        # in order: a stopped campaign covers a prefix of the seeds
    else:
        pool = None
        results_iter = map(_work, tasks)
    try:
        for results in results_iter:
            for rec in results:
                done += 1
                counts[rec["verdict"]] = counts.get(rec["verdict"], 0) + 1
                counts["pure"] = counts.get("pure", 0) + (1 if rec["pure"] else 0)
                if rec["verdict"] != "ok":
                    records.append(rec)
                    findings.setdefault(rec["signature"], []).append(rec["seed"])
                    if out_file:
                        out_file.write(json.dumps(rec) + "\n")
                        out_file.flush()
            if opts.progress and done % opts.progress < chunk:
                print("difftest: %d/%d programs, %s, %.0f s" % (done, len(seeds), counts, time.monotonic() - t0),
                      flush=True)
    except (KeyboardInterrupt, SystemExit):
        print("difftest: stopped after %d of %d programs" % (done, len(seeds)), flush=True)
    finally:
        if pool is not None:
            pool.terminate()
        if _checker is not None:
            _checker.stop()
    counts["done"] = done
    return counts, findings, records, time.monotonic() - t0


def summary(counts, findings, seconds, first, count):
    ok = counts.get("ok", 0)
    count = counts.get("done", count)
    bad = {k: v for k, v in counts.items() if k not in ("ok", "pure", "done")}
    line = "difftest: seeds [%d, %d): %d programs (%d pure, also run by CPython), %d agree, %s, %.1f s" % (
        first, first + count, count, counts.get("pure", 0), ok,
        ", ".join("%d %s" % (v, k) for k, v in sorted(bad.items())) or "no differences", seconds)
    return line


def main():
    # a campaign stopped with kill: the pool and the workers go with it (finally blocks run)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", help="append every non-agreeing program's record (JSON lines) here")
    ap.add_argument("--progress", type=int, default=0, help="print a progress line every N programs")
    ap.add_argument("--bounded", action="store_true", help="the ctest run: seeds %d..%d" % BOUNDED)
    ap.add_argument("--show", type=int, metavar="SEED")
    ap.add_argument("--repro", type=int, metavar="SEED")
    ap.add_argument("--minimize", type=int, metavar="SEED")
    ap.add_argument("--save", metavar="FILE", help="with --repro/--minimize: write the program's request (JSON, "
                    "what worker.py reads) here")
    ap.add_argument("--kfront-gpu", action="store_true", help="compare kfront on the GPU with kfront's simulator")
    ap.add_argument("--numba-gpu", action="store_true", help="with --kfront-gpu: numba-cuda on the GPU too")
    opts = ap.parse_args()

    if opts.show is not None:
        prog = kgen.generate(opts.show)
        print(prog.source())
        for a in prog.args:
            print("# %s: %s %s" % (a.name, a.dtype, a.value.tolist() if a.kind == "array" else repr(a.value)))
        return 0

    probe = subprocess.run([sys.executable, "-c", "import kfront"], capture_output=True, text=True)
    if probe.returncode != 0:
        print("difftest: kfront is not importable by %s (set PYTHONPATH to build/python or python/):\n%s"
              % (sys.executable, probe.stderr[-800:]), file=sys.stderr)
        return 2
    if opts.kfront_gpu:
        # without a GPU kfront runs on its simulator: the GPU mode would compare the simulator with itself
        probe = subprocess.run([sys.executable, "-c", "from kfront import cuda; assert cuda.is_available()"],
                               capture_output=True, text=True, env=runners.kfront_env(sim=False))
        if probe.returncode != 0:
            print("difftest: --kfront-gpu: kfront finds no GPU here (it would run on its simulator)",
                  file=sys.stderr)
            return 2
    if opts.kfront_gpu and opts.numba_gpu:
        opts.oracle = sys.executable      # the GPU machine's Python, with numba-cuda installed
    elif not opts.kfront_gpu:
        try:
            opts.oracle = runners.oracle_python()
        except RuntimeError as e:
            print(str(e), file=sys.stderr)
            return 2
    else:
        opts.oracle = None

    if opts.repro is not None or opts.minimize is not None:
        seed = opts.repro if opts.repro is not None else opts.minimize
        checker = Checker(opts)
        try:
            prog = kgen.generate(seed)
            verdict, out = checker.judge(prog)
            if opts.minimize is not None and verdict not in ("ok", "invalid", "oracles-disagree"):
                want = (verdict, signature(verdict, out))

                def interesting(p):
                    v, o = checker.judge(p)
                    return (v, signature(v, o)) == want
                prog = minimize.minimize(prog, interesting, log=lambda m: print(m, file=sys.stderr))
                verdict, out = checker.judge(prog)
            req = request(prog)
            if opts.save:
                with open(opts.save, "w") as f:
                    f.write(json.dumps(req) + "\n")
            print(prog.source())
            print("# verdict: %s" % verdict)
            for side, outcome in out.items():
                print("# --- %s ---" % side)
                for line in runners.describe(req, outcome).splitlines():
                    print("#   " + line)
        finally:
            checker.stop()
        return 0

    if opts.bounded:
        opts.seed_start, opts.count = BOUNDED[0], BOUNDED[1] - BOUNDED[0]
    counts, findings, records, seconds = campaign(opts)
    print(summary(counts, findings, seconds, opts.seed_start, opts.count))
    known = load_known() if opts.bounded else {}
    new = [r for r in records if known.get(r["seed"]) != r["verdict"]]
    for sig, seeds in sorted(findings.items()):
        print("  %s: seeds %s" % (sig, " ".join(map(str, seeds[:12])) + (" ..." if len(seeds) > 12 else "")))
    for r in new[:20]:
        print("  seed %d %s: %s" % (r["seed"], r["verdict"], json.dumps(r["sides"])[:600]))
    if opts.bounded:
        seen = {r["seed"] for r in records}
        gone = [s for s in known if s not in seen]
        if gone:
            print("difftest: known findings no longer differ (fixed? update known.txt and FINDINGS.md): seeds %s"
                  % gone)
            return 1
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
