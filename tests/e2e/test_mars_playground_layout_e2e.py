"""MARS and the playground at 1024x768: no metric, label or button is cut with an ellipsis;
the playground's replayed iteration lives in the URL."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import assert_no_exception, wait_for_app
from tests.e2e.journey_helpers import STATS_CUT

pytestmark = pytest.mark.e2e

FILE = "DeepSeek-8B/aime25_deepseek.parquet"
# every text Streamlit cuts with an ellipsis (metric values and labels, widget labels, buttons)
_CUT = """() => [...document.querySelectorAll(
    '[data-testid="stMain"] .stMarkdownEllipsis, [data-testid="stMain"] [data-testid="stWidgetLabel"] p')]
  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map(e => e.innerText.slice(0, 60))"""


def _settled(page) -> None:  # type: ignore[no-untyped-def]
    wait_for_app(page, timeout=180_000)


@pytest.mark.parametrize(
    "path",
    [
        f"mars?file={FILE}&qid=3",
        f"mars?file={FILE}&qid=3&view=Single+trace&trace=2",
        f"mars?file={FILE}&qid=3&view=Data",
        "playground?policy=sc-mars-cal",
        "playground?policy=sc-pp",
    ],
)
def test_nothing_is_cut_at_1024x768(app_url: str, page, path: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{app_url}/{path}")
    _settled(page)
    assert_no_exception(page)
    expect(page.locator(".rte-stat").first).to_be_visible(timeout=60_000)
    # retried until the layout has settled (a late rerun may still move things)
    page.wait_for_function(f"() => ({_CUT})().length === 0", timeout=30_000)
    page.wait_for_function(f"() => ({STATS_CUT})().length === 0", timeout=30_000)


def _iteration(page):  # type: ignore[no-untyped-def]
    return page.get_by_role("slider", name="bootstrap iteration")


def test_the_replayed_iteration_is_kept_in_the_url(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/playground?policy=sc-pp&qid=2&it=5")
    _settled(page)
    assert_no_exception(page)
    slider = _iteration(page)
    expect(slider).to_have_value("5", timeout=60_000)
    assert "it=5" in page.evaluate("() => window.location.search")
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.location.search.includes('it=6')", timeout=30_000)
    page.reload()
    _settled(page)
    slider = _iteration(page)
    expect(slider).to_have_value("6", timeout=60_000)
