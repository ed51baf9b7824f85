"""Question pools straight from a MARS file's cached feature tables, with pyarrow and numpy only.

Why: `analysis.mars.store.load_features` reads the tables through polars and imports the
feature builder and the store's locking: about 0.6 s of imports before a row is read, most of a
warm `python -m analysis simulate`. When the three tables of a file already exist, `cached_pools`
reads only the columns a pool is built from and builds the same `QuestionPool`s as
`analysis.mars.summaries.pool_from_features` (tests/analysis/stopping/test_pools.py compares
every array; the record-low windows keep the table's int32). It returns None whenever it cannot
promise that: a table not built yet, or values it does not handle the way polars does (nulls,
repeated trace or group ids); the caller then goes through `load_features`, which also builds
what is missing. Arrays are numpy views of arrow's buffers where they can be (`to_numpy` would
import pandas), and the record lows, which only DeepConf methods read, come from a flat copy
(`flat_lows`) instead of the table's list columns.

Two facts are read from their owners without importing them (the imports are the cost):
`FEATURES_VERSION` from the source of `analysis.mars.features`, and the derived tables' file
names as `cache.store.table_path` forms them; test_pools.py pins both to their owners.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from analysis.mars.pool import QuestionPool

# the names and version of the derived tables (analysis.mars.store, analysis.mars.features)
FEATURES, GROUPS, NOTES = "mars-features", "mars-groups", "mars-notes"
PROBE_STEP = 2048  # analysis.mars.features.PROBE_STEP: probes every 2048 tokens (the data's)
# what `pool_from_features` reads of each table (the record lows only for DeepConf truncation)
POOL_COLUMNS = (
    "qid",
    "trace_idx",
    "length",
    "final_group",
    "mean_conf",
    "tail_conf",
    "min_group",
    "bottom_10",
    "end_conf",
    "ckpt_pos",
    "ckpt_conf",
    "ckpt_group",
    "probe_pos",
)
LOW_COLUMNS = ("low_window", "low_value")
GROUP_COLUMNS = ("qid", "group_id", "label", "is_correct", "ground_truth")
NOTE_COLUMNS = ("qid", "kind", "message")
_LIST_COLUMNS = frozenset(("ckpt_pos", "ckpt_conf", "ckpt_group", "probe_pos", *LOW_COLUMNS))
_VERSION_LINE = re.compile(r"^FEATURES_VERSION\s*=\s*(\d+)\b", re.MULTILINE)


def features_version() -> int:
    """`analysis.mars.features.FEATURES_VERSION`, read from its source unless the module is
    loaded already (importing it costs ~0.5 s: pyarrow.compute, polars, the answer grouper)."""
    mod: Any = sys.modules.get("analysis.mars.features")
    if mod is None:
        spec = importlib.util.find_spec("analysis.mars.features")
        origin = spec.origin if spec is not None else None
        found = _VERSION_LINE.search(Path(origin).read_text()) if origin else None
        if found is not None:
            return int(found.group(1))
        import analysis.mars.features as mod  # a form the line above does not read
    return int(mod.FEATURES_VERSION)


def _table_path(name: str, version: int, source: Path, params: dict) -> Path:
    """`cache.store.table_path(name, version, [source], params)` (that module imports polars)."""
    from cache.paths import derived_dir

    p = Path(source).resolve()
    st = p.stat()
    payload = {
        "name": name,
        "version": version,
        "params": params,
        "sources": [{"path": str(p), "size": st.st_size, "mtime_ns": st.st_mtime_ns}],
    }
    key = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
    return derived_dir() / f"{name}-v{version}-{key[:20]}.parquet"


def cached_table_paths(path: Path, window: int) -> tuple[Path, Path, Path] | None:
    """(features, groups, notes) tables of a MARS file if all three are built, else None."""
    version = features_version()
    paths = tuple(
        _table_path(n, version, path, {"window": window}) for n in (FEATURES, GROUPS, NOTES)
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
    # why here: only a warm run reads; ParquetFile.read, unlike read_table, does not import
    # pyarrow.dataset (which pulls in pandas)
    import pyarrow.parquet as pq

    try:
        feats = pq.ParquetFile(paths[0]).read(columns=list(POOL_COLUMNS))
        groups = pq.ParquetFile(paths[1]).read(columns=list(GROUP_COLUMNS))
        notes = pq.ParquetFile(paths[2]).read(columns=list(NOTE_COLUMNS))
        lows = flat_lows(paths[0], feats.num_rows) if with_lows else None
        return _pools(feats, groups, notes, window, lows)
    except (_Unsure, OSError, KeyError, ValueError, TypeError):
        return None  # the slow path reads it, or names what is wrong with it


# ------------------------------------------------------------------ the record lows, flat

# raw little-endian arrays (np.fromfile: np.load would import numpy.ma, ~0.1 s); offsets last,
# so a copy whose offsets exist is complete
_LOW_FILES = (("window.i32", np.int32), ("value.f32", np.float32), ("offsets.i64", np.int64))


def _lows_dir(features: Path) -> Path:
    """The flat copy of one feature table's lows, named after the table and its stat (a table
    rebuilt under the same name gets a new copy)."""
    st = features.stat()
    return features.parent / "stopping-lows" / f"{features.stem}-{st.st_size}-{st.st_mtime_ns}"


def flat_lows(features: Path, n_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets [n_rows+1], window int32, value float32) of the record lows of every row of a
    feature table. Why a copy: the lows are most of the table (millions of values in list
    columns), and decoding them from parquet took ~0.4 s of a warm DeepConf run; three .npy
    raw files load in milliseconds. Written on first use (next to the tables, removed with them by
    `python -m cache clear`); a copy that does not match the table's rows is rebuilt."""
    folder = _lows_dir(features)
    try:
        win, val, off = (
            np.fromfile(folder / f, dtype=np.dtype(t).newbyteorder("<")) for f, t in _LOW_FILES
        )
        if off.shape == (n_rows + 1,) and off[0] == 0 and off[-1] == win.shape[0] == val.shape[0]:
            return off, win, val
    except (OSError, ValueError):
        pass  # absent or unreadable: built below
    import pyarrow.parquet as pq  # why here: see `cached_pools`

    table = pq.ParquetFile(features).read(columns=list(LOW_COLUMNS))
    if table.num_rows != n_rows:
        raise _Unsure
    off, win = _ragged(table.column("low_window"))
    off_v, val = _ragged(table.column("low_value"))
    if not np.array_equal(off, off_v) or win.dtype != np.int32 or val.dtype != np.float32:
        raise _Unsure
    _write_lows(folder, (win, val, off))
    return off, win, val


