"""The compiled per-trace pass (analysis/mars/_trace_kernel.c) against the numpy loop it
replaces: the same bits in every output, on float16 traces with the edge cases a pool holds
(empty, shorter than a window, exactly one window, NaN/inf tokens, negatives, subnormals)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from analysis.mars import confidence
from analysis.mars.confidence import BatchFeatures, batch_features
from cache import extensions


def _bits(a: np.ndarray) -> bytes:
    return a.dtype.str.encode() + str(a.shape).encode() + np.ascontiguousarray(a).tobytes()


def _same(a: BatchFeatures, b: BatchFeatures) -> None:
    for f in dataclasses.fields(a.metrics):
        x, y = getattr(a.metrics, f.name), getattr(b.metrics, f.name)
        assert _bits(x) == _bits(y), f.name
    for name in ("ck_offsets", "ck_pos", "ck_conf", "end_conf", "curve"):
        assert _bits(getattr(a, name)) == _bits(getattr(b, name)), name


@pytest.mark.skipif(extensions.disabled(), reason="RTE_NO_EXT=1: the numpy loop on purpose")
def test_the_kernel_is_built() -> None:
    """The test machine has a C compiler (tests/setup.sh installs the project with it): a
    missing kernel means the build failed and every cold MARS build runs the slow loop."""
    assert confidence._trace_kernel is not None


@pytest.mark.skipif(not extensions.disabled(), reason="only under RTE_NO_EXT=1")
def test_the_switch_leaves_the_numpy_loop() -> None:
    """Under RTE_NO_EXT=1 the kernel is not loaded, and a float16 pool still gets the features
    the loop computes (the kernel's tests below skip)."""
    assert confidence._trace_kernel is None
    off, v = _pool(3)
    a = batch_features(off, v, compiled=True)
    b = batch_features(off, v, compiled=False)
    _same(a, b)


def _pool(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 14))
    lens = rng.integers(0, 7000, n)
    lens[rng.random(n) < 0.15] = 0
    lens[rng.random(n) < 0.15] = 2048  # exactly one window
    off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    m = int(off[-1])
    sign = rng.choice([1.0, -1.0], m, p=[0.97, 0.03])
    v = (rng.gamma(2.0, 2.0, m) * sign).astype(np.float16)
    if seed % 3 == 0 and m:
        specials = [np.nan, np.inf, -np.inf, 6e-8, 1e-5, 65504.0]
        v[rng.integers(0, m, 4)] = rng.choice(specials, 4)
    if seed % 5 == 0 and m:  # a steadily falling trace: a record low at most windows
        v[: min(m, 9000)] = np.linspace(20, 0, min(m, 9000)).astype(np.float16)
    return off, v


@pytest.mark.skipif(confidence._trace_kernel is None, reason="asserted by test_the_kernel_is_built")
@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize(
    ("window", "ck_step", "n_points"),
    [(2048, 2048, 200), (512, 256, 0), (100, 300, 17), (1, 1, 5), (4096, 2048, 50)],
)
def test_compiled_pass_gives_the_numpy_loops_bits(
    seed: int, window: int, ck_step: int, n_points: int
) -> None:
    off, v = _pool(seed)
    fast = batch_features(off, v, window, ck_step=ck_step, n_points=n_points)
    slow = batch_features(off, v, window, ck_step=ck_step, n_points=n_points, compiled=False)
    _same(fast, slow)


def _call_with(length: int, curve: np.ndarray) -> np.ndarray:
    """`trace_pass` on ten float16 ones told they are one trace of `length`, window 4, its
    curve in two points written into `curve` (every other buffer has room); its float32 sum."""
    vals = np.ones(10, dtype=np.float16).view(np.uint16)
    off = np.array([0, length], dtype=np.int64)
    z64, z32 = np.zeros(40, np.int64), np.zeros(40, np.float32)
    g_off = np.array([0, max(length - 3, 0)], dtype=np.int64)
    none = np.zeros(2, np.int64)  # ck_step 0: no checkpoints
    sum32 = np.zeros(1, np.float32)
    confidence._trace_kernel.trace_pass(
        vals, off, g_off, none, curve, z32, z64, z64, z32, np.zeros(4), np.zeros(4),
        sum32, z32, z32, 4, 0, 2,
    )  # fmt: skip
    return sum32


@pytest.mark.skipif(confidence._trace_kernel is None, reason="asserted by test_the_kernel_is_built")
def test_the_kernel_refuses_offsets_that_do_not_fit_its_buffers() -> None:
    with pytest.raises(ValueError, match="inconsistent"):
        _call_with(20, np.zeros(2, np.float32))  # a trace longer than the values
    with pytest.raises(ValueError, match="inconsistent"):
        _call_with(10, np.zeros(1, np.float32))  # no room for its curve


@pytest.mark.skipif(confidence._trace_kernel is None, reason="asserted by test_the_kernel_is_built")
def test_the_kernel_refuses_a_buffer_of_the_wrong_item_size() -> None:
    with pytest.raises(ValueError, match="items of 4 bytes"):
        _call_with(10, np.zeros(2, np.float64))  # float64 where the kernel writes float32


