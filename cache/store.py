"""The derived-table store: parquet files in the cache directory, keyed by the identity of their
source files and the version of their derivation, written atomically.

A changed source (size or mtime) or a bumped `version` gives a new key, so stale tables are simply
never read again (`python -m cache clear` removes them). Writes go to a temp file with a unique
name in the same folder and are renamed into place, so a crash, a killed process or a concurrent
session never leaves a half file under a table's name.

Builds are shared: sessions and replicas that use one cache folder take a file lock per table
(`derived/locks/`), so the same table is built once. The others wait, see the builder's progress
(it is mirrored in a small file beside the lock) and then read the finished table. The lock is
the operating system's (flock): a builder that dies releases it, and the next one builds again.
A read-only or full cache folder raises `CacheUnwritable`; finished tables stay readable.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import pyarrow as pa
import pyarrow.parquet as pq
from filelock import FileLock, Timeout

from cache.errors import BuildFailed, CacheUnwritable
from cache.paths import cache_root, derived_dir
from cache.progress import ProgressFn, no_progress
from cache.table_keys import table_path

if TYPE_CHECKING:  # why: polars loads only where a DataFrame is read (start-up of build workers)
    import polars as pl

Table: TypeAlias = "pl.DataFrame | pa.Table"


def work_dir(name: str, version: int, sources: Sequence[Path], params: dict | None = None) -> Path:
    """A folder for resumable partial results of one derivation (chunk files)."""
    path = derived_dir() / "partial" / table_path(name, version, sources, params).stem
    path.mkdir(parents=True, exist_ok=True)
    return path


def atomic_write(dest: Path, fill: Callable[[str], object], *, fsync: bool = False) -> Path:
    """Let `fill` write a temp file beside `dest` (unique to this writer; optionally fsynced),
    then rename it over `dest`: a reader sees the old file or the new one, never a part. The
    one home of the store's atomic writes; a writer that streams into the file (parquet, Arrow
    IPC) never holds its bytes in memory."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        fill(tmp)
        if fsync:
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest


def atomic_write_bytes(data: bytes, dest: Path) -> Path:
    """`data` to `dest`, atomically (`atomic_write`)."""
    return atomic_write(dest, lambda tmp: Path(tmp).write_bytes(data))


def _leaves(t: pa.DataType, path: str) -> Iterator[tuple[str, pa.DataType]]:
    """(path as parquet names it, type) of each leaf column of a field of type `t`."""
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        yield from _leaves(t.value_type, f"{path}.list.element")
    elif pa.types.is_struct(t):
        for i in range(t.num_fields):
            yield from _leaves(t.field(i).type, f"{path}.{t.field(i).name}")
    else:
        yield path, t


def _is_text(t: pa.DataType) -> bool:
    return (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_string_view(t)
        or pa.types.is_binary_view(t)
    )


def dictionary_columns(schema: pa.Schema) -> list[str]:
    """The leaf columns worth dictionary-encoding: text (labels and answers repeat). Why not
    every column, pyarrow's default: on floats and ids it is work thrown away (the dictionary
    overflows and pyarrow falls back to plain), which made writing the MARS feature table 1.6x
    slower and its file larger."""
    return [leaf for f in schema for leaf, t in _leaves(f.type, f.name) if _is_text(t)]


def numeric_encodings(schema: pa.Schema) -> dict[str, str]:
    """Encodings of the numeric leaf columns: 32/64-bit integers delta-packed (positions,
    windows and ids mostly rise: the MARS record lows' windows shrink 4x), floats split by
    byte (zstd then finds the repeated exponent bytes). Why: on the MARS feature table, plain
    encoding was slower to write and over twice the CPU to read back (the cold build does both),
    and the file was nearly twice as big."""
    out: dict[str, str] = {}
    for f in schema:
        for leaf, t in _leaves(f.type, f.name):
            if pa.types.is_int32(t) or pa.types.is_int64(t):
                out[leaf] = "DELTA_BINARY_PACKED"
            elif pa.types.is_float32(t) or pa.types.is_float64(t):
                out[leaf] = "BYTE_STREAM_SPLIT"
    return out


def _parquet_options(schema: pa.Schema) -> dict[str, Any]:
    """How the store writes parquet: zstd, dictionaries for the text columns
    (`dictionary_columns`), `numeric_encodings` for the numbers."""
    return {
        "compression": "zstd",
        "use_dictionary": dictionary_columns(schema),
        "column_encoding": numeric_encodings(schema),
    }


def _write_parquet(table: Table, path: str) -> None:
    arrow = table if isinstance(table, pa.Table) else table.to_arrow()
    pq.write_table(arrow, path, **_parquet_options(arrow.schema))


def parquet_writer(path: str, schema: pa.Schema) -> pq.ParquetWriter:
    """A parquet writer with the store's options, for a table written in pieces (each
    `write_table` a row group) into the temp path `derived_file` hands its builder."""
    return pq.ParquetWriter(path, schema, **_parquet_options(schema))


def atomic_write_parquet(table: Table, dest: Path) -> Path:
    """`table` as parquet (`_parquet_options`) to `dest`, fsynced, atomically (`atomic_write`)."""
    return atomic_write(dest, lambda tmp: _write_parquet(table, tmp), fsync=True)


