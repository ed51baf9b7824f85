"""Comparing models on one benchmark, on a hand-built pool of two models' derived tables whose
every figure is known: side by side with a missing question, the disagreement ranking and its
interval, answers on shared keys, the ground truth's share and the pooled curves."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from analysis.mars import model_compare as mc
from analysis.mars.pool import QuestionPool


def _feats(rows: list[tuple[int, int, int, bool, list[float]]]) -> pl.DataFrame:
    """(qid, length, final_group, final_correct, curve) per trace; trace_idx by position."""
    return pl.DataFrame(
        {
            "qid": [r[0] for r in rows],
            "trace_idx": list(range(len(rows))),
            "length": [r[1] for r in rows],
            "final_group": [r[2] for r in rows],
            "final_correct": [r[3] for r in rows],
            "curve": [r[4] for r in rows],
        },
        schema_overrides={"final_group": pl.Int32, "curve": pl.List(pl.Float32)},
    )


def _groups(rows: list[tuple[int, int, str, bool, int, str]]) -> pl.DataFrame:
    """(qid, group_id, label, is_correct, n_final, ground_truth) per answer group."""
    cols = ("qid", "group_id", "label", "is_correct", "n_final", "ground_truth")
    return pl.DataFrame(
        {c: [r[i] for r in rows] for i, c in enumerate(cols)},
        schema_overrides={"group_id": pl.Int32},
    )


# model A: Q0 four traces (3 say 42, right; 1 says 7), Q1 two traces (1/2 wrong, one no answer)
A_F = _feats(
    [
        (0, 100, 0, True, []),
        (0, 200, 0, True, []),
        (0, 300, 0, True, []),
        (0, 400, 1, False, []),
        (1, 10, 1, False, []),
        (1, 30, -1, False, []),
    ]
)
A_G = _groups(
    [
        (0, 0, "42", True, 3, "42"),
        (0, 1, "7", False, 1, "42"),
        (1, 0, "5", True, 0, "5"),
        (1, 1, "\\frac{1}{2}", False, 1, "5"),
    ]
)
# model B: Q0 two traces both saying 7 (wrong), no Q1, Q2 one right trace
B_F = _feats([(0, 50, 1, False, []), (0, 70, 1, False, []), (2, 90, 0, True, [])])
B_G = _groups(
    [
        (0, 0, "42", True, 0, "42"),
        (0, 1, "7", False, 2, "42"),
        (2, 0, "3", True, 1, "3"),
    ]
)


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    rows = {"A": mc.question_rows("A", A_F, A_G), "B": mc.question_rows("B", B_F, B_G)}
    return mc.side_by_side(rows)


def test_question_rows_exact() -> None:
    r = mc.question_rows("A", A_F, A_G)
    assert r["qid"].to_list() == [0, 1]
    assert r["n_traces"].to_list() == [4, 2]
    assert r["n_correct"].to_list() == [3, 0]
    assert r["pass_at_1"].to_list() == [0.75, 0.0]
    assert r["majority_answer"].to_list() == ["42", "\\frac{1}{2}"]
    assert r["majority_correct"].to_list() == [True, False]
    assert r["n_answers"].to_list() == [2, 1]
    assert r["n_null"].to_list() == [0, 1]
    assert r["median_len"].to_list() == [250.0, 20.0]


def test_side_by_side_marks_missing_questions(table: pl.DataFrame) -> None:
    assert table.select("qid", "model", "missing").rows() == [
        (0, "A", False),
        (0, "B", False),
        (1, "A", False),
        (1, "B", True),
        (2, "A", True),
        (2, "B", False),
    ]
    assert table["truth_agrees"].to_list() == [True] * 6
    b0 = table.filter((pl.col("qid") == 0) & (pl.col("model") == "B")).row(0, named=True)
    assert (b0["pass_at_1"], b0["majority_answer"], b0["majority_correct"]) == (0.0, "7", False)
    w = mc.wide(table, ["A", "B"])
    assert w.columns[:3] == ["qid", "truth_agrees", "A pass@1"]
    assert w["B pass@1"].to_list() == [0.0, None, 1.0]
    assert w["A median tokens"].to_list() == [250.0, 20.0, None]


def test_ground_truths_that_differ_are_flagged() -> None:
    other = B_G.with_columns(pl.lit("43").alias("ground_truth"))
    t = mc.side_by_side(
        {"A": mc.question_rows("A", A_F, A_G), "B": mc.question_rows("B", B_F, other)}
    )
    agree = dict(t.select("qid", "truth_agrees").unique().rows())
    assert agree == {0: False, 1: True, 2: True}  # Q1 and Q2: one file each


def test_disagreement_ranking_and_interval(table: pl.DataFrame) -> None:
    rank = mc.disagreement(table)
    assert rank["qid"].to_list() == [0, 1, 2]
    assert rank["rank"].to_list() == [1, 2, 3]
    top = rank.row(0, named=True)
    assert top["majority_split"] is True
    assert (top["right_models"], top["wrong_models"]) == ("A", "B")
    assert (top["best_model"], top["worst_model"], top["gap"]) == ("A", "B", 0.75)
    assert (top["gap_lo"], top["gap_hi"]) == pytest.approx(mc.newcombe(3, 4, 0, 2))
    assert top["gap_lo"] < 0.75 < top["gap_hi"] <= 1
    one = rank.row(1, named=True)
    assert one["n_models"] == 1 and one["gap"] is None and one["missing_models"] == "B"
    assert rank.row(2, named=True)["missing_models"] == "A"


def test_newcombe_matches_the_published_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, example (a): 56/70 − 48/80, method 10
    lo, hi = mc.newcombe(56, 70, 48, 80)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)
    # Wilson's interval of 0/10 (the same paper's table I): 0 to 0.2775
    assert round(mc.wilson(0, 10)[1], 4) == 0.2775
    # both proportions 0 or 1: the interval still has a width (Wald's would be 0)
    lo, hi = mc.newcombe(10, 10, 0, 10)
    assert lo < 1 and math.isclose(hi, 1.0)


def test_answer_distribution_on_shared_keys() -> None:
    g = {"A": A_G.filter(pl.col("qid") == 0), "B": B_G.filter(pl.col("qid") == 0)}
    d = mc.answer_distribution(g, {"A": 0, "B": 0})
    assert d["answer"].to_list() == ["7", "42"]  # by summed share: 7 (.25 + 1), 42 (.75)
    assert d["A"].to_list() == [1, 3] and d["B"].to_list() == [2, 0]
    assert d["A %"].to_list() == [0.25, 0.75] and d["B %"].to_list() == [1.0, 0.0]
    assert d["correct_in"].to_list() == ["", "A"]
    # written differently, the same value: one key; no final answer last
    a = _groups([(1, 0, "\\frac{1}{2}", False, 1, "5")])
    b = _groups([(1, 0, "0.5", False, 3, "5")])
    d = mc.answer_distribution({"A": a, "B": b}, {"A": 1, "B": 0})
    assert d["key"].to_list() == ["n:1/2", "∅"]
    assert d["A"].to_list() == [1, 1] and d["B"].to_list() == [3, 0]
    assert d["A %"].to_list() == [0.5, 0.5]


def _pool(ckpt_group: list[list[int]], correct: list[bool], grid: list[int]) -> QuestionPool:
    n = len(ckpt_group)
    cg = np.asarray(ckpt_group, np.int32)
    z = np.zeros(n, np.float32)
    return QuestionPool(
        qid=0,
        ground_truth="42",
        window=2048,
        trace_idx=np.arange(n),
        lengths=np.full(n, 10_000),
        final_group=cg[:, -1],
        group_labels=[str(i) for i in range(len(correct))],
        group_correct=np.asarray(correct),
        grid=np.asarray(grid, np.int64),
        ckpt_group=cg,
        ckpt_conf=np.zeros(cg.shape, np.float32),
        mean_conf=z,
        tail_conf=z,
        min_group=z,
        bottom_10=z,
        low_offsets=np.zeros(n + 1, np.int64),
        low_window=np.zeros(0, np.int64),
        low_value=np.zeros(0, np.float32),
    )


def test_truth_share_per_model_on_one_axis() -> None:
    pools = {
        "A": _pool([[0, 0], [1, -1]], [True, False], [2048, 4096]),
        "B": _pool(
            [[-1, 1, 1], [-1, 1, 0], [0, 0, 0], [1, 1, 1]], [True, False], [2048, 4096, 6144]
        ),
    }
    ts = mc.truth_share(pools)
    assert ts.rows() == [
        ("A", 2048, 0.5, 0.0),
        ("A", 4096, 0.5, 0.5),
        ("B", 2048, 0.25, 0.5),
        ("B", 4096, 0.25, 0.0),
        ("B", 6144, 0.5, 0.0),
    ]


def test_pooled_curves_bins_and_minimum_traces() -> None:
    f = _feats(
        [
            (0, 200, 0, True, [1.0, 2.0]),
            (0, 200, 0, True, [3.0, 4.0]),
            (0, 200, 0, True, [5.0, float("nan")]),
            (0, 200, 1, False, [9.0, 9.0]),
            (0, 0, -1, False, []),
        ]
    )
    pc = mc.pooled_curves({"A": f}, bin_tokens=100)
    # right: bin 0 holds 1, 3, 5 (three traces); bin 1 only two finite values: dropped; the
    # one wrong trace is below the minimum everywhere
    assert pc.rows() == [("A", "right", 50.0, 3.0, 3)]
    ts = pl.DataFrame({"model": ["A"], "position": [2048], "truth": [1.0], "none": [0.0]})
    assert mc.axis_end(ts, pc, 100) == 2048.0
    assert mc.axis_end(ts.clear(), pc, 100) == 100.0


def test_benchmark_files_cover_the_declared_files() -> None:
    assert mc.benchmarks() == ("aime-2025", "brumo-2025", "hmmt")
    files = mc.benchmark_files("hmmt")
    assert [m for _, m, _ in files] == ["deepseek-8b", "qwen3-32b", "qwen3-next"]
    assert mc.benchmark_of("Qwen3-32B/brumo25.parquet") == "brumo-2025"
