"""`np.percentile(a, q, axis=-1)` (method "linear", scalar q) with the same bits, cheaper.

Why: the DeepConf thresholds and the offline top-10 % filters take a percentile of every
iteration's sample. numpy's `percentile` partitions at an index list built with `np.unique`,
whose first call imports numpy.ma (which a warm `simulate` otherwise never needs), and its
generic path is slow for one small sample. Here: one `np.partition` at the two neighbouring
order statistics, then numpy's own interpolation arithmetic (`_lerp` in
numpy/lib/_function_base_impl.py: `a + (b - a) * t`, or `b - (b - a) * (1 - t)` when t >= 0.5,
with the virtual index `(n - 1) * (q / 100)`, and a row holding a NaN gives NaN).
tests/analysis/playground/test_quantiles.py compares it bit for bit with `np.percentile`.
"""

from __future__ import annotations

import math

import numpy as np


def percentile_last_axis(a: np.ndarray, q: float) -> np.ndarray:
    """The q-th percentile (0..100) of each row along the last axis, as
    `np.percentile(a, q, axis=-1)` computes it for a scalar q and a float array."""
    arr = np.asarray(a)
    n = arr.shape[-1]
    if n == 0 or arr.dtype.kind != "f" or not 0 <= q <= 100 or isinstance(q, np.generic):
        return np.percentile(arr, q, axis=-1)  # what numpy does with these (or raises)
    # numpy: q = true_divide(q, 100), virtual index (n - 1) * q, gamma = its fractional part
    virtual = float((n - 1) * np.true_divide(q, 100))
    if virtual >= n - 1:  # numpy takes the last order statistic twice, gamma from index -1
        lo = hi = -1
        gamma = virtual + 1
    else:
        lo = math.floor(virtual)
        hi, gamma = lo + 1, virtual - lo
    # numpy's partition exactly: a C-order copy, the sampled axis moved first, the same kth
    # list (0, -1 and the neighbours, distinct), so equal values that differ in their bits
    # (0.0 and -0.0) land where numpy puts them; the NaNs sort last, into index -1
    part = np.moveaxis(np.array(arr, order="C", copy=True), -1, 0)
    part.partition(np.array(sorted({0, -1, lo, hi}), dtype=np.intp), axis=0)
    prev, nxt = part[lo], part[hi]
    diff = nxt - prev
    out = prev + diff * gamma
    if gamma >= 0.5:
        out = nxt - diff * (1 - gamma)
    last = part[-1]
    nan = np.isnan(last)
    if nan.any():  # numpy copies the row's last (NaN) value into such rows
        out = np.where(nan, last, out)
    return out
