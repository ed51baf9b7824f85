"""DAG structure, critical path = C, collapse of wide stages, layout."""

from __future__ import annotations

import pytest

from analysis.parason.dag import (
    build_dag,
    collapse_dag,
    layout,
    node_from_url,
    stage_label,
    top_branch,
    top_stage,
    url_node,
)
from analysis.parason.metrics import compute_metrics
from analysis.parason.parse import parse
from analysis.parason.tokens import get_counter
from cache.sample.parason import qwen_chat
from cache.sample.parason_texts import HAND, digit_sum_45, render

WORDS = get_counter("words")


def sample_text(key: str) -> str:
    t = next(x for x in [*HAND, digit_sum_45()] if x.key == key)
    return qwen_chat(t.question, render(t), t.content)


def test_kinds_edges_and_join_types():
    g = build_dag(parse(sample_text("last-two-digits-7-2024")), WORDS)  # mixed S/T block
    kinds = {n: d["kind"] for n, d in g.nodes(data=True)}
    assert kinds == {
        "s0": "segment",
        "b0:fork": "fork",
        "b0t0": "thread",
        "b0t1": "thread",
        "b0t2": "thread",
        "b0:join": "join",
        "s1": "segment",  # `</Parallel>` and the blank after it: the enclosing sequence
        "answer": "answer",
    }
    assert [g.nodes[t]["thread_kind"] for t in ("b0t0", "b0t1", "b0t2")] == [
        "subtask",
        "trial",
        "trial",
    ]
    assert g.nodes["b0:join"]["join_type"] == "MIXED"
    assert set(g.successors("b0:fork")) == {"b0t0", "b0t1", "b0t2"}
    assert set(g.predecessors("b0:join")) == {"b0t0", "b0t1", "b0t2"}
    assert "prompt" not in g
    g2 = build_dag(parse(sample_text("divisors-3600")))
    assert g2.nodes["b0:join"]["join_type"] == "AND"
    g3 = build_dag(parse(sample_text("pow2-100-mod7")))
    assert g3.nodes["b0:join"]["join_type"] == "OR"


@pytest.mark.parametrize("t", [*HAND, digit_sum_45()], ids=lambda t: t.key)
def test_critical_path_equals_metric_c(t):
    tr = parse(qwen_chat(t.question, render(t, 8), t.content))
    for counter in (WORDS, get_counter("estimate")):
        g = build_dag(tr, counter)
        m = compute_metrics(tr, counter)
        assert g.graph["C"] == pytest.approx(m.C)
        assert g.graph["T"] == pytest.approx(m.T)
        path = g.graph["critical_path"]
        assert path[0] == "s0" and path[-1] == "answer"
        assert all(g.nodes[n]["critical"] for n in path)
        assert sum(d["tokens"] for _, d in g.nodes(data=True)) == pytest.approx(m.T)


def test_spans_and_text_of_nodes():
    tr = parse(sample_text("divisors-3600"))
    g = build_dag(tr)
    t0 = g.nodes["b0t0"]
    s, e = t0["spans"][0]
    assert tr.text[s:e].startswith("\n1: 3600 / 2")  # the <Thread> wrapper is the fork's
    assert tr.text[s - len("<Thread>") : s] == "<Thread>"
    assert "exponent of 2" in t0["goal"]
    assert g.nodes["answer"]["label"] == "answer 45"


def test_warning_badges_on_nodes():
    t = "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines><Thread>1: x</Thread><Thread>2: trunc"
    g = build_dag(parse(t), WORDS)
    assert (
        "unclosed_thread" in g.nodes["b0t1"]["warnings"]
        or "unclosed_thread" in g.nodes["b0:join"]["warnings"]
    )
    assert g.nodes["b0t1"]["closed"] is False


