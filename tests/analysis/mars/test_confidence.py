"""Window metrics on hand-computed arrays (definitions: docs/formats/stopping.md)."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.mars.confidence import (
    conf_at_pos_one,
    conf_at_positions,
    first_window_below,
    group_confidences,
    record_lows,
    trace_metrics,
    windowed_means,
)


def flat(*traces: list[float]) -> tuple[np.ndarray, np.ndarray]:
    lens = [len(t) for t in traces]
    off = np.zeros(len(traces) + 1, dtype=np.int64)
    off[1:] = np.cumsum(lens)
    vals = (
        np.concatenate([np.asarray(t, dtype=np.float32) for t in traces])
        if sum(lens)
        else np.zeros(0, np.float32)
    )
    return off, vals


def test_group_confidences_small_window_by_hand() -> None:
    c = [1.0, 2.0, 3.0, 4.0, 10.0]
    # W = 2: means of (1,2) (2,3) (3,4) (4,10)
    np.testing.assert_array_equal(
        group_confidences(c, 2), np.array([1.5, 2.5, 3.5, 7.0], np.float32)
    )
    # W = 3: (1,2,3) (2,3,4) (3,4,10)
    np.testing.assert_allclose(group_confidences(c, 3), [2.0, 3.0, 17 / 3], rtol=1e-6)


def test_short_and_empty_traces() -> None:
    # shorter than the window: the single whole mean; empty: [0.0]
    np.testing.assert_array_equal(group_confidences([2.0, 4.0], 2048), np.array([3.0], np.float32))
    np.testing.assert_array_equal(group_confidences([], 2048), np.array([0.0], np.float32))
    off, vals = flat([], [2.0, 4.0, 6.0])
    m = trace_metrics(off, vals, window=2048)
    assert m.mean_conf.tolist() == [0.0, 4.0]
    assert m.tail_conf.tolist() == [0.0, 4.0]
    assert m.min_group.tolist() == [0.0, 4.0]
    assert m.bottom_10.tolist() == [0.0, 4.0]
    assert m.lengths.tolist() == [0, 3]
    assert m.n_groups.tolist() == [1, 1]


def test_trace_metrics_by_hand_window_4() -> None:
    c = [8, 8, 8, 8, 0, 0, 8, 8, 8, 8, 8, 8]  # 12 tokens, W = 4 -> 9 groups
    off, vals = flat(c)
    m = trace_metrics(off, vals, window=4)
    groups = [8, 6, 4, 4, 4, 6, 8, 8, 8]
    np.testing.assert_array_equal(group_confidences(c, 4), np.array(groups, np.float32))
    assert m.min_group[0] == 4.0
    assert m.bottom_10[0] == 4.0  # k = max(1, int(0.9)) = 1 -> the minimum
    assert m.tail_conf[0] == 8.0  # last 4 tokens
    assert m.mean_conf[0] == pytest.approx(80 / 12)
    # record lows: window 0 (8), 1 (6), 2 (4); windows 3, 4 equal 4, not strictly lower
    lo, hi = m.low_offsets[0], m.low_offsets[1]
    assert m.low_window[lo:hi].tolist() == [0, 1, 2]
    assert m.low_value[lo:hi].tolist() == [8.0, 6.0, 4.0]


def test_bottom_10_uses_lowest_tenth() -> None:
    # W = 1 makes groups = tokens: 20 groups -> k = 2 lowest: 1 and 2
    c = [1.0, 2.0] + [10.0] * 18
    off, vals = flat(c)
    m = trace_metrics(off, vals, window=1)
    assert m.bottom_10[0] == pytest.approx(1.5)
    assert m.min_group[0] == 1.0


def test_float32_cumsum_matches_reference_bits() -> None:
    rng = np.random.default_rng(0)
    traces = [
        (rng.random(n) * 20).astype(np.float16).astype(np.float32)
        for n in (2047, 2048, 2049, 5000, 9000)
    ]
    off, vals = flat(*traces)
    m = trace_metrics(off, vals)
    for j, c in enumerate(traces):
        cs = np.concatenate([[0], np.cumsum(c, dtype=np.float32)]).astype(np.float32)
        g = (
            (cs[2048:] - cs[:-2048]) / np.float32(2048)
            if len(c) >= 2048
            else np.array([np.mean(c)], np.float32)
        )
        assert m.min_group[j] == g.min()
        assert m.mean_conf[j] == np.mean(c)
        assert m.tail_conf[j] == np.mean(c[-2048:])
        k = max(1, int(0.1 * len(g)))
        assert m.bottom_10[j] == np.mean(np.sort(g)[:k])
        lw, lv = record_lows(g)
        lo, hi = m.low_offsets[j], m.low_offsets[j + 1]
        np.testing.assert_array_equal(m.low_window[lo:hi], lw)
        # any threshold: first window below it from record lows == brute force
        for thr in (g.min(), np.median(g), g.max() + 1, g.min() - 1):
            below = np.flatnonzero(g < thr)
            assert first_window_below(lw, lv, float(thr)) == (int(below[0]) if below.size else -1)


def test_conf_at_pos_by_hand() -> None:
    c = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    off, vals = flat(c)
    pos = np.array([0, 1, 3, 5, 6, 100])
    # W = 4: p < W -> mean c[0:p+1]; else mean c[p-3 : p+1]; p >= len -> whole mean
    got = conf_at_positions(off, vals, np.array([0, len(pos)]), pos, window=4)
    assert got.tolist() == [1.0, 1.5, 2.5, 4.5, 3.5, 3.5]
    assert [conf_at_pos_one(c, int(p), 4) for p in pos] == got.tolist()


def test_conf_at_pos_float64_then_float32() -> None:
    rng = np.random.default_rng(3)
    c = (rng.random(7000) * 20).astype(np.float16).astype(np.float32)
    off, vals = flat(c)
    pos = np.array([2048, 4096, 6144, 7000])
    got = conf_at_positions(off, vals, np.array([0, 4]), pos)
    cs = np.concatenate([[0.0], np.cumsum(c, dtype=np.float64)])
    ref = [(cs[p + 1] - cs[p - 2047]) / 2048 for p in pos[:3]] + [cs[-1] / 7000]
    np.testing.assert_array_equal(got, np.array(ref).astype(np.float32))


def test_non_finite_tokens_are_ignored() -> None:
    c = [1.0, np.nan, 3.0, np.inf, 5.0, 7.0]
    off, vals = flat(c, [2.0, 2.0])
    m = trace_metrics(off, vals, window=2)
    assert m.n_nonfinite.tolist() == [2, 0]
    assert m.mean_conf[0] == 4.0  # (1 + 3 + 5 + 7) / 4
    # windows: (1,nan)->1 (nan,3)->3 (3,inf)->3 (inf,5)->5 (5,7)->6
    np.testing.assert_array_equal(group_confidences(c, 2), np.array([1, 3, 3, 5, 6], np.float32))
    assert m.min_group[0] == 1.0
    assert m.tail_conf[0] == 6.0
    assert np.isfinite(conf_at_positions(off, vals, np.array([0, 2, 2]), np.array([1, 3]), 2)).all()
    # the clean trace in the same batch is unaffected
    assert m.mean_conf[1] == 2.0 and m.min_group[1] == 2.0


def test_all_nan_trace_behaves_like_empty() -> None:
    off, vals = flat([np.nan, np.nan])
    m = trace_metrics(off, vals, window=2048)
    assert m.mean_conf[0] == 0.0 and m.min_group[0] == 0.0 and m.lengths[0] == 2


def test_windowed_means_curve() -> None:
    off, vals = flat([1.0, 1.0, 3.0, 3.0], [5.0], [])
    cur = windowed_means(off, vals, 2)
    assert cur[0].tolist() == [1.0, 3.0]
    assert cur[1].tolist() == [5.0, 5.0]  # an empty bin shows the token at its start
    assert np.isnan(cur[2]).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_blocked_record_lows_match_a_plain_scan(seed: int) -> None:
    """Long declines, plateaus (ties must not count) and lows right at block edges."""
    rng = np.random.default_rng(seed)
    parts = [
        np.linspace(20, 5, 3000),  # a steady decline: a record low at every window
        np.full(700, 5.0),  # a plateau: no new lows
        rng.random(4000) * 20,
        np.linspace(5, 1, 129),
    ]
    c = np.concatenate(parts).astype(np.float16).astype(np.float32)
    nan = c.copy()
    nan[5000] = np.nan
    # several traces in one batch (lows are found for the whole batch at once): a later trace
    # with higher values must not inherit the running minimum of an earlier one
    traces = [c, c[::-1].copy(), c[:3000] + 30, nan, c[:50], np.zeros(0, np.float32), c[100:]]
    for window in (1, 2048, 127, 128):
        off, vals = flat(*traces)
        m = trace_metrics(off, vals, window=window)
        for j, t in enumerate(traces):
            g = group_confidences(t, window)
            lw, lv = record_lows(g)
            lo, hi = m.low_offsets[j], m.low_offsets[j + 1]
            np.testing.assert_array_equal(m.low_window[lo:hi], lw)
            np.testing.assert_array_equal(m.low_value[lo:hi], lv)
            assert m.min_group[j] == g.min()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_negative_values_counted_per_trace(dtype: type) -> None:
    """A negative value is counted in its own trace; -0.0 and NaN are not negatives; a batch
    without one counts none. The per-batch check that skips the mask must not miss a negative
    of a finite trace when another trace of the batch holds NaN (a plain minimum is NaN then)."""
    traces = [
        [1.0, np.nan, 3.0],  # NaN: this trace goes the slow way, the batch check must still see
        [-0.0, 0.5, -2.0, 1.0],  # a finite trace with one negative
        [2.0, -1.0, -3.0, 4.0],
        [],
        [-0.0, 0.25],
    ]
    off, vals = flat(*traces)
    m = trace_metrics(off, vals.astype(dtype), window=2)
    assert m.n_negative.tolist() == [0, 1, 2, 0, 0]
    off, vals = flat([np.nan, -0.0, 1.0], [0.25, -0.0])
    assert trace_metrics(off, vals.astype(dtype), window=2).n_negative.tolist() == [0, 0]
