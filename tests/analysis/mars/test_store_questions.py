"""A question's rows from the feature store: the same rows, in the same order, as a filter on
`qid`, whether the table holds each question in one run of rows (a slice) or not (a filter)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from analysis.mars.store import MarsFeatureStore, question_spans


def _store(qids: list[int]) -> MarsFeatureStore:
    n = len(qids)
    features = pl.DataFrame(
        {
            "qid": qids,
            "trace_idx": list(range(n)),
            "probe_pos": [[i, i + 1] for i in range(n)],  # a list column, as the real table
        }
    )
    groups = pl.DataFrame(
        {"qid": qids, "group_id": [n - i for i in range(n)], "label": [str(i) for i in range(n)]}
    )
    notes = pl.DataFrame({"qid": [-1], "note": ["file"]})
    return MarsFeatureStore(Path("x.parquet"), features, groups, notes)


@pytest.mark.parametrize(
    "qids", [[0, 0, 0, 1, 1, 5], [2, 2, 0, 0, 1], [0, 1, 0, 1, 1], [], [4]], ids=str
)
def test_a_question_is_its_rows_as_a_filter_gives_them(qids: list[int]) -> None:
    store = _store(qids)
    for q in [*set(qids), 99]:
        want = store.features.filter(pl.col("qid") == q)
        assert_frame_equal(store.question(q), want)
        groups = store.groups.filter(pl.col("qid") == q).sort("group_id")
        assert_frame_equal(store.question_groups(q), groups)


def test_spans_only_for_contiguous_questions() -> None:
    assert question_spans(pl.DataFrame({"qid": [3, 3, 1]})) == {3: (0, 2), 1: (2, 1)}
    assert question_spans(pl.DataFrame({"qid": [3, 1, 3]})) is None
