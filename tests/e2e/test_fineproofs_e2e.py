"""FineProofs in a real browser: a deep link to a trace shows the highlighted text, each
highlighted span holds exactly its step's text (UTF-16 offsets mapped right), and clicking an
overview cell opens that trace."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from playwright.sync_api import expect

from analysis.fineproofs.overview import starting_points
from analysis.fineproofs.store import traces_table
from analysis.fineproofs.utf16 import Utf16Index
from cache.fineproofs_io import load_trace
from tests.e2e.conftest import assert_no_exception, wait_for_app
from tests.e2e.journey_helpers import choose_option, shown_option

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]


def _pick_trace(root: Path) -> tuple[str, int]:
    """A trace with astral characters before a step and CRLF (the hard case), else any astral."""
    df = pl.read_parquet(root / "data/prefix_values.parquet")
    fallback = None
    for pid, sample in df.select("problem_id", "sample_index").unique(maintain_order=True).rows():
        text = load_trace(root, pid, sample).text
        if not Utf16Index(text).fast_path:
            fallback = fallback or (pid, sample)
            if "\r\n" in text:
                return pid, sample
    assert fallback is not None
    return fallback


def test_deep_link_highlights_step_spans(app_url: str, page, sample_root: Path) -> None:  # type: ignore[no-untyped-def]
    root = sample_root / "fineproofs"
    pid, sample = _pick_trace(root)
    rec = load_trace(root, pid, sample)
    idx = Utf16Index(rec.text)
    expected = [idx.slice(s.utf16_start, s.utf16_end) for s in rec.steps]
    assert all(e is not None for e in expected)
    page.goto(f"{app_url}/fineproofs?problem={pid}&sample={sample}&prefix=2")
    wait_for_app(page)
    assert_no_exception(page)
    page.wait_for_selector("#fp-trace-text .fp-step", timeout=30_000)
    spans = page.locator("#fp-trace-text .fp-step")
    got = spans.evaluate_all("els => els.map(e => [e.dataset.ordinal, e.textContent])")
    assert [int(o) for o, _ in got] == list(range(1, len(expected) + 1))
    # HTML parsing turns CRLF into LF; nothing else may differ
    assert [t for _, t in got] == [e.replace("\r\n", "\n") for e in expected]  # type: ignore[union-attr]
    colours = spans.evaluate_all("els => els.map(e => getComputedStyle(e).backgroundColor)")
    assert all(c.startswith("rgba(") for c in colours)
    # the whole text is shown, in order, once
    box = page.locator("#fp-trace-text").evaluate("e => e.textContent")
    assert box == rec.text.replace("\r\n", "\n")
    # hover text carries the step statistics
    title = spans.nth(1).get_attribute("title") or ""
    assert title.startswith("prefix 2 · step") and "value" in title and "2 SE" in title
    # the selected step was scrolled into the text box's view
    # (the text lives in the click_text component's shadow root: locators pierce it)
    visible = page.locator("#fp-trace-text").evaluate(
        """(b) => { const e = b.querySelector('#fp-step-2');
                    const bb = b.getBoundingClientRect(), eb = e.getBoundingClientRect();
                    return eb.top >= bb.top - 1 && eb.top <= bb.bottom; }"""
    )
    assert visible


def test_clicking_an_overview_cell_opens_the_trace(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/fineproofs")
    wait_for_app(page)
    assert_no_exception(page)
    # the grid is an HTML table in the click_text component (no Plotly at first paint)
    assert page.locator(".js-plotly-plot").count() == 0
    cell = page.locator("[data-testid='fp-grid'] td[data-pick$=':2']").first
    cell.wait_for(timeout=30_000)
    cell.click()
    page.wait_for_selector("#fp-trace-text .fp-step", timeout=30_000)
    wait_for_app(page)
    assert "problem=" in page.url and "sample=" in page.url and "prefix=2" in page.url
    assert page.locator('[data-testid="stHeading"]').filter(has_text="Trace ").count() >= 1
    assert_no_exception(page)


def test_clicking_a_curve_point_selects_and_scrolls_to_its_step(
    app_url: str, page, sample_root: Path
) -> None:  # type: ignore[no-untyped-def]
    pid, sample = _pick_trace(sample_root / "fineproofs")
    page.goto(f"{app_url}/fineproofs?problem={pid}&sample={sample}")
    wait_for_app(page)
    page.wait_for_selector("#fp-trace-text .fp-step", timeout=30_000)
    # the value curve, a light chart (no Plotly for a trace's link); its second trace, "mean
    # grade", has the points (the first is the ±2 SE band)
    expect(page.locator(".js-plotly-plot")).to_have_count(0)
    curve = page.locator('.st-key-fp_curve svg[data-testid="lite-chart-svg"]')
    points = curve.locator('[data-t="1"][data-p]')
    points.first.wait_for(timeout=30_000)
    n = points.count()
    assert n >= 4
    points.nth(n - 1).click(force=True)
    page.wait_for_function("() => location.search.includes('prefix=')", timeout=30_000)
    wait_for_app(page)
    sel = page.url.split("prefix=")[1].split("&")[0]
    assert int(sel) == n
    outlined = page.locator(f"#fp-step-{n}").evaluate("e => e.style.outline")
    assert "3px" in outlined
    assert_no_exception(page)


def test_clicking_a_step_selects_it_in_place_without_a_reload(
    app_url: str, page, sample_root: Path
) -> None:  # type: ignore[no-untyped-def]
    pid, sample = _pick_trace(sample_root / "fineproofs")
    page.goto(f"{app_url}/fineproofs?problem={pid}&sample={sample}&tcolor=change&prefix=2")
    wait_for_app(page)
    page.wait_for_selector("#fp-trace-text .fp-step[data-pick]", timeout=30_000)
    assert page.locator(".st-key-fp_step_stats").filter(has_text="prefix 2 ·").count() == 1
    step = page.locator("#fp-step-4")
    assert step.evaluate("e => e.tagName") == "SPAN" and step.get_attribute("href") is None
    assert step.evaluate("e => getComputedStyle(e).cursor") == "pointer"
    # a marker on the window survives only if the page is not reloaded
    page.evaluate("() => { window.__fpNoReload = 1; }")
    box = page.locator("#fp-trace-text")
    step.scroll_into_view_if_needed()
    scroll_before = box.evaluate("b => b.scrollTop")
    step.click()
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('prefix') === '4'", timeout=30_000
    )
    stats = page.locator(".st-key-fp_step_stats")
    stats.filter(has_text="prefix 4 ·").wait_for(timeout=30_000)
    wait_for_app(page)
    assert page.evaluate("() => window.__fpNoReload") == 1  # same page: no reload
    assert "Selected step · prefix 4 · step" in stats.inner_text()
    # the step's figures (a stat row, in its component's shadow root)
    for label in ("± 2 SE", "n graded"):
        expect(stats.locator(".rte-stat").filter(has_text=label)).to_be_visible()
    q = page.evaluate("() => Object.fromEntries(new URLSearchParams(location.search))")
    assert q["problem"] == pid and q["sample"] == str(sample) and q["tcolor"] == "change"
    page.wait_for_function(
        """() => { const host = [...document.querySelectorAll('*')].find(e => e.shadowRoot
                     && e.shadowRoot.querySelector('#fp-step-4'));
                   const el = host && host.shadowRoot.querySelector('#fp-step-4');
                   return el && el.style.outline.includes('3px'); }""",
        timeout=30_000,
    )
    # the text box was not reset to the top by the rerun
    assert abs(box.evaluate("b => b.scrollTop") - scroll_before) <= 40
    assert_no_exception(page)


def test_the_overview_controls_set_the_url_and_the_grid(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    """The Overview's light controls, picked in the browser: the sort (a select box), its order
    and the page's Benjamini-Hochberg flags (switches), the grid's columns (a radio group) each
    land in the URL, and the grid follows."""
    page.goto(f"{app_url}/fineproofs")
    wait_for_app(page)
    grid = page.locator("[data-testid='fp-grid']")
    expect(grid.locator("th").filter(has_text=re.compile(r"^1$")).first).to_be_attached()
    choose_option(page, "Sort rows by", re.compile(r"^endpoint grade$"))
    expect(page).to_have_url(re.compile(r"[?&]sort=endpoint(&|$)"))
    expect(shown_option(page, "Sort rows by")).to_have_text("endpoint grade")
    page.get_by_role("switch", name="Descending").click()
    expect(page).to_have_url(re.compile(r"[?&]desc=false(&|$)"))
    page.get_by_role("radio", name="depth").first.check()
    expect(page).to_have_url(re.compile(r"[?&]axis=depth(&|$)"))
    # relative-depth columns: bins named by their lower edge
    expect(grid.locator("th").filter(has_text=re.compile(r"^0\.1$")).first).to_be_attached()
    page.get_by_role("switch", name=re.compile(r"^Benjamini-Hochberg")).click()
    expect(page).to_have_url(re.compile(r"[?&]fdr=true(&|$)"))
    # the grid's legend names the rule its ▼ marks follow
    legend = page.locator(".rte-click-root").filter(has=grid)
    expect(legend).to_contain_text("(Benjamini-Hochberg, q = 0.05)")
    # several sources at once: a box that opens a list of check boxes
    sources = page.locator(".rte-lc-k-multi").filter(has_text="Sources")
    sources.locator("summary").click()
    page.get_by_role("checkbox", name="aops", exact=True).check()
    expect(page).to_have_url(re.compile(r"[?&]src=aops(&|$)"))
    expect(sources.locator("summary")).to_have_text("aops")
    page.keyboard.press("Escape")
    expect(page.get_by_role("checkbox", name="aops", exact=True)).to_be_hidden()
    # the grade range's upper handle, by keyboard: seven steps of 1/28 down to 0.75
    high = page.get_by_role("slider", name="Endpoint grade range (to)")
    high.focus()
    for _ in range(7):
        page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"[?&]grade=0\.0&grade=0\.75(&|$)"))
    span = page.locator(".rte-lc-k-range").filter(has_text="Endpoint grade range")
    expect(span.locator("output")).to_have_text("0.00 – 0.75")
    assert_no_exception(page)


def test_a_trace_opens_from_its_typed_id_and_sample(app_url: str, page, sample_root: Path) -> None:  # type: ignore[no-untyped-def]
    """The Trace tab with no trace: the start of a problem id (as the grid shows it) and a
    sample, then Enter, open that trace; a reference to no trace says why."""
    df = pl.read_parquet(sample_root / "fineproofs" / "data/prefix_values.parquet")
    pid, sample = df.select("problem_id", "sample_index").sort("problem_id", "sample_index").row(0)
    page.goto(f"{app_url}/fineproofs?view=Trace")
    wait_for_app(page)
    box = page.get_by_role(
        "searchbox", name="Open a trace: its problem id (the start is enough) and sample"
    )
    box.fill("zzzz 1")
    box.press("Enter")
    expect(page.get_by_text("No problem id starts with “zzzz”.")).to_be_visible()
    box.fill(f"{pid[:10]} {sample}")
    box.press("Enter")
    expect(page).to_have_url(re.compile(rf"[?&]problem={pid}(&|$)"))
    expect(page).to_have_url(re.compile(rf"[?&]sample={sample}(&|$)"))
    expect(
        page.locator('[data-testid="stHeading"]').filter(has_text=f"Trace {pid}")
    ).to_be_visible()
    assert_no_exception(page)


def test_an_empty_trace_tab_offers_traces_to_start_with(
    app_url: str, page, sample_root: Path
) -> None:  # type: ignore[no-untyped-def]
    """The Trace tab with no trace lists the traces the rules pick (each with its rule and
    figure); a click opens one in place, without a reload."""
    summary = traces_table(sample_root / "fineproofs" / "data/prefix_values.parquet")
    points = starting_points(summary)
    assert [p.why for p in points] == [
        "the sharpest significant drop", "the most recoveries", "the most bimodal prefixes"
    ]  # fmt: skip
    page.goto(f"{app_url}/fineproofs?view=Trace")
    wait_for_app(page)
    expect(page.get_by_text("No trace is open.", exact=False)).to_be_visible()
    for p in points:
        expect(page.get_by_text(f"{p.why}: {p.figure}", exact=False)).to_be_visible()
    page.evaluate("window.__rteSamePage = true")
    second = points[1]
    page.get_by_role(
        "button", name=f"Trace {second.problem_id[:10]} · sample {second.sample_index}"
    ).click()
    expect(page).to_have_url(re.compile(rf"[?&]problem={second.problem_id}(&|$)"))
    expect(page).to_have_url(re.compile(rf"[?&]sample={second.sample_index}(&|$)"))
    expect(
        page.locator('[data-testid="stHeading"]').filter(has_text=f"Trace {second.problem_id}")
    ).to_be_visible()
    assert page.evaluate("window.__rteSamePage === true")  # opened in place: no reload
    assert_no_exception(page)
