"""Journey J1 (docs/JOURNEYS.md), demo: capture cases on five views, tabs and sources, gather them
with the case list's multi-select, reorder them, present the collection with the keyboard and
the buttons, and step through the shared present URL in a second browser, both ways.

Each step asserts with Playwright's auto-retrying `expect()`, at 1440x900 and 1024x768."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cache.casebook.store import open_store
from cache.sample.parason import make_uuid
from tests.e2e.conftest import streamlit_server
from tests.e2e.journey_helpers import idle, shown_option

pytestmark = pytest.mark.e2e
SLOW = 180_000  # the first visit of a view builds its derived tables
CAPTURE_LABELS = re.compile(r"Add (trace|question|node|stage|iteration|run|pair|probe)|Label this")


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('journey-demo') / 'casebook.sqlite'}"


@pytest.fixture(scope="module")
def demo_url(sample_root: Path, cache_dir: Path, db_url: str) -> Iterator[str]:
    with streamlit_server(cache_dir, RTE_DB_URL=db_url) as url:
        yield url


@pytest.fixture(scope="module")
def local_mars(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local folder laid out like the MARS repo (a copy of the sample), for the sidebar's
    Local folder source."""
    dest = tmp_path_factory.mktemp("local-mars") / "mars"
    shutil.copytree(sample_root / "mars", dest)
    return dest


def _captures(sample_root: Path, local: Path) -> list[tuple[str, list[str]]]:
    import polars as pl

    fp = pl.read_parquet(
        sample_root / "fineproofs/data/prefix_values.parquet",
        columns=["problem_id", "sample_index"],
    ).row(0)
    return [  # (view state, the capture controls used there)
        ("mars?qid=1&view=Single+trace", [r"Add trace \d+", "Add probe"]),  # not the default tab
        (f"mars?qid=2&src_mars_kind=Local+folder&src_mars_path={local}", ["Add question"]),
        (f"parason?uuid={make_uuid('not-div-7-11')}&node=b1t0", ["Add node", "Add stage"]),
        (
            f"fineproofs?problem={fp[0]}&sample={fp[1]}&prefix=2&view=Trace",
            ["Label this step", "Add to casebook"],
        ),
        ("playground?policy=sc-pp&conv=4&budget=32&qid=2&it=1", ["Add iteration"]),
    ]


def _no_exception(page: Page) -> None:
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


_TO_TOP = """el => {
  el.scrollIntoView({block: 'start'});
  let box = el.parentElement;
  while (box && !(box.scrollHeight > box.clientHeight
                  && getComputedStyle(box).overflowY !== 'visible')) box = box.parentElement;
  (box || document.scrollingElement).scrollBy(0, -90);  // below the app's header
}"""


def _capture(page: Page, label: str, title: str) -> None:
    button = page.get_by_role("button", name=re.compile(label)).first
    expect(button).to_be_visible(timeout=SLOW)
    expect(page.locator('[data-testid="stStatusWidget"]')).to_have_count(0, timeout=SLOW)
    # the control near the top of the window, so its form fits below it at 768 px (an open
    # popover moves with the page; Playwright cannot scroll its lower part into view)
    button.evaluate(_TO_TOP)
    button.click()
    body = page.locator('[data-testid="stPopoverBody"]').last
    body.get_by_label("Title").fill(title)
    body.get_by_label("Note (Markdown)").fill(f"**{title}**: look here")
    name = body.get_by_label(re.compile("Your name"))
    if name.count():
        name.fill("ada")
    # a late rerun (a chart finishing its layout above) can move the page and the open popover
    # with it: bring the control back to the top before the form's own button is pressed
    button.evaluate(_TO_TOP)
    body.get_by_role("button", name="Save case").click()
    expect(page.get_by_text(f"Saved to the casebook: {title}")).to_be_visible()  # the toast
    if page.locator('[data-testid="stPopoverBody"]').count() == 0:
        button.click()  # the control, opened again, confirms: no form to save a duplicate with
    body = page.locator('[data-testid="stPopoverBody"]').last
    expect(body.get_by_text(f"Saved “{title}” to the casebook")).to_be_visible()
    expect(body.get_by_role("button", name="Save case")).to_have_count(0)
    page.keyboard.press("Escape")
    expect(page.locator('[data-testid="stPopoverBody"]')).to_have_count(0)
    _no_exception(page)


def _gather(page: Page, base: str, run: str) -> None:
    """Select the run's cases in the case list and add them to a new collection, named there, in
    one go."""
    page.goto(f"{base}/casebook?tab=Collections")
    expect(page.get_by_label("New collection")).to_be_visible()
    idle(page)  # a click on a tab during the page's run is lost
    # to Cases by its tab: every filter shows its value (not "Choose an option")
    page.get_by_role("tab", name="Cases").click()
    expect(shown_option(page, "Dataset")).to_have_text("all", timeout=60_000)
    expect(page.get_by_text("Choose an option")).to_have_count(0)
    idle(page)  # the tab's run has written the URL: a rerun sent before it would reopen the old tab
    page.get_by_label("Search title, note and tags").fill(run)
    page.get_by_label("Search title, note and tags").press("Enter")
    expect(page.get_by_text("8 cases.")).to_be_visible()
    idle(page)  # the search's run is over: the grid is not drawn anew under the click
    grid = page.locator('[data-testid="stDataFrame"]').first
    expect(grid).to_be_visible()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 16, box["y"] + 17)  # the header's select-all box
    bulk = page.locator(".st-key-cb_bulk")
    expect(bulk.get_by_text("8 cases selected")).to_be_visible()
    combo = bulk.get_by_role("combobox", name="Collection")
    combo.click()
    page.keyboard.type(f"demo {run}")  # no collection has this name: a new one
    page.keyboard.press("Enter")
    expect(bulk).to_match_aria_snapshot(f'- combobox "Collection": demo {run}')
    bulk.get_by_role("button", name="Add to collection").click()
    expect(page.get_by_text(f"Added 8 cases to “demo {run}”")).to_be_visible()


