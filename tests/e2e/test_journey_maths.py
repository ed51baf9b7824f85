"""Journey J11 (docs/JOURNEYS.md), read the maths: on a Parason node, switch "Render maths" on in
the sidebar; a formula is typeset by Streamlit's own KaTeX, a formula that does not parse shows
as written, and so does one that would link or fetch (`\\href`, `\\includegraphics`); HTML and
Markdown in the text show as text; a reload keeps the switch (it is in the URL); a FineProofs
trace opened from a link with the switch on is typeset too; no request leaves the server.

The Parason trajectory comes from a local copy of the sample in which one thread's text was
rewritten to hold a good formula, a broken one, an untrusted one and markup. Each step asserts with Playwright's
auto-retrying `expect()`, at 1440x900 and 1024x768."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import quote

import polars as pl
import pytest
from playwright.sync_api import Browser, Request, expect

from cache.fineproofs_io import load_trace
from cache.maths_spans import maths_spans
from cache.sample.parason import make_uuid
from tests.e2e.journey_helpers import VIEWPORTS, new_page, no_exception, open_url

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
UUID = make_uuid("not-div-7-11")
OLD = "1: floor(999/7) = 142 (7 * 142 = 994)."
GOOD = "$\\lfloor 999/7 \\rfloor = 142$"
BROKEN = "$\\frac{7}{$"
# commands that would fetch or link: KaTeX's `trust: false` refuses them, so as written
UNTRUSTED = "$\\href{http://evil.example/x}{a}\\includegraphics{http://evil.example/i.png}$"
MARKUP = "<img src=x onerror=alert(1)> **bold** [link](http://evil.example)"
NEW = f"1: {GOOD}, not {BROKEN} nor {UNTRUSTED}; {MARKUP}."


@pytest.fixture(scope="module")
def local_parason(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local Parason folder: the sample, with one thread of one trajectory rewritten."""
    dest = tmp_path_factory.mktemp("local-parason") / "parason"
    shutil.copytree(sample_root / "parason", dest)
    path = dest / "sft-1x" / "train.parquet"
    df = pl.read_parquet(path)
    assert df.filter(pl.col("uuid") == UUID)["qwen_text"].str.contains(OLD, literal=True).all()
    df.with_columns(
        pl.when(pl.col("uuid") == UUID)
        .then(pl.col("qwen_text").str.replace(OLD, NEW, literal=True))
        .otherwise(pl.col("qwen_text"))
        .alias("qwen_text")
    ).write_parquet(path)
    return dest


def _maths_trace(sample_root: Path) -> tuple[str, int]:
    root = sample_root / "fineproofs"
    traces = pl.read_parquet(root / "data/prefix_values.parquet").select(
        "problem_id", "sample_index"
    )
    return next(
        (p, s)
        for p, s in traces.unique(maintain_order=True).rows()
        if maths_spans(load_trace(root, p, s).text)
    )


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j11_read_the_maths(
    browser: Browser,
    app_url: str,
    sample_root: Path,
    local_parason: Path,
    viewport: dict[str, int],
) -> None:
    page = new_page(browser, viewport)
    away: list[str] = []

    def count(req: Request) -> None:
        if not req.url.startswith((app_url, "blob:", "data:")):
            away.append(req.url)

    page.on("request", count)
    source = f"src_parason_kind=Local+folder&src_parason_path={quote(str(local_parason))}"
    node = page.locator(".rte-node-text")
    # 1. the node's text as written while the switch is off
    open_url(page, f"{app_url}/parason?uuid={UUID}&node=b0t0&{source}", ready="Selected node")
    expect(node).to_contain_text(NEW)
    expect(page.locator(".katex")).to_have_count(0)
    # 2. switch it on: the good formula is typeset, in the node panel and in the whole text
    page.get_by_text("Render maths").click()
    expect(page).to_have_url(re.compile(r"[?&]maths=true"))
    expect(node.locator(".katex")).to_have_count(1)
    expect(page.locator("#rte-parason-text .katex").first).to_be_attached()
    # 3. the broken and the untrusted ones show as written (not a red KaTeX error); markup
    # stays text
    expect(node.locator(".rte-maths[data-failed]")).to_have_text([BROKEN, UNTRUSTED])
    expect(page.locator(".katex-error")).to_have_count(0)
    expect(node).to_contain_text(MARKUP)
    expect(page.locator('img[src="x"]')).to_have_count(0)
    expect(node.locator("a, strong")).to_have_count(0)
    no_exception(page)
    # 4. a reload keeps the switch: it lives in the URL; so does a move to another view from the
    # sidebar (whose link carries no key): the switch holds for the session
    page.reload()
    expect(node.locator(".katex")).to_have_count(1)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Search", exact=True).click()
    expect(page).to_have_url(re.compile(r"/search\?(.*&)?maths=true"))
    expect(page.get_by_role("switch", name="Render maths")).to_be_checked()
    # 5. a FineProofs trace opened from a link with the switch on
    pid, sample = _maths_trace(sample_root)
    open_url(page, f"{app_url}/fineproofs?problem={pid}&sample={sample}&view=Trace&maths=true")
    text = page.locator("#fp-trace-text")
    expect(text.locator(".katex").first).to_be_visible()
    expect(text.locator(".fp-step").first).to_be_visible()
    no_exception(page)
    assert away == [], f"requests left the server: {away}"
    page.context.close()
