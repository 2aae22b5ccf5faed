"""kfront — a compiler and runtime for Numba-CUDA kernels; `from kfront import cuda` is a drop-in for
`numba.cuda` (see kfront.cuda), and `python -m kfront prog.py` runs a numba-cuda program unchanged."""
