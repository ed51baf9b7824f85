"""The reference definitions of the window metrics of per-token confidences, one trace or a flat
batch at a time (the numerical contract and the treatment of non-finite tokens:
`analysis.mars.confidence`, whose fast batch pass `batch_features` they are the oracles of, and
which re-exports them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WINDOW = 2048


@dataclass(frozen=True)
class TraceMetrics:
    """Whole-trace confidence features of n traces (all arrays in input order)."""

    lengths: np.ndarray  # int64 [n] tokens (non-finite included)
    n_nonfinite: np.ndarray  # int64 [n]
    n_negative: np.ndarray  # int64 [n]
    mean_conf: np.ndarray  # float32 [n]
    tail_conf: np.ndarray  # float32 [n]
    min_group: np.ndarray  # float32 [n]
    bottom_10: np.ndarray  # float32 [n]
    n_groups: np.ndarray  # int64 [n] number of group confidences
    low_offsets: np.ndarray  # int64 [n+1] ragged record lows, as in analysis.mars.pool.QuestionPool
    low_window: np.ndarray  # int64 [m]
    low_value: np.ndarray  # float32 [m]


# ---------------------------------------------------------------------------------------------
# single-trace reference versions (used by the zoom view and as test oracles)


def group_confidences(values: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """Sliding-window group confidences of one trace (float32), non-finite tokens ignored."""
    c = np.asarray(values, dtype=np.float32)
    n = c.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.float32)
    finite = np.isfinite(c)
    if not finite.all():
        return _masked_groups(c, finite, window)
    if n < window:
        return np.array([np.mean(c)], dtype=np.float32)
    cs = np.zeros(n + 1, dtype=np.float32)
    np.cumsum(c, out=cs[1:])
    return (cs[window:] - cs[:-window]) / np.float32(window)


def _masked_groups(c: np.ndarray, finite: np.ndarray, window: int) -> np.ndarray:
    """Group confidences over finite tokens only (windows with no finite token are dropped)."""
    n = c.shape[0]
    if not finite.any():
        return np.zeros(1, dtype=np.float32)
    clean = np.where(finite, c, np.float32(0))
    if n < window:
        return np.array([np.mean(clean[finite])], dtype=np.float32)
    cs = np.zeros(n + 1, dtype=np.float32)
    np.cumsum(clean, out=cs[1:])
    cnt = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(finite, out=cnt[1:])
    k = cnt[window:] - cnt[:-window]
    keep = k > 0
    g = (cs[window:] - cs[:-window])[keep] / k[keep].astype(np.float32)
    return g.astype(np.float32)


def conf_at_pos_one(values: np.ndarray, p: int, window: int = WINDOW) -> float:
    """`conf_at_pos(p)` of one trace, straight from the definition (float64, returned as float32)."""
    c = np.asarray(values, dtype=np.float64)
    c = c[np.isfinite(c)] if p >= c.shape[0] else c
    n = c.shape[0]
    if p >= n:
        return float(np.float32(c.mean())) if n else 0.0
    seg = c[0 : p + 1] if p < window else c[p - window + 1 : p + 1]
    seg = seg[np.isfinite(seg)]
    return float(np.float32(seg.sum() / seg.shape[0])) if seg.shape[0] else float("nan")


# ---------------------------------------------------------------------------------------------
# vectorised versions over flat (offsets, values)


def _reduceat_sum(values: np.ndarray, starts: np.ndarray, stops: np.ndarray, dtype) -> np.ndarray:
    """Sums of values[starts[i]:stops[i]] (empty ranges give 0); ranges must be non-decreasing."""
    out = np.zeros(starts.shape[0], dtype=dtype)
    nz = stops > starts
    if not nz.any():
        return out
    s, e = starts[nz], stops[nz]
    idx = np.empty(2 * s.shape[0], dtype=np.int64)
    idx[0::2] = s
    idx[1::2] = e
    if idx[-1] >= values.shape[0]:
        idx = idx[:-1]  # reduceat indices must be < len: the last range runs to the end
    sums = np.add.reduceat(values, idx, dtype=dtype)[0::2]
    out[nz] = sums
    return out


def _segment_sums(values: np.ndarray, starts: np.ndarray, stops: np.ndarray, dtype) -> np.ndarray:
    """Sums over arbitrary ranges: one reduceat when they are sorted and disjoint (the usual
    case: checkpoints every W tokens), else differences of a cumulative sum in `dtype`."""
    if starts.shape[0] == 0:
        return np.zeros(0, dtype=dtype)
    sorted_disjoint = bool(
        np.all(starts[1:] >= np.maximum.accumulate(stops)[:-1]) and np.all(stops >= starts)
    )
    if sorted_disjoint:
        return _reduceat_sum(values, starts, stops, dtype)
    cs = np.zeros(values.shape[0] + 1, dtype=dtype)
    np.cumsum(values, dtype=dtype, out=cs[1:])
    return cs[stops] - cs[starts]


def _record_lows(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Windows where the running minimum strictly decreases (the first window always counts).

    Why: DeepConf truncation asks for the first window below a per-iteration threshold; that
    window is always one of these record lows, so a few dozen breakpoints replace every window.
    """
    if g.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    rm = np.minimum.accumulate(g)
    idx = np.flatnonzero(rm[1:] < rm[:-1]) + 1
    idx = np.concatenate([np.zeros(1, dtype=np.int64), idx])
    return idx, g[idx].astype(np.float32)


