"""The Parason page's tables as pure functions: filters, frames, 1x/8x rows, DAG bookkeeping."""

from __future__ import annotations

import polars as pl
import pytest

from analysis.parason.analyse import analyse_row
from analysis.parason.dag import build_dag, collapse_dag
from analysis.parason.metrics import compute_metrics
from analysis.parason.parse import parse
from analysis.parason.tables import (
    added_nodes,
    browse_frame,
    collapse_notes,
    filter_rl,
    items_summary,
    known_node,
    node_facts,
    plain_question,
    resolve_uuid,
    rl_frame,
    rl_sources,
    shown_node,
    speedup_range,
    speedup_top,
    stage_frame,
    warning_counts,
    warnings_frame,
    widest_stage,
)
from analysis.parason.tokens import get_counter
from cache.sample.parason import qwen_chat
from cache.sample.parason_texts import digit_sum_45, render

WORDS = get_counter("words")
ONE = (
    "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines>"
    "<Thread>1: alpha</Thread><Thread>2: beta</Thread></Parallel>"
)
EIGHT = ONE.replace("</Outlines>", "<Trial>3: c</Trial></Outlines>").replace(
    "</Thread></Parallel>", "</Thread><Thread>3: gamma</Thread></Parallel>"
)


def test_speedup_slider_top_ignores_non_finite() -> None:
    assert speedup_top(pl.Series([1.2, 3.26, float("inf"), float("nan"), None])) == 3.5
    assert speedup_top(pl.Series([float("inf")])) == 2.0
    assert speedup_top(pl.Series([], dtype=pl.Float64)) == 2.0
    assert speedup_top(pl.Series([1e300])) == 1000.0  # bounded: a slider over 1e300 is useless


def test_speedup_range_is_none_over_the_whole_slider() -> None:
    assert speedup_range(1.0, 3.5, 3.5) is None
    assert speedup_range(1.5, 3.5, 3.5) == (1.5, 3.5)
    assert speedup_range(1.0, 2.0, 3.5) == (1.0, 2.0)


def test_resolve_uuid_by_full_id_or_unique_prefix() -> None:
    t = pl.DataFrame({"uuid": ["abcdef12-x", "abcdef99-y", "zzzzzz00"]})
    assert resolve_uuid(t, "zzzzzz00") == "zzzzzz00"
    assert resolve_uuid(t, "abcdef12") == "abcdef12-x"
    assert resolve_uuid(t, "abcdef") is None  # two matches
    assert resolve_uuid(t, "zzzzz") is None  # shorter than 6
    assert resolve_uuid(t, None) is None and resolve_uuid(t, "") is None


def test_plain_question_and_browse_frame() -> None:
    assert plain_question("Find  $x$\nif $3600$") == "Find x if 3600"
    assert plain_question("a" * 100, 10) == "a" * 9 + "…"
    view = pl.DataFrame(
        {
            "uuid": ["0123456789ab"],
            "question": ["What is $1+1$?"],
            "correctness": [True],
            "speedup": [1.5],
            "T": [10.0],
            "C": [5.0],
            "stages": [2],
            "branches": [[2, 3]],
            "kind_mix": ["trial"],
            "n_warnings": [1],
            "warning_codes": [["stray_tag"]],
            "note_codes": [["no_boxed"]],
            "counted_total": [120.0],
            "stored_total": [125.0],
        }
    )
    shown = browse_frame(view)
    assert shown.columns[:6] == ["uuid", "question", "correctness", "speedup", "T", "C"]
    row = shown.row(0, named=True)
    assert row["uuid"] == "01234567" and row["question"] == "What is 1+1?"
    assert row["branches"] == "2, 3" and row["warnings"] == "stray_tag"
    assert row["notes"] == "no_boxed"  # an informational note, apart from the warnings
    assert row["vs_stored"] == -5.0  # counted minus stored, shown per row


