"""The MARS lenses' rules, exact on hand-built tables: confidently wrong (tail confidence at or
above the question's 90th percentile, answer wrong) and late answer flips (a change of the
probed answer past 75 % of the trace)."""

from __future__ import annotations

import polars as pl

from analysis.mars.lenses import LENSES, MarsLensTables, confidently_wrong, late_flips
from cache.lenses import LensResult, item_keys, item_query, queue_items, run

FILE = "Qwen3-32B/aime25.parquet"


def _features(rows: list[dict]) -> pl.DataFrame:
    base = {
        "length": 1000,
        "final_answer": "7",
        "final_group": 0,
        "final_correct": True,
        "tail_conf": 1.0,
        "probe_pos": [],
        "probe_group": [],
    }
    full = [{**base, **r} for r in rows]
    return pl.DataFrame(
        full,
        schema={
            "qid": pl.Int64,
            "trace_idx": pl.Int64,
            "length": pl.Int64,
            "final_answer": pl.String,
            "final_group": pl.Int32,
            "final_correct": pl.Boolean,
            "tail_conf": pl.Float32,
            "probe_pos": pl.List(pl.Int64),
            "probe_group": pl.List(pl.Int32),
        },
    )


GROUPS = pl.DataFrame(
    {
        "qid": [0, 0, 0, 1, 1],
        "group_id": [0, 1, 2, 0, 1],
        "label": ["7", "9", "11", "5", "6"],
        "ground_truth": ["7", "7", "7", "5", "5"],
    },
    schema={"qid": pl.Int64, "group_id": pl.Int32, "label": pl.String, "ground_truth": pl.String},
)


def test_confidently_wrong_takes_wrong_traces_at_or_above_the_questions_90th_percentile() -> None:
    # q0: tails 1..10; the 90th percentile (linear) is 9.1, so traces with 10 only; q1: 1..10 too
    rows = [{"qid": 0, "trace_idx": t, "tail_conf": float(t + 1)} for t in range(10)]
    rows[9].update(final_correct=False, final_answer="9", final_group=1)  # tail 10: found
    rows[8].update(final_correct=False, final_answer="9", final_group=1)  # tail 9 < 9.1: not
    q1 = [{"qid": 1, "trace_idx": t, "tail_conf": float(t + 1)} for t in range(10)]
    q1[9].update(final_correct=False, final_answer=None, final_group=-1)  # no answer: not wrong
    tables = MarsLensTables(FILE, _features(rows + q1), GROUPS)
    out = confidently_wrong(tables)
    assert out.select("qid", "trace_idx").rows() == [(0, 9)]
    row = out.row(0, named=True)
    assert row["file"] == FILE and row["label"] == "Qwen3-32B · AIME 2025 · Q0 · trace 9"
    assert row["why"] == "tail conf. 10.0 ≥ 9.1 (Q0's top 10 %) · answered 9, truth 7"


def test_confidently_wrong_orders_by_the_margin_above_the_cut() -> None:
    rows = [{"qid": 0, "trace_idx": t, "tail_conf": 1.0} for t in range(8)]
    rows += [
        {"qid": 0, "trace_idx": 8, "tail_conf": 5.0, "final_correct": False, "final_group": 1},
        {"qid": 0, "trace_idx": 9, "tail_conf": 9.0, "final_correct": False, "final_group": 1},
    ]
    out = confidently_wrong(MarsLensTables(FILE, _features(rows), GROUPS))
    # cut = 5 + 0.1 * 4 = 5.4: only trace 9 (tail 9) is at or above it
    assert out["trace_idx"].to_list() == [9]


def test_late_flips_need_a_change_between_answered_probes_past_three_quarters() -> None:
    rows = [
        # 0 -> 1 at 800 of 1000 (80 %): a late flip
        {"qid": 0, "trace_idx": 0, "probe_pos": [200, 800], "probe_group": [0, 1]},
        # the change lands at 750: exactly 75 %, not after it
        {"qid": 0, "trace_idx": 1, "probe_pos": [200, 750], "probe_group": [0, 1]},
        # an unanswered probe (-1) between two equal answers is no change
        {"qid": 0, "trace_idx": 2, "probe_pos": [200, 800, 900], "probe_group": [0, -1, 0]},
        # an unanswered probe between two different answers: the change is at 900
        {"qid": 0, "trace_idx": 3, "probe_pos": [200, 500, 900], "probe_group": [2, -1, 0]},
        # an early change only
        {"qid": 0, "trace_idx": 4, "probe_pos": [200, 400, 900], "probe_group": [0, 1, 1]},
        # two late changes: 0 -> 1 at 800, 1 -> 2 at 950
        {"qid": 1, "trace_idx": 0, "probe_pos": [100, 800, 950], "probe_group": [0, 1, 0]},
    ]
    out = late_flips(MarsLensTables(FILE, _features(rows), GROUPS))
    assert out.select("qid", "trace_idx").rows() == [(1, 0), (0, 3), (0, 0)]  # latest first
    why = dict(zip(out["trace_idx"].to_list(), out["why"].to_list(), strict=False))
    assert out.row(0, named=True)["why"] == "answer 6 → 5 at 95 % of the trace (2 late changes)"
    assert why[3] == "answer 11 → 7 at 90 % of the trace"


def test_the_items_open_the_trace_on_the_single_trace_tab() -> None:
    rows = [{"qid": 0, "trace_idx": 0, "probe_pos": [200, 800], "probe_group": [0, 1]}]
    tables = MarsLensTables(FILE, _features(rows), GROUPS)
    lens = next(x for x in LENSES.lenses if x.id == "mars-late-flips")
    items, n = run(lens, tables)
    assert n == 1
    row = items.row(0, named=True)
    assert item_query(lens, row) == (
        ("view", "Single trace"),
        ("file", FILE),
        ("qid", "0"),
        ("trace", "0"),
    )
    assert item_keys(lens, row) == {"file": FILE, "qid": "0", "trace": "0"}
    (q,) = queue_items(LensResult(lens, items, n, FILE, {"kind": "sample", "file": FILE}))
    assert (q.view, q.label, q.source) == (
        "mars",
        "Qwen3-32B · AIME 2025 · Q0 · trace 0",
        {"kind": "sample", "file": FILE},
    )


def test_nothing_found_is_an_empty_table_with_the_item_columns() -> None:
    tables = MarsLensTables(FILE, _features([{"qid": 0, "trace_idx": 0}]), GROUPS)
    for lens in LENSES.lenses:
        items, n = run(lens, tables)
        assert items.is_empty() and n == 1 and lens.empty
