"""The Parason lenses' rules, exact on hand-built tables: imbalanced stages (longest branch at
least 1.5 x the mean of its stage's branches) and Trial stages that disagree with the final
answer (one branch on it, one elsewhere), with the branch results they read."""

from __future__ import annotations

import polars as pl

from analysis.parason.lenses import (
    LENSES,
    ParasonLensTables,
    imbalanced_stages,
    split_trials,
)
from analysis.parason.trials import SCHEMA, branch_result, same_result, trial_rows
from cache.lenses import item_keys, item_query, run

METRICS_SCHEMA = {
    "uuid": pl.String,
    "question": pl.String,
    "branches": pl.List(pl.Int64),
    "block_kinds": pl.List(pl.String),
    "imbalance": pl.List(pl.Float64),
    "longest": pl.List(pl.Int64),
}


def _tables(metrics: list[dict], trials: list[dict] | None = None) -> ParasonLensTables:
    m = pl.DataFrame(metrics, schema=METRICS_SCHEMA).with_columns(subset=pl.lit("sft-1x"))
    return ParasonLensTables("sft-1x", m, pl.DataFrame(trials or [], schema=SCHEMA))


def _m(uuid: str, stages: list[tuple]) -> dict:
    """Stages as (branches, kind, imbalance[, longest thread, 0 when left out])."""
    return {
        "uuid": uuid,
        "question": "q",
        "branches": [s[0] for s in stages],
        "block_kinds": [s[1] for s in stages],
        "imbalance": [s[2] for s in stages],
        "longest": [s[3] if len(s) > 3 else 0 for s in stages],
    }


def test_imbalanced_stages_have_two_branches_and_a_ratio_of_at_least_1_5() -> None:
    t = _tables(
        [
            _m("u1", [(2, "trial", 1.2), (3, "subtask", 1.5), (4, "subtask", 2.5, 3)]),
            _m("u2", [(1, "subtask", 1.0), (2, "trial", 1.8), (2, "trial", None)]),
            _m("u3", []),  # no stage at all
        ]
    )
    out = imbalanced_stages(t)
    assert out.select("uuid", "stage").rows() == [("u1", 2), ("u2", 1), ("u1", 1)]
    row = out.row(0, named=True)
    assert row["why"] == "longest branch 2.5 × the mean of its 4 branches (subtask stage)"
    assert row["label"] == "sft-1x u1 · stage 3"
    lens = next(x for x in LENSES.lenses if x.id == "parason-imbalanced-stages")
    items, n = run(lens, t)
    assert n == 5  # stages of two or more branches
    assert item_query(lens, items.row(0, named=True)) == (
        ("view", "Trajectory"),
        ("subset", "sft-1x"),
        ("uuid", "u1"),
        ("node", "b2t3"),  # the longest branch, the one the stage waits for
    )
    assert item_keys(lens, items.row(0, named=True)) == {
        "subset": "sft-1x",
        "uuid": "u1",
        "stage": "2",
    }


def _b(uuid: str, stage: int, branch: int, result: str | None, final: str, verdict=None) -> dict:
    return {
        "uuid": uuid,
        "stage": stage,
        "branch": branch,
        "branches": 3,
        "result": result,
        "final": final,
        "verdict": verdict,
        "agrees": None if result is None else same_result(result, final),
    }


def test_split_trials_need_one_branch_on_the_answer_and_one_elsewhere() -> None:
    t = _tables(
        [],
        [
            # u1 stage 0: on the answer, elsewhere, no result -> found (1 differs)
            _b("u1", 0, 0, "2", "2"),
            _b("u1", 0, 1, "5", "2"),
            _b("u1", 0, 2, None, "2"),
            # u1 stage 1: all elsewhere (sub-results) -> not found
            _b("u1", 1, 0, "7", "2"),
            _b("u1", 1, 1, "8", "2"),
            # u2 stage 0: the accepted branch differs -> found, first
            _b("u2", 0, 0, "3", "4", "accepted"),
            _b("u2", 0, 1, "4.0", "4", "rejected"),
            # u3 stage 0: all on the answer -> not found
            _b("u3", 0, 0, "1/2", "0.5"),
            _b("u3", 0, 1, "0.5", "0.5"),
        ],
    )
    out = split_trials(t)
    assert out.select("uuid", "stage", "node").rows() == [("u2", 0, "b0t0"), ("u1", 0, "b0t1")]
    assert out["why"].to_list() == [
        "1 of 3 branches end elsewhere (branch 1: 3), 1 on the final answer 4 · the accepted "
        "branch differs",
        "1 of 3 branches end elsewhere (branch 2: 5), 1 on the final answer 2",
    ]
    lens = next(x for x in LENSES.lenses if x.id == "parason-split-trials")
    assert run(lens, t)[1] == 4  # Trial stages looked at


def test_a_branch_result_is_its_last_boxed_answer_else_the_number_after_its_last_equals() -> None:
    assert branch_result(r"so x = 3, and \boxed{4} or \boxed{\frac{1}{2}}") == r"\frac{1}{2}"
    assert branch_result("2^3 = 8 = 1 (mod 7), so 2^100 = 2 (mod 7).") == "2"
    assert branch_result("x = -3/4 works") == "-3/4"
    assert branch_result("no result stated") is None
    assert same_result("1,000", "1000") and same_result("$12$", "12.") and not same_result("2", "3")
    assert same_result(r"\frac{1}{2}", r"\frac{1}{2}") and not same_result("x+1", "x+2")


def test_trial_rows_read_the_trial_stages_of_a_trajectory() -> None:
    text = (
        "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n<think>\nTwo ways.\n"
        "<Parallel>\n<Outlines>\n<Trial>1: count.</Trial>\n<Trial>2: add.</Trial>\n</Outlines>\n"
        "<Thread>\n1: 2+2 = 4. Accepted.\n</Thread><Thread>\n2: 2+3 = 5. Rejected.\n</Thread>\n"
        "</Parallel>\nSo 4.\n</think>\n\nThe answer is $\\boxed{4}$.<|im_end|>"
    )
    rows = trial_rows("u", text)
    assert [(r["stage"], r["branch"], r["result"], r["verdict"], r["agrees"]) for r in rows] == [
        (0, 0, "4", "accepted", True),
        (0, 1, "5", "rejected", False),
    ]
    assert {r["final"] for r in rows} == {"4"}