def test_collapse_keeps_wide_stage_readable():
    tr = parse(sample_text("digit-sums-1-45"))
    g = build_dag(tr, WORDS)
    assert g.out_degree("b0:fork") == 45
    h = collapse_dag(g, max_branches=12)
    kids = list(h.successors("b0:fork"))
    assert len(kids) == 12
    more = h.nodes["b0:more"]
    assert more["kind"] == "collapsed" and more["count"] == 34
    assert any(h.nodes[k]["critical"] for k in kids)
    assert sum(d["tokens"] for _, d in h.nodes(data=True)) == pytest.approx(g.graph["T"])
    keep = collapse_dag(g, max_branches=12, keep=["b0t40"])
    assert "b0t40" in keep
    assert collapse_dag(build_dag(parse(sample_text("divisors-3600"))), 12).number_of_nodes() == 8


def test_layout_left_to_right():
    g = build_dag(parse(sample_text("not-div-7-11")), WORDS)
    pos = layout(g)
    assert set(pos) == set(g.nodes)
    for u, v in g.edges:
        assert pos[u][0] < pos[v][0]
    ys = sorted(pos[n][1] for n in g.successors("b0:fork"))
    assert len(set(ys)) == 3


def test_empty_dag():
    g = build_dag(parse(""))
    assert g.number_of_nodes() == 0 and g.graph["C"] == 0 and g.graph["critical_path"] == []


@pytest.mark.parametrize(
    ("internal", "url"),
    [
        ("b1t2", "2.3"),
        ("b0t0", "1.1"),
        ("b1:fork", "2.fork"),
        ("b0:join", "1.join"),
        ("b3:more", "4.more"),
        ("b0t2b1t0", "1.3.2.1"),
        ("b0t2b1:fork", "1.3.2.fork"),
        ("s0", "s0"),
        ("answer", "answer"),
    ],
)
def test_url_node_ids_are_one_based_and_old_ids_still_open(internal: str, url: str) -> None:
    assert url_node(internal) == url
    assert node_from_url(url) == internal
    assert node_from_url(internal) == internal  # an old 0-based link (casebook cases keep them)


@pytest.mark.parametrize(
    ("node", "stage"),
    [("b1t2", 1), ("b3:more", 3), ("b0t2b1t0", 0), ("b12:fork", 12), ("s0", None), ("answer", None)]
    + [("2.3", None), (None, None), ("b1", None)],
)
def test_a_nodes_top_stage_is_its_outer_blocks_index(node: str | None, stage: int | None) -> None:
    assert top_stage(node) == stage


@pytest.mark.parametrize(
    ("node", "branch"),
    [("b1t2", 2), ("b0t2b1t0", 2), ("b0t2b1:fork", 2), ("b12t10", 10), ("b3:more", None)]
    + [("b1:join", None), ("s0", None), ("answer", None), (None, None)],
)
def test_a_nodes_top_branch_is_its_outer_threads_index(
    node: str | None, branch: int | None
) -> None:
    assert top_branch(node) == branch


@pytest.mark.parametrize("raw", ["0.1", "2", "2.3.fork", "1.2.3", "nonsense", "2.x", ""])
def test_malformed_url_nodes_pass_through_unchanged(raw: str) -> None:
    assert node_from_url(raw) == raw  # the page then finds no such node and shows none


def test_labels_carry_the_url_ids() -> None:
    text = (
        "<Parallel><Outlines><Subtask>1: a</Subtask></Outlines><Thread>1: x</Thread></Parallel>"
        "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial><Trial>3: c</Trial></Outlines>"
        "<Thread>1: x</Thread><Thread>2: y</Thread><Thread>3: z</Thread></Parallel>"
    )
    g = build_dag(parse(text), get_counter("words"))
    assert g.nodes["b1t2"]["label"] == "trial 2.3" and url_node("b1t2") == "2.3"
    assert g.nodes["b1:fork"]["label"] == "fork of stage 2 (3 × trial)"
    assert g.nodes["b1:join"]["label"] == "join of stage 2 (OR)"
    assert stage_label("b0t2b1") == "stage 1.3.2"
