"""MARS in a real browser: a deep link opens a question whose confidence curves and probe
markers render without Plotly (lite SVG charts), the grid, the questions table and the probes
answer clicks, "zoom"
switches the curves to Plotly, and the vote-evolution tab draws its stacked areas."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import LITE_SVG, assert_no_exception, wait_for_app
from tests.e2e.journey_helpers import (
    SMALL,
    VIEWPORTS,
    choose_option,
    new_page,
    settled,
    shown_option,
)

pytestmark = pytest.mark.e2e

FILE = "DeepSeek-8B/aime25_deepseek.parquet"


def test_deep_link_renders_curves_and_probe_markers(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/mars?file={FILE}&qid=3&n=40")
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)
    # the curves chart: 40 curves as SVG paths, with its legend entries for curves, ends and
    # probe markers; no Plotly chart anywhere (its 4.7 MB bundle is not even loaded)
    curves = page.locator(f"{LITE_SVG} >> visible=true").last
    curves.locator("g.trace path").first.wait_for(timeout=60_000)
    assert page.locator(".js-plotly-plot").count() == 0
    legend = " ".join(curves.locator(".legend text").all_text_contents())
    assert "final answer" in legend
    assert "trace end" in legend
    assert "probe agrees with final answer" in legend or "probe differs from final answer" in legend
    # a legend click hides that trace, a second click brings it back (no rerun: in the browser)
    entry = curves.locator("[data-legend]").filter(has_text="wrong final answer")
    wrong = curves.locator('g.trace[data-name^="wrong final answer"]')
    assert entry.count() == 1 and wrong.count() == 1
    entry.click()
    wrong.first.wait_for(state="detached", timeout=5_000)
    entry.click()
    wrong.first.wait_for(state="attached", timeout=5_000)
    # the question from the link is the one shown
    expect(shown_option(page, "Question")).to_have_text(re.compile(r"^Q3 · pass@1"))
    assert "qid=3" in page.evaluate("() => window.location.search")


def test_vote_evolution_tab_from_a_link(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/mars?file={FILE}&qid=1&view=Vote+evolution")
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)
    # the stacked areas are drawn without Plotly (Plotly on "zoom")
    votes = page.locator(LITE_SVG).filter(has_text="ground truth:")
    votes.locator("g.trace path").first.wait_for(timeout=60_000)
    legend = " ".join(votes.locator("[data-legend]").all_text_contents())
    assert "(ground truth)" in legend and "no answer" in legend
    assert page.locator(".js-plotly-plot").count() == 0


def test_clicking_a_grid_square_opens_that_question(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/mars?file={FILE}")
    wait_for_app(page, timeout=120_000)
    # the grid is the page's first chart, drawn without Plotly
    squares = page.locator(LITE_SVG).first.locator('g.trace[data-name="questions"] path')
    squares.first.wait_for(timeout=60_000)
    assert squares.count() == 30
    squares.nth(13).click(force=True)
    page.wait_for_function("() => window.location.search.includes('qid=13')", timeout=30_000)
    wait_for_app(page)
    assert_no_exception(page)
    expect(shown_option(page, "Question")).to_have_text(re.compile(r"^Q13 · pass@1"))


@pytest.mark.parametrize("viewport", SMALL)
def test_the_questions_table_opens_a_question_by_click_or_keyboard(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}")
    table = page.locator('.rte-lite-table:has(table[aria-label="questions"])')
    expect(table.locator("tr[data-i]")).to_have_count(30)  # every question, nothing to scroll
    table.locator('tr[data-i="7"]').click()
    expect(page).to_have_url(re.compile(r"qid=7"))
    expect(table.locator('tr[data-i="7"]')).to_have_attribute("aria-selected", "true")
    question = shown_option(page, "Question")
    expect(question).to_have_text(re.compile(r"^Q7 · pass@1"))
    # the keyboard: the next row, Enter
    table.locator('tr[data-i="7"]').focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"qid=8"))
    expect(question).to_have_text(re.compile(r"^Q8 · pass@1"))
    assert_no_exception(page)
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_picked_probe_row_shows_its_text(app_url: str, browser, viewport: dict[str, int]) -> None:  # type: ignore[no-untyped-def]
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}&qid=3&view=Single+trace&trace=2")
    table = page.locator('.rte-lite-table:has(table[aria-label="probes"])')
    first = table.locator('tr[data-i="0"]')
    expect(first).to_have_attribute("aria-selected", "true")  # the first probe until a pick
    second = table.locator('tr[data-i="1"]')
    position = second.locator("td").first.inner_text().replace(",", "")
    second.click()
    expect(second).to_have_attribute("aria-selected", "true")
    expect(first).not_to_have_attribute("aria-selected", "true")
    expect(page.get_by_text(f"Probe at token {position},")).to_be_visible()
    assert_no_exception(page)
    page.context.close()


def test_clicking_a_probe_opens_the_trace_at_that_probe(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{app_url}/mars?file={FILE}&qid=3&n=1&win=2048")
    wait_for_app(page, timeout=120_000)
    curves = page.locator(LITE_SVG).last
    probes = curves.locator('g.trace[data-name^="probe"] path')
    probes.first.wait_for(timeout=60_000)
    # not the first probe (2,048 tokens): markers are drawn per class, so look for a later one
    tip = page.locator(".rte-lite-tip >> visible=true")
    for i in range(probes.count()):
        probe = probes.nth(i)
        probe.scroll_into_view_if_needed()
        probe.hover(force=True)
        # the hover text names the trace and the probe position, as Plotly's did
        tip.wait_for(state="visible", timeout=10_000)
        m = re.match(r"trace (\d+) @ token ([\d,]+)", tip.inner_text())
        assert m, tip.inner_text()
        trace, pos = int(m.group(1)), int(m.group(2).replace(",", ""))
        if pos > 2048:
            break
    assert pos > 2048
    probe.click(force=True)
    # the Single trace tab opens on that trace, with that probe's text under the table
    page.get_by_text(f"Probe at token {pos}", exact=False).wait_for(timeout=60_000)
    assert_no_exception(page)
    assert f"trace={trace}" in page.evaluate("() => window.location.search")


def test_zoom_draws_the_curves_with_plotly(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    """ "zoom" is the way to Plotly's zoom and pan: the same curves, drawn by Plotly."""
    page.goto(f"{app_url}/mars?file={FILE}&qid=3&n=10&zoom=true")
    wait_for_app(page, timeout=120_000)
    assert_no_exception(page)
    page.wait_for_selector(".js-plotly-plot .scatterlayer .js-line", timeout=60_000)
    legend = " ".join(page.locator(".js-plotly-plot .legendtext").all_text_contents())
    assert "final answer" in legend and "trace end" in legend
    # the light controls: the switch, the radio group and the select box each change the URL
    page.get_by_role("switch", name="zoom").click()
    expect(page).not_to_have_url(re.compile(r"zoom="))
    expect(page.locator(LITE_SVG).last).to_be_visible()  # the light chart again
    page.get_by_role("radio", name="quantile bands").check()
    expect(page).to_have_url(re.compile(r"show=quantile\+bands"))
    expect(page.get_by_role("radio", name="quantile bands")).to_be_checked()
    page.get_by_role("switch", name="probes").click()
    expect(page).to_have_url(re.compile(r"markers=false"))
    expect(page.get_by_role("switch", name="probes")).not_to_be_checked()
    choose_option(page, "Question", re.compile(r"^Q5 · "))
    expect(page).to_have_url(re.compile(r"qid=5\b"))
    expect(shown_option(page, "Question")).to_have_text(re.compile(r"^Q5 · pass@1"))
    assert_no_exception(page)


