"""The question overview says when the majority vote of final answers is an exact tie."""

from __future__ import annotations

import polars as pl

from analysis.mars.summaries import question_overview


def _tables(finals: dict[int, list[int]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows, groups = [], []
    for q, fs in finals.items():
        for t, g in enumerate(fs):
            rows.append(
                {"qid": q, "trace_idx": t, "final_group": g, "final_correct": g == 0, "length": 100}
            )
        for g in range(max(fs) + 1):
            groups.append(
                {
                    "qid": q,
                    "group_id": g,
                    "label": f"a{g}",
                    "is_correct": g == 0,
                    "ground_truth": "a0",
                }
            )
    return pl.DataFrame(rows), pl.DataFrame(groups)


def test_an_exact_tie_is_a_tie_not_a_right_majority() -> None:
    f, g = _tables({0: [0, 1, 1, 0, 2], 1: [0, 0, 1], 2: [-1, -1]})
    ov = question_overview(f, g).sort("qid")
    tie, clear, empty = ov.rows(named=True)
    assert tie["majority_tie"] == 2 and tie["majority_tied"] == ["a0", "a1"]
    assert tie["majority_correct"] is None  # the lowest-id pick would read "right"
    assert tie["tie_has_truth"] is True and tie["majority_votes"] == 2
    assert clear["majority_tie"] == 1 and clear["majority_correct"] is True
    assert empty["majority_tie"] == 0 and empty["majority_correct"] is False
