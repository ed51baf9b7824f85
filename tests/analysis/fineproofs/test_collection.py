"""Collection-wide facts: first-error candidates and their median depth, recovering traces,
traces per shape, shard coverage; and the per-trace summary row lookup."""

from __future__ import annotations

import math

import polars as pl

from analysis.fineproofs.collection import collection_facts, coverage_facts, shape_counts
from analysis.fineproofs.values import trace_row


def _summary() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "problem_id": ["aa" + "0" * 14, "aa" + "1" * 14, "bb" + "0" * 14, "cc" + "0" * 14],
            "sample_index": [0, 1, 0, 2],
            "n_prefixes": [8, 6, 7, 5],
            "first_error_depth": [0.25, None, 0.75, 0.5],
            "n_recoveries": [0, 2, 1, 0],
            "shape": ["one-step", "drop then recovery", "drop then recovery", None],
        }
    )


def test_collection_facts() -> None:
    facts = collection_facts(_summary())
    assert facts.n_traces == 4 and facts.n_first_error == 3
    assert facts.median_first_error_depth == 0.5
    assert facts.n_recovering == 2


def test_collection_facts_without_first_error_candidates() -> None:
    s = _summary().with_columns(first_error_depth=pl.lit(None, pl.Float64))
    facts = collection_facts(s)
    assert facts.n_first_error == 0 and math.isnan(facts.median_first_error_depth)


def test_shape_counts_most_frequent_first() -> None:
    counts = shape_counts(_summary())
    assert counts.row(0) == ("drop then recovery", 2)
    assert dict(counts.rows()) == {"drop then recovery": 2, "one-step": 1, None: 1}


def test_coverage_facts() -> None:
    cov = coverage_facts(_summary(), present={"aa", "zz"})
    assert (cov.n_traces, cov.n_shards, cov.n_present) == (4, 3, 1)
    assert cov.missing["shard"].to_list() == ["bb", "cc"]
    assert (cov.missing_traces, cov.missing_prefixes) == (2, 12)
    full = coverage_facts(_summary(), present={"aa", "bb", "cc"})
    assert full.missing.height == 0 and full.missing_traces == 0 and full.n_present == 3


def test_trace_row() -> None:
    s = _summary()
    assert trace_row(s, "bb" + "0" * 14, 0)["n_prefixes"] == 7
    assert trace_row(s, "bb" + "0" * 14, 1) == {}