def test_back_leaves_a_view_whose_first_run_named_its_question(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    """The first run writes the question it opened on into the address (a copied link names
    it) without adding a history entry: one Back leaves the view. A question the reader picks
    adds one, so Back returns to the question before."""
    page.goto(f"{app_url}/lenses")
    expect(page.locator('[data-testid="stMain"] h1')).to_have_text("Lenses")
    page.goto(f"{app_url}/mars?file={FILE}&view=Data")
    expect(page).to_have_url(re.compile(r"/mars\?.*qid=0"))
    table = page.locator('.rte-lite-table:has(table[aria-label="questions"])')
    table.locator('tr[data-i="7"]').click()
    expect(page).to_have_url(re.compile(r"qid=7"))
    expect(shown_option(page, "Question")).to_have_text(re.compile(r"^Q7 · pass@1"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/mars\?.*qid=0"))
    expect(shown_option(page, "Question")).to_have_text(re.compile(r"^Q0 · pass@1"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/lenses$"))
    expect(page.locator('[data-testid="stMain"] h1')).to_have_text("Lenses")
    assert_no_exception(page)


@pytest.mark.parametrize("viewport", SMALL)
def test_back_from_another_view_returns_with_the_filters(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    """Leaving a view by its sidebar link, Streamlit clears the view's query first (its widgets
    bound to the URL); Back still returns to the view as it was: question, tab and filter."""
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}&qid=7&view=Single+trace&verdict=wrong")
    tab = page.get_by_role("tab", name="Single trace")
    expect(tab).to_have_attribute("aria-selected", "true")
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Lenses").click()
    expect(page.locator('[data-testid="stMain"] h1')).to_have_text("Lenses")
    expect(page).to_have_url(re.compile(r"/lenses$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/mars\?.*qid=7"))
    expect(page).to_have_url(re.compile(r"verdict=wrong"))
    expect(tab).to_have_attribute("aria-selected", "true")
    expect(shown_option(page, "Question")).to_have_text(re.compile(r"^Q7 · pass@1"))
    # the filter too: only wrong traces match, and the picker shows one
    expect(page.get_by_text(re.compile(r"^\d+ of \d+ traces match"))).to_be_visible()
    picker = page.get_by_role("combobox", name="Trace", exact=True)
    expect(picker).to_have_value(re.compile(r"^trace \d+ · wrong"))
    assert_no_exception(page)
    page.context.close()


@pytest.mark.parametrize("viewport", SMALL)
def test_the_tabs_open_by_click_or_keyboard_and_keep_the_url(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    """The views' tabs are one light row (`url_state.url_tabs`): a click or the arrow keys and
    Enter open a tab, the URL names it (none for the default) and a link's short name opens it."""
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}&qid=2&view=models")  # a link's short name
    tabs = page.get_by_role("tablist", name="MARS views")
    expect(tabs.get_by_role("tab", name="Compare models")).to_have_attribute(
        "aria-selected", "true"
    )
    expect(page.get_by_role("heading", name="Per question, side by side")).to_be_visible()
    expect(tabs.get_by_role("tab")).to_have_count(6)
    tabs.get_by_role("tab", name="Data").click()
    expect(page).to_have_url(re.compile(r"view=Data"))
    expect(tabs.get_by_role("tab", name="Data")).to_have_attribute("aria-selected", "true")
    # the keyboard: Home moves to the first tab, the arrows along the row, Enter opens
    tabs.get_by_role("tab", name="Data").focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(tabs.get_by_role("tab", name="Vote evolution")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"view=Vote\+evolution"))
    expect(page.locator(LITE_SVG).filter(has_text="ground truth:")).to_have_count(1)
    # the default tab leaves the URL
    tabs.get_by_role("tab", name="Curves").click()
    expect(tabs.get_by_role("tab", name="Curves")).to_have_attribute("aria-selected", "true")
    expect(page).not_to_have_url(re.compile(r"view="))
    expect(page).to_have_url(re.compile(r"qid=2"))
    assert_no_exception(page)
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_help_tip_is_reached_by_tab_and_shows_its_text(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    """A light control's "?" is in the Tab order, and focused it shows its help as hovering does
    (a mouse's tooltip is the browser's), opening leftwards in the window's right half."""
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}&qid=2")
    tip = page.get_by_role("img", name="show the probe answers as markers")
    shown = "(t) => getComputedStyle(t, '::after').content"
    expect(tip).to_be_visible()
    assert tip.evaluate(shown) == "none"
    page.get_by_role("switch", name="probes").focus()
    page.keyboard.press("Tab")
    expect(tip).to_be_focused()
    expect(tip).to_have_attribute("data-tip", "show the probe answers as markers")
    assert "show the probe answers as markers" in tip.evaluate(shown)
    box = tip.bounding_box()
    assert box is not None
    end = box["x"] > viewport["width"] / 2
    expect(tip).to_have_class(
        re.compile(r"rte-lc-help-end") if end else re.compile(r"^rte-lc-help$")
    )
    assert_no_exception(page)
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_capture_form_shows_whole_where_it_opens(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    """The question's "Add question" form opens wide enough for its suggested title and low
    enough that its Save button is on screen, at 1024x768 too, without scrolling the page."""
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}&qid=2")
    # on the page as drawn: a form opened while the run still adds the view below it is placed
    # against a button that then moves
    settled(page)
    page.get_by_role("button", name=re.compile("Add question")).click()
    body = page.locator('[data-testid="stPopoverBody"]')
    title = body.get_by_label("Title")
    expect(title).to_have_value(re.compile(r"Q2"))
    expect(body.get_by_role("button", name="Save case")).to_be_in_viewport(ratio=1)
    # the whole suggested title fits its box
    assert title.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    assert_no_exception(page)
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_link_naming_a_probe_opens_with_its_text_in_sight(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    """A search hit's link names a probe (`probe=`): the Single trace tab opens with that probe's
    row picked and its full text in the window, not two screens below the top."""
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}&qid=0&trace=1&view=Single+trace&probe=8192")
    expect(page.get_by_text("(the probe the link names)")).to_be_visible()
    expect(page.locator(".st-key-mars_probetext_box")).to_be_in_viewport()
    assert_no_exception(page)
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_question_picked_in_the_overview_comes_into_sight(
    app_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    """The overview (a grid and a table of every question) is long: a question picked there
    brings its numbers and tabs into the window, not only a moved frame above them."""
    page = new_page(browser, viewport)
    page.goto(f"{app_url}/mars?file={FILE}")
    table = page.locator('.rte-lite-table:has(table[aria-label="questions"])')
    table.locator('tr[data-i="7"]').click()
    expect(page).to_have_url(re.compile(r"qid=7"))
    stats = page.locator(".st-key-mars_question_stats")
    expect(stats).to_contain_text("traces")
    expect(stats).to_be_in_viewport()
    assert_no_exception(page)
    page.context.close()
