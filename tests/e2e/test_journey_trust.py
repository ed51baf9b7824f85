"""Journey J5 (docs/JOURNEYS.md), weigh a result: on each view's defaults the figures an expert
reads carry their interval and n, name the quantity the papers use, and are not clamped.

Each step asserts with Playwright's auto-retrying `expect()`, at 1440x900 and 1024x768; the
expected FineProofs share is computed here from the sample, not read from the app."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from playwright.sync_api import Browser, Page, expect

from analysis.fineproofs.values import annotate, normalise, trace_summary
from tests.e2e.journey_helpers import (
    VIEWPORTS,
    new_page,
    no_exception,
    open_url,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
PCT = r"(\d+(?:\.\d)?)\s?%"


def _number(page: Page, pattern: str) -> re.Match[str]:
    """The first match of `pattern` in the main area's text, once it is on the page."""
    main = page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text(re.compile(pattern))
    found = re.search(pattern, main.inner_text())
    assert found is not None
    return found


def _metric(page: Page, label: str) -> Any:
    """A headline figure (components.common.stat_row) by its label."""
    return page.locator(".rte-stat").filter(has_text=label).first


def _over_100_trace(sample_root: Path) -> tuple[str, int, float]:
    """A FineProofs trace whose largest single drop exceeds its first-to-last fall."""
    df = pl.read_parquet(sample_root / "fineproofs/data/prefix_values.parquet")
    summary = trace_summary(annotate(normalise(df).frame))
    row = summary.filter(pl.col("drop_share") > 1.2).sort("problem_id").row(0, named=True)
    return row["problem_id"], int(row["sample_index"]), row["largest_drop"] / row["total_decline"]


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j5_weigh_a_result(
    browser: Browser, app_url: str, sample_root: Path, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    # 1. the playground: every headline figure with its 95 % interval
    open_url(page, f"{app_url}/playground", ready="questions vs SC")
    acc = _metric(page, "accuracy · 95 % CI")
    interval = r"95 % CI \[([\d.]+), ([\d.]+)\] %"
    expect(acc).to_contain_text(re.compile(interval))
    bounds = re.search(interval, acc.inner_text())
    assert bounds is not None
    value = re.search(PCT, acc.locator(".rte-stat-value").inner_text())
    assert value is not None
    assert float(bounds[1]) <= float(value[1]) <= float(bounds[2]), acc.inner_text()
    expect(acc).to_contain_text(re.compile(r"pp vs SC, 95 % CI \["))
    expect(_metric(page, "mean token savings · 95 % CI")).to_be_visible()
    counts = _metric(page, "questions vs SC: better / worse / same")
    grid = _metric(page, "iterations × questions").locator(".rte-stat-value")
    n_q = int(grid.inner_text().split("×")[1])
    better, worse, same = map(int, counts.locator(".rte-stat-value").inner_text().split("/"))
    assert better + worse + same == n_q
    no_exception(page)

    # 2. MARS: the file's pass@1 and majority votes with intervals and n; AUROC per signal
    open_url(page, f"{app_url}/mars?view=Distributions", ready="This file: every question")
    for name in ("pass@1", "majority@all", r"majority@\d+"):
        m = _number(page, rf"{name} \(95% CI {PCT}–{PCT}, n = (\d+) questions\)")
        assert float(m[1]) <= float(m[2]) and int(m[3]) > 0
    # the file's pass@1: in the file summary's row of figures (the open question has a pass@1
    # of its own above the tabs)
    file_p1 = page.locator('.rte-stats[aria-label="This file"] .rte-stat').filter(has_text="pass@1")
    p1 = re.search(PCT, file_p1.locator(".rte-stat-value").inner_text())
    assert p1 is not None
    m = _number(page, rf"pass@1 \(95% CI {PCT}–{PCT}")
    assert float(m[1]) <= float(p1[1]) <= float(m[2])
    expect(page.get_by_text("per-question AUROC: median (quartiles)").first).to_be_visible()
    for signal in ("min_group", "bottom_10", "tail_conf", "mean_conf"):
        expect(page.get_by_text(re.compile(rf"^{signal}:")).first).to_be_visible()
    no_exception(page)

    # 3. Parason: the default pair's 8x row is slower on its critical path, said as a ratio
    open_url(page, f"{app_url}/parason?view=1x+vs+8x", ready="C_8x / C_1x")
    m = _number(page, r"C is (\d+) tokens against (\d+) tokens \(C_8x / C_1x = ([\d.]+)×")
    assert float(m[3]) == pytest.approx(int(m[1]) / int(m[2]), abs=0.006)
    assert float(m[3]) > 1
    expect(page.get_by_text("The 8x row is slower", exact=False).first).to_be_visible()
    expect(page.get_by_text("waits for all of its branches", exact=False).first).to_be_visible()
    expect(page.get_by_text("Accepted Trial (what an OR join could skip)")).to_be_visible()
    no_exception(page)

    # 4. FineProofs: a drop larger than the whole fall is shown as more than 100 %
    pid, sample, share = _over_100_trace(sample_root)
    open_url(page, f"{app_url}/fineproofs?problem={pid}&sample={sample}&view=Trace")
    m = _number(page, rf"the largest single drop \([\d.]+\) is {PCT} of that first-to-last fall")
    assert float(m[1]) == pytest.approx(100 * share, abs=0.6)
    expect(page.get_by_text("more than all of it", exact=False).first).to_be_visible()
    no_exception(page)
    page.context.close()
