"""_cli.py — the console command `kfront` of the installed distribution (pyproject.toml's [project.scripts]).

It runs the kfront driver installed beside the package (kfront/_bin/kfront: tools/kfront.c — `kfront compile`,
`check`, `run`, `--version`, `-s`; docs/tools.md) with the arguments given and KFRONT_SITE_PACKAGES set to the
folders where this installation's NVIDIA wheels are (kfront.config.cuda_search_paths, the search the Python module
configures), so that the driver finds libNVVM, libdevice, NVRTC and nvJitLink from `pip install kfront-cuda[cu13]`
as `import kfront` does. The process becomes the driver (os.execve): output and exit status are the driver's.
A build tree has no kfront/_bin: there the driver is build/bin/kfront."""
import os
import sys

from kfront import config


def driver_path():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "kfront")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    driver = driver_path()
    if not os.access(driver, os.X_OK):
        sys.stderr.write("kfront: error: no kfront driver at %s (a build tree has none: run build/bin/kfront, or "
                         "install the distribution with pip)\n" % driver)
        return 2
    env = dict(os.environ, KFRONT_SITE_PACKAGES=config.cuda_search_paths()["site_packages"])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(driver, [driver] + argv, env)
