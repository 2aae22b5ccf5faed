#!/usr/bin/env python3
"""conformance.py — the conformance gauge: numba-cuda 0.30.4's own test suite (its numba/cuda/tests folders
cudapy, cudadrv, nocuda and doc_examples), unchanged, run with `numba.cuda` resolved to kfront, beside the
same tests run by numba-cuda itself (the baseline). docs/conformance.md tells the whole story.

    conformance.py prepare [--dest DIR] [--with-pytest] [--for-python X.Y] [--binary-deps cffi,ml_dtypes]
        fetches numba-cuda 0.30.4 from PyPI (pip download) and copies its tests folder (only the four folders,
        data/, support.py and __init__.py) into DIR/tests; installs the filecheck package (and pytest with
        --with-pytest) and the tests' binary dependencies (cffi, ml_dtypes; for another Python with --for-python)
        into DIR/site. DIR (default build/conformance/prepared) is what a machine without a
        package registry needs: carry it.
    conformance.py run --target kfront|numba-cuda|numba-cuda+shim --python PY [--label L] [--tests DIR]
                       [--folder F ...] [--module M ...] [--timeout S] [--jobs N] [--gpu]
        runs each test module in a process of its own (PY -m pytest with the conformance_pytest plugin;
        numba.cuda resolved by boot/conformance_boot.py), a time limit per test, a test that crashes or hangs
        its process recorded and the module resumed after it; writes results/<L>/<folder>/<module>.tsv
        (test, outcome, message: one line per test) and results/<L>/RUN.txt (date, machine, versions).
        L defaults to <target>-sim, or <target>-gpu with --gpu (without it the simulators run).
    conformance.py report [--baseline L] [--kfront L]
        writes RESULTS.md (counts per folder and module for every results/ label) and, for each
        kfront/baseline pair (-sim, -gpu), classification-<suffix>.tsv and the summary in CLASSIFICATION.md:
        every test the baseline passes and kfront does not, with its class (out_of_scope.txt's group, else
        classes.tsv's first rule that matches its message).
    conformance.py check --label L --expect FILE [--module M ...]
        compares a run with a list of tests expected to pass (folder/module.py::Test lines): exit 1 naming
        each expected test that did not pass; names the tests that pass and are not in the list.
"""
import argparse
import datetime
import fnmatch
import glob
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BOOT = os.path.join(HERE, "boot")
RESULTS = os.path.join(HERE, "results")
DEFAULT_PREPARED = os.path.join(ROOT, "build", "conformance", "prepared")
FOLDERS = ("cudapy", "cudadrv", "nocuda", "doc_examples")
NUMBA_CUDA_VERSION = "0.30.4"
OUTCOMES = ("pass", "fail", "error", "timeout", "crash", "skip", "xfail", "xpass")
HANG_GRACE_S = 30        # past the per-test limit, a test with no result has its process killed
MAX_RESUMES = 40         # crashes or hangs after which a module's remaining tests are not tried


# ---------------------------------------------------------------------------------------------------- prepare

