"""Journey J12 (docs/JOURNEYS.md), a lens: open /lenses, choose MARS's confidently-wrong traces,
see that the count the lens states is the number of rows of its table, open the first item and
land on that trace in MARS's Single trace tab.

The expected items are computed here from the sample with the lens's own rule on the feature
table, not read from the app. Each step asserts with Playwright's auto-retrying `expect()`, at
1440x900 and 1024x768."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from analysis.mars.lenses import confidently_wrong, load
from cache.lenses import all_lenses
from tests.e2e.journey_helpers import (
    VIEWPORTS,
    choose_option,
    new_page,
    no_exception,
    open_url,
    settled,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
FILE = "DeepSeek-8B/aime25_deepseek.parquet"  # the lens's first file


def _expected(sample_root: Path) -> tuple[int, int, int, str]:
    """(items, first item's qid, its trace, its label) of the lens on the default file."""
    items = confidently_wrong(load([sample_root / "mars" / FILE], FILE))
    first = items.row(0, named=True)
    return items.height, int(first["qid"]), int(first["trace_idx"]), str(first["label"])


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j12_open_a_confidently_wrong_trace_from_its_lens(
    browser: Browser, app_url: str, sample_root: Path, viewport: dict[str, int]
) -> None:
    n_items, qid, trace, label = _expected(sample_root)
    page = new_page(browser, viewport)
    # 1. the lenses, each with its count; none chosen yet
    open_url(page, f"{app_url}/lenses", ready="Choose a lens (or click its name)")
    overview = page.locator("table.rte-lenses")
    expect(overview.locator("tr.rte-lens")).to_have_count(len(all_lenses()))
    row = overview.locator("tr.rte-lens").filter(has_text="Confidently wrong traces")
    expect(row.locator(".rte-lens-count")).to_have_text(f"{n_items:,}")
    # 2. choose MARS's confidently-wrong traces
    choose_option(page, "Lens", re.compile(r"^MARS · Confidently wrong traces$"))
    expect(page).to_have_url(re.compile(r"lens=mars-confidently-wrong"))
    stated = page.get_by_text(re.compile(r"^[\d,]+ found of [\d,]+ traces in "))
    expect(stated).to_contain_text(f"{n_items:,} found of")
    items = page.locator("table.rte-lens-items tr.rte-lens-item")
    expect(items).to_have_count(n_items)  # the count is the table's rows
    # 3. open the first item: that trace, on MARS's Single trace tab
    settled(page)
    items.first.get_by_role("link", name=label, exact=True).click()
    expect(page).to_have_url(re.compile(rf"/mars\?.*qid={qid}&trace={trace}"))
    expect(page.get_by_role("tab", name="Single trace")).to_have_attribute("aria-selected", "true")
    # the trace on screen is that one (its capture control names it), and its answer is wrong
    expect(page.get_by_role("button", name=f"Add trace {trace}")).to_be_visible()
    expect(page.get_by_text("Final answer (wrong):")).to_be_visible()
    no_exception(page)
    page.context.close()
