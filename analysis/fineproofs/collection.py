"""Collection-wide facts of FineProofs: what the Collection tab states about all traces at once.

Why pure functions here: the tab only formats what these return, so the numbers it prints
(first-error candidates and their median depth, drop-then-recovery traces, traces per failure
shape, trace shards missing on disk) are testable without Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from analysis.fineproofs.values import shard_coverage


@dataclass(frozen=True)
class CollectionFacts:
    """Counts over the per-trace summary (`trace_summary`)."""

    n_traces: int
    n_first_error: int  # traces with a first-error candidate
    median_first_error_depth: float  # NaN when no trace has one
    n_recovering: int  # traces showing a drop then a recovery


def collection_facts(summary: pl.DataFrame) -> CollectionFacts:
    """How many traces have a first-error candidate (and its median relative depth), and how
    many recover after a drop."""
    fe = summary["first_error_depth"].drop_nulls()
    median = fe.median() if fe.len() else None
    return CollectionFacts(
        n_traces=summary.height,
        n_first_error=fe.len(),
        median_first_error_depth=float("nan") if median is None else float(median),  # type: ignore[arg-type]  # polars types a median loosely
        n_recovering=int((summary["n_recoveries"] > 0).sum()),
    )


def shape_counts(summary: pl.DataFrame) -> pl.DataFrame:
    """Traces per failure shape (`shape`, `len`), most frequent first."""
    return summary.group_by("shape").len().sort("len", descending=True)


@dataclass(frozen=True)
class CoverageFacts:
    """Which trace shards the prefix table needs and which of them are present."""

    n_traces: int  # traces the prefix table refers to
    n_shards: int  # shards those traces live in
    n_present: int  # of which present
    missing: pl.DataFrame  # shard, traces, prefixes, present (False) of the absent shards
    missing_traces: int
    missing_prefixes: int


def coverage_facts(summary: pl.DataFrame, present: set[str]) -> CoverageFacts:
    """Shard coverage of the per-trace summary given the shard names present on disk."""
    cov = shard_coverage(summary, present)
    missing = cov.filter(~pl.col("present"))
    return CoverageFacts(
        n_traces=summary.height,
        n_shards=cov.height,
        n_present=cov.height - missing.height,
        missing=missing,
        missing_traces=int(missing["traces"].sum()),
        missing_prefixes=int(missing["prefixes"].sum()),
    )
