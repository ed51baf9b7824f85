"""float16 -> float32 in one place, and checked parquet scans."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cache.errors import CorruptFile, SourceNotFound
from cache.floats import arrow_list_values_f32, f16_list_to_f32
from cache.scan import collect, parquet_info


def _f16_lists(rows: list[list[float] | None]) -> pa.Array:
    return pa.array(
        [None if r is None else np.asarray(r, dtype=np.float16) for r in rows],
        type=pa.list_(pa.float16()),
    )


def test_arrow_lists_flatten_exactly_with_nulls_and_slices() -> None:
    arr = _f16_lists([[1.5, 2.25], None, [], [0.1, 7.0, 65504.0]])
    offsets, values = arrow_list_values_f32(arr)
    assert offsets.tolist() == [0, 2, 2, 2, 5]
    assert values.dtype == np.float32
    assert (
        values.tolist()
        == np.array([1.5, 2.25, 0.1, 7.0, 65504.0], dtype=np.float16).astype(np.float32).tolist()
    )
    off2, val2 = arrow_list_values_f32(arr.slice(3, 1))  # a slice starts mid-buffer
    assert off2.tolist() == [0, 3] and val2.shape == (3,)
    chunked = pa.chunked_array([arr.slice(0, 2), arr.slice(2, 2)])
    off3, val3 = arrow_list_values_f32(chunked)
    assert off3.tolist() == offsets.tolist() and np.array_equal(val3, values)


def test_polars_cast_makes_list_mean_work(tmp_path: Path) -> None:
    path = tmp_path / "c.parquet"
    pq.write_table(pa.table({"confs": _f16_lists([[1.0, 3.0], [2.0]])}), path)
    out = pl.scan_parquet(path).select(f16_list_to_f32(pl.col("confs")).alias("c")).collect()
    assert out.schema["c"] == pl.List(pl.Float32)
    assert out.select(pl.col("c").list.mean())["c"].to_list() == [2.0, 2.0]


def test_scan_reports_empty_truncated_and_missing_files(tmp_path: Path) -> None:
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"a": list(range(1000))}), good)
    info = parquet_info(good)
    assert info.rows == 1000 and info.columns == {"a": "int64"}
    assert collect(pl.scan_parquet(good).select(pl.col("a").sum()), good).item() == sum(range(1000))

    empty = tmp_path / "empty.parquet"
    empty.write_bytes(b"")
    with pytest.raises(CorruptFile, match="empty"):
        parquet_info(empty)
    truncated = tmp_path / "trunc.parquet"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(CorruptFile) as err:
        parquet_info(truncated)
    assert (
        "trunc.parquet" in err.value.message and "trunc.parquet may be truncated" in err.value.hint
    )
    with pytest.raises(SourceNotFound):
        parquet_info(tmp_path / "nope.parquet")
