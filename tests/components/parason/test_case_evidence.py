"""The Parason captures store bars: tokens per stage (all vs critical path), a stage's tokens
per branch with the longest highlighted, and T and C of the 1x and 8x expansions."""

from __future__ import annotations

import json

import pytest

from analysis.parason.metrics import StageStats, metrics_for_text
from analysis.parason.tokens import get_counter
from cache.casebook.evidence import EVIDENCE_KEY
from components.parason import cases as pcs

WORDS = get_counter("words")
ONE_BLOCK = (
    "<think>\nA B C\n<Parallel>\n<Outlines>\n<Subtask>1: x</Subtask>\n<Subtask>2: y</Subtask>\n"
    "</Outlines>\n<Thread>\n1: a a a a</Thread><Thread>\n2: b b</Thread>\n</Parallel>\nD E\n"
    "</think>\n\nF \\boxed{7}"
)


def test_a_trajectory_snapshot_draws_tokens_per_stage() -> None:
    m = metrics_for_text(ONE_BLOCK, WORDS)
    snap = pcs.trajectory_snapshot(m, True)
    ev = snap[EVIDENCE_KEY]
    (stage,) = m.stage_stats
    assert ev["kind"] == "bars" and ev["categories"] == ["stage 1"]
    assert [s["name"] for s in ev["series"]] == ["all tokens", "critical path"]
    assert ev["series"][0]["values"] == [pytest.approx(stage.s + sum(stage.thread_tokens))]
    assert ev["series"][1]["values"] == [pytest.approx(stage.critical)]
    assert "T = 33, C = 30" in ev["title"] and snap["T"] == 33
    json.dumps(snap, allow_nan=False)
    plain = metrics_for_text("<think>\nno blocks\n</think>\n\n\\boxed{1}", WORDS)
    assert EVIDENCE_KEY not in pcs.trajectory_snapshot(plain, None)


def test_a_stage_snapshot_highlights_its_longest_branch() -> None:
    s = StageStats(1, "trial", "OR", 3, ["trial"] * 3, 30.8, [20.9, 46.7, 16.7], 77.5, 1.3, None)
    snap = pcs.stage_snapshot(s, "words")
    ev = snap[EVIDENCE_KEY]
    assert ev["categories"] == ["branch 1", "branch 2", "branch 3", "s_b (non-thread)"]
    assert ev["series"][0]["values"] == [20.9, 46.7, 16.7, 30.8]
    assert ev["highlight"] == {"category": "branch 2"} and ev["y_label"] == "tokens (words)"
    assert snap["stage_number"] == 2


def test_a_pair_snapshot_draws_t_and_c_of_both_expansions() -> None:
    m = metrics_for_text(ONE_BLOCK, WORDS)
    snap = pcs.pair_snapshot(m, m, 1)
    ev = snap[EVIDENCE_KEY]
    assert [s["name"] for s in ev["series"]] == ["sft-1x", "sft-8x"]
    assert ev["series"][0]["values"] == [33, 30] and snap["added_branches"] == 1
