"""Open every page in a real browser and check that no exception element is shown."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import assert_no_exception, wait_for_app

pytestmark = pytest.mark.e2e

PAGES = ["home", "parason", "mars", "playground", "fineproofs"]  # home is the default page, at /


@pytest.mark.parametrize("path", PAGES)
def test_page_opens_without_exception(app_url: str, page, path: str) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    if not (Path(__file__).resolve().parents[2] / "pages" / f"{path}.py").exists():
        pytest.fail(f"pages/{path}.py is missing")
    page.goto(f"{app_url}/{'' if path == 'home' else path}")
    wait_for_app(page)
    assert_no_exception(page)
    assert page.locator('[data-testid="stMain"] h1').count() >= 1
    assert "Something went wrong" not in page.inner_text('[data-testid="stMain"]')


def test_first_visit_deep_link_runs_through_the_router(sample_root, cache_dir, browser) -> None:  # type: ignore[no-untyped-def]
    """The first session after a start opens a deep link: it must get app.py's sidebar and layout."""
    from tests.e2e.conftest import streamlit_server

    with streamlit_server(cache_dir) as url:
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        pg = ctx.new_page()
        pg.goto(f"{url}/fineproofs")
        wait_for_app(pg)
        pg.wait_for_selector('[data-testid="stSidebar"] >> text=DATA SOURCES', timeout=20_000)
        sidebar = pg.inner_text('[data-testid="stSidebar"]')
        assert "DATA SOURCES" in sidebar and "FineProofs values" in sidebar
        assert "app" not in [s.strip() for s in sidebar.splitlines()]  # no legacy page list
        ctx.close()


def test_health_endpoint_of_the_procfile_check_answers(app_url: str) -> None:
    """app.json's health check path really answers on a running server."""
    import urllib.request

    with urllib.request.urlopen(app_url + "/_stcore/health", timeout=5) as r:
        assert r.status == 200 and r.read().decode().strip() == "ok"


@pytest.mark.parametrize("path", ["mars?qid=2", "casebook?tab=Collections"])
def test_a_views_link_connects_at_the_root_without_a_detour(app_url: str, page, path: str) -> None:  # type: ignore[no-untyped-def]
    """A view's URL gets the page shell (components/server/page_shell.py): the page asks the
    server's health once, at the root, and never under the view's path (Streamlit's own page
    asks `<view>/_stcore/health` first, gets a 404 and waits before asking the root)."""
    from playwright.sync_api import expect

    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/_stcore/health" in r.url else None)
    page.goto(f"{app_url}/{path}")
    wait_for_app(page)
    expect(page.locator('[data-testid="stMain"] h1').first).to_be_visible()
    assert_no_exception(page)
    assert asked == [f"{app_url}/_stcore/health"]


def test_a_rerun_right_after_opening_a_views_first_tab_keeps_that_tab(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    """Regression (found by the demo journey): the first tab's address has no query, and the
    page shell held such a change a moment before making it (components/server/quiet_history.js),
    so a rerun sent in that moment carried the old query and reopened the tab just left."""
    from playwright.sync_api import expect

    from tests.e2e.journey_helpers import idle

    page.goto(f"{app_url}/casebook?tab=Collections")
    wait_for_app(page)
    expect(page.get_by_label("New collection")).to_be_visible()
    idle(page)
    page.get_by_role("tab", name="Cases").click()
    search = page.get_by_label("Search title, note and tags")
    search.fill("nothing like this")  # at once: within the moment the change was held
    search.press("Enter")
    expect(page).to_have_url(f"{app_url}/casebook?q=nothing+like+this")
    idle(page)
    expect(search).to_be_visible()  # still the Cases tab
    expect(page.get_by_label("New collection")).to_have_count(0)
    assert_no_exception(page)
