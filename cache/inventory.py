"""What a source holds for a dataset, for the home page and `python -m cache info`: files, rows,
columns and types, sizes, and the derived tables cached on disk. Reads footers only.

A file is "ok" only when the view that reads it would accept its columns
(`cache.datasets.check_view_columns`); otherwise it is an "error" saying what is missing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cache.datasets import DATASETS, check_view_columns
from cache.errors import DataError
from cache.paths import derived_dir
from cache.scan import parquet_info
from cache.sources import SourceConfig, available_files, dataset_root


def human_size(n: float | None) -> str:
    """A size for a person (1.2 MB); "" when unknown. The one byte formatter (CLI and home)."""
    if n is None:
        return ""
    x = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if x < 1024:
            return f"{x:.0f} {unit}" if unit == "B" else f"{x:.1f} {unit}"
        x /= 1024
    return f"{x:.1f} TB"


@dataclass
class FileEntry:
    relpath: str
    status: str  # "ok", "missing", "not downloaded", "error"
    rows: int | None = None
    size_bytes: int | None = None
    columns: dict[str, str] = field(default_factory=dict)
    problem: str = ""


@dataclass
class Inventory:
    dataset: str
    source: SourceConfig
    root: Path | None
    files: list[FileEntry]
    extra_files: dict[str, int]  # glob -> how many files match (e.g. trace shards)
    derived: list[tuple[str, int]]  # (file name, bytes)


def inventory(dataset: str, source: SourceConfig) -> Inventory:
    """Describe every known file of a dataset under a source, without downloading anything."""
    info = DATASETS[dataset]
    root = dataset_root(dataset, source)
    entries: list[FileEntry] = []
    for rel in info.files:
        path = root / rel if root is not None else None
        if path is None or not path.exists():
            status = "not downloaded" if source.kind == "hub" else "missing"
            entries.append(FileEntry(rel, status))
            continue
        size = path.stat().st_size
        if rel.endswith(".parquet"):
            try:
                meta = parquet_info(path)
            except DataError as exc:
                entries.append(FileEntry(rel, "error", None, size, problem=exc.message))
                continue
            try:
                check_view_columns(dataset, rel, meta.columns)
                entries.append(FileEntry(rel, "ok", meta.rows, size, meta.columns))
            except DataError as exc:
                entries.append(
                    FileEntry(rel, "error", meta.rows, size, meta.columns, problem=exc.message)
                )
        else:
            entries.append(FileEntry(rel, "ok", None, size))
    extra = {g: len(available_files(dataset, source, g)) for g in info.file_globs} if root else {}
    derived = [
        (p.name, p.stat().st_size) for p in sorted(derived_dir().glob(f"{dataset}-*.parquet"))
    ]
    return Inventory(dataset, source, root, entries, extra, derived)
