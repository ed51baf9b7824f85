"""Window metrics of per-token confidences (definitions: docs/formats/stopping.md).

Everything here works on many traces at once, stored flat: `offsets` (int64 [n+1]) and
`values` (float32 [offsets[-1]]); trace j is `values[offsets[j]:offsets[j+1]]`. This is the
layout `cache.floats.arrow_list_values_f32` returns, so a batch of parquet rows goes straight
in without building Python lists.

Numerical contract (why: the stopping playground must reproduce the published MARS simulator):
- group confidences are differences of a per-trace **float32** cumulative sum (0 prepended)
  divided by W, in float32; `len < W` gives the single whole-trace mean, `len == 0` gives [0.0];
- `mean_conf` and `tail_conf` are float32 means (numpy's pairwise float32 sum, as `np.mean`);
- `bottom_10` = float32 mean of the k lowest groups *in ascending order* (k = max(1, int(0.1 *
  n_groups))), i.e. `np.mean(np.sort(groups)[:k])`: a fixed order makes the bits deterministic;
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

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from cache import extensions
from cache.floats import to_f32

# the compiled per-trace pass (built by `pip install`, see _trace_kernel.c); None when not built
# (no C compiler at install) or under RTE_NO_EXT=1: the numpy loop, same results
_trace_kernel: Any = extensions.load("analysis.mars._trace_kernel")  # Any: a C module, no stubs

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


@dataclass(frozen=True)
class BatchFeatures:
    """Everything the feature store needs from `confs`, for n traces of a flat batch."""

    metrics: TraceMetrics
    ck_offsets: np.ndarray  # int64 [n+1] ragged checkpoints (multiples of ck_step below len)
    ck_pos: np.ndarray  # int64 [m]
    ck_conf: np.ndarray  # float32 [m] conf_at_pos there
    end_conf: np.ndarray  # float32 [n] conf_at_pos(p >= len): float64 whole mean as float32
    curve: np.ndarray  # float32 [n, n_points] windowed means for plotting (NaN if empty)


def _bottom(g: np.ndarray, *, scratch: bool = False) -> np.float32:
    """bottom_10: float32 mean of the k lowest groups in ascending order (order fixes the bits).
    `scratch`: `g` is a scratch buffer, partitioned in place (np.partition would copy it first:
    a fifth of this function's time; the same algorithm on the same values, so the same bits)."""
    k = max(1, int(0.1 * g.shape[0]))
    if k >= g.shape[0]:
        return np.add.reduce(g) / np.float32(g.shape[0])
    if scratch:
        g.partition(k - 1)
        low = g[:k]
    else:
        low = np.partition(g, k - 1)[:k]
    low.sort()
    # == np.mean(low) bit for bit (float32 pairwise sum / float32 count), minus its overhead
    return np.add.reduce(low) / np.float32(k)


def batch_features(
    offsets: np.ndarray,
    values: np.ndarray,
    window: int = WINDOW,
    ck_step: int = 0,
    n_points: int = 0,
    *,
    compiled: bool = True,
) -> BatchFeatures:
    """Window metrics, conf_at_pos at every multiple of `ck_step` below the length (0: none),
    the whole-trace conf and an `n_points` plotting curve, one trace at a time.

    Why per trace: a trace (~10k tokens, ~40 KB as float32) fits in the CPU cache, so the dozen
    passes these features need cost a fraction of the same passes over a whole batch in RAM.
    `values` may be float16 (widened per trace through `cache.floats.to_f32`) or float32.
    float16 input (what MARS files store) goes through the compiled pass (`_trace_kernel`) when
    it is built and `compiled` is True; the bits are the same either way
    (tests/analysis/mars/test_trace_kernel.py).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n = offsets.shape[0] - 1
    lengths = np.diff(offsets)
    w32 = np.float32(window)
    add_reduce = np.add.reduce
    min_reduce = np.minimum.reduce
    maxlen = int(lengths.max()) if n else 0
    len32 = lengths.astype(np.float32)  # exact: lengths < 2**24
    n_blocks_max = -(-max(maxlen - window + 1, 1) // LOW_BLOCK)
    gpad_buf = np.empty(n_blocks_max * LOW_BLOCK, dtype=np.float32)
    g_buf = gpad_buf

    mean_conf = np.zeros(n, dtype=np.float32)
    tail_conf = np.zeros(n, dtype=np.float32)
    min_group = np.zeros(n, dtype=np.float32)
    bottom_10 = np.zeros(n, dtype=np.float32)
    end_conf = np.zeros(n, dtype=np.float32)
    n_groups = np.ones(n, dtype=np.int64)
    n_nonfinite = np.zeros(n, dtype=np.int64)
    n_negative = np.zeros(n, dtype=np.int64)
    lows_w: list[np.ndarray] = []
    lows_v: list[np.ndarray] = []
    zero_i = np.zeros(1, dtype=np.int64)

    nck = np.maximum((lengths - 1) // ck_step, 0) if ck_step > 0 else np.zeros(n, np.int64)
    ck_off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(nck, out=ck_off[1:])
    ck_owner = np.repeat(np.arange(n), nck)
    ck_pos = (np.arange(ck_off[-1], dtype=np.int64) - ck_off[:-1][ck_owner] + 1) * max(ck_step, 1)
    ck_conf = np.zeros(ck_pos.shape[0], dtype=np.float32)
    curve = np.full((n, max(n_points, 0)), np.nan, dtype=np.float32)
    bins = np.arange(n_points + 1, dtype=np.int64)
    # checkpoint windows relative to the trace start; with W == ck_step they tile [1, p_last]
    ck_lo = np.where(ck_pos < window, 0, ck_pos - window + 1)
    ck_hi = ck_pos + 1
    tiled = ck_step > 0 and window == ck_step
    if tiled:
        # per trace: lo_0, lo_1, ..., lo_{k-1}, hi_{k-1} (consecutive windows share edges)
        ck_idx = np.empty(ck_pos.shape[0] + n, dtype=np.int64)
        pos_in = np.arange(ck_pos.shape[0]) + ck_owner
        ck_idx[pos_in] = ck_lo
        last = ck_off[1:] - 1
        has = nck > 0
        ck_idx[(ck_off[1:] + np.arange(n))[has]] = ck_hi[last[has]]

    negative = _negative_mask(values)
    if negative is not None:
        n_negative[:] = _reduceat_sum(
            negative.astype(np.int64), offsets[:-1], offsets[1:], np.int64
        )
    ck_sum64 = np.zeros(ck_pos.shape[0], dtype=np.float64)
    # the compiled pass (float16 input) does the sequential part of every trace up front: its
    # groups, minimum, record lows, checkpoint sums, and the curve of each long finite trace
    kp = (
        _kernel_pass(offsets, values, window, ck_step, lengths, ck_off, ck_sum64, curve)
        if compiled and _trace_kernel is not None and values.dtype == np.float16 and n
        else None
    )
    # the loop's per-trace float32 prefix sums, all kept for the batch (trace j at cs_base[j])
    # so that the plotting curves are one vectorised gather after it (the compiled pass leaves
    # this buffer untouched: no page of it is faulted in)
    cs_base = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=cs_base[1:])
    cs_all = _scratch("cs", int(cs_base[-1]), np.float32)
    offs = offsets.tolist()
    ck_offs = ck_off.tolist()
    bases = cs_base.tolist()
    reduceat = np.add.reduceat
    f64 = np.float64
    low_counts: np.ndarray | None = None  # set when the lows are taken whole from the kernel
    # a trace holding both +inf and -inf sums to NaN: that is how _slow_trace gets it
    with np.errstate(invalid="ignore"):
        if kp is not None:
            # the compiled pass gave every trace's sums and bottom 10 %: the finite ones at
            # once, in float32 as the loop below computes them one by one; a loop only for the
            # rare short, empty and NaN/inf traces
            fin = (lengths > 0) & np.isfinite(kp.sum32)
            long_ = fin & (lengths >= window)
            short = fin & ~long_
            mean_conf[fin] = kp.sum32[fin] / len32[fin]
            tail_conf[fin] = kp.tail32[fin] / np.where(lengths < window, len32, w32)[fin]
            min_group[long_] = kp.min_group[long_]
            min_group[short] = mean_conf[short]
            bottom_10[short] = mean_conf[short]
            n_groups[long_] = (lengths - window + 1)[long_]
            end_conf[fin] = kp.total64[fin] / lengths[fin]
            bottom_10[long_] = kp.bottom10[long_]
            lo = kp.low_off
            if long_.all():
                low_counts = np.diff(np.asarray(lo, dtype=np.int64))
                lows_w.append(kp.low_window[: lo[n]])
                lows_v.append(kp.low_value[: lo[n]])
            else:
                for j, is_long, is_short in zip(
                    range(n), long_.tolist(), short.tolist(), strict=True
                ):
                    s, e = offs[j], offs[j + 1]
                    if is_long:
                        lows_w.append(kp.low_window[lo[j] : lo[j + 1]])
                        lows_v.append(kp.low_value[lo[j] : lo[j + 1]])
                    elif is_short:
                        lows_w.append(zero_i)
                        lows_v.append(np.array([mean_conf[j]], dtype=np.float32))
                        if n_points:
                            curve[j] = _short_curve(to_f32(values[s:e]), (e - s) * bins // n_points)
                    elif e == s:
                        lows_w.append(zero_i)
                        lows_v.append(np.zeros(1, dtype=np.float32))
                    else:
                        n_negative[j] = 0
                        _slow_trace(j, to_f32(values[s:e]), window, ck_step, n_points, locals())
        else:
            for j in range(n):
                s, e = offs[j], offs[j + 1]
                L = e - s
                if L == 0:
                    lows_w.append(zero_i)
                    lows_v.append(np.zeros(1, dtype=np.float32))
                    continue
                c = to_f32(values[s:e])
                total = add_reduce(c)
                if not math.isfinite(total):
                    n_negative[j] = 0
                    _slow_trace(j, c, window, ck_step, n_points, locals())
                    continue
                mean_conf[j] = total / len32[j]
                tail_conf[j] = add_reduce(c[-window:]) / (len32[j] if window > L else w32)
                if window <= L:
                    ng = L - window + 1
                    cb = bases[j]
                    cs = cs_all[cb : cb + L + 1]
                    cs[0] = 0.0
                    np.cumsum(c, out=cs[1:])
                    g = g_buf[:ng]
                    np.subtract(cs[window:], cs[: L + 1 - window], out=g)
                    g /= w32
                    lw, lv, mn = _record_lows_blocked(g, gpad_buf)
                    min_group[j] = mn
                    lows_w.append(lw)
                    lows_v.append(lv)
                    bottom_10[j] = _bottom(g, scratch=True)
                    n_groups[j] = ng
                else:
                    min_group[j] = mean_conf[j]
                    bottom_10[j] = mean_conf[j]
                    lows_w.append(zero_i)
                    lows_v.append(np.array([mean_conf[j]], dtype=np.float32))
                    if n_points:
                        curve[j] = _short_curve(c, (L * bins) // n_points)
                k0, k1 = ck_offs[j], ck_offs[j + 1]
                if k1 > k0 and tiled:
                    # one reduceat gives every checkpoint window (lo_0, lo_1, ..., hi_last) and the
                    # rest of the trace after the last one. conf_at_pos(p >= len) is the float64 mean
                    # of the whole trace: float64 partial sums of float16-origin values are exact, so
                    # c[0] + these sums has the bits of the reference cumulative sum.
                    idx = ck_idx[k0 + j : k1 + j + 1]
                    sums = reduceat(c, idx if idx[-1] < L else idx[:-1], dtype=f64)
                    ck_sum64[k0:k1] = sums[: k1 - k0]
                    end_conf[j] = (float(c[0]) + float(add_reduce(sums))) / L
                else:
                    if k1 > k0:
                        ck_sum64[k0:k1] = _range_sums64(c, ck_lo[k0:k1], ck_hi[k0:k1])
                    end_conf[j] = add_reduce(c, dtype=f64) / L

    done = ck_sum64 != 0  # traces handled by _slow_trace wrote ck_conf themselves
    if ck_pos.shape[0]:
        ck_conf[done] = (ck_sum64[done] / (ck_hi - ck_lo)[done]).astype(np.float32)

    if n_points and kp is None:
        # plotting curves of the long traces from their float32 prefix sums (precise enough
        # for a picture; the exact features above never use them; the compiled pass computed
        # them the same way)
        long_ = np.flatnonzero((lengths >= window) & (n_nonfinite == 0))
        if long_.size:
            edges = (lengths[long_, None] * bins[None, :]) // n_points
            s_ = edges[:, :-1]
            e_ = np.maximum(edges[:, 1:], s_ + 1)
            base = cs_base[long_, None]
            curve[long_] = (cs_all[base + e_] - cs_all[base + s_]) / (e_ - s_)

    counts = (
        low_counts
        if low_counts is not None
        else np.array([x.shape[0] for x in lows_w], dtype=np.int64)
    )
    low_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=low_offsets[1:])
    # one copy out of the scratch buffers, no second one to change a dtype already right
    low_window = np.concatenate(lows_w) if n else np.zeros(0, dtype=np.int64)
    low_value = (
        np.concatenate(lows_v).astype(np.float32, copy=False)
        if n
        else np.zeros(0, dtype=np.float32)
    )
    metrics = TraceMetrics(
        lengths=lengths,
        n_nonfinite=n_nonfinite,
        n_negative=n_negative,
        mean_conf=mean_conf,
        tail_conf=tail_conf,
        min_group=min_group,
        bottom_10=bottom_10,
        n_groups=n_groups,
        low_offsets=low_offsets,
        low_window=low_window.astype(np.int64, copy=False),
        low_value=low_value,
    )
    return BatchFeatures(metrics, ck_off, ck_pos, ck_conf, end_conf, curve)


_SCRATCH = threading.local()


def _negative_mask(values: np.ndarray) -> np.ndarray | None:
    """Which values are negative (float16: sign bit set and not -0.0), or None when none is:
    one reduction decides (fmin skips NaN), and the mask is made only for the rare batch that
    holds one. Why not the mask always: a batch-sized temporary costs a page fault every 4 KiB."""
    if not values.shape[0]:
        return None
    if values.dtype == np.float16:
        bits = values.view(np.uint16)
        return bits > 0x8000 if int(np.maximum.reduce(bits)) > 0x8000 else None
    return np.asarray(values) < 0 if np.fmin.reduce(values) < 0 else None


def _scratch(name: str, size: int, dtype: type) -> np.ndarray:
    """A per-thread work buffer of at least `size` items, kept between batches. Why: the
    buffers of one batch are tens of MB, and fresh ones cost a page fault every 4 KiB (system
    time that adds up over a pool); nothing returned by `batch_features` views them."""
    buf = getattr(_SCRATCH, name, None)
    if buf is None or buf.shape[0] < size or buf.dtype != dtype:
        # a quarter of headroom: the next, slightly bigger question reuses it
        buf = np.empty(max(size + size // 4, 1), dtype=dtype)
        setattr(_SCRATCH, name, buf)
    return buf[:size]


def release_scratch() -> None:
    """Free this thread's work buffers (a build calls it when done: a server keeps no ~150 MB)."""
    _SCRATCH.__dict__.clear()


@dataclass(frozen=True)
class _KernelOut:
    """What the compiled pass leaves for `batch_features`' loop (views of per-thread scratch)."""

    min_group: np.ndarray  # float32 [n]
    low_off: list[int]  # [n+1] each trace's record lows in `low_window`/`low_value`
    low_window: np.ndarray  # int64
    low_value: np.ndarray  # float32
    total64: np.ndarray  # float64 [n] whole-trace sums (exact for float16 input)
    sum32: np.ndarray  # float32 [n] numpy's float32 sum of each trace (NaN: NaN/inf inside)
    tail32: np.ndarray  # float32 [n] the same of its last `window` values
    bottom10: np.ndarray  # float32 [n] `_bottom` of each long finite trace's groups


def _kernel_pass(
    offsets: np.ndarray,
    values: np.ndarray,
    window: int,
    ck_step: int,
    lengths: np.ndarray,
    ck_off: np.ndarray,
    ck_sum64: np.ndarray,
    curve: np.ndarray,
) -> _KernelOut:
    """The sequential part of every float16 trace of a batch in one compiled call
    (`_trace_kernel.trace_pass`); it also fills `ck_sum64` and the `curve` rows of the long
    finite traces. Empty traces and traces with NaN/inf are left alone: the loop handles them
    as before."""
    n = offsets.shape[0] - 1
    ng_all = np.where(lengths >= window, lengths - window + 1, 0)
    g_off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(ng_all, out=g_off[1:])
    m = int(offsets[-1])
    # room for every group to be a record low (a trace whose confidence falls steadily has
    # one at most of its windows); pages the kernel does not write are never touched
    low_w = _scratch("low_window", int(g_off[-1]), np.int64)
    low_v = _scratch("low_value", int(g_off[-1]), np.float32)
    gmin = np.zeros(n, dtype=np.float32)
    low_counts = np.zeros(n, dtype=np.int64)
    tot64 = np.zeros(n, dtype=np.float64)
    sum32 = np.zeros(n, dtype=np.float32)
    tail32 = np.zeros(n, dtype=np.float32)
    bottom10 = np.zeros(n, dtype=np.float32)
    bits = np.ascontiguousarray(values[:m]).view(np.uint16)
    _trace_kernel.trace_pass(
        bits, offsets, g_off, ck_off, curve, gmin, low_counts, low_w, low_v,
        ck_sum64, tot64, sum32, tail32, bottom10, window, max(ck_step, 0), curve.shape[1],
    )  # fmt: skip
    low_off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(low_counts, out=low_off[1:])
    return _KernelOut(
        gmin,
        low_off.tolist(),
        low_w,
        low_v,
        tot64,
        sum32,
        tail32,
        bottom10,
    )


LOW_BLOCK = 128
_BLOCK_STARTS = np.arange(0, 1 << 22, LOW_BLOCK, dtype=np.int64)  # reduceat is the fast block min


def _record_lows_blocked(
    g: np.ndarray, gpad_buf: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.float32]:
    """Record lows (window, value) and the minimum of `g`, which must be a prefix view of
    `gpad_buf`. Same result as `_record_lows`, but only the blocks of LOW_BLOCK windows that
    hold a new minimum are scanned element by element (block minima are one SIMD pass)."""
    ng = g.shape[0]
    nb = -(-ng // LOW_BLOCK)
    gpad = gpad_buf[: nb * LOW_BLOCK]
    if ng % LOW_BLOCK:
        gpad[ng:] = np.inf
    blocks = gpad.reshape(nb, LOW_BLOCK)
    bmin = (
        np.minimum.reduceat(g, _BLOCK_STARTS[:nb])
        if nb <= _BLOCK_STARTS.shape[0]
        else (np.minimum.reduce(blocks, axis=1))
    )
    prev = np.minimum.accumulate(bmin)
    cand_mask = np.empty(nb, dtype=bool)
    cand_mask[0] = True
    np.less(bmin[1:], prev[:-1], out=cand_mask[1:])
    cand = np.flatnonzero(cand_mask)
    # Blocks that are not candidates never lower the running minimum, so the running minimum
    # over the candidate blocks laid end to end equals the true one at those windows.
    sub = blocks[cand].ravel()
    rm = np.minimum.accumulate(sub)
    is_low = np.empty(sub.shape[0], dtype=bool)
    is_low[0] = True
    np.less(sub[1:], rm[:-1], out=is_low[1:])
    i = np.flatnonzero(is_low)
    return cand[i // LOW_BLOCK] * LOW_BLOCK + i % LOW_BLOCK, sub[i], prev[-1]


def _short_curve(c: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin means of a short trace (an empty bin shows the token at its start)."""
    L = c.shape[0]
    s, e = edges[:-1], edges[1:]
    cs = np.concatenate([[0.0], np.cumsum(c, dtype=np.float64)])
    out = np.where(e > s, (cs[e] - cs[s]) / np.maximum(e - s, 1), c[np.minimum(s, L - 1)])
    return out.astype(np.float32)


def _range_sums64(c: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """float64 sums of c[lo[i]:hi[i]] for sorted, non-empty ranges (one reduceat if disjoint)."""
    if lo.shape[0] > 1 and not np.all(lo[1:] >= hi[:-1]):
        cs = np.zeros(c.shape[0] + 1, dtype=np.float64)
        np.cumsum(c, dtype=np.float64, out=cs[1:])
        return cs[hi] - cs[lo]
    idx = np.empty(2 * lo.shape[0], dtype=np.int64)
    idx[0::2] = lo
    idx[1::2] = hi
    if idx[-1] >= c.shape[0]:
        idx = idx[:-1]  # the last range runs to the end
    return np.add.reduceat(c, idx, dtype=np.float64)[0::2]


def _slow_trace(j: int, c: np.ndarray, window: int, ck_step: int, n_points: int, st: dict) -> None:
    """A trace holding NaN/inf: the same features over its finite tokens only (module doc)."""
    fin = np.isfinite(c)
    st["n_nonfinite"][j] = int(c.shape[0] - np.count_nonzero(fin))
    cf = c[fin]
    if cf.size and np.minimum.reduce(cf) < 0:
        st["n_negative"][j] = int(np.count_nonzero(cf < 0))
    g = _masked_groups(c, fin, window)
    st["mean_conf"][j] = np.mean(cf) if cf.size else 0.0
    tc = c[-window:]
    tc = tc[np.isfinite(tc)]
    st["tail_conf"][j] = np.mean(tc) if tc.size else 0.0
    st["min_group"][j] = g.min()
    st["bottom_10"][j] = _bottom(g)
    st["n_groups"][j] = g.shape[0]
    lw, lv = _record_lows(g)
    st["lows_w"].append(lw)
    st["lows_v"].append(lv)
    L = c.shape[0]
    st["end_conf"][j] = float(np.float32(cf.astype(np.float64).sum() / cf.size)) if cf.size else 0.0
    k0, k1 = int(st["ck_off"][j]), int(st["ck_off"][j + 1])
    if k1 > k0:
        one = np.array([0, L], dtype=np.int64)
        st["ck_conf"][k0:k1] = conf_at_positions(
            one, c, np.array([0, k1 - k0]), st["ck_pos"][k0:k1], window
        )
    if n_points:
        st["curve"][j] = windowed_means(np.array([0, L], dtype=np.int64), c, n_points)[0]


def trace_metrics(
    offsets: np.ndarray,
    values: np.ndarray,
    window: int = WINDOW,
) -> TraceMetrics:
    """Whole-trace features of every trace in a flat batch (see the module doc for numerics)."""
    return batch_features(offsets, values, window).metrics


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
