"""The whole-trajectory text view: every node's text is a `data-pick` span that selects the node
in place (through `components.common.click_text`, no reload), and dataset text stays escaped
inside and around the spans."""

from __future__ import annotations

import html
import re

from analysis.parason.parse import parse
from components.parason.text import PICK_CLASS, highlighted_html

HOSTILE = (
    '<think>\nFirst I note "quotes" & <script>alert("x")</script> here.\n'
    '<Parallel>\n<Outlines>\n<Trial> 1: try <b>bold</b> a="1"</Trial>\n'
    '<Trial> 2: try "two" <img src=x onerror=alert(1)></Trial>\n</Outlines>\n'
    '<Thread>\n1: one <script>alert("t1")</script> "q"\n</Thread>\n'
    "<Thread>\n2: two & more <iframe></iframe>\n</Thread>\n"
    "<Conclusion>\nboth\n</Conclusion>\n</Parallel>\n"
    "So the answer is $\\boxed{2}$.\n</think>\n\nThe answer is $\\boxed{2}$."
)
PICK = re.compile(rf'<span class="{PICK_CLASS}" data-pick="([^"]*)">')


def _picks(out: str) -> list[str]:
    return [html.unescape(n) for n in PICK.findall(out)]


def test_one_pick_span_per_run_of_a_node() -> None:
    traj = parse(HOSTILE)
    nodes = {n for n in traj.part_node if n != "prompt"}
    assert {"b0t0", "b0t1", "b0:fork", "b0:join"} <= nodes
    out = highlighted_html(traj, pickable=nodes)
    picks = _picks(out)
    # consecutive parts of one node share a span; the <Thread> wrappers belong to the block's
    # fork and join (published placement), so those two nodes come in several runs
    assert set(picks) == nodes
    assert picks.count("b0t0") == 1
    assert "<a " not in out and "href=" not in out  # no reload links any more
    # every character of the text is still there, escaped
    assert html.unescape(re.sub(r"<[^>]+>", "", out.split("</style>", 1)[1])) == traj.text


def test_selected_node_is_marked_for_the_component() -> None:
    traj = parse(HOSTILE)
    out = highlighted_html(traj, selected="b0t1", pickable=set(traj.part_node))
    assert out.count("data-picked") == 1 and "data-keep-scroll" in out
    picked = re.search(r'<span id="rte-parason-sel" data-picked style="[^"]*" title="([^"]*)"', out)
    assert picked is not None and picked.group(1).startswith("b0t1")


def test_no_unescaped_dataset_text() -> None:
    traj = parse(HOSTILE)
    out = highlighted_html(traj, selected="b0t0", pickable=set(traj.part_node))
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
    }


def test_picks_limited_and_off_by_default() -> None:
    traj = parse(HOSTILE)
    assert "data-pick" not in highlighted_html(traj)
    assert "<style>" not in highlighted_html(traj)
    out = highlighted_html(traj, pickable={"b0t1"}, show_prompt=True)
    assert _picks(out) == ["b0t1"]


def test_a_node_id_is_escaped_in_its_attribute() -> None:
    traj = parse("plain text")
    traj.part_node[:] = ['s0"><script>']
    out = highlighted_html(traj, pickable={'s0"><script>'})
    assert 'data-pick="s0&quot;&gt;&lt;script&gt;"' in out
