"""The simulator's own reader of the cached feature tables (`analysis.playground.pools`): the same
pools as the feature store's, the same table names and version, and a fallback (None) whenever
it cannot promise that."""

from __future__ import annotations

import dataclasses
import json
import mmap
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from analysis.mars import feature_files
from analysis.mars import store as mars_store
from analysis.mars.table_names import FEATURES_VERSION
from analysis.playground import pools as fast
from cache.sample.mars import write_file
from cache.store import table_path


@pytest.fixture(scope="module")
def mars_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pools") / "DeepSeek-8B/aime25_deepseek.parquet"
    write_file(path, "aime", 40, seed=11, drop=3, n_questions=5)
    feature_files.feature_paths(path)  # build the tables once
    return path


def _assert_same_pools(got: list, want: list) -> None:
    assert [p.qid for p in got] == [p.qid for p in want]
    for a, b in zip(got, want, strict=True):
        for f in dataclasses.fields(a):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if isinstance(x, np.ndarray):
                # the record-low windows keep the table's int32 (values equal)
                if f.name != "low_window":
                    assert x.dtype == y.dtype, (f.name, a.qid)
                assert x.shape == y.shape, (f.name, a.qid)
                assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), (f.name, a.qid)
            else:
                assert x == y, (f.name, a.qid)


@pytest.mark.parametrize("with_lows", [False, True])
def test_same_pools_as_the_feature_store(mars_file: Path, with_lows: bool) -> None:
    store = mars_store.load_features(
        mars_file, with_lows=with_lows, columns=mars_store.POOL_COLUMNS
    )
    want = [store.pool(q) for q in store.qids]
    for _read in ("tables or copy", "the copy"):  # the second read is from the flat copy
        got = fast.cached_pools(mars_file, 2048, with_lows=with_lows)
        assert got is not None
        _assert_same_pools(got, want)
    paths = fast.cached_table_paths(mars_file, 2048)
    assert paths is not None and (fast._copy_dir(paths) / "meta.json").is_file()


def test_a_warm_read_needs_no_pyarrow(mars_file: Path) -> None:
    fast.cached_pools(mars_file, 2048, with_lows=True)  # the copy and its lows exist now
    code = (
        "import sys; from analysis.playground.pools import cached_pools; "
        f"assert cached_pools({str(mars_file)!r}, 2048, with_lows=True) is not None; "
        "print(sorted(m for m in ('pyarrow', 'polars', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


_MMAP = mmap.mmap  # the type, kept: a test below replaces the module's `mmap`


def _mapped(x: np.ndarray) -> bool:
    """Is `x` a view of a file mapping?"""
    base = x.base
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, _MMAP) or (isinstance(base, memoryview) and isinstance(base.obj, _MMAP))


def test_a_warm_read_maps_the_record_lows(mars_file: Path, monkeypatch) -> None:
    """Big files of the copy (the record lows, ~50 MB for a realistic pool) come mapped from
    the page cache, read-only, not read into fresh memory; small ones are read (this pool's
    lows are small: first as they are, then with every file counted as big). A pool keeps its
    lows when the copy's files are written anew (they are replaced by a rename, never
    rewritten in place)."""
    fast.cached_pools(mars_file, 2048, with_lows=True)  # the copy and its lows exist now
    small = fast.cached_pools(mars_file, 2048, with_lows=True)
    assert small is not None
    assert not any(_mapped(p.low_value) for p in small)
    monkeypatch.setattr(fast, "_MAP_MIN_BYTES", 1)
    pools = fast.cached_pools(mars_file, 2048, with_lows=True)
    assert pools is not None
    for p in pools:
        for x in (p.low_value, p.low_window):
            assert _mapped(x) and not x.flags.writeable, p.qid
    kept = [(p.low_window.copy(), p.low_value.copy()) for p in pools]
    paths = fast.cached_table_paths(mars_file, 2048)
    assert paths is not None
    folder = fast._copy_dir(paths)
    # the copy's writer puts other lows of the same size in the same files
    window = np.fromfile(folder / "low_window.bin", dtype="<i4")
    value = np.fromfile(folder / "low_value.bin", dtype="<f4")
    offsets = ("low_offsets.bin", (folder / "low_offsets.bin").read_bytes())
    try:
        fast._write_files(
            folder, {"low_window.bin": window + 1, "low_value.bin": value - 1}, offsets
        )
        assert np.array_equal(np.fromfile(folder / "low_value.bin", dtype="<f4"), value - 1)
        for p, (w, v) in zip(pools, kept, strict=True):
            assert np.array_equal(p.low_window, w) and np.array_equal(p.low_value, v)
    finally:  # the other tests read this copy
        fast._write_files(folder, {"low_window.bin": window, "low_value.bin": value}, offsets)