def prepare(args):
    dest = os.path.abspath(args.dest)
    download = os.path.join(os.path.dirname(dest), "download")
    os.makedirs(download, exist_ok=True)
    pip = [args.python, "-m", "pip", "--disable-pip-version-check"]
    wheels = glob.glob(os.path.join(download, "numba_cuda-%s-*.whl" % NUMBA_CUDA_VERSION))
    if not wheels:
        r = subprocess.run(pip + ["download", "-q", "--no-deps", "--only-binary=:all:", "-d", download,
                                  "numba-cuda==%s" % NUMBA_CUDA_VERSION])
        wheels = glob.glob(os.path.join(download, "numba_cuda-%s-*.whl" % NUMBA_CUDA_VERSION))
        if r.returncode != 0 or not wheels:
            sys.exit("conformance prepare: could not download numba-cuda==%s from PyPI (pip download exited %d)"
                     % (NUMBA_CUDA_VERSION, r.returncode))
    prefix = "numba_cuda/numba/cuda/tests/"
    wanted = [prefix + "__init__.py", prefix + "support.py"] + [prefix + f + "/" for f in FOLDERS + ("data",)]
    tests = os.path.join(dest, "tests")
    shutil.rmtree(tests, ignore_errors=True)
    with zipfile.ZipFile(sorted(wheels)[-1]) as whl:
        names = [n for n in whl.namelist() if any(n == w or (w.endswith("/") and n.startswith(w)) for w in wanted)
                 and "__pycache__" not in n and not n.endswith("/")]
        if not any(n.startswith(prefix + "cudapy/") for n in names):
            sys.exit("conformance prepare: %s has no %scudapy/" % (wheels[0], prefix))
        for n in names:
            target = os.path.join(tests, n[len(prefix):])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with whl.open(n) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    site = os.path.join(dest, "site")
    shutil.rmtree(site, ignore_errors=True)
    pure = ["filecheck==1.0.6", "pycparser==2.22"] + (["pytest==9.2.0"] if args.with_pytest else [])
    # numba-cuda's test dependencies that are built per interpreter (its tests import them): for the
    # interpreter that runs the gauge, given as --for-python X.Y where it is not this machine's
    pins = {"cffi": "cffi==1.17.1", "ml_dtypes": "ml_dtypes==0.5.1"}
    binary = [pins[n] for n in args.binary_deps.split(",") if n]
    target = []
    if args.for_python:
        target = ["--python-version", args.for_python, "--implementation", "cp", "--only-binary=:all:",
                  "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux2014_x86_64",
                  "--platform", "manylinux_2_28_x86_64"]
    for packages, extra in ((pure, []), (binary, ["--no-deps"] + target)):
        if not packages:
            continue
        r = subprocess.run(pip + ["install", "-q", "--no-compile", "--target", site] + extra + packages)
        if r.returncode != 0:
            sys.exit("conformance prepare: pip install %s failed" % " ".join(packages))
    packages = pure + binary
    shutil.rmtree(os.path.join(site, "bin"), ignore_errors=True)
    with open(os.path.join(dest, "PREPARED.txt"), "w") as f:
        f.write("numba-cuda %s tests from %s\nsite: %s (for Python %s)\nprepared %s\n" % (
            NUMBA_CUDA_VERSION, os.path.basename(sorted(wheels)[-1]), " ".join(packages),
            args.for_python or "of " + args.python, _now()))
    print("conformance prepare: %d files in %s" % (len(names), tests))


# -------------------------------------------------------------------------------------------------------- run

def discover(tests_dir, folders, modules):
    """[(folder, module file name)] of the test modules to run."""
    found = []
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(tests_dir, folder, "test_*.py"))):
            name = os.path.basename(path)
            key = "%s/%s" % (folder, name)
            if not modules or any(fnmatch.fnmatch(key, m) or fnmatch.fnmatch(name, m) for m in modules):
                found.append((folder, name))
    return found


def read_records(path):
    """(results {test: (outcome, seconds, message)} in order, the test started last without a result)."""
    results, pending = {}, None
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                if not line.endswith("\n"):
                    break
                parts = line.rstrip("\n").split("\t")
                if parts[0] == "start" and len(parts) >= 2:
                    pending = parts[1]
                elif parts[0] == "result" and len(parts) >= 5:
                    results[parts[1]] = (parts[2], parts[3], parts[4])
                    if pending == parts[1]:
                        pending = None
    return results, pending


def _append_record(path, test, outcome, message):
    with open(path, "a") as f:
        f.write("result\t%s\t%s\t0\t%s\n" % (test, outcome, message.replace("\t", " ")))