def test_items_summary_counts_kinds_in_first_seen_order() -> None:
    assert items_summary(["subtask"] * 45) == "45×S"
    assert items_summary(["trial", "subtask", "trial", ""]) == "2×T 1×S 1×?"
    assert items_summary([]) == ""


def test_warnings_frame_and_counts() -> None:
    traj = parse("<Parallel><Thread>1: x</Thread></Parallel></Thread> tail")
    frame = warnings_frame(traj)
    assert frame.height == len(traj.warnings) > 0
    assert frame.columns == ["code", "severity", "position", "message", "context"]
    counts = warning_counts(traj)
    assert [c.code for c in counts] == sorted({w.code for w in traj.warnings})
    assert sum(c.count for c in counts) == len(traj.warnings)
    stray = next(c for c in counts if c.code == "stray_close")
    assert stray.severity == "warning" and "closing tag" in stray.description
    assert warnings_frame(parse("")).schema["position"] == pl.Int64


def test_stage_frame_rows() -> None:
    m = compute_metrics(parse(ONE), WORDS)
    frame = stage_frame(m)
    assert frame.height == 1
    row = frame.row(0, named=True)
    assert row["stage"] == 1 and row["join"] == "OR" and row["items"] == "2×T"
    assert stage_frame(compute_metrics(parse("no blocks"), WORDS)).height == 0


def test_added_nodes() -> None:
    assert added_nodes(parse(ONE), parse(EIGHT)) == {"b0t2"}


def test_dag_bookkeeping_of_a_collapsed_stage() -> None:
    t = digit_sum_45()
    a = analyse_row({"qwen_text": qwen_chat(t.question, render(t), t.content)}, "words")
    g = a.dag
    assert widest_stage(g) == 45
    h = collapse_dag(g, 12)
    assert "b0:more" in h and "b0:more" not in g
    notes = collapse_notes(g, h)
    assert len(notes) == 1 and "largest 11 of 45 branches shown" in notes[0] and "+34" in notes[0]
    assert collapse_notes(g, g) == []
    assert known_node("b0:more", g) == "b0:more" and known_node("nonsense", g) is None
    assert known_node("b0t1", g) == "b0t1" and known_node(None, g) is None
    assert shown_node("b0:more", g, h) == "b0:more" and shown_node("b0:more", g, g) is None
    assert shown_node("b0:more", g, None) is None and shown_node("b0t1", g, None) == "b0t1"
    assert widest_stage(build_dag(parse("plain text"), WORDS)) == 0


def test_node_facts() -> None:
    assert node_facts({"kind": "thread", "thread_kind": "trial", "tokens": 1234.56}) == [
        "kind: trial",
        "1,234.6 tokens",
    ]
    facts = node_facts({"kind": "fork", "tokens": 1, "critical": True, "warnings": ["a", "b"]})
    assert facts[2:] == ["on the critical path", "warnings: a, b"]


@pytest.fixture
def rl() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "index": [0, 1, 2],
            "prompt": ["How many MISSISSIPPI words", "Sum of 2 and 2" + "x" * 200, "Other"],
            "data_source": ["polaris", "deepscaler", None],
            "ability": ["math"] * 3,
            "ground_truth": ["34650", None, "7"],
        }
    )


def test_rl_search_and_frame(rl: pl.DataFrame) -> None:
    assert rl_sources(rl) == ["deepscaler", "polaris"]
    assert filter_rl(rl, "", None).height == 3
    assert filter_rl(rl, "  mississippi ", []).height == 1
    assert filter_rl(rl, "34650", None)["index"].to_list() == [0]  # the ground truth matches
    assert filter_rl(rl, None, ["deepscaler"])["index"].to_list() == [1]
    assert filter_rl(rl, "sum", ["polaris"]).height == 0
    assert filter_rl(rl, ".*", None).height == 0  # literal, not a regex
    shown = rl_frame(rl)
    assert shown.columns == ["index", "data_source", "ability", "ground_truth", "prompt (start)"]
    assert max(len(p) for p in shown["prompt (start)"]) == 120
