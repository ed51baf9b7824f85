"""Parason in a real browser: a deep link opens the trajectory's DAG and the node's text, model
HTML is shown as text (never executed), and clicking a DAG node selects it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from cache.sample.parason import make_uuid
from tests.e2e.conftest import LITE_SVG, assert_no_exception, drawn, wait_for_app
from tests.e2e.journey_helpers import SMALL, STATS_CUT, new_page, vp_id

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]

FOUR = make_uuid("not-div-7-11")
HTML_ROW = make_uuid("malformed-html-script")
NODES = 'g.trace[data-name="nodes"] path[data-p]'  # a DAG's node markers (a lite chart)
DAG_NODES = f"{LITE_SVG} {NODES}"


def test_deep_link_shows_dag_and_node_text(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/parason?uuid={FOUR}&node=b1t0")
    wait_for_app(page)
    assert_no_exception(page)
    # the DAG (a lite chart): one marker per node in the nodes trace (4 stages, 9 threads,
    # segments, answer)
    nodes = page.locator(DAG_NODES)
    expect(nodes.first).to_be_visible(timeout=30_000)
    assert nodes.count() >= 9 + 8
    node_text = page.locator(".rte-node-text").first.text_content() or ""
    assert "Union = 142 + 90 - 12 = 220" in node_text
    whole = page.locator(".rte-parason-text").first.text_content() or ""
    assert "<Parallel>" in whole and "floor(999/7) = 142" in whole
    assert "uuid=" in page.url and "node=b1t0" in page.url
    # the 1-based form the labels use ("trial 2.1") opens the same node
    page.goto(f"{app_url}/parason?uuid={FOUR}&node=2.1")
    wait_for_app(page)
    expect(page.locator(".rte-node-text").first).to_contain_text("Union = 142 + 90 - 12 = 220")
    # the text view scrolled to the selected node
    page.goto(f"{app_url}/parason?uuid={FOUR}&node=b3t1")
    wait_for_app(page)
    page.wait_for_selector("#rte-parason-sel", timeout=30_000)
    # the box scrolls once its component has drawn; wait for that outcome itself (the box lives
    # in the component's shadow root, which the locator pierces and document.querySelector not)
    box = page.locator("#rte-parason-text").element_handle()
    page.wait_for_function("(box) => box.scrollTop > 0", arg=box, timeout=30_000)


def test_model_html_is_text_not_markup(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{app_url}/parason?uuid={HTML_ROW}&node=b0t0")
    drawn(page)  # every component has inserted its text: a script in it would have run by now
    assert_no_exception(page)
    box = page.locator(".rte-parason-text").first
    box.wait_for(timeout=30_000)
    assert "<script>alert(1)</script>" in (box.text_content() or "")
    assert box.locator("script, img, b").count() == 0
    assert "<script>alert('xss')</script>" in (
        page.locator(".rte-node-text").first.text_content() or ""
    )
    assert dialogs == []


def test_clicking_a_node_selects_it(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/parason?uuid={FOUR}")
    wait_for_app(page)
    nodes = page.locator(DAG_NODES)
    expect(nodes.nth(2)).to_be_visible(timeout=30_000)
    assert page.locator(".rte-node-text").count() == 0
    nodes.nth(2).click(force=True)
    page.wait_for_function("() => window.location.search.includes('node=')", timeout=20_000)
    wait_for_app(page)
    assert_no_exception(page)
    assert page.locator(".rte-node-text").count() == 1


def test_clicking_the_text_selects_its_node(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    """In place: no page reload (a marker set on `window` survives), the text box keeps its
    scroll position, and the node goes into the URL as before."""
    page.goto(f"{app_url}/parason?view=Trajectory&uuid=b8c7711c")
    wait_for_app(page)
    assert_no_exception(page)
    box = page.locator(".rte-parason-text").first
    box.wait_for(timeout=30_000)
    assert page.locator(".rte-node-text").count() == 0
    pick = box.locator('[data-pick="b0t1"]')
    assert pick.count() == 1
    page.evaluate("() => { window.__rte_no_reload = 1; }")
    box.evaluate("e => { e.scrollTop = 120; }")
    scrolled = box.evaluate("e => e.scrollTop")
    started = page.evaluate("() => performance.timeOrigin")
    pick.get_by_text("Removing the 2s leaves 225").click()
    page.wait_for_function("() => window.location.search.includes('node=1.2')", timeout=20_000)
    node_text = page.locator(".rte-node-text").first
    node_text.wait_for(timeout=30_000)
    wait_for_app(page)
    assert_no_exception(page)
    assert page.evaluate("() => window.__rte_no_reload") == 1  # same document: no reload
    assert page.evaluate("() => performance.timeOrigin") == started
    assert "2: Removing the 2s leaves 225 = 9 * 25." in (node_text.text_content() or "")
    assert "uuid=b8c7711c" in page.url
    # the clicked node is the outlined one, and the text did not jump to the top
    box = page.locator(".rte-parason-text").first
    assert "Removing the 2s" in (box.locator("#rte-parason-sel").first.text_content() or "")
    assert box.evaluate("e => e.scrollTop") >= min(scrolled, 1)


# ---------------------------------------------------------------- issue 11 (items 19, 20, 25)
# elements whose text is cut: an ellipsis (scrollWidth > clientWidth) or a label wrapped
# mid-word ("Correctn/ess"); metric values, widget labels, select values, toggles, tabs
OVERFLOWING = """() => {
  const out = [];
  const sel = '[data-testid="stMetricValue"] div, [data-testid="stMetricLabel"] p,'
    + ' [data-testid="stWidgetLabel"] p, [data-baseweb="select"] div[value],'
    + ' [data-testid="stDownloadButton"] .stMarkdownEllipsis, [data-testid="stCheckbox"] .stMarkdownEllipsis,'
    + ' [data-baseweb="select"] div, [data-testid="stButtonGroup"] button p, [role="tab"] p,'
    + ' .gtitle';
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const text = (el.innerText || el.textContent || '').trim();
    if (!text) continue;
    if (el.scrollWidth > el.clientWidth + 1) { out.push(text.slice(0, 40)); continue; }
    if (el.closest('[data-testid="stWidgetLabel"]')) {
      const lines = Math.round(r.height / parseFloat(getComputedStyle(el).lineHeight || '20'));
      if (lines > 1 && !text.includes(' ')) out.push(text.slice(0, 40));
    }
  }
  for (const t of document.querySelectorAll('.gtitle')) {  // plotly titles wider than the chart
    const svg = t.closest('svg');
    if (svg && t.getBoundingClientRect().right > svg.getBoundingClientRect().right + 1)
      out.push((t.textContent || '').slice(0, 40));
  }
  return out;
}"""


@pytest.mark.parametrize(
    "query", ["", f"?uuid={FOUR}", "?view=1x+vs+8x", "?view=Charts", "?view=RL"],
    ids=["browse", "trajectory", "compare", "charts", "rl"],
)  # fmt: skip
def test_nothing_is_cut_at_1024x768(app_url: str, browser, query: str) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1024, "height": 768})
    pg = ctx.new_page()
    try:
        pg.goto(f"{app_url}/parason{query}")
        drawn(pg)
        assert_no_exception(pg)
        assert pg.evaluate(OVERFLOWING) == []
        assert pg.evaluate(STATS_CUT) == []
    finally:
        ctx.close()


def test_first_click_on_a_chart_point_opens_it(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/parason?view=Charts")
    drawn(page)  # the lite charts have drawn, so their points take clicks
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0  # no Plotly bundle
    points = page.locator(LITE_SVG).first.locator("g.trace path[data-p]")
    expect(points.nth(5)).to_be_visible()
    points.nth(5).click(force=True)
    page.wait_for_function(
        "() => window.location.search.includes('view=Trajectory')", timeout=20_000
    )
    wait_for_app(page)
    assert_no_exception(page)
    assert "uuid=" in page.url
    selected = page.locator('[role="tab"][aria-selected="true"]').first.text_content()
    assert (selected or "").strip() == "Trajectory"
    assert page.locator("text=Question.").count() == 1


def test_node_click_in_1x_vs_8x_logs_no_stack_trace(app_url: str, cache_dir, page) -> None:  # type: ignore[no-untyped-def]
    port = app_url.rsplit(":", 1)[1]
    log = cache_dir / f"streamlit-e2e-{port}.log"
    before = log.read_text(errors="replace") if log.exists() else ""
    page.goto(f"{app_url}/parason?view=1x+vs+8x")
    wait_for_app(page)
    dags = page.locator(LITE_SVG)
    expect(dags).to_have_count(2, timeout=30_000)
    nodes = dags.nth(1).locator(NODES)  # the 8x DAG
    expect(nodes.nth(2)).to_be_visible()
    nodes.nth(2).click(force=True)
    page.wait_for_function("() => window.location.search.includes('node=')", timeout=20_000)
    wait_for_app(page)
    assert_no_exception(page)
    assert "subset=sft-8x" in page.url
    # the rerun has ended (script state notRunning), so whatever it logged is in the file: the
    # server's log handler writes each record as it is emitted
    added = log.read_text(errors="replace")[len(before) :]
    assert "Stack (most recent call last)" not in added and "Traceback" not in added, added[-2000:]


# each Markdown table's right edge against its column's (px): > 0 where a table runs past it
_TABLES_PAST_COLUMN = """() => [...document.querySelectorAll('[data-testid="stMain"] table')]
  .filter((t) => t.offsetParent !== null)
  .map((t) => {
    const col = t.closest('[data-testid="stVerticalBlock"]').getBoundingClientRect();
    const box = t.getBoundingClientRect();
    return [Math.round(box.right - col.right), t.scrollWidth > t.clientWidth];
  })"""


@pytest.mark.parametrize("width", [1024, 860])
def test_wide_tables_scroll_inside_their_column_at_1024(app_url: str, page, width: int) -> None:  # type: ignore[no-untyped-def]
    """The 1x vs 8x tables are Markdown (components/common/md_table.py): none runs past its
    column at 1024x768, and on a window narrower still the stage table, wider than the column,
    scrolls sideways inside it instead of running past."""
    page.set_viewport_size({"width": width, "height": 768})
    page.goto(f"{app_url}/parason?view=1x+vs+8x&uuid={FOUR[:8]}")
    wait_for_app(page)
    assert_no_exception(page)
    expect(page.get_by_text("Accepted Trial").first).to_be_visible()
    expect(page.locator('[data-testid="stMain"] table')).to_have_count(4)
    edges = page.evaluate(_TABLES_PAST_COLUMN)
    assert all(past <= 1 for past, _ in edges), edges
    if width < 1024:
        assert any(scrolls for _, scrolls in edges), edges  # the stage table scrolls


@pytest.mark.parametrize("viewport", SMALL, ids=vp_id)
def test_an_rl_row_opens_its_prompt(app_url: str, browser, viewport) -> None:  # type: ignore[no-untyped-def]
    """The RL prompts open on a light table: a click on a row shows that prompt, marks the row
    and names it in the URL; a search that leaves it out hides it; the link opens it again."""
    pg = new_page(browser, viewport)
    try:
        pg.goto(f"{app_url}/parason?view=RL")
        drawn(pg)
        assert_no_exception(pg)
        expect(pg.locator('[data-testid="stDataFrame"]')).to_have_count(0)
        table = pg.locator(".rte-lite-table").first
        row = table.locator('tr[data-i="2"]')
        index = (row.locator("td").first.text_content() or "").strip()
        assert index
        row.click()
        expect(pg.get_by_text(f"Prompt {index}", exact=False).first).to_be_visible()
        expect(table.locator('tr[data-i="2"]')).to_have_attribute("aria-selected", "true")
        pg.wait_for_function(f"() => location.search.includes('rlp={index}')")
        link = pg.url
        search = pg.get_by_label("Search prompts")
        search.fill("MISSISSIPPI")  # another prompt: the table narrows to it, the pick is hidden
        search.press("Enter")
        expect(table.locator("tr[data-i]")).to_have_count(1)
        expect(pg.get_by_text(f"Prompt {index}", exact=False)).to_have_count(0)
        assert "rlq=MISSISSIPPI" in pg.url
        pg.goto(link)  # the link names the prompt: it opens with its row marked
        expect(pg.get_by_text(f"Prompt {index}", exact=False).first).to_be_visible()
        expect(table.locator('tr[data-i="2"]')).to_have_attribute("aria-selected", "true")
    finally:
        pg.context.close()


@pytest.mark.parametrize("viewport", SMALL, ids=vp_id)
def test_a_trajectory_opens_from_a_few_typed_characters(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    """The Trajectory tab's picker takes typing: a uuid's first characters and Enter open that
    trajectory's DAG, and the URL names it."""
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/parason?view=Trajectory")
    picker = page.get_by_role("combobox", name="Trajectory", exact=True)
    expect(picker).to_have_value(re.compile(r"^pick a trajectory"))
    picker.click()
    picker.fill(FOUR[:6])
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"uuid={FOUR}"))
    expect(page.locator(DAG_NODES).nth(2)).to_be_visible()
    expect(picker).to_have_value(re.compile(rf"^{FOUR[:8]} · "))
    assert_no_exception(page)
    page.context.close()