def run_module(opts, env, folder, module):
    """Runs one module to completion (resuming after crashes and hangs); returns {test: (outcome, message)}."""
    work = os.path.join(opts.work, opts.label, folder)
    os.makedirs(work, exist_ok=True)
    records = os.path.join(work, module[:-3] + ".records")
    log_path = os.path.join(work, module[:-3] + ".log")
    for p in (records, log_path):
        if os.path.exists(p):
            os.remove(p)
    cmd = [opts.python, "-m", "pytest", "-p", "conformance_pytest", "-p", "no:cacheprovider", "-q",
           "-c", os.path.join(HERE, "pytest.ini"), "--rootdir", opts.tests,
           "--conformance-records", records, "--conformance-timeout", str(opts.timeout),
           os.path.join(opts.tests, folder, module)]
    for attempt in range(MAX_RESUMES + 1):
        with open(log_path, "a") as log:
            proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work,
                                    start_new_session=True)
            status, killed = _watch(proc, records, opts.timeout)
        results, pending = read_records(records)
        if status == 0 or (status in (1, 2, 5) and pending is None and results):
            break                                   # pytest: 1 tests failed, 2 interrupted/collection, 5 none
        if pending is not None:
            if killed:
                _append_record(records, pending, "timeout", "no result %ds past the %gs limit (stuck in native "
                               "code): process killed" % (HANG_GRACE_S, opts.timeout))
            else:
                _append_record(records, pending, "crash", "the process died: %s" % _status_text(status))
            continue
        if not results:
            _append_record(records, "<module>", "error", "pytest exited %s before any test: %s" % (
                _status_text(status), _log_tail(log_path)))
        break
    else:
        _append_record(records, "<remaining>", "crash", "gave up after %d crashes or hangs" % MAX_RESUMES)
    results, _ = read_records(records)
    return {t: (o, m) for t, (o, _, m) in results.items()}


def _watch(proc, records, timeout):
    """Waits for proc; kills its process group when a test has had no result for timeout + HANG_GRACE_S.
    Returns (exit status, whether killed)."""
    pending_since = {}
    while True:
        try:
            return proc.wait(timeout=1), False
        except subprocess.TimeoutExpired:
            pass
        _, pending = read_records(records)
        if pending is None:
            pending_since.clear()
            continue
        since = pending_since.setdefault(pending, time.monotonic())
        if time.monotonic() - since > timeout + HANG_GRACE_S:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return proc.returncode, True


def _status_text(status):
    if status is not None and status < 0:
        try:
            return "signal %s" % signal.Signals(-status).name
        except ValueError:
            return "signal %d" % -status
    return "exit status %s" % status


def _log_tail(path, lines=3):
    with open(path, errors="replace") as f:
        tail = [l.strip() for l in f.read().splitlines() if l.strip()][-lines:]
    return " | ".join(tail)[:400]


def run_env(opts):
    env = dict(os.environ)
    paths = [BOOT, os.path.join(os.path.dirname(opts.tests), "site")]
    if opts.target == "kfront":
        paths.append(opts.kfront)
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env["KFRONT_CONFORMANCE_TARGET"] = opts.target
    env["KFRONT_CONFORMANCE_TESTS"] = opts.tests
    env["PYTHONDONTWRITEBYTECODE"] = "1"        # the prepared folder stays as prepared
    for var in ("NUMBA_ENABLE_CUDASIM", "KFRONT_SIM"):
        env.pop(var, None)
    if not opts.gpu:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
        env["KFRONT_SIM"] = "1"
    return env


def _probe(opts, env):
    """What the test processes will see: versions and the resolution of numba (one line each)."""
    code = ("import sys, platform, conformance_boot, numpy, importlib.metadata as md; from numba import cuda\n"
            "assert conformance_boot.TARGET == %r, 'sitecustomize did not install the target'\n" % opts.target +
            "print('python:', platform.python_version()); print('numpy:', numpy.__version__)\n"
            "if conformance_boot.TARGET == 'kfront':\n"
            "    print('kfront:', sys.modules['kfront'].__file__); print('numba mode:', conformance_boot.NUMBA_MODE)\n"
            "else:\n"
            "    print('numba-cuda:', md.version('numba-cuda'))\n"
            "print('numba:', md.version('numba') if conformance_boot.REAL_NUMBA else 'kfront drop-in')\n"
            "import numba.cuda.testing as t; print('simulator:', bool(t.config.ENABLE_CUDASIM))\n")
    r = subprocess.run([opts.python, "-c", code], env=env, capture_output=True, text=True, cwd=opts.work)
    if r.returncode != 0:
        sys.exit("conformance run: the target does not start (%s):\n%s" % (opts.target, r.stderr[-3000:]))
    return r.stdout.strip().splitlines()


