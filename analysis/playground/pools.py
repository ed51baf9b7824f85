"""Question pools straight from a MARS file's cached feature tables, with numpy alone when warm.

Why: `analysis.mars.store.load_features` reads the tables through polars and imports the
feature builder and the store's locking: imports that would be most of a warm
`python -m analysis simulate`, before a row is read. When the three tables of a file already exist, `cached_pools`
builds the same `QuestionPool`s as `analysis.mars.summaries.pool_from_features` from the columns
a pool is built from (tests/analysis/playground/test_pools.py compares every array; the record-low
windows keep the table's int32). The first such read decodes them with pyarrow and leaves a
flat copy of them (raw arrays, see "the flat copy" below); later reads load that copy with numpy
and never import pyarrow. The record lows, which only DeepConf methods read, join the copy on
their first use. `cached_pools` returns None whenever it cannot promise the same pools: a table
not built yet, or values it does not handle the way polars does (nulls, repeated trace or group
ids); the caller then goes through `load_features`, which also builds what is missing.

The tables' names and version come from `analysis.mars.for_playground` (whose eager part is
free of heavy imports) and their paths from `cache.table_keys`.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from analysis.mars.for_playground import (
    FEATURES,
    FEATURES_VERSION,
    GROUPS,
    LOW_COLUMNS,
    NOTES,
    POOL_COLUMNS,
    QuestionPool,
    checkpoint_answers,
    probe_grid,
    sorted_distinct,
)
from cache.table_keys import table_path

if TYPE_CHECKING:
    import pyarrow as pa

# what `pool_from_features` reads of the groups and notes tables (the features: POOL_COLUMNS)
GROUP_COLUMNS = ("qid", "group_id", "label", "is_correct", "ground_truth")
NOTE_COLUMNS = ("qid", "kind", "message")
_LIST_COLUMNS = frozenset(("ckpt_pos", "ckpt_conf", "ckpt_group", "probe_pos", *LOW_COLUMNS))


def cached_table_paths(path: Path, window: int) -> tuple[Path, Path, Path] | None:
    """(features, groups, notes) tables of a MARS file if all three are built, else None."""
    params = {"window": window}
    paths = tuple(
        table_path(n, FEATURES_VERSION, [path], params) for n in (FEATURES, GROUPS, NOTES)
    )
    return paths if all(p.is_file() for p in paths) else None  # type: ignore[return-value]  # three names, three paths


class _Unsure(Exception):
    """Data this reader does not promise to read as `pool_from_features` does."""


_NUMPY = {"int32": np.int32, "int64": np.int64, "float": np.float32, "double": np.float64}


def _one(col: Any) -> Any:
    return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)


def _view(arr: Any) -> np.ndarray:
    """The values of a primitive arrow array without nulls, as a numpy view of its buffer
    (`to_numpy` would import pandas: pyarrow initialises its pandas bridge on the first call)."""
    dtype = _NUMPY.get(str(arr.type))
    if dtype is None or arr.null_count:
        raise _Unsure
    data = arr.buffers()[1]
    n = len(arr)
    if data is None:
        return np.zeros(n, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=arr.offset + n)[arr.offset :]


def _numpy(col: Any) -> np.ndarray:
    """A scalar column without nulls as numpy."""
    return _view(_one(col))


def _ragged(col: Any) -> tuple[np.ndarray, np.ndarray]:
    """(offsets [n+1] from 0, values) of a list column without nulls at either level."""
    arr = _one(col)
    if arr.null_count or str(arr.type).startswith("large_"):
        raise _Unsure
    off = _view(arr.offsets).astype(np.int64)
    vals = _view(arr.values)[int(off[0]) : int(off[-1])]
    return off - off[0], vals


def _gather(
    off: np.ndarray, vals: np.ndarray, rows: np.ndarray, dtype: type
) -> tuple[np.ndarray, np.ndarray]:
    """The (offsets, values) of `rows` of a ragged column, in that row order (a slice when the
    rows are consecutive, as in a table written question by question)."""
    if rows.shape[0] and rows[-1] - rows[0] == rows.shape[0] - 1 and np.all(np.diff(rows) == 1):
        a, b = int(off[rows[0]]), int(off[rows[-1] + 1])
        return off[rows[0] : rows[-1] + 2] - a, vals[a:b].astype(dtype, copy=False)
    counts = off[rows + 1] - off[rows]
    new_off = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=new_off[1:])
    take = np.repeat(off[rows] - new_off[:-1], counts) + np.arange(new_off[-1])
    return new_off, vals[take].astype(dtype, copy=False)


def cached_pools(path: Path, window: int, *, with_lows: bool) -> list[QuestionPool] | None:
    """The `QuestionPool` of every question (qid order) from the cached tables, or None (see
    the module docstring). Without `with_lows` the pools have no record lows, as a store loaded
    with `with_lows=False`."""
    paths = cached_table_paths(path, window)
    if paths is None:
        return None
    try:
        cols = _load_copy(paths)
        if cols is None:
            cols = _copy_from_tables(paths)
        lows = flat_lows(paths, cols.n_rows) if with_lows else None
        return _pools(cols, window, lows)
    except (_Unsure, OSError, KeyError, ValueError, TypeError):
        return None  # the slow path reads it, or names what is wrong with it


# ------------------------------------------------------------------ the flat copy
#
# Why a copy: decoding the pool's list columns from parquet, and importing pyarrow to do it,
# was a large part of a warm run; the same columns as raw little-endian arrays load quickly
# with numpy alone. The copy lives next to the tables (`python -m cache clear` removes it with
# them), is named after the feature table's name, size and mtime and checks the other two
# tables' in its meta (a table rebuilt under the same name gets a new copy), and is written file
# by file through a rename, `meta.json` last: a copy without its meta, or whose files do not
# have the sizes the meta gives, is read from the tables again and rewritten. Arrays decoded
# from arrow are numpy views of its buffers (`to_numpy` would import pandas).

_COPY_FORMAT = 1
_GROUP_TEXT = ("label", "ground_truth")


@dataclass
class _Columns:
    """The pool columns of the feature table, and the groups and notes tables, as numpy."""

    n_rows: int
    flat: dict[str, np.ndarray]
    ragged: dict[str, tuple[np.ndarray, np.ndarray]]
    groups: dict[str, Any]  # qid, group_id (arrays), is_correct (bool array), label, ground_truth
    notes: dict[str, Any]  # qid (array), kind, message (lists)


def _copy_dir(paths: tuple[Path, Path, Path]) -> Path:
    """Named after the feature table and its size and mtime: the lows, written later into the
    same folder, then always belong to the table they were read from."""
    st = paths[0].stat()
    return paths[0].parent / "stopping-pools" / f"{paths[0].stem}-{st.st_size}-{st.st_mtime_ns}"


def _stats(paths: tuple[Path, Path, Path]) -> list[list[int]]:
    return [[p.stat().st_size, p.stat().st_mtime_ns] for p in paths]


_MAP_MIN_BYTES = 1 << 20  # files of the copy from this size are mapped, not read


def _read_raw(path: Path, dtype: str, count: int) -> np.ndarray:
    """`count` values of one file of the copy. A big file (the record lows above all, ~50 MB
    for a realistic pool; on a full-size pool the checkpoint and probe columns too) is mapped
    from the page cache, read-only, rather than read into fresh memory: reading the lows cost
    a warm DeepConf run far more, most of it the kernel zeroing the new pages, than mapping
    them. A small one is read: a mapping's set-up and faults cost more than a copy of
    a few hundred kB. Safe against a rewrite: the copy's files are replaced by a rename
    (`_write_files`), so a mapping keeps the file it was made from."""
    dt = np.dtype(dtype)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size != count * dt.itemsize:
            raise ValueError(f"{path.name}: {size} bytes, not {count} values of {dt}")
        if size >= _MAP_MIN_BYTES:
            # a file system that cannot map files: the same values, read below
            with contextlib.suppress(OSError):
                mapped = mmap.mmap(fh.fileno(), size, access=mmap.ACCESS_READ)
                return np.frombuffer(mapped, dtype=dt, count=count)
        return np.fromfile(fh, dtype=dt, count=count)


def _load_copy(paths: tuple[Path, Path, Path]) -> _Columns | None:
    """The flat copy of the tables, or None if there is no complete, current one."""
    folder = _copy_dir(paths)
    try:
        meta = json.loads((folder / "meta.json").read_text())
        if meta.get("format") != _COPY_FORMAT or meta.get("sources") != _stats(paths):
            return None
        n = int(meta["n_rows"])
        flat = {c: _read_raw(folder / f"{c}.bin", t, n) for c, t in meta["flat"].items()}
        ragged = {}
        for c, t in meta["ragged"].items():
            off = _read_raw(folder / f"{c}.off.bin", "<i8", n + 1)
            ragged[c] = (off, _read_raw(folder / f"{c}.bin", t, int(off[-1]) if n else 0))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    g, nt = meta["groups"], meta["notes"]
    groups = {
        "qid": np.asarray(g["qid"], dtype=np.int64),
        "group_id": np.asarray(g["group_id"], dtype=np.int64),
        "is_correct": np.asarray(g["is_correct"], dtype=bool),
        **{c: g[c] for c in _GROUP_TEXT},
    }
    notes = {
        "qid": np.asarray(nt["qid"], dtype=np.int64),
        "kind": nt["kind"],
        "message": nt["message"],
    }
    return _Columns(n, flat, ragged, groups, notes)


def _read_parquet(path: Path, columns: tuple[str, ...]) -> pa.Table:
    """These columns of a parquet file as a pyarrow Table."""
    # why here: only a run without a current flat copy reads parquet (a warm run never imports
    # pyarrow); ParquetFile.read, unlike read_table, does not import pyarrow.dataset (pandas)
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).read(columns=list(columns))


def _copy_from_tables(paths: tuple[Path, Path, Path]) -> _Columns:
    """Read the tables with pyarrow (no nulls promised: else `_Unsure`) and write the copy."""
    feats = _read_parquet(paths[0], POOL_COLUMNS)
    groups = _read_parquet(paths[1], GROUP_COLUMNS)
    notes = _read_parquet(paths[2], NOTE_COLUMNS)
    flat = {c: _numpy(feats.column(c)) for c in POOL_COLUMNS if c not in _LIST_COLUMNS}
    ragged = {c: _ragged(feats.column(c)) for c in POOL_COLUMNS if c in _LIST_COLUMNS}
    is_correct = _one(groups.column("is_correct"))
    if is_correct.null_count:
        raise _Unsure
    g = {
        "qid": _numpy(groups.column("qid")),
        "group_id": _numpy(groups.column("group_id")),
        "is_correct": np.array(is_correct.to_pylist(), dtype=bool),
        **{c: groups.column(c).to_pylist() for c in _GROUP_TEXT},
    }
    nt = {
        "qid": _numpy(notes.column("qid")),
        "kind": notes.column("kind").to_pylist(),
        "message": notes.column("message").to_pylist(),
    }
    cols = _Columns(feats.num_rows, flat, ragged, g, nt)
    meta = {
        "format": _COPY_FORMAT,
        "sources": _stats(paths),
        "n_rows": cols.n_rows,
        "flat": {c: a.dtype.newbyteorder("<").str for c, a in flat.items()},
        "ragged": {c: v.dtype.newbyteorder("<").str for c, (_o, v) in ragged.items()},
        "groups": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in g.items()},
        "notes": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in nt.items()},
    }
    files = {f"{c}.bin": a for c, a in flat.items()}
    for c, (off, vals) in ragged.items():
        files[f"{c}.off.bin"], files[f"{c}.bin"] = off.astype("<i8"), vals
    _write_files(_copy_dir(paths), files, ("meta.json", json.dumps(meta).encode()))
    return cols


def _write_files(folder: Path, arrays: dict[str, np.ndarray], last: tuple[str, bytes]) -> None:
    """Each file through a temp file and a rename, `last` at the end; an unwritable cache
    leaves no copy (the next run reads the tables again: slower, the same pools)."""

    def put(name: str, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, folder / name)

    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, arr in arrays.items():
            put(name, np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes())
        put(*last)
    except OSError:
        return


# (offsets, window, value) of the record lows: written on first DeepConf use, offsets last
_LOW_FILES = (("low_window.bin", "<i4"), ("low_value.bin", "<f4"), ("low_offsets.bin", "<i8"))


def flat_lows(
    paths: tuple[Path, Path, Path], n_rows: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets [n_rows+1], window int32, value float32) of the record lows of every row of
    the feature table, from the copy (written on first use). The lows are most of the table
    (millions of values in two list columns); decoding them from parquet was most of a warm
    DeepConf run."""
    folder = _copy_dir(paths)
    if (folder / "meta.json").is_file():  # the lows belong to a current copy
        try:
            off = _read_raw(folder / _LOW_FILES[2][0], _LOW_FILES[2][1], n_rows + 1)
            m = int(off[-1]) if n_rows else 0
            win = _read_raw(folder / _LOW_FILES[0][0], _LOW_FILES[0][1], m)
            val = _read_raw(folder / _LOW_FILES[1][0], _LOW_FILES[1][1], m)
            if off[0] == 0:
                return off, win, val
        except (OSError, ValueError):
            pass  # absent or torn: read from the table below
    table = _read_parquet(paths[0], LOW_COLUMNS)
    if table.num_rows != n_rows:
        raise _Unsure
    off, win = _ragged(table.column("low_window"))
    off_v, val = _ragged(table.column("low_value"))
    if not np.array_equal(off, off_v) or win.dtype != np.int32 or val.dtype != np.float32:
        raise _Unsure
    if (folder / "meta.json").is_file():
        lows = dict(zip((f for f, _t in _LOW_FILES[:2]), (win, val), strict=True))
        _write_files(folder, lows, (_LOW_FILES[2][0], off.astype("<i8").tobytes()))
    return off, win, val


