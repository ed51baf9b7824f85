"""Journey J7 (docs/JOURNEYS.md), compare two policies: the playground's Compare tab opened from
a shared link shows the paired figures of the page's policy against the linked second policy,
the questions the first loses, and exports the per-question table under a name that says which
pair it holds; the export agrees with the page.

Each step asserts with Playwright's auto-retrying `expect()`, at 1440x900 and 1024x768."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.journey_helpers import VIEWPORTS, new_page, no_exception, open_url, shown_option

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
SLOW = 180_000  # the first run of a policy on a file builds its features


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j7_compare_two_policies(
    browser: Browser, app_url: str, tmp_path: Path, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    # 1. a shared link: SC at full budget (A) against DeepConf online (B), on the Compare tab
    open_url(page, f"{app_url}/playground?policy=offline&vs=dco&view=Compare")
    expect(
        page.get_by_text("McNemar exact p (two-sided, iterations as independent)")
    ).to_be_visible(timeout=SLOW)
    vs = shown_option(page, "Compare with (policy B, at its published settings)")
    expect(vs).to_have_text("dco · DeepConf online (dco)")
    main = page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text(re.compile(r"accuracy A − B · 95 % CI \[[-+\d.]+, [-+\d.]+\] pp"))
    caption = re.compile(r"A right and B wrong (\d+), B right and A wrong (\d+)")
    expect(main).to_contain_text(caption)
    found = caption.search(main.inner_text())
    assert found is not None
    a_only, b_only = int(found[1]), int(found[2])
    heading = re.compile(r"Questions where A loses to B \((\d+) of (\d+)\)")
    expect(main).to_contain_text(heading)
    counts = heading.search(main.inner_text())
    assert counts is not None
    n_lost, n_questions = int(counts[1]), int(counts[2])
    assert n_lost >= 1 and b_only >= n_lost  # each lost question has a discordant iteration
    # the losses' table: every header whole (a long one wraps into two lines), and at 1024 px
    # at most two of its eight columns out of sight (the figures first)
    losses = page.locator(".rte-lite-table").filter(
        has=page.locator("table[aria-label='questions where A loses to B']")
    )
    expect(losses.locator("th")).to_have_count(8)
    clipped = losses.locator("th").evaluate_all(
        "(ths) => ths.filter((th) => th.scrollHeight > th.clientHeight + 1"
        " || th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent)"
    )
    assert clipped == []
    out_of_sight = losses.evaluate(
        "(root) => [...root.querySelectorAll('th')].filter((th) =>"
        " th.getBoundingClientRect().right > root.getBoundingClientRect().right + 1).length"
    )
    assert out_of_sight <= (2 if viewport["width"] == 1024 else 0)
    # 2. the per-question export, named after the pair, agrees with the page
    with page.expect_download() as info:
        page.get_by_role("button", name="Download CSV", exact=True).click()
    dl = info.value
    assert re.search(r"offline_vs_dco_per-question\.csv$", dl.suggested_filename)
    path = tmp_path / dl.suggested_filename
    dl.save_as(path)
    table = pl.read_csv(path)
    assert table.height == n_questions
    assert int((table["accuracy_diff_pp"] < -1e-9).sum()) == n_lost
    assert (int(table["a_only"].sum()), int(table["b_only"].sum())) == (a_only, b_only)
    no_exception(page)
    page.context.close()