def machine_text():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    gpu = "no GPU"
    if shutil.which("nvidia-smi"):
        r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                           text=True)
        if r.returncode == 0 and r.stdout.strip():
            gpu = ", ".join(sorted(set(r.stdout.split("\n")) - {""}))
    return "%s, %d cores, %s" % (cpu, os.cpu_count() or 0, gpu)


def _now():
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M")


def run(args):
    opts = args
    opts.tests = os.path.abspath(opts.tests)
    opts.kfront = os.path.abspath(opts.kfront)
    opts.label = opts.label or "%s-%s" % (opts.target, "gpu" if opts.gpu else "sim")
    opts.work = os.path.abspath(opts.work or (os.path.join(ROOT, "build", "conformance", "work")
                                              if opts.results == RESULTS else
                                              os.path.join(os.path.dirname(opts.results), "work")))
    os.makedirs(os.path.join(opts.work, opts.label), exist_ok=True)
    env = run_env(opts)
    probe = _probe(opts, env)
    modules = discover(opts.tests, opts.folder or FOLDERS, opts.module)
    if not modules:
        sys.exit("conformance run: no test modules match")
    out_dir = os.path.join(opts.results, opts.label)
    if not opts.module and not opts.folder:
        shutil.rmtree(out_dir, ignore_errors=True)
    started = time.monotonic()

    def one(item):
        folder, module = item
        t0 = time.monotonic()
        results = run_module(opts, env, folder, module)
        write_module_results(out_dir, opts.tests, folder, module, results)
        counts = _count(o for o, _ in results.values())
        print("%-45s %5.0fs  %s" % ("%s/%s" % (folder, module), time.monotonic() - t0,
                                    " ".join("%s %d" % (k, counts[k]) for k in OUTCOMES if counts[k])), flush=True)
        return results

    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        all_results = list(pool.map(one, modules))
    totals = _count(o for r in all_results for o, _ in r.values())
    run_txt = os.path.join(out_dir, "RUN.txt")
    if (opts.module or opts.folder) and os.path.exists(run_txt):
        print("conformance %s: %s (RUN.txt kept: a partial run)" % (opts.label, " ".join(
            "%s %d" % (k, totals[k]) for k in OUTCOMES)))
        return
    with open(run_txt, "w") as f:
        f.write("date: %s\nmachine: %s\ntarget: %s\n%s\nper-test limit: %gs\nmodules: %d\nwall: %.0fs\n" % (
            _now(), machine_text(), opts.target, "\n".join(probe), opts.timeout, len(modules),
            time.monotonic() - started))
    print("conformance %s: %s" % (opts.label, " ".join("%s %d" % (k, totals[k]) for k in OUTCOMES)))


def write_module_results(out_dir, tests_dir, folder, module, results):
    path = os.path.join(out_dir, folder, module[:-3] + ".tsv")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for test in sorted(results):
            outcome, message = results[test]
            f.write("%s\t%s\t%s\n" % (test, outcome, _stable(message, tests_dir)))


def _stable(message, tests_dir):
    """The message without what changes from run to run (addresses, temporary paths, the checkout's path)."""
    message = re.sub(r"0x[0-9a-fA-F]{6,}", "0x...", message)
    message = message.replace(tests_dir, "<tests>").replace(ROOT, "<repo>")
    message = re.sub(r"/tmp/[^\s'\"]*", "/tmp/...", message)
    return message


def _count(outcomes):
    counts = dict.fromkeys(OUTCOMES, 0)
    for o in outcomes:
        counts[o] = counts.get(o, 0) + 1
    return counts


# ----------------------------------------------------------------------------------------------------- results

