"""Confidence in fixed token windows, for curves that compare across traces.

Why: a curve made of slice means over 1/96 of each trace has a window that grows with the trace
(~100 tokens on a short one, ~400 on a 40k one), so dips cannot be compared. Here every point is
the mean of the same number of tokens, the quantity DeepConf thresholds:

    value(x) = mean of the confidences of tokens [x - W, x)   (the W tokens before position x)

For x = W .. length this is exactly DeepConf's sliding group confidence of the group ending at
token x - 1, so the lowest value over x >= W is the trace's `min_group` (the same W). Before W
tokens the window holds the x tokens generated so far. At a probe position p and W = 2,048 the
value equals the probe's stored `avg_conf` ("mean of the 2,048 confidences before the position").
Non-finite tokens are left out of the mean, as in `analysis.mars.confidence`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

WINDOWS = (256, 512, 1024, 2048)  # the windows the view offers (2,048: DeepConf's group size)
MAX_POINTS = 60_000  # all curves of a figure together (the figure's JSON budget)
BAND_QUANTILES = (10.0, 50.0, 90.0)
MIN_ALIVE = 3  # band points need this many traces still running


def window_values(confs: np.ndarray, positions: np.ndarray, window: int) -> np.ndarray:
    """value(x) at each position x (float64): mean of the finite confidences of tokens
    [x - W, x). Positions past the end are clipped to the length; NaN where the window holds no
    finite token (x <= 0, an empty trace)."""
    c = np.asarray(confs, dtype=np.float64)
    pos = np.asarray(positions, dtype=np.int64)
    out = np.full(pos.shape[0], np.nan)
    n = c.shape[0]
    if n == 0 or pos.shape[0] == 0:
        return out
    fin = np.isfinite(c)
    cs = np.concatenate([[0.0], np.cumsum(np.where(fin, c, 0.0))])
    cn = np.concatenate([[0], np.cumsum(fin)])
    hi = np.clip(pos, 0, n)
    lo = np.maximum(hi - int(window), 0)
    cnt = cn[hi] - cn[lo]
    ok = cnt > 0
    out[ok] = (cs[hi][ok] - cs[lo][ok]) / cnt[ok]
    return out


def curve_stride(window: int, total_tokens: int, max_points: int = MAX_POINTS) -> int:
    """Tokens between two curve points: an eighth of the window (the curve follows the window's
    own resolution), coarser when the shown traces together would exceed `max_points`."""
    need = math.ceil(max(int(total_tokens), 0) / max(max_points, 1))
    return max(1, int(window) // 8, need)


def curve_positions(length: int, stride: int) -> np.ndarray:
    """The x of a trace's curve: every multiple of `stride` below its length, then the length."""
    if length <= 0:
        return np.zeros(0, dtype=np.int64)
    xs = np.arange(stride, length, stride, dtype=np.int64)
    return np.concatenate([xs, np.array([length], dtype=np.int64)])


def trace_curve(confs: np.ndarray, window: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, value(x)) of one trace on its own grid (`curve_positions`)."""
    x = curve_positions(int(np.asarray(confs).shape[0]), stride)
    return x, window_values(confs, x, window)


def band_grid(lengths: np.ndarray, stride: int) -> np.ndarray:
    """A shared grid for the pool's bands: multiples of `stride` up to the longest trace."""
    top = int(np.max(lengths)) if len(lengths) else 0
    return np.arange(stride, top + 1, stride, dtype=np.int64)


def pool_band_matrix(confs: list[np.ndarray], grid: np.ndarray, window: int) -> np.ndarray:
    """[n, K] value(x) of every trace on the shared grid, NaN where x is past its length (a trace
    counts only while it runs)."""
    m = np.full((len(confs), grid.shape[0]), np.nan)
    for i, c in enumerate(confs):
        n = int(np.asarray(c).shape[0])
        live = grid <= n
        if live.any():
            m[i, live] = window_values(c, grid[live], window)
    return m


