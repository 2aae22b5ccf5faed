"""The matmul variants bench/matmul_variants.py times on the GPU (tile-shared's register tiles 4x4, 2x4, 4x8 and 8x8,
depth 8, double buffering, the 8x8 whole tiles unrolled with unroll{max-ops=20000}), each run on the simulator at
sizes that are not multiples of its block's outputs (64 x 64 for 4x4, 128 x 128 for 8x8), K not a multiple of the
depth, and compared bit for bit with the untiled compile: the same float32 sums in the same order per element."""
import importlib.util
import linecache
import os
import re

import numpy as np
import pytest

from kfront import _kfront, cuda, float32

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench", "matmul_variants.py")


def _bench():
    spec = importlib.util.spec_from_file_location("matmul_variants", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MV = _bench()


def _kernel():
    fn = "<test-matmul-variants>"
    linecache.cache[fn] = (len(MV.KERNEL), None, MV.KERNEL.splitlines(True), fn)
    g = {"cuda": cuda, "float32": float32}
    exec(compile(MV.KERNEL, fn, "exec"), g)
    return g[MV.NAME]


KERNEL = _kernel()
_programs = {}


def _function(pipe):
    if pipe not in _programs:
        fin = KERNEL._frozen()
        _programs[pipe] = _kfront.Program(cuda._runtime.runtime(), fin.sources, fin.binding_list(), fin.specs,
                                          pipeline=pipe).function(MV.NAME)
    return _programs[pipe]


def _run(pipe, a, b):
    m, n = a.shape[0], b.shape[1]
    c = np.zeros((m, n), dtype=np.float32)
    _function(pipe).configure(((m + 15) // 16, (n + 15) // 16), (16, 16))(a, b, c)
    return c


def test_the_variants_are_the_default_pipeline_but_for_the_tiling():
    names = [v[0] for v in MV.VARIANTS]
    assert names[0] == "default-4x4" and len(set(names)) == len(names)
    default = MV.pipeline(*MV.VARIANTS[0][1:])
    assert default == "canonicalize,cse,bce,pad-shared,tile-shared,thread-map,cse,hoist-checks,unroll,privatize-atomics,dce"
    for _, opts, unroll in MV.VARIANTS[1:]:
        p = MV.pipeline(opts, unroll)
        assert p.replace("{%s}" % opts, "").replace(unroll, "unroll") == default


# (M, N, K): edge blocks along both sides for every register tile, K below, at and off the depths 8 and 16
SHAPES = [(1, 1, 1), (70, 45, 37), (131, 129, 17), (140, 200, 8)]


SIG = "void(float32[:,:], float32[:,:], float32[:,:])"


def _register_tile(opts):
    o = dict(kv.split("=") for kv in opts.split(",") if kv)
    return int(o.get("rx", 4)), int(o.get("ry", 4))


@pytest.mark.parametrize("name,opts,unroll", MV.VARIANTS, ids=[v[0] for v in MV.VARIANTS])
def test_variant_bit_identical_to_untiled(name, opts, unroll):
    rng = np.random.default_rng(len(name))
    pipe = MV.pipeline(opts, unroll)
    # the pipeline tiles the kernel with the register tile asked for (the runtime launches that variant for
    # 16x16 blocks: test/unit/passes_tile_shared.c checks the launch plan's choice)
    fin = KERNEL._frozen()
    kir = _kfront.compile(fin.sources, fin.binding_list(), fin.specs, [MV.NAME], [SIG], emit="kir", pipeline=pipe)
    assert "@%s__tiled" % MV.NAME in kir
    assert re.findall(r"register_blocked = \[(\d+), (\d+)\]", kir) == [tuple(map(str, _register_tile(opts)))]
    for m, n, k in SHAPES:
        a = rng.random((m, k), dtype=np.float32)
        b = rng.random((k, n), dtype=np.float32)
        want = _run(MV.UNTILED, a, b)
        got = _run(pipe, a, b)
        assert np.array_equal(got, want), (name, m, n, k)
        np.testing.assert_allclose(got, a @ b, rtol=1e-5)
