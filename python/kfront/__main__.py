"""python -m kfront — runs a program written for numba-cuda, unchanged, on kfront.

    python -m kfront prog.py [args...]     runs prog.py as __main__ with sys.argv = [prog.py, args...]
    python -m kfront -m module [args...]   runs a module as __main__, as python -m does
    python -m kfront -c 'text' [args...]   runs the text as __main__ (sys.argv = ['-c', args...]), as python -c does
    python -m kfront - [args...]           runs the program read from standard input (sys.argv = ['-', args...])
    python -m kfront -s                    prints the system as `numba -s` does (system_info()): kfront's and the
                                           driver's versions, devices, CUDA libraries found, cache, Python, NumPy

For the run, numba.cuda and the modules numba-cuda provides resolve to kfront (kfront._alias.install_numba_alias),
so `from numba import cuda` gives kfront's; where numba is not installed, `numba` and its submodules do. The program runs as `python prog.py` would run it: its directory
first on sys.path, __name__ == "__main__", __file__ its absolute path (and, unlike python's, sys.argv[0]
too: runpy.run_path sets it); a text given with -c or read from standard input runs in a fresh __main__ as
python runs it (file name "<string>" or "<stdin>", the current directory first on sys.path), and its text is
registered with kfront._capture so its kernels compile. The exit status is Python's: the
program's sys.exit() status, 1 after an uncaught exception (its traceback printed through sys.excepthook,
without the frames of this runner), 2 for a bad command line or a file that cannot be opened.
NUMBA_ENABLE_CUDASIM=1 or KFRONT_SIM=1 in the environment runs it on kfront's simulator (kfront.config).
"""
import builtins
import os
import runpy
import sys
import types

USAGE = """usage: python -m kfront prog.py [args...]
       python -m kfront -m module [args...]
       python -m kfront -c 'program text' [args...]
       python -m kfront - [args...]    (the program read from standard input)
       python -m kfront -s             (the system: driver, devices, CUDA libraries, cache, Python, NumPy)
Runs a numba-cuda program unchanged on kfront: `numba.cuda` (and `numba`, where numba is not installed)
resolves to kfront for the run.
Environment: KFRONT_SIM=1 (or NUMBA_ENABLE_CUDASIM=1) runs kernels on kfront's simulator."""


def _program_traceback(tb, runner_files):
    """The traceback from the first frame that is not this runner's (or runpy's)."""
    while tb is not None and tb.tb_frame.f_code.co_filename in runner_files:
        tb = tb.tb_next
    return tb


def _run_text(text, filename):
    """Runs program text as python -c / python - run it: in a fresh __main__ module, its text registered as the
    source of the code compiled from it."""
    from kfront import _capture
    code = compile(text, filename, "exec", dont_inherit=True)
    _capture.register(code, text)
    main_module = types.ModuleType("__main__")
    main_module.__builtins__ = builtins
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main_module
    try:
        exec(code, main_module.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def system_info():
    """The text `python -m kfront -s` prints: the C library's report (kf_system_report, as `kfront -s` prints it)
    with the settings of kfront.config, then the Python side: the interpreter, NumPy, the module's location."""
    import platform
    from kfront import _kfront, config
    from kfront.cuda import _runtime
    _runtime.configure_cuda_paths()
    text = _kfront.system_report(mode="sim" if config.ENABLE_CUDASIM else "auto", libcuda=config.KFRONT_LIBCUDA,
                                 sim_devices=config.KFRONT_SIM_DEVICES, cache_dir=config.cache_dir())
    try:
        import numpy
        numpy_version = "%s (%s)" % (numpy.__version__, os.path.dirname(numpy.__file__))
    except ImportError as e:
        numpy_version = "not importable (%s)" % e
    lines = ["", "__Python Information__",
             "%-22s: %s %s (%s)" % ("Python", platform.python_implementation(), platform.python_version(),
                                     sys.executable),
             "%-22s: %s" % ("NumPy", numpy_version),
             "%-22s: %s" % ("kfront module", os.path.dirname(os.path.abspath(_kfront.__file__))),
             "%-22s: %s" % ("Wheel folders searched", config.cuda_search_paths()["site_packages"])]
    return text + "\n".join(lines) + "\n"


def main(argv=None):
    """Runs the command line `argv` (sys.argv[1:] by default); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    module = text = None
    if argv[0] in ("-s", "--sysinfo"):
        sys.stdout.write(system_info())
        return 0
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m kfront: -m needs a module name\n" + USAGE, file=sys.stderr)
            return 2
        module, args = argv[1], argv[2:]
    elif argv[0] == "-c":
        if len(argv) < 2:
            print("python -m kfront: -c needs the program's text\n" + USAGE, file=sys.stderr)
            return 2
        text, filename, args = argv[1], "<string>", argv[2:]
    elif argv[0] == "-":
        text, filename, args = sys.stdin.read(), "<stdin>", argv[1:]
    else:
        path, args = argv[0], argv[1:]
        if path.startswith("-"):
            print("python -m kfront: unknown option %s\n%s" % (path, USAGE), file=sys.stderr)
            return 2
        if not os.path.isfile(path):
            print("python -m kfront: can't open file %r: no such file" % os.path.abspath(path), file=sys.stderr)
            return 2

    from kfront._alias import install_numba_alias
    install_numba_alias()
    runner_files = {main.__code__.co_filename, runpy.run_path.__code__.co_filename}
    try:
        if text is not None:
            sys.argv = [argv[0]] + args
            sys.path[0] = ""
            _run_text(text, filename)
        elif module is not None:
            sys.argv = [module] + args
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [path] + args
            full = os.path.abspath(path)
            sys.path[0] = os.path.dirname(full)
            runpy.run_path(full, run_name="__main__")
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:
        tb = _program_traceback(e.__traceback__, runner_files)
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
