"""Lazy, checked access to parquet files: metadata first (cheap, catches corrupt files), then
`pl.scan_parquet` so projections and predicates are pushed down to the reader."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.parquet as pq

from cache.errors import CorruptFile, SourceNotFound

if TYPE_CHECKING:  # why: `parquet_info` serves the cold MARS build, which never loads polars
    import polars as pl


@dataclass(frozen=True)
class ParquetInfo:
    path: Path
    rows: int
    row_groups: int
    size_bytes: int
    columns: dict[str, str]  # name -> arrow type as text


def _label(path: Path) -> str:
    parts = Path(path).parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else str(path)


def parquet_info(path: Path) -> ParquetInfo:
    """Row count, row groups and column types from the footer; raises a DataError if unreadable."""
    path = Path(path)
    if not path.exists():
        raise SourceNotFound(
            f"{_label(path)} does not exist", "check the source settings in the sidebar"
        )
    stat = path.stat()
    if stat.st_size == 0:
        raise CorruptFile(
            f"{_label(path)} is empty (0 bytes)", "re-download or regenerate the file"
        )
    info = _footer(path, stat.st_mtime_ns, stat.st_size)
    return ParquetInfo(info.path, info.rows, info.row_groups, info.size_bytes, dict(info.columns))


@lru_cache(maxsize=1024)
def _footer(path: Path, mtime_ns: int, size: int) -> ParquetInfo:
    """The footer of one version of a file (its stamp is in the key): read once, since every
    view and the home page ask for it on every run. A read that fails is not kept."""
    try:
        meta = pq.read_metadata(path)
        schema = pq.read_schema(path)
    except Exception as exc:  # ArrowInvalid, OSError, ...: all mean "not a readable parquet"
        raise CorruptFile(
            f"{_label(path)} is not a readable parquet file ({type(exc).__name__}: {str(exc)[:120]})",
            f"{path.name} may be truncated or corrupt: replace it with a fresh copy (python -m cache fetch), "
            "pick another source in the sidebar, or regenerate the sample",
        ) from None
    cols = {f.name: str(f.type) for f in schema}
    return ParquetInfo(path, meta.num_rows, meta.num_row_groups, size, cols)


def collect(lf: pl.LazyFrame, path: Path) -> pl.DataFrame:
    """Collect a scan, turning reader failures into a `CorruptFile` naming the file."""
    import polars as pl  # why here: see the TYPE_CHECKING import above

    try:
        return lf.collect()
    except (pl.exceptions.ComputeError, OSError) as exc:
        raise CorruptFile(
            f"reading {_label(Path(path))} failed ({str(exc)[:160]})",
            f"{Path(path).name} may be truncated or corrupt: replace it with a fresh copy, or pick "
            "another source in the sidebar",
        ) from None