@pytest.mark.skipif(confidence._trace_kernel is None, reason="asserted by test_the_kernel_is_built")
def test_the_kernel_accepts_consistent_buffers() -> None:
    curve = np.zeros(2, np.float32)
    assert _call_with(10, curve).tolist() == [10.0]
    assert curve.tolist() == [1.0, 1.0]


@pytest.mark.skipif(confidence._trace_kernel is None, reason="asserted by test_the_kernel_is_built")
def test_the_kernel_sums_as_numpy_does() -> None:
    """Its whole-trace and tail sums have the bits of numpy's float32 `add.reduce` (pairwise
    summation), at every length around its block sizes and far beyond, with mixed signs, zeros
    and negative zeros; NaN for a trace holding NaN or inf."""
    rng = np.random.default_rng(7)
    window = 100
    lens = [*range(0, 300), 1000, 1024, 2047, 2048, 2049, 8191, 8192, 8193, 20001]
    parts = []
    for L in lens:
        v = (rng.gamma(1.0, 3.0, L) * rng.choice([1.0, -1.0], L)).astype(np.float16)
        v[rng.random(L) < 0.1] = 0.0
        v[rng.random(L) < 0.1] = -0.0
        parts.append(v)
    parts.append(np.full(9, -0.0, dtype=np.float16))  # all negative zeros: numpy gives +0.0
    parts.append(np.array([1.0, np.inf, 2.0], dtype=np.float16))
    off = np.concatenate([[0], np.cumsum([p.shape[0] for p in parts])]).astype(np.int64)
    lengths = np.diff(off)
    ck_off = np.zeros(off.shape[0], dtype=np.int64)
    curve = np.zeros((len(parts), 0), dtype=np.float32)
    kp = confidence._kernel_pass(
        off, np.concatenate(parts), window, 0, lengths, ck_off, np.zeros(0), curve
    )
    for j, v in enumerate(parts[:-1]):
        c = v.astype(np.float32)
        assert kp.sum32[j].tobytes() == np.add.reduce(c).tobytes(), j
        assert kp.tail32[j].tobytes() == np.add.reduce(c[-window:]).tobytes(), j
    assert np.isnan(kp.sum32[-1]) and np.isnan(kp.tail32[-1])


def _lows_where_it_samples(n: int) -> np.ndarray:
    """Low values at exactly the 256 positions the kernel samples (window 1: groups are the
    values), high elsewhere: the sample's bound leaves fewer than k candidates, so the kernel
    must fall back to selecting over every group."""
    v = np.full(n, 5.0, np.float16)
    v[np.arange(256) * n // 256] = 1.0
    return v


@pytest.mark.skipif(confidence._trace_kernel is None, reason="asserted by test_the_kernel_is_built")
@pytest.mark.parametrize("seed", range(12))
def test_the_kernels_bottom_10_is_the_mean_of_the_sorted_lowest_groups(seed: int) -> None:
    """bottom_10 from the compiled radix selection has the bits of `np.mean(np.sort(g)[:k])`
    (k = max(1, int(0.1 n))) on group sets that stress it: heavy ties (window 1 over a few
    float16 values), one value throughout, negatives and zeros of both signs, a wide range
    (the recursion to narrower buckets), and the sizes around its small-set cut-off."""
    rng = np.random.default_rng(seed)
    traces = [
        rng.choice(np.array([1.0, 2.5, -0.0, 0.0, 7.0], np.float16), 5000),
        np.full(3000, 3.25, np.float16),
        (rng.normal(0, 1, 9000) * 10.0 ** rng.integers(-4, 4, 9000)).astype(np.float16),
        rng.gamma(2.0, 2.0, 12000).astype(np.float16),
        _lows_where_it_samples(10000),
        *[rng.gamma(1.0, 1.0, L).astype(np.float16) for L in (1, 2, 9, 47, 48, 49, 480, 490)],
    ]
    lens = np.array([t.shape[0] for t in traces])
    off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    window = 1 if seed % 2 else 3
    ck_off = np.zeros(off.shape[0], dtype=np.int64)
    curve = np.zeros((len(traces), 0), dtype=np.float32)
    kp = confidence._kernel_pass(
        off, np.concatenate(traces), window, 0, np.diff(off), ck_off, np.zeros(0), curve
    )
    for j, t in enumerate(traces):
        if t.shape[0] < window:
            continue  # no groups: the caller's loop handles a short trace
        cs = np.concatenate([[0.0], np.cumsum(t.astype(np.float32))]).astype(np.float32)
        g = (cs[window:] - cs[:-window]) / np.float32(window)
        k = max(1, int(0.1 * g.shape[0]))
        want = np.mean(np.sort(g)[:k])
        assert kp.bottom10[j].tobytes() == want.tobytes(), (j, kp.bottom10[j], want)
