"""MARS derived tables through the versioned store, and raw reads of a few traces for the zoom.

Tables (names start with the dataset name so the home page lists them), all keyed by the source
file's identity, `analysis.mars.table_names.FEATURES_VERSION` and the window:
- `mars-features`: one row per trace (schema in `analysis.mars.features`);
- `mars-groups`: answer groups per question;
- `mars-notes`: data problems found while building.
One streaming pass builds all three (resumable chunk files live in the store's `work_dir`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from analysis.mars.confidence import WINDOW
from analysis.mars.feature_files import feature_paths
from analysis.mars.pool import QuestionPool
from analysis.mars.summaries import pool_from_features
from analysis.mars.table_names import LOW_COLUMNS
from analysis.mars.table_names import (
    POOL_COLUMNS as POOL_COLUMNS,  # re-exported: load_features(columns=POOL_COLUMNS)
)
from cache.datasets import MARS_FILES
from cache.errors import CorruptFile
from cache.floats import f16_list_to_f32
from cache.progress import ProgressFn, scaled
from cache.scan import collect, parquet_info
from cache.sources import SourceConfig, dataset_root, resolve_file
from cache.warmers import Warmed


@dataclass(frozen=True)
class MarsFeatureStore:
    """The three derived tables of one MARS file, loaded."""

    path: Path
    features: pl.DataFrame
    groups: pl.DataFrame
    notes: pl.DataFrame
    window: int = WINDOW

    @cached_property
    def qids(self) -> list[int]:
        return sorted(self.features["qid"].unique().to_list())

    @cached_property
    def _feature_spans(self) -> dict[int, tuple[int, int]] | None:
        return question_spans(self.features)

    @cached_property
    def _group_spans(self) -> dict[int, tuple[int, int]] | None:
        return question_spans(self.groups)

    def question(self, qid: int) -> pl.DataFrame:
        """The question's rows, in table order: a zero-copy slice (a view asks several times
        per run, and a filter would copy the list columns each time)."""
        return _rows_of(self.features, self._feature_spans, qid)

    def question_groups(self, qid: int) -> pl.DataFrame:
        return _rows_of(self.groups, self._group_spans, qid).sort("group_id")

    def question_notes(self, qid: int) -> pl.DataFrame:
        return self.notes.filter(pl.col("qid").is_in([qid, -1]))

    def pool(self, qid: int) -> QuestionPool:
        return pool_from_features(
            self.features, self.groups, qid, notes=self.notes, window=self.window
        )


def question_spans(frame: pl.DataFrame) -> dict[int, tuple[int, int]] | None:
    """qid -> (first row, rows) when each question's rows are contiguous (the build writes
    them question by question), else None."""
    if not frame.height:
        return {}
    runs = (
        frame.select(pl.col("qid").rle_id().alias("run"), "qid")
        .with_row_index("row")
        .group_by("run", maintain_order=True)
        .agg(pl.col("qid").first(), pl.col("row").first(), pl.len())
    )
    if runs["qid"].n_unique() != runs.height:  # a question in more than one run
        return None
    return {q: (r, n) for q, r, n in runs.select("qid", "row", "len").iter_rows()}


def _rows_of(
    frame: pl.DataFrame, spans: dict[int, tuple[int, int]] | None, qid: int
) -> pl.DataFrame:
    if spans is None:
        return frame.filter(pl.col("qid") == qid)
    first, n = spans.get(int(qid), (0, 0))
    return frame.slice(first, n)


def load_features(
    path: Path,
    *,
    window: int = WINDOW,
    progress: ProgressFn | None = None,
    with_lows: bool = True,
    columns: Sequence[str] | None = None,
) -> MarsFeatureStore:
    """Build (once) and load the feature store of a MARS file.

    `with_lows=False` leaves out the record lows (the largest columns, needed only by DeepConf
    truncation in the simulator); pools built from such a store have empty lows. `columns`
    (e.g. POOL_COLUMNS) loads only those feature columns, plus the lows if `with_lows`."""
    fp, gp, np_ = feature_paths(path, window=window, progress=progress)
    if columns is not None:
        columns = [*columns, *(LOW_COLUMNS if with_lows else ())]
    elif not with_lows:
        columns = [c for c in pq.read_schema(fp).names if c not in LOW_COLUMNS]
    try:
        return MarsFeatureStore(
            path=Path(path),
            features=pl.read_parquet(fp, columns=columns),
            groups=pl.read_parquet(gp),
            notes=pl.read_parquet(np_),
            window=window,
        )
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise CorruptFile(
            f"the cached MARS feature table is unreadable ({str(exc)[:120]})",
            "run `python -m cache clear` and reopen the view",
        ) from None


def read_traces(path: Path, qid: int, trace_idx: Sequence[int]) -> pl.DataFrame:
    """Raw rows of a few traces at full resolution: qid, trace_idx, ground_truth,
    extracted_answer, confs (list<float32>), probes. Predicates are pushed down, so only the
    row groups holding `qid` are read."""
    path = Path(path)
    info = parquet_info(path)
    cols = [
        c for c in ("qid", "trace_idx", "ground_truth", "extracted_answer") if c in info.columns
    ]
    lf = pl.scan_parquet(path).filter(
        (pl.col("qid") == qid) & pl.col("trace_idx").is_in([int(t) for t in trace_idx])
    )
    exprs = [pl.col(c) for c in cols]
    if "confs" in info.columns:
        exprs.append(f16_list_to_f32(pl.col("confs")).alias("confs"))
    if "probes" in info.columns:
        exprs.append(pl.col("probes"))
    return collect(lf.select(exprs), path).sort("trace_idx")


def read_probes(path: Path, qid: int, trace_idx: Sequence[int] | None = None) -> pl.DataFrame:
    """The probes of one question (optionally some traces), one row per probe:
    trace_idx, position, answer, is_correct, raw_text, avg_conf. No `confs` are read."""
    path = Path(path)
    info = parquet_info(path)
    empty = pl.DataFrame(
        schema={
            "trace_idx": pl.Int64,
            "position": pl.Int64,
            "answer": pl.String,
            "is_correct": pl.Boolean,
            "raw_text": pl.String,
            "avg_conf": pl.Float64,
        }
    )
    if "probes" not in info.columns:
        return empty
    pred = pl.col("qid") == qid
    if trace_idx is not None:
        pred = pred & pl.col("trace_idx").is_in([int(t) for t in trace_idx])
    lf = (
        pl.scan_parquet(path)
        .filter(pred)
        .select("trace_idx", "probes")
        .explode("probes")
        .drop_nulls("probes")
        .unnest("probes")
    )
    out = collect(lf, path)
    for name, dtype in empty.schema.items():
        if name not in out.columns:
            out = out.with_columns(pl.lit(None, dtype=dtype).alias(name))
    return out.select(list(empty.columns)).sort("trace_idx", "position")


def warm(source: SourceConfig, progress: ProgressFn | None = None) -> Warmed:
    """Build the feature store of every MARS file of `source` (`python -m cache warm`). A local
    folder with only some of the files builds those and reports the others as absent; with
    none of them it fails naming the first."""
    out: list[Path] = []
    files = list(MARS_FILES)
    absent: list[str] = []
    if source.kind == "local":
        root = dataset_root("mars", source)  # a missing folder raises, naming it
        if root is not None:
            absent = [rel for rel in files if not (root / rel).is_file()]
            present = [rel for rel in files if rel not in absent]
            files = present or files[:1]  # none at all: resolving the first says so
            absent = absent if present else []
    for i, rel in enumerate(files):
        sub = scaled(progress, i / len(files), (i + 1) / len(files))
        path = resolve_file("mars", rel, source, progress=None)
        out.extend(feature_paths(path, progress=sub))
    return Warmed(out, absent)