def _pools(
    cols: _Columns, window: int, lows: tuple[np.ndarray, np.ndarray, np.ndarray] | None
) -> list[QuestionPool]:
    flat, ragged = cols.flat, dict(cols.ragged)
    with_lows = lows is not None
    if lows is not None:
        ragged["low_window"] = (lows[0], lows[1])
        ragged["low_value"] = (lows[0], lows[2])
    qid, tidx = flat["qid"], flat["trace_idx"]
    order = np.lexsort((tidx, qid))
    q_sorted, t_sorted = qid[order], tidx[order]
    if ((q_sorted[1:] == q_sorted[:-1]) & (t_sorted[1:] == t_sorted[:-1])).any():
        raise _Unsure  # repeated trace ids: polars' sort would not promise an order
    g = cols.groups
    g_order = np.lexsort((g["group_id"], g["qid"]))
    gq, gi = g["qid"][g_order], g["group_id"][g_order]
    if ((gq[1:] == gq[:-1]) & (gi[1:] == gi[:-1])).any():
        raise _Unsure
    g_correct = g["is_correct"][g_order]
    g_label = [g["label"][i] for i in g_order]
    g_truth = [g["ground_truth"][i] for i in g_order]
    n_qid = cols.notes["qid"].tolist()
    n_text = [f"{k}: {m}" for k, m in zip(cols.notes["kind"], cols.notes["message"], strict=True)]

    out = []
    qids = sorted_distinct(q_sorted)
    starts = np.searchsorted(q_sorted, qids, side="left")
    stops = np.searchsorted(q_sorted, qids, side="right")
    g_lo, g_hi = np.searchsorted(gq, qids, side="left"), np.searchsorted(gq, qids, side="right")
    for q, a, b, ga, gb in zip(qids.tolist(), starts, stops, g_lo, g_hi, strict=True):
        rows = order[a:b]
        note_list = [t for t, nq in zip(n_text, n_qid, strict=True) if nq in (q, -1)]
        out.append(
            _pool(
                q,
                rows,
                flat,
                ragged,
                window,
                with_lows,
                g_label[ga:gb],
                g_correct[ga:gb],
                g_truth[ga] if gb > ga else "",
                note_list,
            )  # fmt: skip
        )
    return out


