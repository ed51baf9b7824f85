"""Journey J9 (docs/JOURNEYS.md), compare models on the same question: on the MARS view, the
Compare models tab for a benchmark ranks its questions by how much the models disagree; the
question ranked first shows each model's row and answer distribution, and a model's link opens
that model's own question view.

Each step asserts with Playwright's auto-retrying `expect()`, at 1440x900 and 1024x768."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import LITE_SVG
from tests.e2e.journey_helpers import (
    VIEWPORTS,
    choose_option,
    grid_cell,
    new_page,
    no_exception,
    open_url,
    settled,
    shown_option,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
SLOW = 180_000  # the first look at a benchmark builds its files' feature tables


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j9_compare_models_on_a_question(
    browser: Browser, app_url: str, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    # 1. the MARS view, then its Compare models tab, then the HMMT benchmark
    open_url(page, f"{app_url}/mars", ready="MARS pools")
    page.get_by_role("tab", name="Compare models").click()
    expect(page.get_by_text("Where the models disagree")).to_be_visible(timeout=SLOW)
    choose_option(page, re.compile(r"^Benchmark$"), re.compile(r"^HMMT \(hmmt\)$"))
    expect(page).to_have_url(re.compile(r"bench=hmmt"))
    settled(page)
    # the sample's files of a benchmark share their questions: no ground-truth warning
    expect(page.get_by_text(re.compile(r"agrees across the files on 30 of 30"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"name different ground truths"))).to_have_count(0)
    # the side-by-side table: qid, then each model's pass@1 and majority (no "same truth": the
    # line above says they agree), no column out of sight at 1024 px
    side = page.locator(".rte-lite-table").filter(
        has=page.locator("table[aria-label='models per question']")
    )
    expect(side.locator("th")).to_have_count(1 + 3 * 2)
    out_of_sight = side.evaluate(
        "(root) => [...root.querySelectorAll('th')].filter((th) =>"
        " th.getBoundingClientRect().right > root.getBoundingClientRect().right + 1).length"
    )
    assert out_of_sight == 0
    # 2. the question ranked first by disagreement
    choose_option(page, re.compile(r"^Compared question"), re.compile(r"^#1 · "))
    picked = shown_option(page, re.compile(r"^Compared question"))
    expect(picked).to_have_text(re.compile(r"^#1 · Q\d+"))
    qid = re.search(r"#1 · Q(\d+)", picked.inner_text())
    assert qid is not None
    q = qid[1]
    expect(page).to_have_url(re.compile(rf"cq={q}\b"))
    settled(page)
    # 3. each model's row, and the answers of every model on one chart
    expect(
        page.get_by_role("heading", name=re.compile(rf"· Q{q} across the models$"))
    ).to_be_visible()
    for model in ("deepseek-8b", "qwen3-32b", "qwen3-next"):
        expect(grid_cell(page, model).first).to_be_attached()
    # drawn without Plotly (Plotly on "zoom"): one group of bars a model
    answers = page.locator(LITE_SVG).filter(has_text="final answers: share of each model's traces")
    expect(answers).to_be_visible()
    expect(answers.locator("g.trace")).to_have_count(3)
    # 4. one model's link opens its own question view (a new tab)
    link = page.get_by_role("link", name=re.compile(r"^qwen3-32b\s↗$"))
    expect(link).to_have_attribute("href", f"mars?file=Qwen3-32B/hmmt.parquet&qid={q}")
    with page.context.expect_page() as info:
        link.click()
    other = info.value
    settled(other)
    files = shown_option(other, "MARS file (model · benchmark)")
    expect(files).to_have_text(re.compile(r"^Qwen3-32B · HMMT"))
    expect(shown_option(other, "Question")).to_have_text(re.compile(rf"^Q{q} · pass@1"))
    no_exception(other)
    no_exception(page)
    page.context.close()
