"""Notebooks run top to bottom in a Jupyter kernel (nbclient, ipykernel), kernels on kfront's simulator: the
project's own notebooks/kernels_in_cells.ipynb (kernels in plain cells and under %%time, %%timeit, %%capture,
%%prun, redefined, generated from strings, pickled), and the seed notebook 001 (test/acceptance/notebooks: a text
rendering of a notebook, its cells rebuilt from it), in a kernel started with kfront's drop-in. Also the same
magics in an in-process IPython shell.

The seed's 30-million-element array is shrunk to 9,600 (a multiple of its 128 threads per block, as 30 million is:
its kernel has no bounds guard) so that its %%timeit -n 100 runs in seconds on the simulator; KFRONT_SEED_FULL=1
keeps the seed's own size (the GPU machine's run)."""
import glob
import os
import re

import pytest

import kfront

nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (scripts/setup.sh installs it)")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (scripts/setup.sh installs it)")
pytest.importorskip("ipykernel", reason="ipykernel is not installed (scripts/setup.sh installs it)")
IPython = pytest.importorskip("IPython", reason="IPython is not installed (scripts/setup.sh installs it)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SEEDS = os.environ.get("KFRONT_SEEDS_DIR") or os.path.join(ROOT, "test", "acceptance", "notebooks")
KFRONT_PATH = os.path.dirname(os.path.dirname(os.path.abspath(kfront.__file__)))
ON_GPU = os.environ.get("KFRONT_TEST_GPU") == "1"


def _execute(nb, tmp_path, monkeypatch, drop_in=False):
    """Runs nb in a fresh Jupyter kernel; drop_in: started with kfront's drop-in (an IPython startup file calls
    kfront.install_numba_alias(), so the notebook's `from numba import cuda` is kfront's, its cells unchanged)."""
    if not ON_GPU:
        monkeypatch.setenv("KFRONT_SIM", "1")
    if drop_in:
        startup = tmp_path / "ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-kfront.py").write_text("import kfront\nkfront.install_numba_alias()\n")
        monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("PYTHONPATH", KFRONT_PATH + os.pathsep + os.environ.get("PYTHONPATH", ""))
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    return nb


def test_kernels_in_cells_notebook(tmp_path, monkeypatch):
    nb = nbformat.read(os.path.join(HERE, "notebooks", "kernels_in_cells.ipynb"), as_version=4)
    _execute(nb, tmp_path, monkeypatch)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "Wall time" in text and "per loop" in text  # %%time and %%timeit ran their cells


# ---- the seed notebook -----------------------------------------------------------------------------------

def _is_code(text):
    """Whether text is the code of a notebook cell: Python once IPython's transforms ran (a cell magic's body
    is Python itself)."""
    from IPython.core.inputtransformer2 import TransformerManager
    if text.startswith("%%"):
        body = text.split("\n", 1)[1] if "\n" in text else ""
        return not body.strip() or _is_code(body)
    try:
        compile(TransformerManager().transform_cell(text), "<cell>", "exec")
        return True
    except SyntaxError:
        return False


def seed_cells(path):
    """The seed's cells, from its text rendering: each "In [None]:" starts a code cell, whose code is the run of
    blank-line-separated paragraphs after it that are still code (the prose that follows is not Python)."""
    text = open(path, encoding="utf-8").read()
    parts = re.split(r"^In \[[^\]]*\]:\n", text, flags=re.M)
    cells = [nbformat.v4.new_markdown_cell(parts[0].strip())]
    for part in parts[1:]:
        paragraphs = re.split(r"\n[ \t]*\n", part)
        code = []
        for paragraph in paragraphs:
            if not _is_code("\n\n".join(code + [paragraph]).strip()):
                break
            code.append(paragraph)
        source = "\n\n".join(code).strip()
        cells.append(nbformat.v4.new_code_cell(source))
        rest = "\n\n".join(paragraphs[len(code):]).strip()
        if rest:
            cells.append(nbformat.v4.new_markdown_cell(rest))
    return cells


def _seed_path():
    found = sorted(glob.glob(os.path.join(SEEDS, "001_*.txt")))
    assert found, "the seed notebook 001 (001_*.txt) is not in %s (test/acceptance/notebooks, or KFRONT_SEEDS_DIR)" % SEEDS
    return found[0]


def test_seed_notebook_cells_are_rebuilt():
    path = _seed_path()
    code = [c.source for c in seed_cells(path) if c.cell_type == "code"]
    assert len(code) == 16
    assert code[10].startswith("%%time\n\noutput = np.zeros_like(random_array)") and code[10].endswith("output")
    assert "@cuda.jit\ndef foo(input_array, output_array):" in code[10]
    assert code[14] == "%%timeit -n 100\nfoo[blocks, threads](gpu_random_array, gpu_output)"


def test_seed_notebook_runs_top_to_bottom(tmp_path, monkeypatch):
    """the seed notebook's headline cell (a kernel defined under %%time) and every other cell run in Jupyter, the
    kernel started with kfront's drop-in"""
    path = _seed_path()
    cells = seed_cells(path)
    if not os.environ.get("KFRONT_SEED_FULL"):
        for cell in cells:
            cell.source = cell.source.replace("30_000_000", "9_600")
    nb = nbformat.v4.new_notebook(cells=cells)
    _execute(nb, tmp_path, monkeypatch, drop_in=True)
    code = [c for c in nb.cells if c.cell_type == "code"]
    headline = next(c for c in code if "@cuda.jit" in c.source and c.source.startswith("%%time"))
    assert [o for o in headline.outputs if o.output_type == "execute_result"], headline.outputs
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]


# ---- the same magics in an in-process shell ---------------------------------------------------------------

MAGIC_CELLS = [
    ("%%time\n\nN = 3\n@cuda.jit\ndef k1(o):\n    i = cuda.grid(1)\n    o[i] = i + N\nk1[1, 4](out)\nout",
     [3, 4, 5, 6]),
    ("%%timeit -n 1 -r 1\nM = 5\n@cuda.jit\ndef k2(o):\n    i = cuda.grid(1)\n    o[i] = i * M\nk2[1, 4](out)",
     [0, 5, 10, 15]),
    ("%%capture cap\n@cuda.jit\ndef k3(o):\n    o[0] = 77\nk3[1, 1](out)\nprint('hi')", [77, 5, 10, 15]),
    ("%%prun -q\n@cuda.jit\ndef k4(o):\n    o[1] = 88\nk4[1, 1](out)", [77, 88, 10, 15]),
    ("@cuda.jit\ndef k5(o):\n    o[2] = 99\nk5[1, 1](out)", [77, 88, 99, 15]),
]


def test_magics_in_an_ipython_shell(monkeypatch):
    """numba-cuda runs each of these cells (it compiles bytecode); kfront must too, from the text IPython
    compiled each cell from (main's kfront refused %%time, %%timeit and %%prun: SourceUnavailableError)"""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    try:
        shell.run_cell("import numpy as np\nfrom kfront import cuda\nout = np.zeros(4)")
        for cell, expected in MAGIC_CELLS:
            result = shell.run_cell(cell, silent=True)
            assert result.error_in_exec is None, (cell, result.error_in_exec)
            assert shell.user_ns["out"].tolist() == expected, cell
    finally:
        InteractiveShell.clear_instance()
