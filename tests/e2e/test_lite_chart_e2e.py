"""The light chart (`components.common.lite_chart`) in a real browser, on a throwaway one-page
app in a narrow column: a title longer than the chart is cut to fit with "…" and keeps the whole
text as its tip, and a narrow numeric x axis still has tick labels."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.journey_helpers import SMALL, VIEWPORTS, new_page, one_page_app

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]

TITLE = "final answers (green = ground truth, hatched = no answer) of every trace in the pool"
AXIS = "mean confidence of the last 2,048 tokens, over every trace of the question"
APP = f"""
import plotly.graph_objects as go
import streamlit as st

from components.common.lite_chart import lite_chart

fig = go.Figure(go.Bar(x=[1200 * i for i in range(1, 40)], y=[i % 7 for i in range(1, 40)]))
fig.update_layout(title={TITLE!r}, xaxis_title={AXIS!r}, height=300)
with st.container(key="narrow", width=260):
    lite_chart(fig, key="c")

answers = ["948", "982 ✓", "1005", "709", "1031", "956", "(no answer)"]
bars = go.Figure(go.Bar(x=answers, y=[50, 30, 19, 11, 8, 6, 4]))
bars.update_layout(xaxis_title="final answer", xaxis_type="category", height=300)
with st.container(key="answers", width=280):
    lite_chart(bars, key="b")

curve = go.Figure(
    go.Scatter(
        x=list(range(12)), y=[0.5 + 0.02 * i for i in range(12)], mode="lines+markers",
        text=[f"prefix {{i}}" for i in range(12)], hovertemplate="%{{text}}<extra></extra>",
    )
)
curve.update_layout(height=300)
with st.container(key="curve"):
    lite_chart(curve, key="k")

ranked = go.Figure()
for name, rank in (("drawn first, ranked 3", 3), ("drawn second, unranked", None),
                   ("drawn third, ranked 1", 1)):
    ranked.add_trace(go.Scatter(x=[0, 1], y=[0, 1], name=name, legendrank=rank))
ranked.update_layout(height=300, legend={{"orientation": "h"}})
with st.container(key="ranked"):
    lite_chart(ranked, key="r")
"""


@pytest.fixture(scope="module")
def chart_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with one_page_app(tmp_path_factory, "lite_chart_app", APP) as url:
        yield url


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_points_tip_sits_above_it_and_leaves_its_neighbours_in_sight(
    browser: Browser, chart_app: str, viewport: dict[str, int]
) -> None:
    """The hover box of a point on a flat-ish curve opens above the pointer, inside the chart:
    beside the pointer it covered the next points of the curve."""
    page = new_page(browser, viewport)
    page.goto(chart_app)
    points = page.locator('.st-key-curve svg[data-testid="lite-chart-svg"] [data-p]')
    expect(points).to_have_count(12)
    point = points.nth(6)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tip = page.locator(".st-key-curve .rte-lite-tip")
    expect(tip).to_have_text("prefix 6")
    tip_box = tip.bounding_box()
    chart = page.locator('.st-key-curve svg[data-testid="lite-chart-svg"]').bounding_box()
    assert tip_box is not None and chart is not None
    assert tip_box["y"] + tip_box["height"] < box["y"]  # above the point
    for i in (5, 7):  # its neighbours stay in sight
        near = points.nth(i).bounding_box()
        assert near is not None
        overlap_x = min(near["x"] + near["width"], tip_box["x"] + tip_box["width"]) - max(
            near["x"], tip_box["x"]
        )
        overlap_y = min(near["y"] + near["height"], tip_box["y"] + tip_box["height"]) - max(
            near["y"], tip_box["y"]
        )
        assert overlap_x <= 0 or overlap_y <= 0, i
    assert chart["x"] - 1 <= tip_box["x"] <= chart["x"] + chart["width"]
    page.context.close()


@pytest.mark.parametrize("viewport", SMALL)
def test_the_legend_lists_traces_by_their_legend_rank_as_plotly_does(
    browser: Browser, chart_app: str, viewport: dict[str, int]
) -> None:
    """Plotly orders legend items by `legendrank` (default 1000), then as drawn: a view draws
    the minority class last (on top) and still lists it first; a band drawn beneath its line
    is listed after it."""
    page = new_page(browser, viewport)
    page.goto(chart_app)
    items = page.locator('.st-key-ranked svg[data-testid="lite-chart-svg"] [data-legend] text')
    expect(items).to_have_text(
        ["drawn third, ranked 1", "drawn first, ranked 3", "drawn second, unranked"]
    )
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_long_titles_are_cut_to_fit_and_keep_their_whole_text(
    browser: Browser, chart_app: str, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    page.goto(chart_app)
    svg = page.locator('.st-key-narrow svg[data-testid="lite-chart-svg"]')
    cut = svg.locator("g > text", has_text=re.compile("…$"))
    expect(cut).to_have_count(2)  # the chart's title and the axis title
    tips = svg.locator("g > title")
    expect(tips).to_have_count(2)
    assert sorted(tips.all_text_contents()) == sorted([TITLE, AXIS])
    chart = svg.bounding_box()
    assert chart is not None
    for i in range(2):
        box = cut.nth(i).bounding_box()
        assert box is not None and box["x"] + box["width"] <= chart["x"] + chart["width"] + 1
    for text in cut.all_text_contents():
        head = text.removesuffix("…")
        assert head and (TITLE.startswith(head) or AXIS.startswith(head))
    # the narrow x axis is labelled (two "nice" ticks used to both fall outside its range)
    labels = [t for t in svg.locator("g.grid > text").all_text_contents() if t.endswith("k")]
    assert labels, svg.locator("g.grid").inner_html()[:500]
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_category_labels_too_wide_for_their_room_are_turned_whole(
    browser: Browser, chart_app: str, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    page.goto(chart_app)
    svg = page.locator('.st-key-answers svg[data-testid="lite-chart-svg"]')
    turned = svg.locator('g.grid text[transform^="rotate(-45"]')
    expect(turned).to_have_count(7)  # every answer labelled, none dropped
    assert turned.all_text_contents() == [
        "948",
        "982 ✓",
        "1005",
        "709",
        "1031",
        "956",
        "(no answer)",
    ]
    boxes = [turned.nth(i).bounding_box() for i in range(7)]
    assert all(b is not None for b in boxes)
    # neighbours do not overlap: each turned label starts right of the one before it
    lefts = [b["x"] + b["width"] for b in boxes if b]
    assert lefts == sorted(lefts)
    title = svg.locator("g.grid text", has_text="final answer").last.bounding_box()
    assert title is not None
    lowest = max(b["y"] + b["height"] for b in boxes if b)
    assert title["y"] >= lowest - 1  # the axis title sits under the turned labels
    # the tallest bar stops below the plot's top, as Plotly leaves room (it touched it)
    bar_top = float(svg.locator('rect[data-y="50"]').get_attribute("y") or 0)
    plot_top = float(svg.locator("clipPath rect").first.get_attribute("y") or 0) + 12
    assert bar_top - plot_top >= 4, (bar_top, plot_top)
    page.context.close()
