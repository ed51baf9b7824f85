"""Pure pieces of the Parason tabs: the 1x/8x table text, node links with repeated query keys,
warning badges and the chart click reader."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl

from analysis.parason.metrics import compute_metrics
from analysis.parason.parse import parse
from analysis.parason.tokens import get_counter
from components.parason.charts_tab import selected_uuid
from components.parason.compare import compare_frame
from components.parason.text import highlighted_html, node_href
from components.parason.trajectory import text_link_params, warning_badges

WORDS = get_counter("words")
ONE = (
    "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines>"
    "<Thread>1: alpha</Thread><Thread>2: beta</Thread></Parallel>"
)
EIGHT = ONE.replace("</Outlines>", "<Trial>3: c</Trial></Outlines>").replace(
    "</Thread></Parallel>", "</Thread><Thread>3: gamma</Thread></Parallel>"
)


def test_compare_frame_is_display_text() -> None:
    m1, m8 = compute_metrics(parse(ONE), WORDS), compute_metrics(parse(EIGHT), WORDS)
    frame = compare_frame(m1, m8)
    rows = {r["metric"]: r for r in frame.iter_rows(named=True)}
    assert rows["total branches"] == {
        "metric": "total branches",
        "sft-1x": "2",
        "sft-8x": "3",
        "change": "+1",
    }
    assert rows["speedup T/C"]["sft-1x"].endswith("×")
    assert rows["trial ratio"]["change"].endswith(" pt")
    assert rows["parallel ratio"]["sft-8x"].endswith("%")


def test_node_links_keep_every_value_of_a_repeated_key() -> None:
    pairs = text_link_params(
        [("kinds", "subtask"), ("kinds", "trial"), ("view", "Browse"), ("uuid", "u&1")]
    )
    assert pairs == [
        ("kinds", "subtask"),
        ("kinds", "trial"),
        ("uuid", "u&1"),
        ("view", "Trajectory"),
    ]
    body = highlighted_html(parse(ONE), link_params=pairs)
    hrefs = re.findall(r'<a class="rte-node-link" href="([^"]*)"', body)
    assert hrefs
    for h in hrefs:
        got = parse_qsl(html.unescape(h)[1:])
        assert [v for k, v in got if k == "kinds"] == ["subtask", "trial"]
        assert ("uuid", "u&1") in got and ("view", "Trajectory") in got
    href = html.unescape(node_href(iter([("kinds", "a"), ("kinds", "b"), ("node", "old")]), "b0t1"))
    assert parse_qsl(href[1:]) == [("kinds", "a"), ("kinds", "b"), ("node", "b0t1")]


def test_warning_badges_escape_and_count() -> None:
    traj = parse("<Parallel><Thread>1: x</Thread></Parallel></Thread></Thread>")
    chips = warning_badges(traj)
    assert "⚠ stray_close ×2" in chips and "<script" not in chips


def test_selected_uuid_reads_dicts_and_attribute_events() -> None:
    event = {"selection": {"points": [{"customdata": None}, {"customdata": ["u2", 3]}]}}
    assert selected_uuid(event) == "u2"
    assert selected_uuid({"selection": {"points": []}}) is None
    assert selected_uuid(None) is None
