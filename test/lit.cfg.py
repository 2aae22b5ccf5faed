# lit configuration for kfront: %kfront-opt, %kfront, %seeds (the seed programs, test/acceptance/seeds), FileCheck, not.
import os
import lit.formats

config.name = "kfront"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".kir", ".py", ".test"]
config.excludes = ["Inputs", "acceptance", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt", "unit", "gpu"]
config.test_source_root = os.path.dirname(__file__)

site = lit_config.params.get("site")
if site:
    lit_config.load_config(config, site)
bin_dir = getattr(config, "kfront_bin_dir", None)
# Test outputs (%t) go under the build tree, never into the sources.
config.test_exec_root = getattr(config, "kfront_exec_root", config.test_source_root)
if not bin_dir:
    lit_config.fatal("run lit through ctest (it passes --param site=.../lit.site.cfg.py)")
config.environment["PATH"] = os.pathsep.join([bin_dir, "/usr/lib/llvm-14/bin", config.environment.get("PATH", os.environ["PATH"])])
config.environment["KFRONT_CACHE_DIR"] = os.path.join(os.path.dirname(site), "kfront-cache")
config.environment["KFRONT_SIM"] = "1"
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "CUDA_HOME", "KFRONT_LIBNVVM", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%seeds", config.seeds_dir))
config.substitutions.append(("%python", config.python))

# %ptxas: ptxas of the CUDA toolkit ($CUDA_HOME/bin, /usr/local/cuda/bin, PATH). A missing ptxas fails the tests
# that use it (it is part of what they check), never skips them.
import shutil
ptxas = None
for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
    if base and os.path.exists(os.path.join(base, "bin", "ptxas")):
        ptxas = os.path.join(base, "bin", "ptxas")
        break
ptxas = ptxas or shutil.which("ptxas")
config.substitutions.append(("%ptxas", ptxas if ptxas else "sh -c 'echo ptxas not found; exit 1' --"))
# %nvcc: the same toolkit's nvcc (building link inputs of every kind); missing, the tests that use it fail
nvcc = os.path.join(os.path.dirname(ptxas), "nvcc") if ptxas else None
config.substitutions.append(("%nvcc", nvcc if nvcc and os.path.exists(nvcc) else "sh -c 'echo nvcc not found; exit 1' --"))
