"""Atomic privatisation (passes/privatize_atomics.c, issue 24 item 4) through kfront.cuda on the simulator: histograms
and other atomic reductions into few bins, as a Numba user writes them, give NumPy's answers whether the kernel takes
the shared-memory path (extent <= the bound) or the original one, and an index out of range raises the same
IndexError with bounds checks on. The one-thread-per-element form is privatised after the runtime's grid-stride
rewrite; the grid-stride loop form by the default pipeline itself (inspect_kir shows it)."""
import numpy as np
import pytest

from kfront import cuda


@cuda.jit
def hist_once(x, bins):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.add(bins, int(x[i] * bins.shape[0]), 1)


@cuda.jit
def hist_loop(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, int(x[i] * bins.shape[0]), 1)


@cuda.jit(boundscheck=True)
def hist_checked(idx, bins):
    for i in range(cuda.grid(1), idx.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, idx[i], 1)


@cuda.jit
def extremes(key, val, lo, hi):
    for i in range(cuda.grid(1), key.shape[0], cuda.gridsize(1)):
        cuda.atomic.min(lo, key[i], val[i])
        cuda.atomic.max(hi, key[i], val[i])


def reference_hist(x, nbins):
    return np.bincount((x.astype(np.float64) * nbins).astype(np.int64), minlength=nbins).astype(np.int32)


@pytest.mark.parametrize("nbins", [1, 7, 256, 4095, 4096, 4097, 10000])
@pytest.mark.parametrize("kernel", [hist_once, hist_loop])
def test_histogram_matches_numpy(kernel, nbins):
    rng = np.random.default_rng(nbins)
    x = rng.random(3000, dtype=np.float32)
    bins = np.zeros(nbins, np.int32)
    kernel[(x.size + 127) // 128 if kernel is hist_once else 4, 128](x, bins)
    np.testing.assert_array_equal(bins, reference_hist(x, nbins))
    # and numpy's histogram of the same values (the bins edges of [0, 1) divided evenly)
    if nbins in (7, 256):
        want, _ = np.histogram((x.astype(np.float64) * nbins).astype(np.int64), bins=nbins, range=(0, nbins))
        np.testing.assert_array_equal(bins, want)


def test_histogram_accumulates_into_existing_bins():
    x = np.random.default_rng(1).random(2000, dtype=np.float32)
    bins = np.arange(64, dtype=np.int32) * 1000
    hist_loop[3, 96](x, bins)
    np.testing.assert_array_equal(bins, np.arange(64, dtype=np.int32) * 1000 + reference_hist(x, 64))


def test_loop_form_privatised_in_kir():
    x = np.zeros(4, np.float32)
    hist_loop[1, 32](x, np.zeros(4, np.int32))
    kir = hist_loop.inspect_kir(hist_loop.signatures[0])
    assert "privatized_atomics" in kir and "space = \"shared\"" in kir


def test_min_max_match_numpy():
    rng = np.random.default_rng(5)
    key = rng.integers(0, 50, 5000).astype(np.int64)
    val = rng.integers(-10**12, 10**12, 5000).astype(np.int64)
    lo = np.full(50, np.iinfo(np.int64).max, np.int64)
    hi = np.full(50, np.iinfo(np.int64).min, np.int64)
    extremes[5, 64](key, val, lo, hi)
    want_lo = np.full(50, np.iinfo(np.int64).max, np.int64)
    want_hi = np.full(50, np.iinfo(np.int64).min, np.int64)
    np.minimum.at(want_lo, key, val)
    np.maximum.at(want_hi, key, val)
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)


@pytest.mark.parametrize("nbins", [16, 5000])
def test_out_of_range_index_raises_index_error(nbins):
    idx = np.arange(1000, dtype=np.int64) % nbins
    idx[617] = nbins + 3
    bins = np.zeros(nbins, np.int32)
    with pytest.raises(IndexError, match="index %d is out of bounds for axis 0 with size %d" % (nbins + 3, nbins)):
        hist_checked[2, 64](idx, bins)
    idx[617] = -1  # wraps, as in Numba
    bins[:] = 0
    hist_checked[2, 64](idx, bins)
    want = np.bincount(idx % nbins, minlength=nbins)
    np.testing.assert_array_equal(bins, want)