def _pool(
    qid: int,
    rows: np.ndarray,
    flat: dict[str, np.ndarray],
    ragged: dict[str, tuple[np.ndarray, np.ndarray]],
    window: int,
    with_lows: bool,
    labels: list,
    correct: np.ndarray,
    truth: Any,
    notes: list[str],
) -> QuestionPool:
    """One question's pool, the arithmetic of `pool_from_features` on its sorted rows."""
    n = rows.shape[0]
    lengths = flat["length"][rows].astype(np.int64)
    final_group = flat["final_group"][rows].astype(np.int32)
    _p_off, p_pos = _gather(*ragged["probe_pos"], rows, np.int64)
    grid = probe_grid(p_pos)
    ckpt = (
        (
            *_gather(*ragged["ckpt_pos"], rows, np.int64),
            _gather(*ragged["ckpt_conf"], rows, np.float32)[1],
            _gather(*ragged["ckpt_group"], rows, np.int32)[1],
        )
        if n and grid.shape[0]
        else (np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    )
    end_conf = flat["end_conf"][rows].astype(np.float32)
    ckpt_group, ckpt_conf = checkpoint_answers(grid, lengths, final_group, end_conf, ckpt)
    if n and with_lows:
        # the windows stay int32 (the table's type): widening millions of them costs time
        l_off, l_win = _gather(*ragged["low_window"], rows, np.int32)
        _, l_val = _gather(*ragged["low_value"], rows, np.float32)
    else:
        l_off = np.zeros(n + 1, np.int64)
        l_win, l_val = np.zeros(0, np.int64), np.zeros(0, np.float32)
    return QuestionPool(
        qid=int(qid),
        ground_truth=str(truth),
        window=int(window),
        trace_idx=flat["trace_idx"][rows].astype(np.int64),
        lengths=lengths,
        final_group=final_group,
        group_labels=[str(x) for x in labels],
        group_correct=np.asarray(correct, dtype=bool),
        grid=grid,
        ckpt_group=ckpt_group,
        ckpt_conf=ckpt_conf,
        mean_conf=flat["mean_conf"][rows].astype(np.float32),
        tail_conf=flat["tail_conf"][rows].astype(np.float32),
        min_group=flat["min_group"][rows].astype(np.float32),
        bottom_10=flat["bottom_10"][rows].astype(np.float32),
        low_offsets=l_off.astype(np.int64, copy=False),
        low_window=l_win,
        low_value=l_val.astype(np.float32, copy=False),
        notes=notes,
    )
