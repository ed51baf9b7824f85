"""The derived-table store: parquet files in the cache directory, keyed by the identity of their
source files and the version of their derivation, written atomically.

A changed source (size or mtime) or a bumped `version` gives a new key, so stale tables are simply
never read again (`python -m cache clear` removes them). Writes go to a temp file in the same
folder and are renamed into place, so a crash or a concurrent session never leaves a half file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeAlias

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from cache.paths import derived_dir
from cache.progress import ProgressFn

Table: TypeAlias = pl.DataFrame | pa.Table


def source_identity(path: Path) -> dict[str, object]:
    """What makes a source file 'the same': resolved path, size and mtime (ns)."""
    p = Path(path).resolve()
    st = p.stat()
    return {"path": str(p), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def table_key(name: str, version: int, sources: Sequence[Path], params: dict | None = None) -> str:
    """A stable hex key for one derivation of one set of sources."""
    payload = {
        "name": name,
        "version": version,
        "params": params or {},
        "sources": [source_identity(s) for s in sources],
    }
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def table_path(
    name: str, version: int, sources: Sequence[Path], params: dict | None = None
) -> Path:
    return derived_dir() / f"{name}-v{version}-{table_key(name, version, sources, params)}.parquet"


def work_dir(name: str, version: int, sources: Sequence[Path], params: dict | None = None) -> Path:
    """A folder for resumable partial results of one derivation (chunk files)."""
    path = derived_dir() / "partial" / table_path(name, version, sources, params).stem
    path.mkdir(parents=True, exist_ok=True)
    return path


def atomic_write_parquet(table: Table, dest: Path) -> Path:
    """Write to a temp file beside `dest`, fsync, then rename over it."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        arrow = table.to_arrow() if isinstance(table, pl.DataFrame) else table
        pq.write_table(arrow, tmp, compression="zstd")
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest


def derived_table(
    name: str,
    version: int,
    sources: Sequence[Path],
    build: Callable[[ProgressFn | None], Table],
    *,
    params: dict | None = None,
    progress: ProgressFn | None = None,
) -> Path:
    """Path of the derived parquet for (name, version, sources, params), building it if absent.

    `build(progress)` returns the table; it may raise `cache.errors.DataError`.
    """
    dest = table_path(name, version, sources, params)
    if dest.exists():
        return dest
    table = build(progress)
    atomic_write_parquet(table, dest)
    partial = derived_dir() / "partial" / dest.stem
    if partial.exists():
        for f in partial.iterdir():
            f.unlink(missing_ok=True)
        partial.rmdir()
    return dest


def read_derived(
    name: str,
    version: int,
    sources: Sequence[Path],
    build: Callable[[ProgressFn | None], Table],
    *,
    params: dict | None = None,
    progress: ProgressFn | None = None,
) -> pl.DataFrame:
    """`derived_table` then read it eagerly (derived tables are small by design)."""
    return pl.read_parquet(
        derived_table(name, version, sources, build, params=params, progress=progress)
    )