def record_lows(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Public single-trace version of the record lows (window index, value)."""
    return _record_lows(np.asarray(g, dtype=np.float32))


def first_window_below(low_window: np.ndarray, low_value: np.ndarray, thr: float) -> int:
    """First window whose group confidence is < thr, from a trace's record lows (-1 if none)."""
    k = int(np.searchsorted(-low_value, -thr, side="right"))
    return -1 if k >= low_value.shape[0] else int(low_window[k])


def conf_at_positions(
    offsets: np.ndarray,
    values: np.ndarray,
    pos_offsets: np.ndarray,
    positions: np.ndarray,
    window: int = WINDOW,
) -> np.ndarray:
    """`conf_at_pos(p)` for ragged positions: trace j asks `positions[pos_offsets[j]:pos_offsets[j+1]]`.

    Returns float32 [len(positions)]. p >= len gives the whole-trace mean (finite tokens);
    p < 0 gives NaN. Non-finite tokens are ignored (NaN if a window holds none).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    values = np.asarray(values, dtype=np.float32)
    pos_offsets = np.asarray(pos_offsets, dtype=np.int64)
    positions = np.asarray(positions, dtype=np.int64)
    m = positions.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.float32)
    owner = np.repeat(np.arange(pos_offsets.shape[0] - 1), np.diff(pos_offsets))
    start = offsets[:-1][owner]
    length = np.diff(offsets)[owner]
    p = positions
    inside = (p < length) & (p >= 0)
    lo = np.where(p < window, 0, p - window + 1)
    s = np.where(inside, start + lo, start)
    e = np.where(inside, start + p + 1, start + length)
    finite_all = bool(np.isfinite(values).all()) if values.size else True
    clean = values if finite_all else np.where(np.isfinite(values), values, np.float32(0))
    sums = _segment_sums(clean, s, e, np.float64)
    if finite_all:
        counts = (e - s).astype(np.float64)
    else:
        fin = np.isfinite(values).astype(np.int64)
        counts = _segment_sums(fin, s, e, np.int64).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    # a whole-trace mean of an empty (or all non-finite) trace is 0, as group confidences are
    out = np.where(~inside & (counts == 0), 0.0, out)
    out = np.where(p < 0, np.nan, out)
    return out.astype(np.float32)


def windowed_means(offsets: np.ndarray, values: np.ndarray, n_points: int) -> np.ndarray:
    """A fixed-size plotting curve per trace: means of `n_points` equal token bins (float32 [n, P]).

    Bin i of a trace of length L covers tokens [floor(i L / P), floor((i+1) L / P)); an empty bin
    (L < P) shows the token at its start; an empty trace gives NaN. Non-finite tokens are ignored.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    values = np.asarray(values, dtype=np.float32)
    n = offsets.shape[0] - 1
    lengths = np.diff(offsets)
    i = np.arange(n_points + 1, dtype=np.int64)
    edges = (lengths[:, None] * i[None, :]) // n_points  # [n, P+1]
    s = (edges[:, :-1] + offsets[:-1, None]).ravel()
    e = (edges[:, 1:] + offsets[:-1, None]).ravel()
    finite = np.isfinite(values)
    finite_all = bool(finite.all()) if values.size else True
    clean = values if finite_all else np.where(finite, values, np.float32(0))
    tot = _reduceat_sum(clean, s, e, np.float64)
    if finite_all:
        cnt = (e - s).astype(np.float64)
    else:
        cnt = _reduceat_sum(finite.astype(np.int64), s, e, np.int64).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)
    empty = (e == s) & (s < np.repeat(offsets[1:], n_points))
    if empty.any():
        out[empty] = clean[s[empty]]
    return out.reshape(n, n_points).astype(np.float32)
