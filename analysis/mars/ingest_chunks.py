"""The work folder of a resumable MARS ingest (`analysis.mars.ingest`): each finished question's
three tables as `work_dir/q<qid>.{features,groups,notes}.arrow`, read back by a rerun, which
skips the questions done."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from analysis.mars.features import FEATURE_SCHEMA, GROUP_SCHEMA, NOTE_SCHEMA
from cache.store import atomic_write

ChunkTables = tuple[pa.Table, pa.Table, pa.Table]  # a question's features, groups and notes


def chunk_paths(work_dir: Path, q: int) -> tuple[Path, Path, Path]:
    return (
        work_dir / f"q{q:06d}.features.arrow",
        work_dir / f"q{q:06d}.groups.arrow",
        work_dir / f"q{q:06d}.notes.arrow",
    )


def _write_atomic(table: pa.Table, dest: Path) -> None:
    """An Arrow IPC file, streamed into a temp file unique to this writer, then renamed over
    `dest`: concurrent writers of the same chunk each rename a complete file, so one wins and
    (same input, same code) its bytes are the same as the other's. Why IPC, not parquet: a chunk
    is scratch, read once by this build or its rerun, and a parquet chunk cost far more to
    encode than an IPC one. Why streamed: an in-memory copy first cost a fresh buffer (page
    faults) and a bytes copy per question."""

    def fill(tmp: str) -> None:
        with pa.OSFile(tmp, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)

    atomic_write(dest, fill)


def read_chunk(path: Path) -> pa.Table:
    with pa.OSFile(str(path)) as fh:
        return pa.ipc.open_file(fh).read_all()


def write_chunk(work_dir: Path, q: int, f: pa.Table, g: pa.Table, n: pa.Table) -> None:
    fp, gp, np_ = chunk_paths(work_dir, q)
    for table, dest in ((g, gp), (n, np_), (f, fp)):  # features last: it marks "done"
        _write_atomic(table, dest)


def chunk_done(work_dir: Path | None, q: int) -> bool:
    return work_dir is not None and all(p.exists() for p in chunk_paths(work_dir, q))


def read_done(work_dir: Path, q: int) -> ChunkTables:
    """The tables of a question an earlier run finished (its chunk in `work_dir`), in this
    build's schemas."""
    tables = (read_chunk(p) for p in chunk_paths(work_dir, q))
    schemas = (FEATURE_SCHEMA, GROUP_SCHEMA, NOTE_SCHEMA)
    f, g, n = (t if t.schema.equals(s) else t.cast(s) for t, s in zip(tables, schemas, strict=True))
    return f, g, n