def _rows(page: Page):  # type: ignore[no-untyped-def]  # a Playwright locator
    return page.locator('[class*="st-key-cb_row_"]')


def _order(page: Page, run: str, order: list[int]) -> None:
    expect(_rows(page)).to_have_text([re.compile(rf"walk {i} .*{run}") for i in order])


def _present_step(page: Page, step: int, total: int) -> None:
    banner = page.locator(".st-key-present_banner")
    expect(banner.get_by_text(f"step {step} of {total}")).to_be_visible(timeout=SLOW)
    evidence = page.locator('[class*="st-key-rte_evidence_"]').first
    expect(evidence).to_be_visible(timeout=SLOW)
    expect(evidence).to_be_in_viewport()  # the captured item is on the first screen
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()
    expect(page.get_by_role("button", name=CAPTURE_LABELS)).to_have_count(0)
    expect(banner.get_by_role("button", name="Previous")).to_be_visible()
    _no_exception(page)


def _go(page: Page, direction: str, key: bool) -> None:
    banner = page.locator(".st-key-present_banner")
    button = banner.get_by_role("button", name=direction)
    expect(button).to_be_enabled()
    if key:
        page.keyboard.press("ArrowRight" if direction == "Next" else "ArrowLeft")
    else:
        button.click()


def _step_through(
    page: Page,
    total: int,
    first: int,
    last: int,
    back: int,
    keys: bool = True,
    shots: Path | None = None,
) -> None:
    """From step `first` forward to `last`, then `back` steps back; with `keys` the arrow keys
    and the buttons alternate (arrows first), else the buttons only. Every step is checked."""
    step = first
    _present_step(page, step, total)
    while step < last:
        if shots is not None:
            page.screenshot(path=str(shots / f"step{step}.png"))
        _go(page, "Next", key=keys and step % 2 == 1)
        step += 1
        _present_step(page, step, total)
    if shots is not None:
        page.screenshot(path=str(shots / f"step{step}.png"))
    if step == total:
        expect(
            page.locator(".st-key-present_banner").get_by_role("button", name="Next")
        ).to_be_disabled()
    for k in range(back):
        _go(page, "Previous", key=keys and k % 2 == 0)
        step -= 1
        _present_step(page, step, total)


def _journey(  # type: ignore[no-untyped-def]
    demo_url: str, sample_root: Path, local_mars: Path, db_url: str, browser, cache_dir: Path, size
) -> None:
    expect.set_options(timeout=60_000)
    width, height = size
    run = f"{width}r{int(time.time())}"
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    captures = _captures(sample_root, local_mars)
    n = 0
    for path, labels in captures:
        page.goto(f"{demo_url}/{path}")
        for label in labels:
            _capture(page, label, f"walk {n} {run}")
            n += 1
    stored = [c for c in open_store(db_url).list_cases(text=run)]
    assert n == len(stored) == 8
    local = next(c for c in stored if c.dataset == "mars" and c.item.get("qid") == "2")
    assert dict(local.query)["src_mars_kind"] == "Local folder"

    _gather(page, demo_url, run)
    col = next(c for c in open_store(db_url).collections() if c.name == f"demo {run}")
    page.goto(f"{demo_url}/casebook?tab=Collections&collection={col.id}")
    _order(page, run, [7, 6, 5, 4, 3, 2, 1, 0])  # the list's order: last updated first
    _rows(page).nth(2).get_by_role("button", name="Up").click()
    _order(page, run, [7, 5, 6, 4, 3, 2, 1, 0])  # exactly the clicked case moved
    _rows(page).nth(0).get_by_role("button", name="Down").click()
    _order(page, run, [5, 7, 6, 4, 3, 2, 1, 0])

    shots = None  # each step's screenshot, for a review by eye: RTE_JOURNEY_SHOTS=<folder>
    if os.environ.get("RTE_JOURNEY_SHOTS"):
        shots = Path(os.environ["RTE_JOURNEY_SHOTS"]) / f"journey-demo-{width}"
        shots.mkdir(parents=True, exist_ok=True)
    page.get_by_role("button", name="Present").click()
    _step_through(page, n, first=1, last=n, back=1, shots=shots)

    # the shared link, in a browser that has never seen the casebook
    other = browser.new_context(viewport={"width": width, "height": height})
    viewer = other.new_page()
    viewer.set_default_timeout(60_000)
    viewer.goto(f"{demo_url}/casebook?present={col.id}&step=7")
    _step_through(viewer, n, first=7, last=8, back=1, keys=False)  # the buttons, both ways
    other.close()
    ctx.close()


# one class per viewport: `--dist loadscope` sends each class to its own worker, so the two
# longest journeys of the suite run side by side (each worker starts its own server and database)
class _Demo:
    size = (0, 0)

    def test_demo_capture_gather_reorder_present_share(  # type: ignore[no-untyped-def]
        self,
        demo_url: str,
        sample_root: Path,
        local_mars: Path,
        db_url: str,
        browser,
        cache_dir: Path,
    ) -> None:
        _journey(demo_url, sample_root, local_mars, db_url, browser, cache_dir, self.size)


class TestAt1440x900(_Demo):
    size = (1440, 900)


class TestAt1024x768(_Demo):
    size = (1024, 768)
