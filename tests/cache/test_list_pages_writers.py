"""The page decoder (cache/list_pages.py) on files of each writer it is tested on, pyarrow and
polars, on DuckDB's files (which it leaves to pyarrow), and on a file of an unknown writer: decoded here when the
compiled decoder is there (not under RTE_NO_EXT=1), and always the arrays pyarrow reads."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cache import list_pages

BUILT = list_pages._list_pages is not None
COLUMNS = ["qid", "confs"]


def _lists(seed: int, n: int) -> tuple[list[int], list[list[float]]]:
    """n float16-exact confidence lists (some empty, some spanning pages) and their qids."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 2500, n)
    lengths[::4] = 0
    lengths[1] = 30_000
    confs = [rng.uniform(0, 20, int(k)).astype(np.float16).astype(float).tolist() for k in lengths]
    return (np.arange(n) // 3).tolist(), confs


def _read(path: Path) -> tuple[pa.Table | None, pa.Table]:
    """(this module's read of row group 0, or None, and the batches it yields for the file)."""
    pf = pq.ParquetFile(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        fast = list_pages.read_row_group(fd, pf, 0, COLUMNS, list_pages.layout(pf, "confs"))
    finally:
        os.close(fd)
    rgs = list(range(pf.num_row_groups))
    batches = list(list_pages.iter_batches(pf, path, rgs, COLUMNS, 5, "confs"))
    return fast, pa.Table.from_batches(batches)


def _bits(t: pa.Table) -> tuple[list[int], list[int]]:
    col = t.column("confs").combine_chunks()
    return np.asarray(col.offsets).tolist(), np.asarray(col.values.view(pa.uint16())).tolist()


def _check(path: Path, writer: str) -> None:
    pf = pq.ParquetFile(path)
    assert (pf.metadata.created_by or "").startswith(writer)
    assert list_pages.writer_known(pf)
    fast, batches = _read(path)
    want = pf.read(columns=COLUMNS)
    if BUILT:
        assert fast is not None, "a file of a known writer is decoded here"
        first = pf.read_row_group(0, columns=COLUMNS)
        assert fast.schema == first.schema and _bits(fast) == _bits(first)
    else:
        assert fast is None  # no decoder: pyarrow reads it
    assert batches.schema == want.schema and _bits(batches) == _bits(want)
    assert batches.column("qid").to_pylist() == want.column("qid").to_pylist()


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"compression": "uncompressed", "data_page_size": 4096},
        {"compression": "snappy", "row_group_size": 7},
        {"compression": "zstd", "statistics": False, "data_page_size": 1024},
    ],
    ids=["default", "plain-small-pages", "snappy-row-groups", "zstd-no-stats"],
)
def test_a_polars_file_is_decoded_as_pyarrow_reads_it(tmp_path: Path, opts: dict) -> None:
    qid, confs = _lists(1, 23)
    frame = pl.DataFrame(
        {"qid": qid, "confs": confs}, schema={"qid": pl.Int64, "confs": pl.List(pl.Float16)}
    )
    path = tmp_path / "polars.parquet"
    frame.write_parquet(path, **opts)
    assert pa.types.is_large_list(pq.ParquetFile(path).schema_arrow.field("confs").type)
    _check(path, "Polars (python) version ")


@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
def test_a_pyarrow_file_is_decoded_as_pyarrow_reads_it(tmp_path: Path, page_version: str) -> None:
    qid, confs = _lists(2, 19)
    table = pa.table(
        {"qid": pa.array(qid, pa.int64()), "confs": pa.array(confs, pa.list_(pa.float16()))}
    )
    path = tmp_path / "pyarrow.parquet"
    pq.write_table(table, path, use_dictionary=False, data_page_version=page_version)
    _check(path, "parquet-cpp-arrow version ")


def test_an_unknown_writer_is_left_to_pyarrow(tmp_path: Path) -> None:
    """A pyarrow file whose `created_by` names another writer (same length, so the footer still
    parses): not decoded here, and the batches are pyarrow's."""
    qid, confs = _lists(3, 17)
    table = pa.table(
        {"qid": pa.array(qid, pa.int64()), "confs": pa.array(confs, pa.list_(pa.float16()))}
    )
    known = tmp_path / "known.parquet"
    pq.write_table(table, known, use_dictionary=False)
    data = known.read_bytes()
    assert data.count(b"parquet-cpp-arrow") == 1
    path = tmp_path / "unknown.parquet"
    path.write_bytes(data.replace(b"parquet-cpp-arrow", b"some-other-writer"))
    pf = pq.ParquetFile(path)
    assert pf.metadata.created_by.startswith("some-other-writer version ")
    assert not list_pages.writer_known(pf)
    assert list_pages.layout(pf, "confs") is None
    fast, batches = _read(path)
    assert fast is None
    assert batches.equals(pf.read(columns=COLUMNS))
    assert _bits(batches) == _bits(pq.read_table(known, columns=COLUMNS))
    if BUILT:  # the same bytes under the known name are decoded here
        assert list_pages.layout(pq.ParquetFile(known), "confs") is not None


def test_a_duckdb_file_is_read_by_pyarrow(tmp_path: Path) -> None:
    """DuckDB has no half float: it writes `confs` as `list<float>` (and refuses an arrow
    half-float column outright), so the decoder, which reads only `list<halffloat>` of the
    writers in `KNOWN_WRITERS`, never takes its files; pyarrow reads them, values intact."""
    duckdb = pytest.importorskip("duckdb", reason="duckdb is in the test extra")
    qid, confs = _lists(4, 13)
    source = pa.table(
        {"qid": pa.array(qid, pa.int64()), "confs": pa.array(confs, pa.list_(pa.float32()))}
    )
    half = source.set_column(1, "confs", source.column("confs").cast(pa.list_(pa.float16())))
    path = tmp_path / "duckdb.parquet"
    con = duckdb.connect()
    with pytest.raises(duckdb.Error):  # no half floats in DuckDB
        con.from_arrow(half).fetchall()
    con.from_arrow(source).write_parquet(str(path))
    con.close()
    pf = pq.ParquetFile(path)
    assert pf.metadata.created_by.startswith("DuckDB")
    assert not list_pages.writer_known(pf)
    assert list_pages.layout(pf, "confs") is None
    fast, batches = _read(path)
    assert fast is None
    assert batches.column("confs").to_pylist() == source.column("confs").to_pylist()
    assert batches.column("qid").to_pylist() == qid
