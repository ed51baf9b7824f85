"""A search result's correctness is its text's own, shown on that hit's line: a MARS trace's
probes are right or wrong each, whatever its final answer, so the item's header names none."""

from __future__ import annotations

from dataclasses import replace

from analysis.search.results import Hit
from components.search.hits import item_html


def _hit(field: str, locator: str, correct: bool | None) -> Hit:
    return Hit(
        dataset="mars", file="f.parquet", group="question 0", item="0/1",
        label="question 0 · trace 1", field=field, locator=locator, correct=correct,
        view="mars", query=(("qid", "0"), ("trace", "1")), keys=(), row=0, start=0, end=4,
        before="", match="wait", after=" a moment",
    )  # fmt: skip


def test_each_hit_carries_its_own_correctness_and_the_header_none() -> None:
    hits = [_hit("probe raw_text", "token 8192", True), _hit("answer", "", False)]
    out = item_html(hits[0], hits, "MARS", total=2)
    head, _, body = out.partition("question 0 · trace 1")
    header = body[: body.index("</div>")]
    assert "correct" not in header and "wrong" not in header
    first, second = body.split("token 8192", 1)[1].split("answer ↗", 1)
    assert "· correct</span>" in first and "wrong" not in first
    assert "· wrong</span>" in second


def test_a_text_without_correctness_gets_no_badge() -> None:
    out = item_html(_hit("ground truth", "", None), [_hit("ground truth", "", None)], "MARS", 1)
    assert "· correct" not in out and "· wrong" not in out


def test_each_hits_link_marks_the_text_it_matched() -> None:
    """The link opens the view with the hit's own text to mark (`hl`), and `hlcs` only when the
    search matched case; a text too long to carry is not marked (the link still opens)."""
    hit = _hit("probe raw_text", "token 8192", True)
    out = item_html(hit, [hit], "MARS", 1)
    assert "href='mars?qid=0&amp;trace=1&amp;hl=wait'" in out
    exact = item_html(hit, [hit], "MARS", 1, case_sensitive=True)
    assert "&amp;hl=wait&amp;hlcs=1'" in exact
    long = replace(hit, match="x" * 201, end=201)
    assert "hl=" not in item_html(long, [long], "MARS", 1)
    assert "href='mars?qid=0&amp;trace=1'" in item_html(long, [long], "MARS", 1)


def test_hits_in_one_text_share_one_link_and_identical_snippets_show_once() -> None:
    """Repetitive reasoning text: three hits in one node are one link ("3 hits here"), the two
    that read alike one snippet (×2); a hit in the next text gets a link of its own."""
    a = replace(_hit("reasoning", "node s0", True), row=5, start=10, before="let me ")
    b = replace(a, start=90)  # reads exactly as `a`
    c = replace(a, start=200, before="so I ")
    d = replace(a, row=6, locator="node 1.1", before="let me ")
    out = item_html(a, [a, b, c, d], "Parason", total=4)
    assert out.count("class='rte-search-hit'") == 2
    assert "node s0 ↗</a>" in out and "node 1.1 ↗</a>" in out
    assert out.count("3 hits here") == 1 and "(×2 here)" in out
    assert out.count("<mark") == 3  # a + b once, c, d


def test_hits_differing_only_in_case_share_a_link_unless_the_search_matched_case() -> None:
    a = replace(_hit("reasoning", "node s0", True), row=5, match="Wait")
    b = replace(a, start=40, match="wait")
    assert item_html(a, [a, b], "Parason", 2).count("class='rte-search-hit'") == 1
    exact = item_html(a, [a, b], "Parason", 2, case_sensitive=True)
    assert exact.count("class='rte-search-hit'") == 2
