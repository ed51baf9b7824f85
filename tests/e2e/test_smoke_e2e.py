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
    assert page.locator('[data-testid="stMainBlockContainer"] h1').count() >= 1
    assert "Something went wrong" not in page.inner_text('[data-testid="stMain"]')
