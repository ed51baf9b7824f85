"""A Parquet footer is read once per version of a file: a rewritten file is read again, and a
file that could not be read is read again once it is fixed."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

from cache import scan
from cache.errors import CorruptFile


def test_a_footer_is_read_once_per_version_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.parquet"
    pl.DataFrame({"a": [1, 2, 3]}).write_parquet(path)
    reads: list[Path] = []
    real = scan.pq.read_metadata
    monkeypatch.setattr(scan.pq, "read_metadata", lambda p: reads.append(p) or real(p))
    scan._footer.cache_clear()
    first = scan.parquet_info(path)
    again = scan.parquet_info(path)
    assert (first.rows, again.rows, len(reads)) == (3, 3, 1)
    again.columns["a"] = "changed by a caller"  # a caller's copy: the kept footer is untouched
    assert scan.parquet_info(path).columns == {"a": "int64"} and len(reads) == 1
    pl.DataFrame({"a": [1, 2, 3, 4], "b": ["x"] * 4}).write_parquet(path)
    os.utime(path, ns=(1, 1))  # another version even where the clock has not moved
    assert scan.parquet_info(path).rows == 4 and len(reads) == 2


def test_a_file_that_failed_is_read_again_once_fixed(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    path.write_bytes(b"not a parquet file at all")
    scan._footer.cache_clear()
    with pytest.raises(CorruptFile):
        scan.parquet_info(path)
    pl.DataFrame({"a": [1.0]}).write_parquet(path)
    assert scan.parquet_info(path).rows == 1