def _write_lows(folder: Path, arrays: tuple[np.ndarray, ...]) -> None:
    """Each file through a temp file and a rename; an unwritable cache leaves no copy (the next
    run reads the table again: slower, the same pools)."""
    import os  # why here: only the one-off write of the copy renames files
    import tempfile  # why here: see above

    try:
        folder.mkdir(parents=True, exist_ok=True)
        for (name, dtype), arr in zip(_LOW_FILES, arrays, strict=True):
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            with os.fdopen(fd, "wb") as fh:
                fh.write(
                    np.ascontiguousarray(arr, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()
                )
            os.replace(tmp, folder / name)
    except OSError:
        return


def _pools(
    feats: Any,
    groups: Any,
    notes: Any,
    window: int,
    lows: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> list[QuestionPool]:
    col = {c: feats.column(c) for c in feats.column_names}
    flat = {c: _numpy(col[c]) for c in col if c not in _LIST_COLUMNS}
    ragged = {c: _ragged(col[c]) for c in col if c in _LIST_COLUMNS}
    with_lows = lows is not None
    if lows is not None:
        ragged["low_window"] = (lows[0], lows[1])
        ragged["low_value"] = (lows[0], lows[2])
    qid, tidx = flat["qid"], flat["trace_idx"]
    order = np.lexsort((tidx, qid))
    q_sorted, t_sorted = qid[order], tidx[order]
    if ((q_sorted[1:] == q_sorted[:-1]) & (t_sorted[1:] == t_sorted[:-1])).any():
        raise _Unsure  # repeated trace ids: polars' sort would not promise an order
    g_qid, g_id = _numpy(groups.column("qid")), _numpy(groups.column("group_id"))
    g_order = np.lexsort((g_id, g_qid))
    gq, gi = g_qid[g_order], g_id[g_order]
    if ((gq[1:] == gq[:-1]) & (gi[1:] == gi[:-1])).any():
        raise _Unsure
    is_correct = _one(groups.column("is_correct"))
    if is_correct.null_count:
        raise _Unsure
    g_correct = np.array(is_correct.to_pylist(), dtype=bool)[g_order]
    labels, truths = groups.column("label").to_pylist(), groups.column("ground_truth").to_pylist()
    g_label = [labels[i] for i in g_order]
    g_truth = [truths[i] for i in g_order]
    n_qid = _numpy(notes.column("qid"))
    n_text = [
        f"{k}: {m}"
        for k, m in zip(
            notes.column("kind").to_pylist(), notes.column("message").to_pylist(), strict=True
        )
    ]

    out = []
    qids = np.unique(qid)
    starts = np.searchsorted(q_sorted, qids, side="left")
    stops = np.searchsorted(q_sorted, qids, side="right")
    g_lo, g_hi = np.searchsorted(gq, qids, side="left"), np.searchsorted(gq, qids, side="right")
    for q, a, b, ga, gb in zip(qids.tolist(), starts, stops, g_lo, g_hi, strict=True):
        rows = order[a:b]
        note_list = [t for t, nq in zip(n_text, n_qid.tolist(), strict=True) if nq in (q, -1)]
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
    grid = np.unique(p_pos[(p_pos > 0) & (p_pos % PROBE_STEP == 0)]).astype(np.int64)
    k = grid.shape[0]
    ckpt_group = np.full((n, k), -1, dtype=np.int32)
    ckpt_conf = np.full((n, k), np.nan, dtype=np.float32)
    if n and k:
        c_off, c_pos = _gather(*ragged["ckpt_pos"], rows, np.int64)
        _, c_conf = _gather(*ragged["ckpt_conf"], rows, np.float32)
        _, c_grp = _gather(*ragged["ckpt_group"], rows, np.int32)
        owner = np.repeat(np.arange(n), np.diff(c_off))
        col = np.searchsorted(grid, c_pos)
        ok = (col < k) & (grid[np.minimum(col, k - 1)] == c_pos)
        ckpt_group[owner[ok], col[ok]] = c_grp[ok]
        ckpt_conf[owner[ok], col[ok]] = c_conf[ok]
        after = grid[None, :] >= lengths[:, None]
        end_conf = flat["end_conf"][rows].astype(np.float32)
        ckpt_group = np.where(after, final_group[:, None], ckpt_group).astype(np.int32)
        ckpt_conf = np.where(after, end_conf[:, None], ckpt_conf).astype(np.float32)
    if n and with_lows:
        # the windows stay int32 (the table's type): widening millions of them cost ~0.1 s
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