WAIT_ENV = "RTE_BUILD_WAIT"  # seconds a session waits for another's build before giving up
_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR)
_STALE_TEMP_S = 3600.0  # temp files this old are leftovers of a killed writer


def _unwritable(exc: OSError, what: str) -> CacheUnwritable:
    why = "is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "is not writable"
    return CacheUnwritable(
        f"{what} cannot be stored: the cache folder {cache_root()} {why}",
        "free some space or point RTE_CACHE_DIR at a writable folder; views whose tables are "
        "already built keep working",
    )


def _lock_paths(dest: Path) -> tuple[Path, Path]:
    return lock_file(dest), lock_file(dest).with_suffix(".progress")


def lock_file(dest: Path) -> Path:
    """Where the lock of a file in the store lives: `locks/` beside it, so that the folder of
    tables lists tables only (the caller creates the folder)."""
    return dest.parent / "locks" / f"{dest.stem}.lock"


def _mirrored(progress: ProgressFn | None, sidecar: Path) -> ProgressFn:
    """The builder's hook, also written (twice a second at most) where waiters can read it."""
    hook = progress or no_progress
    last = [0.0]

    def inner(fraction: float, message: str = "") -> None:
        hook(fraction, message)
        now = time.monotonic()
        if now - last[0] >= 0.5:
            last[0] = now
            with contextlib.suppress(OSError):  # a courtesy; the build goes on without it
                sidecar.write_text(json.dumps([float(fraction), str(message)[:200]]))

    return inner


def _read_mirror(sidecar: Path) -> tuple[float, str] | None:
    try:
        fraction, message = json.loads(sidecar.read_text())
        return float(fraction), str(message)
    except (OSError, ValueError, TypeError):
        return None


@contextmanager
def _build_lock(dest: Path, progress: ProgressFn | None) -> Iterator[bool]:
    """Hold the table's build lock. Yields False when the table appeared while waiting (another
    process built it: nothing to do), True when this process must build it."""
    lock_path, sidecar = _lock_paths(dest)
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lock_path))
        acquired = _acquire(lock, dest, sidecar, progress)
    except OSError as exc:
        if exc.errno in _UNWRITABLE:
            raise _unwritable(exc, f"the table {dest.name.split('-v')[0]}") from None
        raise
    if not acquired:
        yield False
        return
    try:
        yield not dest.exists()
    finally:
        sidecar.unlink(missing_ok=True)
        lock.release()


def _acquire(lock: FileLock, dest: Path, sidecar: Path, progress: ProgressFn | None) -> bool:
    try:
        lock.acquire(timeout=0)
        return True
    except Timeout:
        pass
    hook = progress or no_progress
    name = dest.name.split("-v")[0]
    limit = float(os.environ.get(WAIT_ENV) or 1800)
    start = time.monotonic()
    hook(0.0, f"another session is building {name}; waiting for it")
    while True:
        try:
            lock.acquire(timeout=0.5)
            return True
        except Timeout:
            pass
        if dest.exists():  # finished; its builder is tidying up
            return False
        waited = time.monotonic() - start
        seen = _read_mirror(sidecar)
        fraction, message = seen if seen else (0.0, "")
        hook(fraction, f"another session is building {name} ({waited:.0f} s) {message}".strip())
        if waited > limit:
            raise BuildFailed(
                f"another process has been building {name} for {waited / 60:.0f} min",
                f"it may be stuck: restart the server, or raise {WAIT_ENV} (seconds)",
            )


def _sweep_temps(dest: Path) -> None:
    """Remove old temp files of this table (a writer killed mid-write leaves one)."""
    now = time.time()
    for tmp in dest.parent.glob(f".{dest.name}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > _STALE_TEMP_S:
                tmp.unlink()
        except OSError:
            pass


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

    `build(progress)` returns the table; it may raise `cache.errors.DataError`. Concurrent
    callers (threads, sessions, replicas) build it once; the others wait and read it.
    """
    return derived_file(
        name,
        version,
        sources,
        lambda prog, tmp: _write_parquet(build(prog), tmp),
        params=params,
        progress=progress,
    )


def derived_file(
    name: str,
    version: int,
    sources: Sequence[Path],
    write: Callable[[ProgressFn | None, str], object],
    *,
    params: dict | None = None,
    progress: ProgressFn | None = None,
) -> Path:
    """`derived_table` for a builder that writes the parquet itself: `write(progress, tmp)`
    writes it to the temp path `tmp` (`parquet_writer`: a table written question by question
    while the build goes on, not all at its end), which becomes the table once `write`
    returns (fsynced, renamed over its path)."""
    dest = table_path(name, version, sources, params)
    if dest.exists():
        return dest
    with _build_lock(dest, progress) as must_build:
        if not must_build:
            return dest
        _sweep_temps(dest)
        prog = _mirrored(progress, _lock_paths(dest)[1])
        try:
            atomic_write(dest, lambda tmp: write(prog, tmp), fsync=True)
        except OSError as exc:
            if exc.errno in _UNWRITABLE:
                raise _unwritable(exc, f"the table {name}") from None
            raise
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
    import polars as pl  # why here: see the TYPE_CHECKING import above

    return pl.read_parquet(
        derived_table(name, version, sources, build, params=params, progress=progress)
    )
