"""The trace filters on a hand-built features table: each part, their conjunction, the empty
state's hints and the wrong-trace stepping, exact."""

from __future__ import annotations

import math

import polars as pl

from analysis.mars import trace_filters as tf

FEATS = pl.DataFrame(
    {
        "trace_idx": [0, 1, 2, 3, 4, 5, 6],
        "length": [1000, 2000, 3000, 4000, 5000, 6000, 7000],
        "final_answer": ["7", "7", "12", None, "12", "<b>x</b>", "7"],
        "final_group": [0, 0, 1, -1, 1, 2, 0],
        "final_correct": [True, True, False, False, False, False, True],
        "tail_conf": [10.0, 12.0, 8.0, 5.0, 15.0, math.nan, 11.0],
        "mean_conf": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    },
    schema_overrides={"tail_conf": pl.Float32, "mean_conf": pl.Float32},
)


def _ids(f: tf.TraceFilter) -> list[int]:
    return tf.apply(FEATS, f)["trace_idx"].to_list()


def test_no_filter_keeps_every_trace_in_order() -> None:
    assert not tf.TraceFilter().active()
    assert _ids(tf.TraceFilter()) == [0, 1, 2, 3, 4, 5, 6]


def test_verdicts_split_right_wrong_and_no_answer() -> None:
    assert _ids(tf.TraceFilter(verdict=tf.RIGHT)) == [0, 1, 6]
    assert _ids(tf.TraceFilter(verdict=tf.WRONG)) == [2, 4, 5]
    assert _ids(tf.TraceFilter(verdict=tf.NO_ANSWER)) == [3]


def test_answers_match_exactly_and_name_the_missing_answer() -> None:
    assert _ids(tf.TraceFilter(answers=("12",))) == [2, 4]
    assert _ids(tf.TraceFilter(answers=("<b>x</b>", tf.NO_ANSWER_LABEL))) == [3, 5]
    assert _ids(tf.TraceFilter(answers=("1",))) == []  # no prefix match


def test_ranges_include_both_ends_and_never_match_nan() -> None:
    assert _ids(tf.TraceFilter(length=(2000, 4000))) == [1, 2, 3]
    assert _ids(tf.TraceFilter(conf_range=(8.0, 12.0))) == [0, 1, 2, 6]
    assert _ids(tf.TraceFilter(conf_range=(-1e9, 1e9))) == [0, 1, 2, 3, 4, 6]  # trace 5 is NaN
    assert _ids(tf.TraceFilter(confidence="mean_conf", conf_range=(2.0, 3.0))) == [1, 2]


def test_parts_combine_with_and() -> None:
    f = tf.TraceFilter(verdict=tf.WRONG, answers=("12",), length=(3500, 9000))
    assert f.active()
    assert _ids(f) == [4]


def test_loosen_hints_count_the_traces_each_part_holds_back() -> None:
    f = tf.TraceFilter(verdict=tf.RIGHT, answers=("12",), length=(1000, 1500))
    assert _ids(f) == []
    # without the verdict: answer 12 and length <= 1500 -> none; without the answer: right and
    # short -> trace 0; without the length: right and 12 -> none
    assert tf.loosen_hints(FEATS, f) == [("final answer", 1), ("verdict", 0), ("length", 0)]
    assert tf.loosen_hints(FEATS, tf.TraceFilter(verdict=tf.NO_ANSWER)) == [("verdict", 7)]


def test_answer_counts_most_frequent_first_ties_by_answer() -> None:
    assert tf.answer_counts(FEATS) == [
        ("7", 3),
        ("12", 2),
        ("(no answer)", 1),
        ("<b>x</b>", 1),
    ]
    assert tf.answer_counts(FEATS.clear()) == []


def test_step_wrong_moves_to_the_next_and_previous_wrong_trace() -> None:
    traces = [0, 1, 2, 3, 4, 5, 6]
    v = FEATS.select(tf.verdict_expr().alias("v"))["v"].to_list()
    assert v == ["right", "right", "wrong", "no answer", "wrong", "wrong", "right"]
    assert tf.step_wrong(traces, v, 0, 1) == 2
    assert tf.step_wrong(traces, v, 2, 1) == 4
    assert tf.step_wrong(traces, v, 4, 1) == 5
    assert tf.step_wrong(traces, v, 5, 1) is None
    assert tf.step_wrong(traces, v, 5, -1) == 4
    assert tf.step_wrong(traces, v, 2, -1) is None
    assert tf.step_wrong(traces, v, 3, 1) == 4  # from the no-answer trace
    assert tf.step_wrong(traces, v, None, 1) == 2
    # only the filtered traces count: trace 4 filtered out, 2 -> 5
    assert tf.step_wrong([2, 5], ["wrong", "wrong"], 2, 1) == 5


def test_read_ahead_names_the_next_and_previous_wrong_traces_and_the_neighbours() -> None:
    traces = [0, 1, 2, 3, 4, 5, 6]
    v = ["right", "right", "wrong", "no answer", "wrong", "wrong", "right"]
    assert tf.read_ahead(traces, v, 2) == [4, 5, 3, 1]
    assert tf.read_ahead(traces, v, 4, n_next=1, n_prev=1) == [5, 2, 3]
    assert tf.read_ahead(traces, v, 6) == [5, 4]  # no wrong trace after; no neighbour past the end
    assert tf.read_ahead([3], ["wrong"], 3) == []