def test_a_file_system_without_mappings_reads_the_copy(mars_file: Path, monkeypatch) -> None:
    """Where the cache's file system cannot map a file, the copy's big files are read instead:
    the same pools, still from the copy (not from the tables again)."""
    want = fast.cached_pools(mars_file, 2048, with_lows=True)  # the copy and its lows exist now
    assert want is not None
    monkeypatch.setattr(fast, "_MAP_MIN_BYTES", 1)

    def no_map(*args: object, **kwargs: object) -> mmap.mmap:
        raise OSError(19, "No such device")

    monkeypatch.setattr(fast.mmap, "mmap", no_map)
    monkeypatch.setattr(fast, "_copy_from_tables", None)  # would fail if the tables were read
    got = fast.cached_pools(mars_file, 2048, with_lows=True)
    assert got is not None
    _assert_same_pools(got, want)
    assert not any(_mapped(p.low_value) for p in got)


def test_the_fast_reader_looks_where_the_builder_writes(mars_file: Path) -> None:
    assert fast.POOL_COLUMNS == mars_store.POOL_COLUMNS
    assert fast.LOW_COLUMNS == mars_store.LOW_COLUMNS
    built = feature_files.feature_paths(mars_file, window=2048)
    assert fast.cached_table_paths(mars_file, 2048) == built
    v = FEATURES_VERSION
    for name, got in zip(
        (fast.FEATURES, fast.GROUPS, fast.NOTES),
        fast.cached_table_paths(mars_file, 2048) or (),
        strict=True,
    ):
        assert got == table_path(name, v, [mars_file], {"window": 2048})


def test_a_table_not_built_is_none(tmp_path: Path) -> None:
    path = tmp_path / "DeepSeek-8B/aime25_deepseek.parquet"
    write_file(path, "aime", 8, seed=2, drop=0, n_questions=2)
    assert fast.cached_table_paths(path, 2048) is None
    assert fast.cached_pools(path, 2048, with_lows=False) is None
    assert fast.cached_pools(path, 1024, with_lows=False) is None  # another window


def test_a_torn_or_stale_copy_is_rebuilt(mars_file: Path) -> None:
    paths = fast.cached_table_paths(mars_file, 2048)
    assert paths is not None
    want = fast.cached_pools(mars_file, 2048, with_lows=True)
    folder = fast._copy_dir(paths)
    (folder / "low_offsets.bin").write_bytes(b"\x00" * 16)  # torn lows
    (folder / "ckpt_conf.bin").write_bytes(b"\x00" * 8)  # a torn column
    got = fast.cached_pools(mars_file, 2048, with_lows=True)
    assert got is not None and want is not None
    _assert_same_pools(got, want)
    meta = json.loads((folder / "meta.json").read_text())
    meta["sources"][1][1] += 1  # the groups table changed since the copy
    (folder / "meta.json").write_text(json.dumps(meta))
    assert fast._load_copy(paths) is None
    again = fast.cached_pools(mars_file, 2048, with_lows=True)
    assert again is not None
    _assert_same_pools(again, want)
    assert fast._load_copy(paths) is not None  # rewritten


def test_nulls_fall_back_to_the_store(tmp_path: Path) -> None:
    """A null the store would read its own way: the fast reader declines."""
    feats = pa.table({"qid": pa.array([0, 0], pa.int64()), "x": pa.array([1.0, None])})
    with pytest.raises(fast._Unsure):
        fast._numpy(feats.column("x"))
    lists = pa.chunked_array([pa.array([[1, 2], None], pa.list_(pa.int64()))])
    with pytest.raises(fast._Unsure):
        fast._ragged(lists)
    sliced = pa.chunked_array([pa.array([[9], [1, 2], [3]], pa.list_(pa.int32())).slice(1)])
    off, vals = fast._ragged(sliced)
    assert off.tolist() == [0, 2, 3] and vals.tolist() == [1, 2, 3]
