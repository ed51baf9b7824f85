"""Journey J2 (docs/JOURNEYS.md), review: two people edit one case, the second save shows both
versions and merges by hand; a reload mid-edit asks first and keeps the author's name; a deleted
case comes back with Undo. A real server with its own casebook, two browser contexts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cache.casebook.store import open_store
from tests.e2e.conftest import streamlit_server
from tests.e2e.journey_helpers import (
    VIEWPORTS,
    grid_cell,
    idle,
    mars_case,
    new_page,
    no_exception,
    open_url,
    settled,
    vp_id,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]


NAME_FIELD = "Your name (this browser remembers it)"


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('j2') / 'casebook.sqlite'}"


@pytest.fixture(scope="module")
def server(sample_root: Path, cache_dir: Path, db_url: str) -> Iterator[str]:
    with streamlit_server(cache_dir, RTE_DB_URL=db_url) as url:
        yield url


def _open_edit(page: Page, title: str) -> None:
    """Expand the open case's Edit form (once the page's run is over: an element moved by a run
    is drawn anew, collapsed)."""
    expect(page.locator(".st-key-cb_case_panel").get_by_text(title).first).to_be_visible()
    settled(page)
    page.get_by_text("Edit", exact=True).click()
    expect(_note(page)).to_have_value("seed note")
    idle(page)  # the run the opening started has ended and held: a Save during it can be lost


def _note(page: Page):  # type: ignore[no-untyped-def]  # a Playwright locator
    """The Edit form's note on screen (a collapsed or stale copy is not it)."""
    return page.get_by_label("Note (Markdown)").filter(visible=True)


def _panel(page: Page):  # type: ignore[no-untyped-def]  # a Playwright locator
    return page.locator(".st-key-cb_case_panel")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j2_review_conflict_merge_reload_undo(
    server: str, db_url: str, browser, viewport: dict[str, int]
) -> None:  # type: ignore[no-untyped-def]
    store = open_store(db_url)
    title = f"J2 review {vp_id(viewport)}"
    case = mars_case(store, title, note="seed note")
    a, b = new_page(browser, viewport), new_page(browser, viewport)
    try:
        # both open the case; B says who it is once (the Cases tab asks); both open Edit
        for page in (a, b):
            open_url(page, f"{server}/casebook?case={case.id}", ready="version 1")
        name = b.get_by_label(NAME_FIELD)
        name.fill("Bea")
        name.press("Enter")
        expect(b.get_by_label(NAME_FIELD)).to_have_count(0)  # taken: the list asks no more
        b.wait_for_function("() => document.cookie.includes('rte_author=Bea')")
        for page in (a, b):
            _open_edit(page, title)

        # A changes the note and saves: version 2
        a_note = "A says: the vote flips at 4k tokens"
        _note(a).fill(a_note)
        a.get_by_role("button", name="Save changes").click()
        expect(_panel(a).get_by_text("version 2")).to_be_visible()
        expect(_panel(a).get_by_test_id("stHtml").first).to_contain_text(a_note)
        assert store.get(case.id).note == a_note  # type: ignore[union-attr]

        # B, still on version 1, types another note and saves: both versions, nothing lost
        b_note = "B says: the probe is noisy here"
        _note(b).fill(b_note)
        b.get_by_role("button", name="Save changes").click()
        expect(b.get_by_text("Someone saved this case while you were editing it")).to_be_visible()
        expect(b.locator(f".st-key-cb_mine_{case.id}")).to_contain_text(b_note)
        expect(b.locator(f".st-key-cb_theirs_{case.id}")).to_contain_text(a_note)
        expect(b.locator(f".st-key-cb_theirs_{case.id}")).to_contain_text("version 2")
        for label in ("Keep mine", "Keep theirs", "Merge by hand"):
            expect(b.get_by_role("button", name=label)).to_be_visible()
        stored = store.get(case.id)
        assert stored is not None and (stored.note, stored.version) == (a_note, 2)
        settled(b)

        # B merges by hand and saves: both texts stored, the version moved on by one
        b.get_by_role("button", name="Merge by hand").click()
        open_form = "after Merge by hand, the Edit form holding the merge is open to save"
        expect(_note(b), open_form).to_have_count(1)
        expect(_note(b)).to_have_value(
            re.compile(f"^{re.escape(b_note)}.*{re.escape(a_note)}", re.DOTALL)
        )
        expect(b.get_by_text("Someone saved this case while you were editing it")).to_have_count(0)
        b.get_by_role("button", name="Save changes").click()
        expect(_panel(b).get_by_text("version 3")).to_be_visible()
        stored = store.get(case.id)
        assert stored is not None and stored.version == 3
        assert a_note in stored.note and b_note in stored.note
        settled(b)

        # B types into the note and reloads: the browser asks first; the name is still known
        dialogs: list[str] = []

        def on_dialog(dialog) -> None:  # type: ignore[no-untyped-def]
            dialogs.append(dialog.type)
            dialog.accept()

        b.on("dialog", on_dialog)
        _note(b).press_sequentially(" and more")
        b.reload()
        assert dialogs == ["beforeunload"]
        expect(_panel(b).get_by_text("version 3")).to_be_visible()
        expect(b.get_by_text("Cases", exact=True).first).to_be_visible()
        expect(b.get_by_label(NAME_FIELD)).to_have_count(0)
        cookies = {c["name"]: c["value"] for c in b.context.cookies()}
        assert cookies.get("rte_author") == "Bea"

        # B deletes the case, then Undo: live again, and back in the list
        b.get_by_role("button", name="Delete", exact=True).click()
        expect(b.get_by_role("button", name="Undo")).to_be_visible()
        expect(grid_cell(b, title)).to_have_count(0)
        assert store.get(case.id).deleted  # type: ignore[union-attr]
        b.get_by_role("button", name="Undo").click()
        expect(grid_cell(b, title)).to_have_count(1)
        expect(b.get_by_role("button", name="Undo")).to_have_count(0)
        assert not store.get(case.id).deleted  # type: ignore[union-attr]
        no_exception(a)
        no_exception(b)
    finally:
        a.context.close()
        b.context.close()
