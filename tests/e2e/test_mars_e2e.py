"""MARS in a real browser: a deep link opens a question whose confidence curves and probe
markers render (SVG for a few curves, WebGL for many), and the vote-evolution tab draws its
stacked areas."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import assert_no_exception, wait_for_app

pytestmark = pytest.mark.e2e

FILE = "DeepSeek-8B/aime25_deepseek.parquet"


def test_deep_link_renders_curves_and_probe_markers(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/mars?file={FILE}&qid=3&n=40")
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)
    # (the question grid sits in a collapsed expander once a question is open)
    page.locator(".js-plotly-plot >> visible=true").first.wait_for(timeout=60_000)
    # the curves figure: 40 curves are drawn as SVG lines (no WebGL canvas to set up), plus its
    # legend entries for curves, ends and probe markers
    page.wait_for_selector(".js-plotly-plot .scatterlayer .js-line", timeout=30_000)
    assert page.locator(".js-plotly-plot .gl-container canvas").count() == 0
    legend = " ".join(page.locator(".js-plotly-plot .legendtext").all_text_contents())
    assert "final answer" in legend
    assert "trace end" in legend
    assert "probe: right answer" in legend or "probe: wrong / no answer" in legend
    # the question from the link is the one shown
    boxes = page.locator('[data-testid="stSelectbox"]')
    shown = " ".join(
        boxes.nth(i).inner_text()
        + " "
        + " ".join(
            boxes.nth(i)
            .locator("input")
            .evaluate_all("els => els.map(e => e.value || e.placeholder || '')")
        )
        for i in range(boxes.count())
    )
    assert "Q3 · pass@1" in shown, shown
    assert "qid=3" in page.evaluate("() => window.location.search")


def test_vote_evolution_tab_from_a_link(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/mars?file={FILE}&qid=1&view=Vote+evolution")
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)
    page.locator(".js-plotly-plot .scatterlayer .trace >> visible=true").first.wait_for(
        timeout=60_000
    )
    legend = " ".join(page.locator(".js-plotly-plot .legendtext").all_text_contents())
    assert "(ground truth)" in legend and "no answer" in legend


def test_clicking_a_grid_square_opens_that_question(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/mars?file={FILE}")
    wait_for_app(page, timeout=120_000)
    # the grid is the page's first chart (the curves below draw SVG markers too)
    squares = page.locator(".js-plotly-plot").first.locator(".scatterlayer .trace .points path")
    squares.first.wait_for(timeout=60_000)
    assert squares.count() == 30
    squares.nth(13).click(force=True)
    page.wait_for_function("() => window.location.search.includes('qid=13')", timeout=30_000)
    wait_for_app(page)
    assert_no_exception(page)
    boxes = page.locator('[data-testid="stSelectbox"] input')
    values = boxes.evaluate_all("els => els.map(e => e.value || e.placeholder || '')")
    shown = (
        " ".join(values)
        + " "
        + " ".join(page.locator('[data-testid="stSelectbox"]').all_inner_texts())
    )
    assert "Q13 · pass@1" in shown, shown


_PROBE_PIXEL = """() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    g => (g._fullData || []).some(t => (t.name || '').startsWith('probe')));
  if (!gd) return null;
  // _fullData: x/y decoded from plotly's binary arrays
  const t = gd._fullData.find(t => (t.name || '').startsWith('probe'));
  const i = Math.min(2, t.x.length - 1);  // not the first probe (2,048 tokens)
  if (!t.customdata || !Array.isArray(t.customdata[i])) return null;
  const L = gd._fullLayout, box = gd.getBoundingClientRect();
  return {x: box.left + L._size.l + L.xaxis.d2p(t.x[i]),
          y: box.top + L._size.t + L.yaxis.d2p(t.y[i]),
          pos: Math.round(t.customdata[i][1]), trace: t.customdata[i][0]};
}"""


def test_clicking_a_probe_opens_the_trace_at_that_probe(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{app_url}/mars?file={FILE}&qid=3&n=1&smooth=1")
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot .scatterlayer .js-line", timeout=60_000)
    page.wait_for_function(f"({_PROBE_PIXEL})() !== null", timeout=30_000)
    target = page.evaluate(_PROBE_PIXEL)
    assert target["pos"] > 2048, target
    page.locator(".js-plotly-plot").last.scroll_into_view_if_needed()
    target = page.evaluate(_PROBE_PIXEL)
    page.mouse.click(target["x"], target["y"])
    # the Single trace tab opens on that trace, with that probe's text under the table
    page.get_by_text(f"Probe at token {target['pos']}", exact=False).wait_for(timeout=60_000)
    assert_no_exception(page)
    assert f"trace={target['trace']}" in page.evaluate("() => window.location.search")
