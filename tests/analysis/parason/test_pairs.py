"""The 1x vs 8x quantities on a hand-built pair where the extra Trial lengthens C, the accepted
Trial counterfactual, and the subset-level spreads with their exact intervals.

Counts use the "words + tags" counter, so every figure can be checked by hand:
1x: s0 = "go on" + <Parallel> = 3; fork = <Outlines>, 2 items (2 tags + "1: a" each = 4),
</Outlines>, 2 <Thread> = 12; threads 4 ("1: x x Accepted.") and 6; join = 2 </Thread>;
s1 = </Parallel> + "so done" = 3. T = 30, C = 3 + 3 + (12 + 2) + 6 = 26.
8x adds Trial 3 (item 4 tokens, <Thread> 1, </Thread> 1, thread "3: x x x x x x x x" = 9):
T = 45, s_b = 20, C = 6 + 20 + 9 = 35.
"""

from __future__ import annotations

import polars as pl
import pytest

from analysis.parason.accepted import accepted_view, trial_verdict
from analysis.parason.metrics import compute_metrics
from analysis.parason.pairs import (
    change_counts,
    correctness_change,
    median_ci,
    pair_rows,
    pair_spreads,
    pair_stages,
    paired_table,
    wilson,
)
from analysis.parason.parse import parse
from analysis.parason.tables import added_nodes
from analysis.parason.tokens import get_counter

WORDS = get_counter("words")
ONE = (
    "go on <Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines>"
    "<Thread>1: x x Accepted.</Thread><Thread>2: x x x x Rejected.</Thread></Parallel> so done"
)
EIGHT = ONE.replace("</Outlines>", "<Trial>3: c</Trial></Outlines>").replace(
    "</Thread></Parallel>", "</Thread><Thread>3: x x x x x x x x</Thread></Parallel>"
)


def _analysed(text: str):  # type: ignore[no-untyped-def]  # (trajectory, counts, metrics) of a test text
    traj = parse(text)
    counts = WORDS.count_parts(traj, None)
    return traj, counts, compute_metrics(traj, WORDS, counts=counts)


def test_headline_rows_show_the_longer_critical_path_as_a_ratio() -> None:
    _, _, m1 = _analysed(ONE)
    _, _, m8 = _analysed(EIGHT)
    assert (m1.T, m1.C, m8.T, m8.C) == (30.0, 26.0, 45.0, 35.0)
    rows = {r.metric: r for r in pair_rows(m1, m8)}
    t = rows["tokens T (compute)"]
    assert (t.one, t.eight, t.change, t.change_kind) == (30.0, 45.0, 15.0, "diff")
    c = rows["critical path C (latency)"]
    assert c.change == pytest.approx(35 / 26) and c.change_kind == "ratio"
    assert c.verdict == "slower"
    s = rows["speedup T / C (own row)"]
    assert (s.one, s.eight) == (pytest.approx(30 / 26), pytest.approx(45 / 35))
    assert s.change == pytest.approx((45 / 35) / (30 / 26)) and s.change_kind == "ratio"
    lat = rows["T_1x / C (vs 1x work)"]
    assert (lat.one, lat.eight) == (pytest.approx(30 / 26), pytest.approx(30 / 35))
    assert lat.change == pytest.approx(26 / 35) and lat.verdict == "slower"
    assert rows["total branches"].change == 1.0 and rows["stages"].change == 0.0
    assert rows["trial ratio"].change == pytest.approx(19 / 45 - 10 / 30)


def test_stage_rows_of_both_expansions() -> None:
    t1, _, m1 = _analysed(ONE)
    t8, _, m8 = _analysed(EIGHT)
    (st,) = pair_stages(m1, m8, t8, added_nodes(t1, t8))
    assert (st.stage, st.kind, st.join, st.branches_1x, st.branches_8x, st.added) == (
        0, "trial", "OR", 2, 3, 1,
    )  # fmt: skip
    assert (st.cost_1x, st.cost_8x, st.longest_1x, st.longest_8x) == (20.0, 29.0, 6.0, 9.0)
    assert st.speedup_1x == pytest.approx(24 / 20) and st.speedup_8x == pytest.approx(39 / 29)
    assert st.speedup_change == pytest.approx((39 / 29) / (24 / 20))
    assert st.cost_change == pytest.approx(29 / 20)


def test_a_stage_the_1x_row_lacks_has_no_1x_figures() -> None:
    t1, _, m1 = _analysed("plain text only")
    t8, _, m8 = _analysed(EIGHT)
    (st,) = pair_stages(m1, m8, t8, added_nodes(t1, t8))
    assert st.branches_1x is None and st.cost_1x is None and st.speedup_change is None
    assert st.added == 3
    rows = {r.metric: r for r in pair_rows(m1, m8)}
    assert rows["critical path C (latency)"].verdict == "slower"  # 3 -> 35 tokens


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("x x Accepted.", "accepted"),
        ("Accepted at first, then REJECTED.", "rejected"),  # the last verdict word wins
        ("this one is unaccepted", None),  # whole words only
        ("", None),
        ("no verdict here", None),
    ],
)
def test_trial_verdict(text: str, verdict: str | None) -> None:
    assert trial_verdict(text) == verdict


