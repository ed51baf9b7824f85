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

from analysis.mars.confidence_defs import (
    WINDOW,
    TraceMetrics,
    _masked_groups,
    _record_lows,
    _reduceat_sum,
    conf_at_pos_one,
    conf_at_positions,
    first_window_below,
    group_confidences,
    record_lows,
    windowed_means,
)
from cache import extensions
from cache.floats import to_f32

__all__ = [  # the reference definitions are confidence_defs', read from here too
    "WINDOW",
    "BatchFeatures",
    "TraceMetrics",
    "batch_features",
    "conf_at_pos_one",
    "conf_at_positions",
    "first_window_below",
    "group_confidences",
    "record_lows",
    "release_scratch",
    "trace_metrics",
    "windowed_means",
]
# the compiled per-trace pass (built by `pip install`, see _trace_kernel.c); None when not built
# (no C compiler at install) or under RTE_NO_EXT=1: the numpy loop, same results
_trace_kernel: Any = extensions.load("analysis.mars._trace_kernel")  # Any: a C module, no stubs


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


class _Batch:
    """The arrays `batch_features` fills, one trace at a time, and the batch's layout (its
    traces' offsets and lengths, their checkpoints)."""

    def __init__(
        self, offsets: np.ndarray, values: np.ndarray, window: int, ck_step: int, n_points: int
    ) -> None:
        self.offsets = offsets = np.asarray(offsets, dtype=np.int64)
        self.values = values
        self.window, self.ck_step, self.n_points = window, ck_step, n_points
        self.n = n = offsets.shape[0] - 1
        self.lengths = lengths = np.diff(offsets)
        self.w32 = np.float32(window)
        maxlen = int(lengths.max()) if n else 0
        self.len32 = lengths.astype(np.float32)  # exact: lengths < 2**24
        n_blocks_max = -(-max(maxlen - window + 1, 1) // LOW_BLOCK)
        self.gpad_buf = np.empty(n_blocks_max * LOW_BLOCK, dtype=np.float32)
        self.mean_conf = np.zeros(n, dtype=np.float32)
        self.tail_conf = np.zeros(n, dtype=np.float32)
        self.min_group = np.zeros(n, dtype=np.float32)
        self.bottom_10 = np.zeros(n, dtype=np.float32)
        self.end_conf = np.zeros(n, dtype=np.float32)
        self.n_groups = np.ones(n, dtype=np.int64)
        self.n_nonfinite = np.zeros(n, dtype=np.int64)
        self.n_negative = np.zeros(n, dtype=np.int64)
        self.lows_w: list[np.ndarray] = []
        self.lows_v: list[np.ndarray] = []
        self._checkpoints()
        self.curve = np.full((n, max(n_points, 0)), np.nan, dtype=np.float32)
        self.bins = np.arange(n_points + 1, dtype=np.int64)
        self.offs: list[int] = offsets.tolist()

    def _checkpoints(self) -> None:
        """Each trace's checkpoints (multiples of `ck_step` below its length) and their
        windows, relative to the trace start; with W == ck_step they tile [1, p_last]."""
        n, lengths, ck_step, window = self.n, self.lengths, self.ck_step, self.window
        nck = np.maximum((lengths - 1) // ck_step, 0) if ck_step > 0 else np.zeros(n, np.int64)
        self.ck_off = ck_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(nck, out=ck_off[1:])
        ck_owner = np.repeat(np.arange(n), nck)
        ck_pos = (np.arange(ck_off[-1], dtype=np.int64) - ck_off[:-1][ck_owner] + 1) * max(
            ck_step, 1
        )
        self.ck_pos = ck_pos
        self.ck_conf = np.zeros(ck_pos.shape[0], dtype=np.float32)
        self.ck_sum64 = np.zeros(ck_pos.shape[0], dtype=np.float64)
        self.ck_lo = ck_lo = np.where(ck_pos < window, 0, ck_pos - window + 1)
        self.ck_hi = ck_hi = ck_pos + 1
        self.tiled = ck_step > 0 and window == ck_step
        self.ck_idx = np.zeros(0, dtype=np.int64)
        if self.tiled:
            # per trace: lo_0, lo_1, ..., lo_{k-1}, hi_{k-1} (consecutive windows share edges)
            self.ck_idx = ck_idx = np.empty(ck_pos.shape[0] + n, dtype=np.int64)
            pos_in = np.arange(ck_pos.shape[0]) + ck_owner
            ck_idx[pos_in] = ck_lo
            last = ck_off[1:] - 1
            has = nck > 0
            ck_idx[(ck_off[1:] + np.arange(n))[has]] = ck_hi[last[has]]
        self.ck_offs: list[int] = ck_off.tolist()

    def prefix_sums(self) -> None:
        """The loop's per-trace float32 prefix sums, all kept for the batch (trace j at
        `bases[j]`) so that the plotting curves are one vectorised gather after it (the compiled
        pass leaves this buffer untouched: no page of it is faulted in)."""
        self.cs_base = cs_base = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.lengths + 1, out=cs_base[1:])
        self.cs_all = _scratch("cs", int(cs_base[-1]), np.float32)
        self.bases: list[int] = cs_base.tolist()

    def empty_trace(self) -> None:
        self.lows_w.append(np.zeros(1, dtype=np.int64))
        self.lows_v.append(np.zeros(1, dtype=np.float32))

    def short_trace(self, j: int, c: np.ndarray | None) -> None:
        """Lows and curve of a finite trace shorter than the window (its mean set already;
        `c`: its values, for the curve)."""
        self.lows_w.append(np.zeros(1, dtype=np.int64))
        self.lows_v.append(np.array([self.mean_conf[j]], dtype=np.float32))
        if self.n_points and c is not None:
            self.curve[j] = _short_curve(c, (c.shape[0] * self.bins) // self.n_points)


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
    b = _Batch(offsets, values, window, ck_step, n_points)
    negative = _negative_mask(values)
    if negative is not None:
        b.n_negative[:] = _reduceat_sum(
            negative.astype(np.int64), b.offsets[:-1], b.offsets[1:], np.int64
        )
    # the compiled pass (float16 input) does the sequential part of every trace up front: its
    # groups, minimum, record lows, checkpoint sums, and the curve of each long finite trace
    kp = (
        _kernel_pass(b.offsets, values, window, ck_step, b.lengths, b.ck_off, b.ck_sum64, b.curve)
        if compiled and _trace_kernel is not None and values.dtype == np.float16 and b.n
        else None
    )
    b.prefix_sums()
    low_counts: np.ndarray | None = None  # set when the lows are taken whole from the kernel
    # a trace holding both +inf and -inf sums to NaN: that is how _slow_trace gets it
    with np.errstate(invalid="ignore"):
        if kp is not None:
            low_counts = _from_kernel(b, kp)
        else:
            for j in range(b.n):
                _loop_trace(b, j)
    done = b.ck_sum64 != 0  # traces handled by _slow_trace wrote ck_conf themselves
    if b.ck_pos.shape[0]:
        b.ck_conf[done] = (b.ck_sum64[done] / (b.ck_hi - b.ck_lo)[done]).astype(np.float32)
    if n_points and kp is None:
        _prefix_curves(b)
    return _finish(b, low_counts)


def _from_kernel(b: _Batch, kp: _KernelOut) -> np.ndarray | None:
    """Take what the compiled pass gave: every trace's sums and bottom 10 %, the finite ones at
    once, in float32 as the loop computes them one by one; a loop only for the rare short, empty
    and NaN/inf traces. Returns the record-low counts when every trace is long (else None: the
    lows were appended trace by trace)."""
    lengths, len32, window, n = b.lengths, b.len32, b.window, b.n
    fin = (lengths > 0) & np.isfinite(kp.sum32)
    long_ = fin & (lengths >= window)
    short = fin & ~long_
    b.mean_conf[fin] = kp.sum32[fin] / len32[fin]
    b.tail_conf[fin] = kp.tail32[fin] / np.where(lengths < window, len32, b.w32)[fin]
    b.min_group[long_] = kp.min_group[long_]
    b.min_group[short] = b.mean_conf[short]
    b.bottom_10[short] = b.mean_conf[short]
    b.n_groups[long_] = (lengths - window + 1)[long_]
    b.end_conf[fin] = kp.total64[fin] / lengths[fin]
    b.bottom_10[long_] = kp.bottom10[long_]
    lo, offs = kp.low_off, b.offs
    if long_.all():
        b.lows_w.append(kp.low_window[: lo[n]])
        b.lows_v.append(kp.low_value[: lo[n]])
        return np.diff(np.asarray(lo, dtype=np.int64))
    for j, is_long, is_short in zip(range(n), long_.tolist(), short.tolist(), strict=True):
        s, e = offs[j], offs[j + 1]
        if is_long:
            b.lows_w.append(kp.low_window[lo[j] : lo[j + 1]])
            b.lows_v.append(kp.low_value[lo[j] : lo[j + 1]])
        elif is_short:
            b.short_trace(j, to_f32(b.values[s:e]) if b.n_points else None)
        elif e == s:
            b.empty_trace()
        else:
            b.n_negative[j] = 0
            _slow_trace(b, j, to_f32(b.values[s:e]))
    return None


def _loop_trace(b: _Batch, j: int) -> None:
    """Trace j of the batch without the compiled pass: its sums, groups, record lows, bottom
    10 % and checkpoint sums, in numpy."""
    s, e = b.offs[j], b.offs[j + 1]
    L = e - s
    if L == 0:
        b.empty_trace()
        return
    c = to_f32(b.values[s:e])
    total = np.add.reduce(c)
    if not math.isfinite(total):
        b.n_negative[j] = 0
        _slow_trace(b, j, c)
        return
    window = b.window
    b.mean_conf[j] = total / b.len32[j]
    b.tail_conf[j] = np.add.reduce(c[-window:]) / (b.len32[j] if window > L else b.w32)
    if window <= L:
        ng = L - window + 1
        cb = b.bases[j]
        cs = b.cs_all[cb : cb + L + 1]
        cs[0] = 0.0
        np.cumsum(c, out=cs[1:])
        g = b.gpad_buf[:ng]
        np.subtract(cs[window:], cs[: L + 1 - window], out=g)
        g /= b.w32
        lw, lv, mn = _record_lows_blocked(g, b.gpad_buf)
        b.min_group[j] = mn
        b.lows_w.append(lw)
        b.lows_v.append(lv)
        b.bottom_10[j] = _bottom(g, scratch=True)
        b.n_groups[j] = ng
    else:
        b.min_group[j] = b.mean_conf[j]
        b.bottom_10[j] = b.mean_conf[j]
        b.short_trace(j, c)
    _loop_checkpoints(b, j, c)


def _loop_checkpoints(b: _Batch, j: int, c: np.ndarray) -> None:
    """Checkpoint sums and whole-trace conf of finite trace j (values `c`), in numpy."""
    L = c.shape[0]
    k0, k1 = b.ck_offs[j], b.ck_offs[j + 1]
    if k1 > k0 and b.tiled:
        # one reduceat gives every checkpoint window (lo_0, lo_1, ..., hi_last) and the rest
        # of the trace after the last one. conf_at_pos(p >= len) is the float64 mean of the
        # whole trace: float64 partial sums of float16-origin values are exact, so c[0] + these
        # sums has the bits of the reference cumulative sum.
        idx = b.ck_idx[k0 + j : k1 + j + 1]
        sums = np.add.reduceat(c, idx if idx[-1] < L else idx[:-1], dtype=np.float64)
        b.ck_sum64[k0:k1] = sums[: k1 - k0]
        b.end_conf[j] = (float(c[0]) + float(np.add.reduce(sums))) / L
    else:
        if k1 > k0:
            b.ck_sum64[k0:k1] = _range_sums64(c, b.ck_lo[k0:k1], b.ck_hi[k0:k1])
        b.end_conf[j] = np.add.reduce(c, dtype=np.float64) / L


def _prefix_curves(b: _Batch) -> None:
    """Plotting curves of the long finite traces from the loop's float32 prefix sums (precise
    enough for a picture; the exact features never use them; the compiled pass computes them
    the same way)."""
    long_ = np.flatnonzero((b.lengths >= b.window) & (b.n_nonfinite == 0))
    if long_.size:
        edges = (b.lengths[long_, None] * b.bins[None, :]) // b.n_points
        s_ = edges[:, :-1]
        e_ = np.maximum(edges[:, 1:], s_ + 1)
        base = b.cs_base[long_, None]
        b.curve[long_] = (b.cs_all[base + e_] - b.cs_all[base + s_]) / (e_ - s_)


def _finish(b: _Batch, low_counts: np.ndarray | None) -> BatchFeatures:
    """The batch's features, the record lows gathered into ragged arrays."""
    n = b.n
    counts = (
        low_counts
        if low_counts is not None
        else np.array([x.shape[0] for x in b.lows_w], dtype=np.int64)
    )
    low_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=low_offsets[1:])
    # one copy out of the scratch buffers, no second one to change a dtype already right
    low_window = np.concatenate(b.lows_w) if n else np.zeros(0, dtype=np.int64)
    low_value = (
        np.concatenate(b.lows_v).astype(np.float32, copy=False)
        if n
        else np.zeros(0, dtype=np.float32)
    )
    metrics = TraceMetrics(
        lengths=b.lengths,
        n_nonfinite=b.n_nonfinite,
        n_negative=b.n_negative,
        mean_conf=b.mean_conf,
        tail_conf=b.tail_conf,
        min_group=b.min_group,
        bottom_10=b.bottom_10,
        n_groups=b.n_groups,
        low_offsets=low_offsets,
        low_window=low_window.astype(np.int64, copy=False),
        low_value=low_value,
    )
    return BatchFeatures(metrics, b.ck_off, b.ck_pos, b.ck_conf, b.end_conf, b.curve)


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


def _slow_trace(b: _Batch, j: int, c: np.ndarray) -> None:
    """A trace holding NaN/inf: the same features over its finite tokens only (module doc)."""
    window = b.window
    fin = np.isfinite(c)
    b.n_nonfinite[j] = int(c.shape[0] - np.count_nonzero(fin))
    cf = c[fin]
    if cf.size and np.minimum.reduce(cf) < 0:
        b.n_negative[j] = int(np.count_nonzero(cf < 0))
    g = _masked_groups(c, fin, window)
    b.mean_conf[j] = np.mean(cf) if cf.size else 0.0
    tc = c[-window:]
    tc = tc[np.isfinite(tc)]
    b.tail_conf[j] = np.mean(tc) if tc.size else 0.0
    b.min_group[j] = g.min()
    b.bottom_10[j] = _bottom(g)
    b.n_groups[j] = g.shape[0]
    lw, lv = _record_lows(g)
    b.lows_w.append(lw)
    b.lows_v.append(lv)
    L = c.shape[0]
    b.end_conf[j] = float(np.float32(cf.astype(np.float64).sum() / cf.size)) if cf.size else 0.0
    k0, k1 = b.ck_offs[j], b.ck_offs[j + 1]
    if k1 > k0:
        one = np.array([0, L], dtype=np.int64)
        b.ck_conf[k0:k1] = conf_at_positions(
            one, c, np.array([0, k1 - k0]), b.ck_pos[k0:k1], window
        )
    if b.n_points:
        b.curve[j] = windowed_means(np.array([0, L], dtype=np.int64), c, b.n_points)[0]


def trace_metrics(
    offsets: np.ndarray,
    values: np.ndarray,
    window: int = WINDOW,
) -> TraceMetrics:
    """Whole-trace features of every trace in a flat batch (see the module doc for numerics)."""
    return batch_features(offsets, values, window).metrics
