"""Real-browser fixtures: the app's server (`streamlit run` of its entry) on a free loopback
port, and Debian's chromium driven by Playwright (the Playwright browser download is unreachable here)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.browser import CHROMIUM, CHROMIUM_ARGS, COMPONENT_DRAWN, REPO, free_port
from bench.browser import streamlit_server as _server
from tests.e2e.journey_helpers import expect_timeout

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "REPO", "free_port"]

# every visible Plotly chart has laid itself out (not mid-redraw) and every visible component with
# room on the page (not the zero-height browser bridge, components/common/browser.py) has drawn
# into its shadow root: a lite chart's SVG or the clickable text's root
_DRAWN = """() => {
  if (document.querySelector('[data-testid="stSkeleton"], [data-stale="true"]')) return false;
  const shown = (sel) => [...document.querySelectorAll(sel)].filter(
    (el) => el.offsetParent !== null && el.getBoundingClientRect().height > 0);
  const charts = shown('[data-testid="stPlotlyChart"]').every((el) => {
    const gd = el.querySelector('.js-plotly-plot');
    return gd && gd._fullLayout && !gd._fullLayout._replotting && el.querySelector('.main-svg');
  });
  return charts && shown('[data-testid="stBidiComponentIsolated"]').every((el) => el.shadowRoot
    && el.shadowRoot.querySelector('__DRAWN__'));
}""".replace("__DRAWN__", COMPONENT_DRAWN)
# resolves after the browser has laid out and painted two more frames (fonts loaded): a layout
# measured after it is the one the visitor sees, without guessing a delay
_NEXT_PAINT = """() => document.fonts.ready.then(() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => done(true)))))"""


@contextmanager
def streamlit_server(cache_dir: Path, **extra_env: str) -> Iterator[str]:
    """Start the app (`bench.browser.APP_ENTRY`) on a free loopback port (offline); yield its
    base URL. Its output goes to `cache_dir/streamlit-e2e-<port>.log`."""
    with _server(cache_dir, log_name="streamlit-e2e", **extra_env) as srv:
        yield srv.url


@pytest.fixture(scope="session")
def app_url(sample_root: Path, cache_dir: Path) -> Iterator[str]:
    with streamlit_server(cache_dir) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


def wait_for_app(pg, timeout: float = 45_000) -> None:  # type: ignore[no-untyped-def]
    """Wait until Streamlit has finished running the script (no 'running' status widget)."""
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    pg.wait_for_selector(
        '[data-testid="stMain"] h1', timeout=timeout
    )  # the page has started to render
    pg.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]')""", timeout=timeout
    )
    pg.wait_for_function(
        """() => !document.querySelector('[data-testid="stSkeleton"]')""", timeout=timeout
    )
    # the app's own attributes: the websocket is up and the script has run to its end
    pg.wait_for_function(
        """() => {
          const app = document.querySelector('[data-testid="stApp"]');
          return app && app.dataset.testConnectionState === 'CONNECTED'
            && app.dataset.testScriptState === 'notRunning';
        }""",
        timeout=timeout,
    )


def drawn(pg, timeout: float = 60_000) -> None:  # type: ignore[no-untyped-def]
    """`wait_for_app`, then every visible chart and component has drawn and the browser has
    painted it: for tests that measure the layout or click inside a chart."""
    wait_for_app(pg, timeout)
    pg.wait_for_function(_DRAWN, timeout=timeout)
    pg.evaluate(_NEXT_PAINT)


def assert_no_exception(pg) -> None:  # type: ignore[no-untyped-def]
    assert pg.locator('[data-testid="stException"]').count() == 0, "an exception box is shown"


# the points of a lite chart's trace named NAME, [[x, y], ...] (null when no chart has it); lite
# charts (components/common/lite_chart.py) draw SVG inside their component's shadow root
LITE_POINTS = """(name) => {
  for (const host of document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')) {
    const svg = host.shadowRoot && host.shadowRoot.querySelector('svg[data-testid="lite-chart-svg"]');
    if (!svg) continue;
    const g = [...svg.querySelectorAll('g.trace')].find((e) => e.dataset.name === name);
    if (g) return [...g.querySelectorAll('[data-x]')].map((e) => [Number(e.dataset.x), Number(e.dataset.y)]);
  }
  return null;
}"""
LITE_SVG = 'svg[data-testid="lite-chart-svg"]'  # Playwright's CSS locators pierce shadow roots


@pytest.fixture(scope="module")
def journey_expect_timeout() -> Iterator[None]:
    """A journey module's `expect()` timeout (`journey_helpers.expect_timeout`), restored after."""
    with expect_timeout():
        yield
