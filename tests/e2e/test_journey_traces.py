"""Journey J10 (docs/JOURNEYS.md), step through the wrong traces: open a MARS question's Single
trace tab filtered to wrong traces, press "Next wrong trace" twice (each time a wrong trace is
shown and the URL names it), step with the keys K and J (not while typing in a field), then the
Curves tab with the same filter says how many traces match.

The expected traces are computed here from the sample with the analysis functions (the filter's
own definition), not read from the app. Each step asserts with Playwright's auto-retrying
`expect()`, at 1440x900 and 1024x768."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from analysis.mars import trace_filters as tf
from analysis.mars.store import load_features
from tests.e2e.journey_helpers import (
    VIEWPORTS,
    new_page,
    no_exception,
    open_url,
    settled,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
FILE = "DeepSeek-8B/aime25_deepseek.parquet"
QID = 3


def _wrong(sample_root: Path) -> tuple[list[int], int]:
    """(the question's wrong traces in trace order, its trace count)."""
    feats = load_features(sample_root / "mars" / FILE).question(QID).sort("trace_idx")
    wrong = tf.apply(feats, tf.TraceFilter(verdict=tf.WRONG))["trace_idx"].to_list()
    return wrong, feats.height


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j10_step_through_the_wrong_traces(
    browser: Browser, app_url: str, sample_root: Path, viewport: dict[str, int]
) -> None:
    wrong, n = _wrong(sample_root)
    assert len(wrong) >= 3
    page = new_page(browser, viewport)
    # 1. the Single trace tab, wrong traces only: the picker opens on the first wrong trace
    open_url(
        page,
        f"{app_url}/mars?file={FILE}&qid={QID}&view=Single+trace&verdict=wrong",
        ready="Final answer (wrong)",
    )
    match = f"{len(wrong)} of {n} traces match"
    expect(page.get_by_text(match)).to_be_visible()
    picker = page.get_by_role("combobox", name="Trace", exact=True)
    expect(picker).to_have_value(re.compile(rf"^trace {wrong[0]} · wrong"))
    # 2. "Next wrong trace" twice: each shows the next wrong trace, named in the URL
    step = page.get_by_role("button", name=re.compile(r"^Next wrong trace")).first
    for t in wrong[1:3]:
        step.click()
        expect(page).to_have_url(re.compile(rf"[?&]trace={t}(&|$)"))
        expect(picker).to_have_value(re.compile(rf"^trace {t} · wrong"))
        settled(page)
        expect(page.get_by_text("Final answer (wrong)")).to_be_visible()
        no_exception(page)

    # 3. keys: K steps back, J forward; a J typed into a field (the picker's search) is text
    def at_trace(t: int) -> None:
        expect(page).to_have_url(re.compile(rf"[?&]trace={t}(&|$)"))
        expect(picker).to_have_value(re.compile(rf"^trace {t} · wrong"))
        settled(page)

    page.keyboard.press("k")
    at_trace(wrong[1])
    picker.click()
    page.keyboard.type("j")
    expect(picker).to_have_value("j")  # the key went to the field
    page.keyboard.press("Escape")
    picker.blur()
    page.keyboard.press("k")  # had the typed j stepped, this would land on wrong[1]
    at_trace(wrong[0])
    page.keyboard.press("j")
    at_trace(wrong[1])
    # the picker takes typed text: the start of a trace's label and Enter open that trace
    picker.click()
    expect(picker).to_have_value("")  # emptied to type, the shown trace as its placeholder
    expect(picker).to_have_attribute("placeholder", re.compile(rf"^trace {wrong[1]} · wrong"))
    page.keyboard.type(f"trace {wrong[2]} ·")
    page.keyboard.press("Enter")
    at_trace(wrong[2])
    no_exception(page)
    # 4. the Curves tab keeps the filter and says how many traces it draws
    page.get_by_role("tab", name="Curves").click()
    expect(page.get_by_role("tab", name="Curves")).to_have_attribute("aria-selected", "true")
    expect(page.locator(f"text={match} >> visible=true")).to_have_count(1)  # not the hidden tab's
    expect(page).to_have_url(re.compile(r"verdict=wrong"))
    no_exception(page)
    page.context.close()
