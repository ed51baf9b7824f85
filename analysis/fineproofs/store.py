"""FineProofs derived tables, built once through the store (`cache/store.py`) and versioned.

Why: the overview sorts and filters ~10k traces by per-trace facts (endpoint grade, largest drop,
first-error depth) that need the whole 86k-row prefix table annotated; doing that once per source
file and derivation version keeps every page load to a parquet read.

Tables (names start with the dataset name so the home page lists them):
- `fineproofs-prefixes`: the canonical, annotated prefix table (`analysis.fineproofs.values`), with
  the data notes found while normalising kept in the parquet schema metadata;
- `fineproofs-traces`: one row per trace (`trace_summary`);
- `fineproofs-depth`: value distribution per source x relative-depth bin.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.fineproofs.values import (
    SeriesParams,
    annotate,
    depth_distribution,
    normalise,
    trace_summary,
)
from cache.derived_tables import FINEPROOFS_DEPTH, FINEPROOFS_PREFIXES, FINEPROOFS_TRACES
from cache.errors import CorruptFile
from cache.fineproofs_io import PREFIX_FILE
from cache.progress import ProgressFn, no_progress, scaled
from cache.scan import parquet_info
from cache.sources import SourceConfig, resolve_file
from cache.store import derived_table, read_derived, table_path

# names and version declared in cache.derived_tables (bump it when a derivation in
# analysis.fineproofs.values changes); the three tables share it
VERSION = FINEPROOFS_PREFIXES.version
PREFIXES = FINEPROOFS_PREFIXES.name
TRACES = FINEPROOFS_TRACES.name
DEPTH = FINEPROOFS_DEPTH.name
_NOTES_KEY = b"fineproofs_notes"


def _redo_hint(path: Path) -> str:
    """What to do about an unreadable prefix table, naming the file."""
    name = Path(path).name
    return (
        f"{name} (the FineProofs prefix table) looks truncated or corrupt: copy it again from "
        f"the export into data/, or re-download it with `python -m cache fetch`; the Collection "
        "tab's side files do not need it"
    )


def read_prefix_table(path: Path) -> pl.DataFrame:
    """Read the raw prefix parquet (checked: a corrupt file raises CorruptFile naming it)."""
    try:
        parquet_info(path)
    except CorruptFile as exc:
        raise CorruptFile(exc.message, _redo_hint(path)) from None
    try:
        return pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise CorruptFile(
            f"reading {Path(path).name} failed ({str(exc)[:160]})", _redo_hint(path)
        ) from None


def _params_dict(params: SeriesParams | None) -> dict:
    return asdict(params if params is not None else SeriesParams())


def build_prefixes(prefix_path: Path, params: SeriesParams | None = None) -> pa.Table:
    """Normalise + annotate the whole prefix table (returns an arrow table with notes metadata)."""
    norm = normalise(read_prefix_table(prefix_path), where=Path(prefix_path).name)
    annotated = annotate(norm.frame, params or SeriesParams())
    table = annotated.to_arrow()
    meta = dict(table.schema.metadata or {})
    meta[_NOTES_KEY] = json.dumps(
        {"notes": norm.notes, "extra_columns": list(norm.extra_columns)}
    ).encode()
    return table.replace_schema_metadata(meta)


def prefixes_path(
    prefix_path: Path, params: SeriesParams | None = None, progress: ProgressFn | None = None
) -> Path:
    """Path of the annotated prefix table (built if absent)."""
    return derived_table(
        PREFIXES,
        VERSION,
        [Path(prefix_path)],
        lambda _p: build_prefixes(prefix_path, params),
        params=_params_dict(params),
        progress=progress,
    )


def prefixes_table(
    prefix_path: Path, params: SeriesParams | None = None, progress: ProgressFn | None = None
) -> tuple[pl.DataFrame, list[str], list[str]]:
    """(annotated prefix table, data notes, unknown extra column names)."""
    path = prefixes_path(prefix_path, params, progress)
    meta = pq.read_schema(path).metadata or {}
    info = json.loads(meta.get(_NOTES_KEY, b"{}") or b"{}")
    return pl.read_parquet(path), list(info.get("notes", [])), list(info.get("extra_columns", []))


def traces_table(
    prefix_path: Path, params: SeriesParams | None = None, progress: ProgressFn | None = None
) -> pl.DataFrame:
    """One row per trace (endpoint, largest drop and its depth, first-error depth, shape...)."""

    def build(p: ProgressFn | None) -> pl.DataFrame:
        hook = p or no_progress
        annotated, _notes, _extra = prefixes_table(prefix_path, params, scaled(p, 0.0, 0.7))
        hook(0.8, "per-trace summary")
        return trace_summary(annotated, params or SeriesParams())

    return read_derived(
        TRACES, VERSION, [Path(prefix_path)], build, params=_params_dict(params), progress=progress
    )


def depth_table(
    prefix_path: Path,
    n_bins: int = 10,
    params: SeriesParams | None = None,
    progress: ProgressFn | None = None,
) -> pl.DataFrame:
    """Value distribution per source x relative-depth bin."""

    def build(p: ProgressFn | None) -> pl.DataFrame:
        annotated, _notes, _extra = prefixes_table(prefix_path, params, p)
        return depth_distribution(annotated, n_bins)

    return read_derived(
        DEPTH,
        VERSION,
        [Path(prefix_path)],
        build,
        params={**_params_dict(params), "n_bins": n_bins},
        progress=progress,
    )


def warm(source: SourceConfig, progress: ProgressFn | None = None) -> list[Path]:
    """Build the FineProofs derived tables for a source (`python -m cache warm`)."""
    hook = progress or no_progress
    path = resolve_file("fineproofs", PREFIX_FILE, source, progress=scaled(hook, 0.0, 0.2))
    prefixes_path(path, progress=scaled(hook, 0.2, 0.6))
    traces_table(path, progress=scaled(hook, 0.6, 0.8))
    depth_table(path, progress=scaled(hook, 0.8, 1.0))
    p = _params_dict(None)
    return [
        table_path(PREFIXES, VERSION, [path], p),
        table_path(TRACES, VERSION, [path], p),
        table_path(DEPTH, VERSION, [path], {**p, "n_bins": 10}),
    ]
