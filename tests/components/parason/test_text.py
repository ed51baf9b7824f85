"""The whole-trajectory text view: every node's text is a link selecting that node, and dataset
text stays escaped inside and around the links."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs

from analysis.parason.parse import parse
from components.parason.text import LINK_CLASS, highlighted_html, node_href

HOSTILE = (
    '<think>\nFirst I note "quotes" & <script>alert("x")</script> here.\n'
    '<Parallel>\n<Outlines>\n<Trial> 1: try <b>bold</b> a="1"</Trial>\n'
    '<Trial> 2: try "two" <img src=x onerror=alert(1)></Trial>\n</Outlines>\n'
    '<Thread>\n1: one <script>alert("t1")</script> "q"\n</Thread>\n'
    "<Thread>\n2: two & more <iframe></iframe>\n</Thread>\n"
    "<Conclusion>\nboth\n</Conclusion>\n</Parallel>\n"
    "So the answer is $\\boxed{2}$.\n</think>\n\nThe answer is $\\boxed{2}$."
)
PARAMS = {"subset": "sft-1x", "uuid": "b8c7711c", "view": "Trajectory", "counter": "estimate"}
LINK = re.compile(rf'<a class="{LINK_CLASS}" href="([^"]*)" target="_self" data-node="([^"]*)">')


def _links(out: str) -> list[tuple[dict[str, list[str]], str]]:
    found = []
    for href, node in LINK.findall(out):
        assert href.startswith("?")
        found.append((parse_qs(html.unescape(href)[1:]), html.unescape(node)))
    return found


def test_one_link_per_node_with_its_id() -> None:
    traj = parse(HOSTILE)
    nodes = {n for n in traj.part_node if n != "prompt"}
    assert {"b0t0", "b0t1", "b0:fork", "b0:join"} <= nodes
    out = highlighted_html(traj, link_params=PARAMS)
    links = _links(out)
    # consecutive parts of one node share a link; the <Thread> wrappers belong to the block's
    # fork and join (published placement), so those two nodes come in several runs
    assert {n for _, n in links} == nodes
    assert sum(n == "b0t0" for _, n in links) == 1
    for query, node in links:
        assert query["node"] == [node]
        for k, v in PARAMS.items():
            assert query[k] == [v]
    assert out.count("<a ") == out.count("</a>") == len(links)
    # every character of the text is still there, escaped
    assert html.unescape(re.sub(r"<[^>]+>", "", out.split("</style>", 1)[1])) == traj.text


def test_no_unescaped_dataset_text() -> None:
    out = highlighted_html(parse(HOSTILE), selected="b0t0", link_params=PARAMS)
    for raw in ("<script", "<b>", "<img", "<iframe", 'alert("x")', '"quotes"', 'a="1"'):
        assert raw not in out
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in out
    assert "&lt;img src=x onerror=alert(1)&gt;" in out
    # the only tags are ours
    assert set(re.findall(r"<(/?[a-z]+)", out)) <= {
        "style",
        "/style",
        "div",
        "/div",
        "span",
        "/span",
        "a",
        "/a",
    }


def test_links_limited_and_off_by_default() -> None:
    traj = parse(HOSTILE)
    assert "<a " not in highlighted_html(traj)
    assert "<style>" not in highlighted_html(traj)
    out = highlighted_html(traj, link_params=PARAMS, linkable={"b0t1"}, show_prompt=True)
    assert [n for _, n in _links(out)] == ["b0t1"]


def test_node_href_escapes_and_replaces_node() -> None:
    href = node_href({"uuid": 'a"b<c&d', "node": "old", "q": "x y"}, "b0t1")
    assert '"' not in href and "<" not in href
    query = parse_qs(html.unescape(href)[1:])
    assert query == {"uuid": ['a"b<c&d'], "q": ["x y"], "node": ["b0t1"]}
