"""Parason's tabs at 1024x768: no label or button is cut with an ellipsis (the Charts tab's
"zoom" switch was cut to "z…" by a fixed column share)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from cache.sample.parason import make_uuid
from tests.e2e.conftest import assert_no_exception, wait_for_app
from tests.e2e.test_mars_playground_layout_e2e import _CUT

pytestmark = pytest.mark.e2e


FOUR = make_uuid("not-div-7-11")  # a sample trajectory with a four-way fork


@pytest.mark.parametrize(
    "query", ["view=Charts", f"view=Trajectory&uuid={FOUR}", f"view=1x+vs+8x&uuid={FOUR}"]
)
def test_nothing_is_cut_at_1024x768(app_url: str, page, query: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{app_url}/parason?{query}")
    wait_for_app(page, timeout=180_000)
    assert_no_exception(page)
    expect(page.get_by_text("zoom", exact=True).first).to_be_visible(timeout=60_000)
    # retried until the layout has settled (a late rerun may still move things)
    page.wait_for_function(f"() => ({_CUT})().length === 0", timeout=30_000)


@pytest.mark.parametrize(("width", "height", "least"), [(1024, 768, 660), (1440, 900, 960)])
def test_a_view_has_the_width_the_window_leaves(
    app_url: str, page, width: int, height: int, least: int
) -> None:  # type: ignore[no-untyped-def]
    """Below 1280 px the view keeps narrow margins (Streamlit's 5rem a side left 564 px of
    1024 beside the sidebar), and on a short window less room above the title: the 1x vs 8x
    pair's two DAGs get the width."""
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{app_url}/parason?view=1x+vs+8x&uuid={FOUR}")
    wait_for_app(page, timeout=180_000)
    block = page.locator('[data-testid="stMainBlockContainer"]')
    expect(block).to_be_visible()
    page.wait_for_function(
        "(least) => { const b = document.querySelector('[data-testid=\"stMainBlockContainer\"]');"
        " const s = getComputedStyle(b);"
        " return b.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) >= least; }",
        arg=least,
        timeout=30_000,
    )
    title = page.locator('[data-testid="stMain"] h1').first
    assert title.bounding_box()["y"] < (90 if height < 820 else 130)  # type: ignore[index]
    assert_no_exception(page)
