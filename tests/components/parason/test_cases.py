"""What a Parason case keeps: badge text, suggested titles, item keys and JSON-able snapshots."""

from __future__ import annotations

import json

from analysis.parason.metrics import StageStats
from components.parason import cases as pcs


def test_badge_is_empty_without_cases() -> None:
    assert pcs.badge(0) == "" and pcs.badge(2) == "● 2"


def test_titles_are_plain_and_short() -> None:
    q = "How many   integers $n$ with $1 \\le n \\le 1000$ are divisible by neither 7 nor 11 at all?"
    title = pcs.trajectory_title("sft-1x", q)
    assert title.startswith("sft-1x · How many integers n") and "$" not in title
    assert len(title) <= len("sft-1x · ") + pcs.TITLE_QUESTION and title.endswith("…")
    assert pcs.trajectory_title("sft-8x", None) == "sft-8x · (no question)"


def test_stage_item_and_snapshot() -> None:
    s = StageStats(1, "trial", "OR", 2, ["trial", "trial"], 30.8, [20.9, 16.7], 51.7, 1.324, None)
    assert pcs.stage_item("sft-1x", "u", s) == {"subset": "sft-1x", "uuid": "u", "stage": "1"}
    snap = pcs.stage_snapshot(s, "words")
    assert snap["stage_number"] == 2 and snap["items"] == "2×T" and snap["imbalance"] is None
    assert snap["max_thread"] == 20.9 and snap["sum_threads"] == 37.6
    json.dumps(snap)
    assert pcs.pair_item("u") == {"uuid": "u", "subset": "sft-1x vs sft-8x"}


def test_node_snapshot() -> None:
    d = {"label": "trial 1", "kind": "thread", "thread_kind": "trial", "tokens": 16.66,
         "critical": True, "warnings": ["stray_close"]}  # fmt: skip
    snap = pcs.node_snapshot("b1t0", d, "words")
    assert snap["kind"] == "trial" and snap["tokens"] == 16.7 and snap["critical"] is True
    assert snap["warnings"] == "stray_close" and "on the critical path" in snap["facts"]