def load_label(label, results=RESULTS):
    """{"folder/module.py::Test": (outcome, message)} of a results label."""
    out = {}
    base = os.path.join(results, label)
    for path in sorted(glob.glob(os.path.join(base, "*", "*.tsv"))):
        folder = os.path.basename(os.path.dirname(path))
        module = os.path.basename(path)[:-4] + ".py"
        with open(path) as f:
            for line in f:
                test, outcome, message = (line.rstrip("\n").split("\t") + ["", ""])[:3]
                out["%s/%s::%s" % (folder, module, test)] = (outcome, message)
    return out


def run_info(label, results=RESULTS):
    """RUN.txt's `key: value` lines."""
    info = {}
    path = os.path.join(results, label, "RUN.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition(": ")
                info[key] = value
    return info


def load_out_of_scope(path=os.path.join(HERE, "out_of_scope.txt")):
    """[(reason, [patterns])]: blocks of `reason: ...` followed by folder/module.py::Test patterns."""
    groups = []
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("reason:"):
                groups.append((line[len("reason:"):].strip(), []))
            elif groups:
                groups[-1][1].append(line.strip())
            else:
                raise ValueError("%s: a pattern before the first reason: %r" % (path, line))
    return groups


def load_classes(path=os.path.join(HERE, "classes.tsv")):
    """[(compiled regex, class template)]: the first rule whose regex matches a message classifies it; the
    template may name the regex's groups (\\1)."""
    rules = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            pattern, template = line.rstrip("\n").split("\t")[:2]
            rules.append((re.compile(pattern), template))
    return rules


def classify(test, outcome, message, scope_groups, rules):
    for reason, patterns in scope_groups:
        if any(fnmatch.fnmatchcase(test, p) for p in patterns):
            return "out of scope: " + reason.split(":")[0].split(" (")[0]
    if outcome in ("timeout", "crash"):
        return outcome
    for regex, template in rules:
        m = regex.search(message)
        if m:
            return m.expand(template)
    return "unclassified %s" % outcome


def _table_counts(results):
    per_module, per_folder = {}, {}
    for key, (outcome, _) in results.items():
        module = key.split("::")[0]
        folder = module.split("/")[0]
        per_module.setdefault(module, _count([]))[outcome] += 1
        per_folder.setdefault(folder, _count([]))[outcome] += 1
    return per_module, per_folder


def report(args):
    labels = sorted(d for d in os.listdir(RESULTS) if os.path.isdir(os.path.join(RESULTS, d)))
    data = {l: load_label(l) for l in labels}
    scope, rules = load_out_of_scope(), load_classes()
    lines = ["# Conformance: numba-cuda %s's own tests" % NUMBA_CUDA_VERSION, "",
             "Written by `test/conformance/conformance.py report` from `results/`; docs/conformance.md says how "
             "the runs are made and read. pass/fail/error/timeout/crash/skip per test; `fail` is a failed "
             "assertion, `error` an exception in the test, its setup or its module's import.", ""]
    lines += ["## Runs", "", "| label | date | machine | numba.cuda | numba | per-test limit |", "|---|---|---|---|---|---|"]
    for l in labels:
        info = run_info(l)
        impl = ("kfront (%s)" % info.get("numba mode", "")) if "kfront" in info else \
            "numba-cuda %s" % info.get("numba-cuda", "")
        lines.append("| %s | %s | %s | %s | %s | %s |" % (l, info.get("date", ""), info.get("machine", ""), impl,
                                                           info.get("numba", ""), info.get("per-test limit", "")))
    lines += ["", "## Totals", "", "`of the baseline's`: the tests this run passes among those its baseline (numba-cuda "
              "on the same machine, -sim or -gpu) passes. A module whose import fails is one `<module>` row (error): "
              "its tests are not counted one by one.", "", _counts_header("label")]
    folder_tables = {}
    for l in labels:
        per_module, per_folder = _table_counts(data[l])
        folder_tables[l] = (per_module, per_folder)
        lines.append(_counts_row(l, _count(o for o, _ in data[l].values()), _kept(data, l)))
    lines += ["", "## Per folder", ""]
    for folder in FOLDERS:
        lines += ["### %s" % folder, "", _counts_header("label")]
        for l in labels:
            lines.append(_counts_row(l, folder_tables[l][1].get(folder, _count([])), _kept(data, l, folder + "/")))
        lines.append("")
    modules = sorted({m for l in labels for m in folder_tables[l][0]})
    lines += ["## Per module: passed / tests", "", "| module | " + " | ".join(labels) + " |",
              "|---|" + "---|" * len(labels)]
    for m in modules:
        cells = []
        for l in labels:
            c = folder_tables[l][0].get(m)
            cells.append("%d / %d" % (c["pass"], sum(c.values())) if c else "")
        lines.append("| %s | %s |" % (m, " | ".join(cells)))
    with open(os.path.join(HERE, "RESULTS.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    write_classification(data, labels, scope, rules)
    print("conformance report: RESULTS.md, CLASSIFICATION.md for %s" % ", ".join(labels))


def _counts_header(first):
    return "| %s | %s | of the baseline's |\n|---|%s---|" % (first, " | ".join(OUTCOMES), "---|" * len(OUTCOMES))


def _counts_row(name, counts, kept):
    return "| %s | %s | %s |" % (name, " | ".join(str(counts.get(k, 0)) for k in OUTCOMES), kept)


def _kept(data, label, prefix=""):
    """`passed / baseline passes` over tests under prefix, against the baseline of label's machine (-sim, -gpu)."""
    base = data.get("numba-cuda-" + label.rsplit("-", 1)[-1])
    if base is None:
        return ""
    wanted = [t for t, (o, _) in base.items() if o == "pass" and t.startswith(prefix)]
    return "%d / %d" % (sum(1 for t in wanted if data[label].get(t, ("",))[0] == "pass"), len(wanted))


def write_classification(data, labels, scope, rules):
    md = ["# Classification: what numba-cuda's own run passes and kfront's does not", "",
          "Written by `conformance.py report`: each test the baseline (numba-cuda on the same machine) passes "
          "and kfront does not pass gets a class: its group in `out_of_scope.txt` (tests only numba can pass, "
          "with the reason), else `timeout`/`crash`, else the first rule of `classes.tsv` matching its message. "
          "Every test with its class and message: `classification-<sim|gpu>.tsv`.", ""]
    for suffix in ("sim", "gpu"):
        base, kf = "numba-cuda-" + suffix, "kfront-" + suffix
        if base not in data or kf not in data:
            continue
        rows = []
        for test, (b_out, _) in sorted(data[base].items()):
            if b_out != "pass":
                continue
            k_out, k_msg = data[kf].get(test) or _module_level(data[kf], test)
            if k_out == "pass":
                continue
            rows.append((test, k_out, classify(test, k_out, k_msg, scope, rules), k_msg))
        with open(os.path.join(HERE, "classification-%s.tsv" % suffix), "w") as f:
            f.write("test\tkfront outcome\tclass\tmessage\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        base_pass = sum(1 for o, _ in data[base].values() if o == "pass")
        both = base_pass - len(rows)
        scoped = sum(1 for r in rows if r[2].startswith("out of scope"))
        md += ["## %s: %s against %s" % (suffix, kf, base), "",
               "%d tests pass under numba-cuda; %d of them pass under kfront; %d do not: %d out of scope, "
               "%d to fix." % (base_pass, both, len(rows), scoped, len(rows) - scoped), "",
               "| class | tests | e.g. |", "|---|---|---|"]
        by_class = {}
        for r in rows:
            by_class.setdefault(r[2], []).append(r)
        for cls, members in sorted(by_class.items(), key=lambda kv: (kv[0].startswith("out of scope"),
                                                                      -len(kv[1]), kv[0])):
            md.append("| %s | %d | `%s` |" % (cls.replace("|", "\\|"), len(members),
                                              members[0][0].replace("|", "\\|")))
        kinds = {}
        for r in rows:
            kind = r[2].split(":")[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        md += ["", "By kind (the class up to its colon): " + ", ".join(
            "%s %d" % kv for kv in sorted(kinds.items(), key=lambda kv: -kv[1])) + ".", ""]
        extra = [t for t, (o, _) in sorted(data[kf].items()) if o == "pass" and data[base].get(t, ("",))[0] != "pass"]
        if extra:
            md += ["Tests kfront passes that numba-cuda's run does not (%d): %s" % (
                len(extra), ", ".join("`%s`" % t for t in extra[:30]) + (" ..." if len(extra) > 30 else "")), ""]
    with open(os.path.join(HERE, "CLASSIFICATION.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def _module_level(results, test):
    """A test kfront has no line for: its module's import failed (<module>'s outcome), or it was not run."""
    module = test.split("::")[0]
    for key in (module + "::<module>", module + "::<remaining>"):
        if key in results:
            return results[key]
    return ("missing", "not run")


# ------------------------------------------------------------------------------------------------------- check

def check(args):
    results = load_label(args.label, args.results)
    with open(args.expect) as f:
        expected = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    scope = set(m for m in (args.module or []))
    in_scope = [t for t in expected if not scope or t.split("::")[0] in scope]
    regressed = [t for t in in_scope if (results.get(t) or _module_level(results, t))[0] != "pass"]
    modules = {t.split("::")[0] for t in results if not scope or t.split("::")[0] in scope}
    new = sorted(t for t, (o, _) in results.items() if o == "pass" and t not in expected
                 and (not scope or t.split("::")[0] in scope))
    for t in regressed:
        outcome, message = results.get(t) or _module_level(results, t)
        print("REGRESSION %s: %s %s" % (t, outcome, message))
    for t in new:
        print("NEWLY PASSING %s (add it to %s)" % (t, os.path.relpath(args.expect, ROOT)))
    print("conformance check: %d expected to pass, %d regressed, %d newly passing, over %d modules" % (
        len(in_scope), len(regressed), len(new), len(modules)))
    return 1 if regressed else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("--dest", default=DEFAULT_PREPARED)
    pp.add_argument("--python", default=sys.executable, help="the interpreter whose pip fetches")
    pp.add_argument("--with-pytest", action="store_true")
    pp.add_argument("--binary-deps", default="cffi,ml_dtypes", choices=("cffi,ml_dtypes", "cffi", "ml_dtypes", ""),
                    help="the binary test dependencies to install (ml_dtypes is 23 MB; only test_bfloat16 needs it)")
    pp.add_argument("--for-python", help="X.Y: the binary test dependencies for that Python (another machine's)")
    pr = sub.add_parser("run")
    pr.add_argument("--target", required=True, choices=("kfront", "numba-cuda", "numba-cuda+shim"))
    pr.add_argument("--python", required=True)
    pr.add_argument("--label")
    pr.add_argument("--tests", default=os.path.join(DEFAULT_PREPARED, "tests"))
    pr.add_argument("--kfront", default=os.path.join(ROOT, "build", "python"),
                    help="the folder holding the kfront package (default build/python)")
    pr.add_argument("--folder", action="append", choices=FOLDERS)
    pr.add_argument("--module", action="append", help="folder/test_x.py or a glob (repeatable)")
    pr.add_argument("--timeout", type=float, default=60.0)
    pr.add_argument("--jobs", type=int, default=1)
    pr.add_argument("--gpu", action="store_true", help="run on the GPU (default: the simulators)")
    pr.add_argument("--results", default=RESULTS)
    pr.add_argument("--work", help="where the records and logs of each module go (default build/conformance/work,"
                    " or beside --results)")
    sub.add_parser("report")
    pc = sub.add_parser("check")
    pc.add_argument("--label", required=True)
    pc.add_argument("--expect", required=True)
    pc.add_argument("--module", action="append")
    pc.add_argument("--results", default=RESULTS)
    args = p.parse_args(argv)
    return {"prepare": prepare, "run": run, "report": report, "check": check}[args.command](args) or 0


if __name__ == "__main__":
    sys.exit(main())
