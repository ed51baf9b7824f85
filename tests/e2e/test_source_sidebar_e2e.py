"""The sidebar's source boxes in a real browser: closed, a box draws no control; opened, it
does, and a source chosen there is in the box's title and the URL, and survives a reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.journey_helpers import SMALL, idle, new_page, no_exception, open_url

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]


@pytest.mark.parametrize("viewport", SMALL)
def test_a_source_box_draws_its_controls_when_opened_and_keeps_the_choice(
    browser: Browser, app_url: str, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    open_url(page, f"{app_url}/")
    side = page.locator('[data-testid="stSidebar"]')
    expect(side.get_by_text("MARS · Bundled sample")).to_be_visible()
    expect(side.locator('[data-testid="stRadio"]')).to_have_count(0)
    side.get_by_text("MARS · Bundled sample").click()
    expect(side.locator('[data-testid="stRadio"]')).to_have_count(1)
    idle(page)  # the runs the opening started have ended: a click during one can be lost
    # On a loaded machine a run that the opening queued can still start after the hold, and
    # a click that lands as it redraws the box is lost (seen once in CI): the reader clicks
    # again, once. A choice that never takes still fails.
    local = side.get_by_role("radio", name="Local folder")
    for attempt in range(2):
        side.get_by_text("Local folder").click()
        try:
            expect(local).to_be_checked(timeout=10_000)
            break
        except AssertionError:
            if attempt:
                raise
            idle(page)
    expect(side.get_by_text("MARS · Local folder")).to_be_visible()
    expect(side.locator('input[aria-label="Folder laid out like the Hub repo"]')).to_be_visible()
    expect(page).to_have_url(re.compile(r"src_mars_kind=Local\+folder"))
    page.reload()
    expect(side.get_by_text("MARS · Local folder")).to_be_visible()
    radio = side.locator('[data-testid="stRadio"]')
    expect(radio).to_have_count(1)  # the link names the source: its box's controls are drawn
    expect(radio.locator("label:has(input:checked)")).to_have_text("Local folder")
    no_exception(page)
    page.context.close()