def band_quantiles(
    m: np.ndarray, quantiles: tuple[float, ...] = BAND_QUANTILES, min_alive: int = MIN_ALIVE
) -> tuple[np.ndarray, np.ndarray]:
    """(q [len(quantiles), K], alive [K]) over the rows of `m` (NaN = not running): numpy's
    linear percentiles of the live traces at each grid point, NaN where fewer than `min_alive`
    traces run."""
    alive = np.isfinite(m).sum(axis=0) if m.size else np.zeros(m.shape[1], dtype=np.int64)
    q = np.full((len(quantiles), m.shape[1]), np.nan)
    ok = alive >= min_alive
    if ok.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            q[:, ok] = np.nanpercentile(m[:, ok], list(quantiles), axis=0)
    return q, alive.astype(np.int64)


AGREE, DIFFER, NO_ANSWER = "agrees with final", "differs from final", "no answer"


def probe_agreement(probe_group: np.ndarray, final_group: int) -> np.ndarray:
    """Each probe against the trace's own final answer: AGREE (same answer group), DIFFER (an
    answer, but another one, or the trace ends without one) or NO_ANSWER (the probe has none)."""
    g = np.asarray(probe_group, dtype=np.int64)
    out = np.full(g.shape[0], DIFFER, dtype=object)
    out[g < 0] = NO_ANSWER
    if final_group >= 0:
        out[g == final_group] = AGREE
    return out


@dataclass(frozen=True)
class CurveSet:
    """The fixed-window curves of some traces, and their probes placed on them."""

    trace_idx: np.ndarray  # int64 [n]
    x: list[np.ndarray]  # per trace: token positions (`curve_positions`)
    y: list[np.ndarray]  # per trace: value(x)
    probe_y: list[np.ndarray]  # per trace: value(p) at each of its probe positions p
    window: int
    stride: int


def curve_set(
    trace_idx: list[int],
    confs: list[np.ndarray],
    window: int,
    probe_pos: list[list[int]],
    max_points: int = MAX_POINTS,
) -> CurveSet:
    """Curves of the given traces on one stride (`curve_stride` of their total length), and
    value(p) at their probe positions, so a probe marker sits on its trace's curve."""
    stride = curve_stride(window, sum(int(np.asarray(c).shape[0]) for c in confs), max_points)
    xs, ys, py = [], [], []
    for c, pos in zip(confs, probe_pos, strict=True):
        x, y = trace_curve(c, window, stride)
        xs.append(x)
        ys.append(y)
        py.append(window_values(c, np.asarray(pos or [], dtype=np.int64), window))
    return CurveSet(np.asarray(trace_idx, dtype=np.int64), xs, ys, py, int(window), stride)


@dataclass(frozen=True)
class Band:
    """10th / 50th / 90th percentiles of one class of traces on the shared grid."""

    name: str
    n: int  # traces in the class
    q: np.ndarray  # [3, K]
    alive: np.ndarray  # [K] traces still running at each grid point


def pool_bands(
    confs: list[np.ndarray], classes: list[str], window: int, n_grid: int = 240
) -> tuple[np.ndarray, list[Band]]:
    """Bands of value(x) over every trace of a question, one per class name (in first-seen
    order), on a grid of at most `n_grid` points (stride: an eighth of W or coarser)."""
    lengths = np.array([int(np.asarray(c).shape[0]) for c in confs], dtype=np.int64)
    top = int(lengths.max()) if lengths.size else 0
    stride = max(1, int(window) // 8, math.ceil(top / max(n_grid, 1)))
    grid = band_grid(lengths, stride)
    bands = []
    for name in dict.fromkeys(classes):
        idx = [i for i, k in enumerate(classes) if k == name]
        q, alive = band_quantiles(pool_band_matrix([confs[i] for i in idx], grid, window))
        bands.append(Band(name, len(idx), q, alive))
    return grid, bands
