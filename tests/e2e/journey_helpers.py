"""Shared pieces of the casebook journey tests J2-J4 (docs/JOURNEYS.md): the two viewports, a
browser context per visitor, "the app has drawn this page", and cases made straight in the store
(only the steps a journey is about go through the UI).

Every wait is Playwright's auto-retrying `expect()` on a real outcome: no fixed sleeps."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from bench.browser import streamlit_server
from cache.casebook.model import Case, make_case
from cache.casebook.store import CaseStore

VIEWPORTS = [
    pytest.param({"width": 1440, "height": 900}, id="1440x900"),
    pytest.param({"width": 1024, "height": 768}, id="1024x768"),
]
# a part's behaviour that does not hang on the window's size (an order, a click opening something):
# checked once, on the smaller window; journeys and layouts run on both
SMALL = VIEWPORTS[-1:]
TIMEOUT_MS = 60_000  # a first load of a view reads and caches its data
LOCAL_HOSTS = ("127.0.0.1", "localhost")
EXCEPTION = '[data-testid="stException"]'

EXPECT_MS = 30_000  # a rerun on a busy 2-core machine can take seconds


@contextmanager
def expect_timeout(ms: float = EXPECT_MS) -> Iterator[None]:
    """`expect()`'s timeout for a module's tests, restored after (it is process-wide)."""
    before = getattr(expect, "_timeout", None)
    expect.set_options(timeout=ms)
    try:
        yield
    finally:
        expect.set_options(timeout=before)


def vp_id(viewport: dict[str, int]) -> str:
    return f"{viewport['width']}x{viewport['height']}"


def new_page(browser: Browser, viewport: dict[str, int], **options: Any) -> Page:
    """A fresh visitor (own cookies and session) at `viewport`."""
    ctx: BrowserContext = browser.new_context(viewport=viewport, **options)  # type: ignore[arg-type]
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page


def settled(page: Page, timeout: float = TIMEOUT_MS) -> None:
    """The page's script has run to its end and the websocket is up (the app's own attributes)."""
    app = page.locator('[data-testid="stApp"]')
    expect(app).to_have_attribute("data-test-connection-state", "CONNECTED", timeout=timeout)
    expect(app).to_have_attribute("data-test-script-state", "notRunning", timeout=timeout)
    expect(page.locator('[data-testid="stMain"] h1').first).to_be_visible(timeout=timeout)


# the app's script state has read "notRunning" for HOLD_MS without a change: a rerun that one run
# queues (a widget drawn with new settings registering its value) has started and ended by then
_IDLE = """(hold) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app ? app.dataset.testScriptState + app.dataset.testConnectionState : '';
  const mark = window.__rteIdle || (window.__rteIdle = { state: null, since: 0 });
  if (state !== mark.state) { mark.state = state; mark.since = performance.now(); }
  return state === 'notRunningCONNECTED' && performance.now() - mark.since >= hold;
}"""


def idle(page: Page, hold_ms: int = 400, timeout: float = TIMEOUT_MS) -> None:
    """`settled`, held for `hold_ms`: for a click that a rerun still to come would lose."""
    settled(page, timeout)
    page.wait_for_function(_IDLE, arg=hold_ms, timeout=timeout, polling=50)


def open_url(page: Page, url: str, ready: str | None = None) -> None:
    """Load `url`; with `ready`, wait until that text is on the page, then for the run's end."""
    page.goto(url)
    if ready is not None:
        expect(page.get_by_text(ready).first).to_be_visible(timeout=TIMEOUT_MS)
    settled(page)


def no_exception(page: Page) -> None:
    expect(page.locator(EXCEPTION)).to_have_count(0)


def choose_option(scope: Any, name: str | re.Pattern[str], option: re.Pattern[str]) -> None:
    """In the light select box named `name` (a native select, `components.common.light_control`),
    pick the first option whose text matches `option` (a name given as text matches whole)."""
    select = scope.get_by_role("combobox", name=name, exact=isinstance(name, str))
    expect(select.locator("option").filter(has_text=option).first).to_be_attached()
    texts = select.locator("option").all_inner_texts()
    select.select_option(index=next(i for i, t in enumerate(texts) if option.search(t)))


def shown_option(scope: Any, name: str | re.Pattern[str]) -> Any:
    """The option a light select box named `name` shows (for `expect(...).to_have_text`)."""
    select = scope.get_by_role("combobox", name=name, exact=isinstance(name, str))
    return select.locator("option:checked")


def grid_cell(page: Page, text: str) -> Any:
    """A table's cells holding exactly `text`: a data grid's (st.dataframe draws on a canvas;
    its accessible table carries the visible cells' text) or a light table's."""
    cells = '[data-testid="stDataFrame"] td[role="gridcell"], .rte-lite-table td[role="gridcell"]'
    return page.locator(cells).filter(has_text=re.compile(rf"^{re.escape(text)}$"))


def mars_case(store: CaseStore, title: str, qid: int = 3, **fields: Any) -> Case:
    """A MARS question case made in the store (the sample's DeepSeek-8B file)."""
    item = {"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": str(qid)}
    return store.add(
        make_case(
            "mars",
            "mars",
            query=[("qid", str(qid))],
            item=item,
            title=title,
            author=fields.pop("author", "seed"),
            **fields,
        )
    )


def off_app_hrefs(page: Page, base: str) -> list[str]:
    """Every <a href> on the page (shadow roots included) that leaves the app: another scheme
    than http(s) (javascript:, data:, ...), or another host than the app's."""
    hrefs: list[str] = page.evaluate(
        """() => {
          const out = [];
          const walk = (root) => {
            for (const a of root.querySelectorAll('a[href]')) out.push(a.href);
            for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
          };
          walk(document);
          return out;
        }"""
    )
    return [h for h in hrefs if not h.startswith(base + "/") and h != base]


# a headline figure (components.common.stat_row) cut or pushed out of its row: its value wider
# than its box, or its box past the row's right edge; the rows live in their components' shadow
# roots, which document.querySelectorAll does not enter
STATS_CUT = """() => {
  const out = [];
  for (const host of document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')) {
    const root = host.shadowRoot || host;
    for (const row of root.querySelectorAll('.rte-stats')) {
      const edge = row.getBoundingClientRect().right;
      for (const stat of row.querySelectorAll('.rte-stat')) {
        const value = stat.querySelector('.rte-stat-value');
        if (stat.getBoundingClientRect().right > edge + 1
            || (value && value.scrollWidth > value.clientWidth + 1)) {
          out.push((stat.innerText || '').slice(0, 60));
        }
      }
    }
  }
  return out;
}"""


@contextmanager
def one_page_app(tmp_path_factory: pytest.TempPathFactory, name: str, source: str) -> Iterator[str]:
    """A throwaway one-page app (`source`, a Streamlit script that imports the explorer's
    components) served by its own `streamlit run`; yields its URL."""
    root = tmp_path_factory.mktemp(name)
    script = root / "page.py"
    script.write_text(source)
    with streamlit_server(root / "cache", script=str(script)) as server:
        yield server.url
