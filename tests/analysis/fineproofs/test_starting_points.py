"""The traces an empty Trace tab offers: each rule's largest value, ties by problem and sample,
a drop only when significant, a rule no trace meets left out."""

from __future__ import annotations

import polars as pl

from analysis.fineproofs.overview import StartingPoint, starting_points


def _summary(rows: list[tuple[str, int, float | None, bool | None, int, int]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows,
        schema=["problem_id", "sample_index", "largest_drop", "largest_drop_sig",
                "n_recoveries", "n_bimodal"],
        orient="row",
    )  # fmt: skip


def test_each_rule_takes_its_largest_value_and_ties_go_to_the_first_trace() -> None:
    summary = _summary([
        ("b", 1, 0.9, False, 1, 0),  # the largest drop, but not significant
        ("b", 0, 0.5, True, 3, 2),
        ("a", 7, 0.5, True, 3, 0),  # ties b/0 on the drop and the recoveries: first by id
        ("c", 2, float("nan"), True, 0, 5),
        ("d", 0, None, None, 0, 1),
    ])  # fmt: skip
    assert starting_points(summary) == [
        StartingPoint("the sharpest significant drop", "a", 7, "a fall of 0.500"),
        StartingPoint("the most recoveries", "a", 7, "3 recoveries"),
        StartingPoint("the most bimodal prefixes", "c", 2, "5 bimodal prefixes"),
    ]


def test_a_rule_no_trace_meets_is_left_out_and_one_is_said_in_the_singular() -> None:
    summary = _summary([("a", 0, 0.4, False, 1, 0), ("b", 0, None, None, 0, 1)])
    assert starting_points(summary) == [
        StartingPoint("the most recoveries", "a", 0, "1 recovery"),
        StartingPoint("the most bimodal prefixes", "b", 0, "1 bimodal prefix"),
    ]
    assert starting_points(summary.clear()) == []
