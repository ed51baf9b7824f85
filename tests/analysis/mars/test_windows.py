"""Fixed-window confidence curves, pool bands and probe agreement on hand-built traces."""

from __future__ import annotations

import numpy as np

from analysis.mars.confidence import group_confidences
from analysis.mars.windows import (
    AGREE,
    DIFFER,
    NO_ANSWER,
    band_quantiles,
    curve_positions,
    curve_set,
    curve_stride,
    pool_band_matrix,
    pool_bands,
    probe_agreement,
    trace_curve,
    window_values,
)


def test_window_values_are_the_mean_of_the_w_tokens_before_x() -> None:
    v = window_values(np.array([1, 2, 3, 4, 5], np.float32), np.array([1, 2, 3, 5, 9, 0]), 2)
    assert v[:5].tolist() == [1.0, 1.5, 2.5, 4.5, 4.5]  # x=9 is clipped to the length
    assert np.isnan(v[5])  # no token before x=0


def test_window_values_leave_non_finite_tokens_out() -> None:
    v = window_values(np.array([1, np.nan, 3], np.float32), np.array([2, 3]), 2)
    assert v.tolist() == [1.0, 3.0]


def test_the_curves_lowest_point_past_w_is_deepconfs_min_group() -> None:
    c = np.random.default_rng(3).uniform(5, 15, 5000).astype(np.float32)
    v = window_values(c, np.arange(256, 5001), 256)
    assert abs(v.min() - float(group_confidences(c, 256).min())) < 1e-4


def test_the_curve_at_a_probe_is_the_probes_avg_conf() -> None:
    """avg_conf: the mean of the 2,048 confidences before the position."""
    c = np.arange(5000, dtype=np.float32) / 1000
    assert window_values(c, np.array([4096]), 2048)[0] == np.mean(c[2048:4096].astype(np.float64))


def test_stride_and_positions() -> None:
    assert curve_stride(2048, 1000) == 256
    assert curve_stride(256, 1000) == 32
    assert curve_stride(2048, 60_000 * 300) == 300  # coarser when the traces are many
    assert curve_positions(10, 4).tolist() == [4, 8, 10]
    assert curve_positions(8, 4).tolist() == [4, 8]
    assert curve_positions(0, 4).tolist() == []
    x, y = trace_curve(np.array([2, 4, 6, 8, 10], np.float32), 2, 2)
    assert x.tolist() == [2, 4, 5] and y.tolist() == [3.0, 7.0, 9.0]


def test_pool_bands_count_a_trace_only_while_it_runs() -> None:
    m = pool_band_matrix([np.ones(4, np.float32), np.full(2, 2, np.float32)], np.array([2, 4]), 2)
    assert m[0].tolist() == [1.0, 1.0]
    assert m[1, 0] == 2.0 and np.isnan(m[1, 1])


def test_band_quantiles_need_three_live_traces() -> None:
    m = np.array([[1, 2], [2, np.nan], [3, np.nan], [4, 4]], dtype=np.float64)
    q, alive = band_quantiles(m)
    assert alive.tolist() == [4, 2]
    # numpy linear percentiles of 1, 2, 3, 4: 1 + 0.1 * 3, 2.5, 1 + 0.9 * 3
    assert np.allclose(q[:, 0], [1.3, 2.5, 3.7])
    assert np.isnan(q[:, 1]).all()


def test_probe_agreement_with_the_traces_own_final_answer() -> None:
    assert probe_agreement(np.array([3, -1, 5, 3]), 3).tolist() == [AGREE, NO_ANSWER, DIFFER, AGREE]
    # a trace without a final answer: an answered probe differs from it
    assert probe_agreement(np.array([2, -1]), -1).tolist() == [DIFFER, NO_ANSWER]


def test_curve_set_puts_each_probe_on_its_curve() -> None:
    c = [np.array([2, 4, 6, 8, 10], np.float32), np.array([1, 1, 1], np.float32)]
    cs = curve_set([7, 9], c, 2, [[2, 5], []], max_points=4)
    assert cs.stride == 2  # 8 tokens / 4 points
    assert cs.x[0].tolist() == [2, 4, 5] and cs.y[0].tolist() == [3.0, 7.0, 9.0]
    assert cs.probe_y[0].tolist() == [3.0, 9.0]  # the curve's values at x = 2 and 5
    assert cs.probe_y[1].size == 0 and cs.trace_idx.tolist() == [7, 9]


def test_pool_bands_per_class_over_every_trace() -> None:
    confs = [np.full(4, v, np.float32) for v in (1, 2, 3, 4)] + [np.full(4, 9, np.float32)]
    grid, bands = pool_bands(confs, ["right"] * 4 + ["wrong"], 2, n_grid=2)
    assert grid.tolist() == [2, 4]
    right, wrong = bands
    assert (right.name, right.n, wrong.n) == ("right", 4, 1)
    assert np.allclose(right.q[:, 0], [1.3, 2.5, 3.7])  # percentiles of 1, 2, 3, 4
    assert np.isnan(wrong.q).all()  # one trace: fewer than three running
