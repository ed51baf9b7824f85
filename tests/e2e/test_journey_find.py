"""Journey J6 (docs/JOURNEYS.md), find what changed: in Parason's Browse, keep only the pairs the
8x expansion changed, sort by how many branches it added, open the top one and see the same
count outlined in the 1x vs 8x tab.

The expected pair and count are computed here from the sample with the analysis functions (the
1x vs 8x tab's definition, pair by pair), not read from the app. Each step asserts with
Playwright's auto-retrying `expect()`, at 1440x900 and 1024x768."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from playwright.sync_api import Browser, expect

from analysis.parason.metrics import added_branches, trajectory_text
from analysis.parason.parse import parse
from tests.e2e.journey_helpers import (
    VIEWPORTS,
    new_page,
    no_exception,
    open_url,
    settled,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
SLOW = 120_000  # a first opening of a tab on a loaded machine


def _expected(sample_root: Path) -> tuple[int, str, int]:
    """(pairs changed, uuid of the first most-changed pair in file order, its
    added branches)."""
    base = sample_root / "parason"
    texts: dict[str, dict[str, str]] = {}
    for sub in ("sft-1x", "sft-8x"):
        for r in pl.read_parquet(base / sub / "train.parquet").to_dicts():
            texts.setdefault(sub, {}).setdefault(r["uuid"], trajectory_text(r)[0])  # first copy
    added = pl.DataFrame(
        [
            (u, sum(added_branches(parse(texts["sft-1x"][u]), parse(t8)).values()))
            for u, t8 in texts["sft-8x"].items()
            if u in texts["sft-1x"]
        ],
        schema={"uuid": pl.String, "added": pl.Int64},
        orient="row",
    )
    order = pl.read_parquet(base / "sft-1x/train.parquet", columns=["uuid"])
    ranked = order.join(added, on="uuid", how="left", maintain_order="left").sort(
        "added", descending=True, nulls_last=True, maintain_order=True
    )
    top = ranked.row(0, named=True)
    changed = int((added["added"] > 0).sum())
    return changed, str(top["uuid"]), int(top["added"])


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j6_find_a_pair_the_8x_expansion_changed(
    browser: Browser, app_url: str, sample_root: Path, viewport: dict[str, int]
) -> None:
    changed, uuid, n_added = _expected(sample_root)
    page = new_page(browser, viewport)
    # 1. Browse, sorted by added branches, then only the changed pairs
    open_url(page, f"{app_url}/parason?sort=8x+added+branches&desc=true", ready="Sort by")
    expect(page.get_by_text(f"{changed:,} changed by the 8x expansion")).to_be_visible()
    page.get_by_text("Only pairs the 8x expansion changed").click()
    expect(
        page.get_by_text(re.compile(rf"^{changed:,} of [\d,]+ trajectories in sft-1x"))
    ).to_be_visible()
    expect(page).to_have_url(re.compile(r"grown=true"))
    # the top row is the most-changed pair, with its count
    table = page.locator(".rte-lite-table")
    top = table.locator('tr[data-i="0"]')
    expect(top.locator("td").filter(has_text=re.compile(rf"^{uuid[:8]}$"))).to_have_count(1)
    expect(top.locator("td").filter(has_text=re.compile(rf"^{n_added}$"))).to_have_count(1)
    # 2. open it from the table (a click on its row), then its 1x vs 8x tab
    settled(page)
    top.click()
    expect(page).to_have_url(re.compile(rf"uuid={uuid}"))
    # the run the selection started is over: a tab clicked during a run can stay empty
    expect(page.get_by_role("tab", name="Trajectory")).to_have_attribute("aria-selected", "true")
    settled(page)
    page.get_by_role("tab", name="1x vs 8x").click()
    expect(  # its first opening analyses the pair in both subsets
        page.get_by_text(f"{n_added} branches were added by the 8x expansion", exact=False)
    ).to_be_visible(timeout=SLOW)
    no_exception(page)
    page.context.close()
