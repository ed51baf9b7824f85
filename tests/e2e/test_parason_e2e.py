"""Parason in a real browser: a deep link opens the trajectory's DAG and the node's text, model
HTML is shown as text (never executed), and clicking a DAG node selects it."""

from __future__ import annotations

import pytest

from cache.sample.parason import make_uuid
from tests.e2e.conftest import assert_no_exception, wait_for_app

pytestmark = pytest.mark.e2e

FOUR = make_uuid("not-div-7-11")
HTML_ROW = make_uuid("malformed-html-script")


def test_deep_link_shows_dag_and_node_text(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/parason?uuid={FOUR}&node=b1t0")
    wait_for_app(page)
    assert_no_exception(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .js-plotly-plot', timeout=30_000)
    # the DAG: one marker per node in the nodes trace (4 stages, 9 threads, segments, answer)
    n_points = page.locator(
        '[data-testid="stPlotlyChart"] .scatterlayer .trace .points path'
    ).count()
    assert n_points >= 9 + 8
    node_text = page.locator(".rte-node-text").first.text_content() or ""
    assert "Union = 142 + 90 - 12 = 220" in node_text
    whole = page.locator(".rte-parason-text").first.text_content() or ""
    assert "<Parallel>" in whole and "floor(999/7) = 142" in whole
    assert "uuid=" in page.url and "node=b1t0" in page.url
    # the text view scrolled to the selected node
    page.goto(f"{app_url}/parason?uuid={FOUR}&node=b3t1")
    wait_for_app(page)
    page.wait_for_selector("#rte-parason-sel", timeout=30_000)
    page.wait_for_timeout(300)
    assert page.locator("#rte-parason-text").evaluate("e => e.scrollTop") > 0


def test_model_html_is_text_not_markup(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{app_url}/parason?uuid={HTML_ROW}&node=b0t0")
    wait_for_app(page)
    assert_no_exception(page)
    box = page.locator(".rte-parason-text").first
    box.wait_for(timeout=30_000)
    assert "<script>alert(1)</script>" in (box.text_content() or "")
    assert box.locator("script, img, b").count() == 0
    assert "<script>alert('xss')</script>" in (
        page.locator(".rte-node-text").first.text_content() or ""
    )
    page.wait_for_timeout(500)
    assert dialogs == []


def test_clicking_a_node_selects_it(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/parason?uuid={FOUR}")
    wait_for_app(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.locator(".js-plotly-plot").wait_for(timeout=30_000)
    traces = chart.locator(".scatterlayer .trace")
    # the node trace is the one with the most markers
    counts = [traces.nth(i).locator(".points path").count() for i in range(traces.count())]
    nodes = traces.nth(counts.index(max(counts))).locator(".points path")
    assert page.locator(".rte-node-text").count() == 0
    nodes.nth(2).click(force=True)
    page.wait_for_function("() => window.location.search.includes('node=')", timeout=20_000)
    wait_for_app(page)
    assert_no_exception(page)
    assert page.locator(".rte-node-text").count() == 1


def test_clicking_the_text_selects_its_node(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/parason?view=Trajectory&uuid=b8c7711c")
    wait_for_app(page)
    assert_no_exception(page)
    box = page.locator(".rte-parason-text").first
    box.wait_for(timeout=30_000)
    assert page.locator(".rte-node-text").count() == 0
    link = box.locator('a.rte-node-link[data-node="b0t1"]')
    assert link.count() == 1
    link.get_by_text("Removing the 2s leaves 225").click()
    page.wait_for_function("() => window.location.search.includes('node=b0t1')", timeout=20_000)
    wait_for_app(page)
    assert_no_exception(page)
    node_text = page.locator(".rte-node-text").first
    node_text.wait_for(timeout=30_000)
    assert "2: Removing the 2s leaves 225 = 9 * 25." in (node_text.text_content() or "")
    assert "uuid=b8c7711c" in page.url
    # the clicked node is the outlined one in the text view
    assert page.locator("#rte-parason-sel").first.text_content() == "<Thread>"
