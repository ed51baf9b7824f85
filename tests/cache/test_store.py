"""The derived-table store: reuse, rebuild on a changed source or version, atomic writes."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import polars as pl
import pytest

from cache import store


@pytest.fixture()
def source(tmp_path: Path) -> Path:
    f = tmp_path / "src.txt"
    f.write_text("v1")
    return f


def _builder(calls: list[int], value: int = 1):
    def build(progress=None):
        calls.append(value)
        return pl.DataFrame({"x": [value, value + 1]})

    return build


def test_built_once_then_reused(source: Path) -> None:
    calls: list[int] = []
    a = store.read_derived("t-reuse", 1, [source], _builder(calls))
    b = store.read_derived("t-reuse", 1, [source], _builder(calls))
    assert calls == [1] and a.equals(b) and a["x"].to_list() == [1, 2]


def test_changed_source_rebuilds(source: Path) -> None:
    calls: list[int] = []
    p1 = store.derived_table("t-change", 1, [source], _builder(calls))
    source.write_text("v2 longer")  # size and mtime change
    os.utime(source, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    p2 = store.derived_table("t-change", 1, [source], _builder(calls))
    assert p1 != p2 and len(calls) == 2 and p1.exists() and p2.exists()


def test_version_and_params_are_part_of_the_key(source: Path) -> None:
    calls: list[int] = []
    p1 = store.derived_table("t-ver", 1, [source], _builder(calls))
    p2 = store.derived_table("t-ver", 2, [source], _builder(calls))
    p3 = store.derived_table("t-ver", 2, [source], _builder(calls), params={"window": 1024})
    assert len({p1, p2, p3}) == 3 and len(calls) == 3
    assert p2.name.startswith("t-ver-v2-")


def test_crash_mid_write_leaves_no_file(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    real = pq.write_table

    def half_write(table, where, **kw):
        Path(where).write_bytes(b"PAR1 half")  # something is on disk ...
        raise OSError("disk full")  # ... then the write dies

    monkeypatch.setattr(pq, "write_table", half_write)
    with pytest.raises(OSError):
        store.derived_table("t-crash", 1, [source], _builder([]))
    dest = store.table_path("t-crash", 1, [source])
    assert not dest.exists()
    assert not list(dest.parent.glob(f".{dest.name}.*"))  # temp file cleaned up
    monkeypatch.setattr(pq, "write_table", real)
    assert store.read_derived("t-crash", 1, [source], _builder([]))["x"].to_list() == [1, 2]


def test_concurrent_builders_leave_one_readable_file(source: Path) -> None:
    calls: list[int] = []

    def slow(progress=None):
        time.sleep(0.05)
        calls.append(1)
        return pl.DataFrame({"x": list(range(10_000))})

    results: list[pl.DataFrame] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(store.read_derived("t-conc", 1, [source], slow))
        )
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(r.height == 10_000 for r in results)
    dest = store.table_path("t-conc", 1, [source])
    assert [p.name for p in dest.parent.glob("t-conc-*")] == [dest.name]
    assert not list(dest.parent.glob(".t-conc*"))


def test_work_dir_is_removed_after_success(source: Path) -> None:
    wd = store.work_dir("t-partial", 1, [source])
    (wd / "chunk-0.parquet").write_bytes(b"x")
    store.derived_table("t-partial", 1, [source], _builder([]))
    assert not wd.exists()


def test_only_text_columns_are_dictionary_encoded(tmp_path: Path) -> None:
    """Labels and answers repeat, floats and ids do not: a derived table dictionary-encodes its
    text leaves (top level, in lists, in structs) and nothing else, delta-packs its integers,
    splits its floats by byte, and reads back unchanged (with pyarrow and with polars)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "value": pa.array([0.5, 1.5] * 300),
            "label": pa.array(["a", "b"] * 300),
            "texts": pa.array([["u", "v"]] * 600),
            "probe": pa.array([{"answer": "7", "position": 2048}] * 600),
            "curve": pa.array([[1.0, 2.0]] * 600, type=pa.list_(pa.float32())),
        }
    )
    dest = store.atomic_write_parquet(table, tmp_path / "t.parquet")
    rg = pq.ParquetFile(dest).metadata.row_group(0)
    encodings = {
        rg.column(i).path_in_schema: "RLE_DICTIONARY" in rg.column(i).encodings
        for i in range(rg.num_columns)
    }
    assert encodings == {
        "value": False,
        "label": True,
        "texts.list.element": True,
        "probe.answer": True,
        "probe.position": False,
        "curve.list.element": False,
    }
    numeric = {
        rg.column(i).path_in_schema: set(rg.column(i).encodings) - {"RLE", "PLAIN"}
        for i in range(rg.num_columns)
        if "RLE_DICTIONARY" not in rg.column(i).encodings
    }
    assert numeric == {  # integers delta-packed, floats split by byte
        "value": {"BYTE_STREAM_SPLIT"},
        "probe.position": {"DELTA_BINARY_PACKED"},
        "curve.list.element": {"BYTE_STREAM_SPLIT"},
    }
    assert pq.read_table(dest).equals(table)
    assert pl.read_parquet(dest).equals(pl.from_arrow(table))  # polars reads them too
    frame = pl.DataFrame({"name": ["x", "y"], "n": [1, 2]})  # polars writes large strings
    assert store.dictionary_columns(frame.to_arrow().schema) == ["name"]


def test_a_failed_atomic_write_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    """A writer that fails part-way (a full disk, a killed encoder) leaves the file it was
    replacing as it was and no temp file beside it; one that finishes replaces it whole."""
    dest = tmp_path / "chunk.arrow"
    dest.write_bytes(b"old")

    def half(tmp: str) -> None:
        Path(tmp).write_bytes(b"ne")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        store.atomic_write(dest, half)
    assert dest.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunk.arrow"]
    store.atomic_write(dest, lambda tmp: Path(tmp).write_bytes(b"new"), fsync=True)
    assert dest.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunk.arrow"]
