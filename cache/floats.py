"""The one place that turns stored float16 confidences into float32.

polars 2.x panics on `list.mean`/`rolling_mean` over Float16, and plotly serialises float16 as
slow JSON, so every reader of `confs` goes through here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:  # why: the numpy casts below serve build workers, which never load polars
    import polars as pl


def f16_list_to_f32(expr: pl.Expr) -> pl.Expr:
    """Cast a `list<float16>` (or any numeric list) column expression to `list<float32>`."""
    import polars as pl  # why here: see the TYPE_CHECKING import above

    return expr.cast(pl.List(pl.Float32))


def arrow_list_values_f32(arr: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Flatten an arrow list array of floats into (offsets int64[n+1], values float32[m]).

    Zero-copy where arrow allows; float16 values are widened with numpy (exact).
    Null lists count as empty.
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.null_count:
        arr = arr.fill_null(pa.scalar([], type=arr.type))
    if pa.types.is_list(arr.type):
        arr = arr.cast(pa.large_list(arr.type.value_type))
    offsets = np.asarray(arr.offsets, dtype=np.int64)
    values = arr.values
    start, stop = int(offsets[0]), int(offsets[-1])
    values = values.slice(start, stop - start)
    offsets = offsets - start
    np_values = values.to_numpy(zero_copy_only=False)
    return offsets, np.asarray(np_values, dtype=np.float32)


def to_f32(values: np.ndarray) -> np.ndarray:
    """Widen a numeric array to float32 (no copy when it already is)."""
    return np.asarray(values, dtype=np.float32)
