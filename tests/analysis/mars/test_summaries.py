"""Per-question summaries the view shows: the stable trace sample, the headline numbers and the
probe table of one trace."""

from __future__ import annotations

import polars as pl
import pytest

from analysis.mars.summaries import probe_table, question_stats, sample_traces


def _feats(n: int) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "trace_idx": list(range(n)),
            "length": [1000 * (i + 1) for i in range(n)],
            "final_correct": [i % 3 == 0 for i in range(n)],
            "final_group": [i % 4 - 1 for i in range(n)],
        }
    )


def test_sample_grows_without_losing_shown_traces() -> None:
    feats = _feats(50)
    small = sample_traces(feats, 10, seed=3)["trace_idx"].to_list()
    big = sample_traces(feats, 25, seed=3)["trace_idx"].to_list()
    assert len(small) == 10 and len(big) == 25
    assert set(small) <= set(big)
    assert big == sorted(big)  # kept in trace order
    assert sample_traces(feats, 10, seed=3)["trace_idx"].to_list() == small  # stable
    assert sample_traces(feats.head(0), 5, seed=1).height == 0


def test_question_stats() -> None:
    feats = _feats(6)
    groups = pl.DataFrame({"n_final": [2, 0, 1]})
    s = question_stats(feats, groups)
    assert s.n_traces == 6
    assert s.pass_at_1 == pytest.approx(2 / 6)
    assert s.n_distinct == 2
    assert s.median_length == 3500
    assert s.n_no_answer == 2  # final_group -1 at i = 0 and 4


def test_probe_table_joins_the_feature_row() -> None:
    f = {
        "probe_pos": [2048, 4096],
        "probe_group": [0, -1],
        "probe_correct": [True, False],
        "final_group": 0,
        "ckpt_pos": [2048],
        "ckpt_conf": [1.5],
    }
    groups = pl.DataFrame({"group_id": [0], "label": ["42"]})
    raw = [
        {"position": 2048, "answer": "42", "is_correct": True, "raw_text": "a", "avg_conf": 1.0},
        {"position": 4096, "answer": None, "is_correct": None, "raw_text": "b", "avg_conf": None},
    ]
    t = probe_table(raw, f, groups)
    assert t["group"].to_list() == ["42", "—"]
    assert t["is_correct_group"].to_list() == [True, False]
    assert t["vs final"].to_list() == ["agrees with final", "no answer"]
    assert t["conf_at_pos"].to_list() == [1.5, None]
    assert t["avg_conf"].to_list() == [1.0, None]
    assert probe_table([], f, groups).height == 0