def test_accepted_view_counterfactual_c() -> None:
    t1, c1, m1 = _analysed(ONE)
    v1 = accepted_view(t1, c1, m1.C)
    (s,) = v1.stages
    assert [(t.node, t.position, t.tokens, t.verdict) for t in s.trials] == [
        ("b0t0", 1, 4.0, "accepted"),
        ("b0t1", 2, 6.0, "rejected"),
    ]
    assert (s.accepted, s.first, s.s, s.cost_all, s.cost_accepted, s.cost_first) == (
        "b0t0", "b0t0", 14.0, 20.0, 18.0, 18.0,
    )  # fmt: skip
    assert (v1.C, v1.C_accepted, v1.C_first, v1.marked) == (26.0, 24.0, 24.0, 1)
    t8, c8, m8 = _analysed(EIGHT)
    v8 = accepted_view(t8, c8, m8.C)
    assert [t.verdict for t in v8.stages[0].trials] == ["accepted", "rejected", None]
    assert (v8.C, v8.C_accepted, v8.C_first) == (35.0, 30.0, 30.0)  # 20 + 4 instead of 20 + 9


def test_accepted_trial_that_is_not_the_first_to_finish() -> None:
    text = ONE.replace("Accepted.", "Rejected.", 1).replace(
        "x x x x Rejected.", "x x x x Accepted."
    )
    traj, counts, m = _analysed(text)
    v = accepted_view(traj, counts, m.C)
    (s,) = v.stages
    assert (s.accepted, s.first) == ("b0t1", "b0t0")
    assert (v.C_accepted, v.C_first) == (26.0, 24.0)  # the accepted Trial is the longest


def test_no_single_accepted_trial_keeps_the_longest_and_and_stages_are_skipped() -> None:
    two = ONE.replace("Rejected.", "Accepted.")
    traj, counts, m = _analysed(two)
    v = accepted_view(traj, counts, m.C)
    assert v.stages[0].accepted is None and v.marked == 0
    assert (v.C_accepted, v.C_first) == (26.0, 24.0)
    sub = ONE.replace("Trial>", "Subtask>")
    traj, counts, m = _analysed(sub)
    v = accepted_view(traj, counts, m.C)
    assert v.stages == [] and (v.C_accepted, v.C_first) == (m.C, m.C)


def test_correctness_change() -> None:
    assert correctness_change(True, False) == "right → wrong"
    assert correctness_change(False, True) == "wrong → right"
    assert correctness_change(True, True) == "same"
    assert correctness_change(None, True) == "unknown"


def test_median_ci_is_the_exact_order_statistic_interval() -> None:
    assert median_ci([1, 2, 3, 4, 5]) is None  # 2 / 32 > 5 %: no interval at n = 5
    assert median_ci([6, 1, 5, 2, 4, 3]) == (1, 6)  # P(B = 0) = 1/64 <= 2.5 %
    # n = 10: P(B <= 1) = 11/1024 <= 2.5 % < P(B <= 2) = 56/1024, so [x_(2), x_(9)]
    assert median_ci(list(range(10, 0, -1))) == (2, 9)
    assert median_ci([]) is None


def test_wilson_interval() -> None:
    assert wilson(0, 0) is None
    lo, hi = wilson(0, 10)  # type: ignore[misc]  # n > 0 gives an interval
    assert lo == 0.0 and hi == pytest.approx(0.27753, abs=1e-5)
    lo, hi = wilson(5, 10)  # type: ignore[misc]  # n > 0 gives an interval
    assert (lo, hi) == (pytest.approx(0.23659, abs=1e-5), pytest.approx(0.76341, abs=1e-5))


def _tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    t1 = pl.DataFrame(
        {
            "uuid": ["a", "b", "c", "d", "e", "f", "g"],
            "T": [100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 50.0],
            "C": [80.0, 80.0, 80.0, 80.0, 80.0, 80.0, 40.0],
            "correctness": [True, True, False, True, None, False, True],
            "extra": [1, 2, 3, 4, 5, 6, 7],
        }
    )
    t8 = pl.DataFrame(
        {
            "uuid": ["a", "b", "c", "d", "e", "f", "z"],
            "T": [150.0, 160.0, 170.0, 100.0, 180.0, 190.0, 10.0],
            "C": [90.0, 100.0, 70.0, 80.0, 120.0, 110.0, 5.0],
            "correctness": [True, False, True, True, True, False, True],
        }
    )
    return t1, t8


def test_paired_table_and_spreads() -> None:
    pairs = paired_table(*_tables())
    assert pairs["uuid"].to_list() == ["a", "b", "c", "d", "e", "f"]
    assert pairs["dC"].to_list() == [10.0, 20.0, -10.0, 0.0, 40.0, 30.0]
    assert pairs["dT"].to_list() == [50.0, 60.0, 70.0, 0.0, 80.0, 90.0]
    assert pairs["change"].to_list() == [
        "same", "right → wrong", "wrong → right", "same", "unknown", "same",
    ]  # fmt: skip
    dc, ratio, dt = pair_spreads(pairs)
    assert (dc.n, dc.median, dc.low, dc.high) == (6, 15.0, -10.0, 40.0)
    assert dc.share_up == pytest.approx(4 / 6)
    assert ratio.median == pytest.approx((90 / 80 + 100 / 80) / 2)
    assert (ratio.low, ratio.high) == (70 / 80, 120 / 80)
    assert ratio.share_up == pytest.approx(4 / 6)
    assert (dt.median, dt.low, dt.high, dt.share_up) == (65.0, 0.0, 90.0, pytest.approx(5 / 6))


def test_change_counts_with_wilson_intervals() -> None:
    counts = {c.change: c for c in change_counts(paired_table(*_tables()))}
    assert (counts["same"].count, counts["same"].n) == (3, 5)
    assert (counts["right → wrong"].count, counts["wrong → right"].count) == (1, 1)
    assert (counts["unknown"].count, counts["unknown"].n, counts["unknown"].low) == (1, 6, None)
    lo, hi = wilson(1, 5)  # type: ignore[misc]  # n > 0 gives an interval
    assert (counts["right → wrong"].low, counts["right → wrong"].high) == (lo, hi)
    assert lo == pytest.approx(0.03622, abs=1e-5) and hi == pytest.approx(0.62447, abs=1e-5)
