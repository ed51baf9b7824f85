"""Window metrics of per-token confidences (definitions: shared/spec/stopping.md).

Everything here works on many traces at once, stored flat: `offsets` (int64 [n+1]) and
`values` (float32 [offsets[-1]]); trace j is `values[offsets[j]:offsets[j+1]]`. This is the
layout `cache.floats.arrow_list_values_f32` returns, so a batch of parquet rows goes straight
in without building Python lists.

Numerical contract (why: the stopping playground must reproduce the published MARS simulator):
- group confidences are differences of a per-trace **float32** cumulative sum (0 prepended)
  divided by W, in float32; `len < W` gives the single whole-trace mean, `len == 0` gives [0.0];
- `mean_conf` and `tail_conf` are float32 means (numpy's pairwise float32 sum, as `np.mean`);
- `bottom_10` = float32 mean of `np.partition(groups, k-1)[:k]`, k = max(1, int(0.1 * n_groups));
- `conf_at_pos` uses float64 sums stored as float32. Float16-origin values are multiples of 2^-24
  and a trace's sum stays far below 2^29, so every float64 partial sum is exact: any summation
  order gives the bits of the reference float64 cumsum.

Non-finite values (documented choice, differs from the published simulator on purpose): NaN and
+-inf tokens are **ignored**: they are left out of every sum and of every count, so a window
mean is the mean of its finite tokens, and a window with no finite token is skipped. The
published simulator lets one NaN poison every later window; we report such traces as a note
instead. Lengths still count every token (it is the generation cost). A trace with no finite
token behaves like an empty one (groups [0.0], mean 0). For all-finite traces the results are
bit-identical to the reference definitions. Negative values are kept as they are (and noted by
the feature builder), since a mean of them is still well defined.
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
    low_offsets: np.ndarray  # int64 [n+1] ragged record lows, as in analysis.pool.QuestionPool
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
    # reduceat needs indices < len; pad with one element so a range may end at len(values)
    padded = np.concatenate([values, np.zeros(1, dtype=values.dtype)])
    sums = np.add.reduceat(padded, idx, dtype=dtype)[0::2]
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


def trace_metrics(
    offsets: np.ndarray,
    values: np.ndarray,
    window: int = WINDOW,
) -> TraceMetrics:
    """Whole-trace features of every trace in a flat batch (see the module doc for numerics)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    values = np.asarray(values, dtype=np.float32)
    n = offsets.shape[0] - 1
    lengths = np.diff(offsets)
    starts, stops = offsets[:-1], offsets[1:]

    finite_all = bool(np.isfinite(values).all()) if values.size else True
    if finite_all:
        n_nonfinite = np.zeros(n, dtype=np.int64)
    else:
        n_nonfinite = _reduceat_sum(
            (~np.isfinite(values)).astype(np.int64), starts, stops, np.int64
        )
    neg = values < 0
    n_negative = (
        _reduceat_sum(neg.astype(np.int64), starts, stops, np.int64)
        if neg.any()
        else np.zeros(n, dtype=np.int64)
    )
    bad = n_nonfinite > 0

    mean_conf = np.zeros(n, dtype=np.float32)
    tail_conf = np.zeros(n, dtype=np.float32)
    min_group = np.zeros(n, dtype=np.float32)
    bottom_10 = np.zeros(n, dtype=np.float32)
    n_groups = np.ones(n, dtype=np.int64)
    low_lists: list[tuple[np.ndarray, np.ndarray]] = [None] * n  # type: ignore[list-item]

    add_reduce = np.add.reduce
    # whole and tail means: per-trace np.mean (float32 pairwise sum); reduceat sums in another
    # order and would differ in the last bit from the reference definitions
    for j in np.flatnonzero(~bad & (lengths > 0)).tolist():
        c = values[starts[j] : stops[j]]
        # == np.mean(c) bit for bit (float32 pairwise sum / float32 count), without its overhead
        mean_conf[j] = add_reduce(c) / np.float32(c.shape[0])
        t = c[-window:]
        tail_conf[j] = add_reduce(t) / np.float32(t.shape[0])

    long_ = (lengths >= window) & ~bad
    short = (lengths < window) & ~bad
    # short traces: a single group, the whole mean (0 for an empty trace)
    min_group[short] = mean_conf[short]
    bottom_10[short] = mean_conf[short]

    if long_.any():
        li = np.flatnonzero(long_)
        # per-trace float32 cumsums into one flat buffer; trace j's prefix sums start at o_j
        ll = lengths[li]
        base = np.zeros(li.shape[0] + 1, dtype=np.int64)
        np.cumsum(ll + 1, out=base[1:])
        cs = np.empty(int(base[-1]), dtype=np.float32)
        for k, j in enumerate(li.tolist()):
            o = int(base[k])
            cs[o] = 0.0
            np.cumsum(values[starts[j] : stops[j]], out=cs[o + 1 : o + 1 + int(ll[k])])
        d = cs[window:] - cs[:-window]
        d /= np.float32(window)
        del cs
        gs = base[:-1]
        ge = gs + ll - window + 1  # exclusive end of trace k's group confidences in d
        n_groups[li] = ll - window + 1
        idx = np.empty(2 * li.shape[0], dtype=np.int64)
        idx[0::2] = gs
        idx[1::2] = ge
        dpad = np.concatenate([d, np.zeros(1, dtype=np.float32)])
        min_group[li] = np.minimum.reduceat(dpad, idx)[0::2]
        for k, j in enumerate(li.tolist()):
            g = d[gs[k] : ge[k]]
            kk = max(1, int(0.1 * g.shape[0]))
            bottom_10[j] = np.mean(np.partition(g, kk - 1)[:kk]) if kk < g.shape[0] else np.mean(g)
            low_lists[j] = _record_lows(g)

    for j in np.flatnonzero(bad).tolist():
        c = values[starts[j] : stops[j]]
        fin = np.isfinite(c)
        g = _masked_groups(c, fin, window)
        cf = c[fin]
        mean_conf[j] = np.mean(cf) if cf.size else 0.0
        tc = c[-window:]
        tc = tc[np.isfinite(tc)]
        tail_conf[j] = np.mean(tc) if tc.size else 0.0
        min_group[j] = g.min()
        kk = max(1, int(0.1 * g.shape[0]))
        bottom_10[j] = np.mean(np.partition(g, kk - 1)[:kk]) if kk < g.shape[0] else np.mean(g)
        n_groups[j] = g.shape[0]
        low_lists[j] = _record_lows(g)

    for j in np.flatnonzero(short).tolist():
        low_lists[j] = (np.zeros(1, dtype=np.int64), np.array([mean_conf[j]], dtype=np.float32))

    counts = np.array([lw.shape[0] for lw, _ in low_lists], dtype=np.int64)
    low_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=low_offsets[1:])
    if n:
        low_window = np.concatenate([lw for lw, _ in low_lists]).astype(np.int64)
        low_value = np.concatenate([lv for _, lv in low_lists]).astype(np.float32)
    else:
        low_window = np.zeros(0, dtype=np.int64)
        low_value = np.zeros(0, dtype=np.float32)
    return TraceMetrics(
        lengths=lengths,
        n_nonfinite=n_nonfinite,
        n_negative=n_negative,
        mean_conf=mean_conf,
        tail_conf=tail_conf,
        min_group=min_group,
        bottom_10=bottom_10,
        n_groups=n_groups,
        low_offsets=low_offsets,
        low_window=low_window,
        low_value=low_value,
    )


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
