"""sitecustomize for the conformance gauge's processes: with KFRONT_CONFORMANCE_TARGET set (the runner sets it,
and the processes a test starts inherit it), `numba.cuda` resolves as conformance_boot says from the first
import on. Without it, nothing happens. This folder is first on PYTHONPATH only in the gauge's runs. A
resolution that cannot be installed ends the process (exit status 3): Python would otherwise report the
error in one line and go on with whatever `numba.cuda` it finds, and the run would measure the wrong thing."""
import os

if os.environ.get("KFRONT_CONFORMANCE_TARGET"):
    try:
        import conformance_boot

        conformance_boot.install()
    except BaseException:
        import traceback

        traceback.print_exc()
        print("conformance_boot: cannot resolve numba.cuda for target %r: the process stops" %
              os.environ["KFRONT_CONFORMANCE_TARGET"], flush=True)
        os._exit(3)
