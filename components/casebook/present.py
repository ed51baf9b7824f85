"""Present mode: step through a collection, each step in the view where its case was captured,
with the case's title and note as a caption above the view. The URL carries the collection and
the step (`?present=<collection id>&step=<n>`), so a presentation can be shared as a link;
Previous and Next answer the arrow keys too.
"""

from __future__ import annotations

import streamlit as st

from cache.casebook.model import Case, Collection
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.casebook.shared import case_title, item_missing, open_case, snapshot_table
from components.common.casebook import store
from components.common.guards import show_error
from components.common.links import VIEWS
from components.common.safe_text import esc, md_html, md_text
from components.common.theme import CASE_ACCENT
from components.common.url_state import Param, int_in, safe_token

PRESENT = Param("present", None, parse=safe_token(64))
STEP = Param("step", 1, parse=int_in(1, 100_000))


def _load(cid: str) -> tuple[Collection, list[Case]] | None:
    s = store()
    col = s.get_collection(cid) or s.find_collection(cid)
    if col is None:
        return None
    cases = [c for c in (s.get(i) for i in col.case_ids) if c is not None and not c.deleted]
    return col, cases


def start(store: CaseStore, cid: str, step: int) -> None:
    """`casebook?present=<id>&step=<n>`: open that step's view (a message if there is none)."""
    col = store.get_collection(cid) or store.find_collection(cid)
    if col is None:
        st.warning("This presentation's collection no longer exists.", icon=":material/slideshow:")
        return
    cases = [c for c in (store.get(i) for i in col.case_ids) if c is not None and not c.deleted]
    if not cases:
        st.info(f"The collection “{md_text(col.name)}” has no cases to present yet.")
        return
    go_to(col.id, cases, step)


def go_to(cid: str, cases: list[Case], step: int) -> None:
    """Open step `step` (1-based) of the presentation."""
    step = max(1, min(step, len(cases)))
    open_case(cases[step - 1], present=cid, step=str(step))


def banner() -> None:
    """Above every view while presenting: where we are, the case's title and note, and the
    controls. Nothing when the URL has no `present` key."""
    cid = PRESENT.read()
    if not cid:
        return
    try:
        loaded = _load(cid)
    except DataError as exc:
        show_error(exc, key="present")
        return
    if loaded is None:
        st.warning("This presentation's collection no longer exists.", icon=":material/slideshow:")
        return
    col, cases = loaded
    if not cases:
        st.info(f"The collection “{md_text(col.name)}” has no cases to present yet.")
        return
    step = min(STEP.read(), len(cases))
    case = cases[step - 1]
    with st.container(border=True, key="present_banner"):
        st.html(
            f"<div style='font-size:0.8rem;color:{CASE_ACCENT}'>Presenting “{esc(col.name)}” · "
            f"step {step} of {len(cases)}</div>"
            f"<div style='font-size:1.25rem;font-weight:600'>{esc(case_title(case))}</div>"
            + (
                f"<div style='overflow-wrap:anywhere'>{md_html(case.note)}</div>"
                if case.note
                else ""
            )
        )
        gone = item_missing(case)
        if gone:
            st.warning(
                f"This step cannot be shown as it was captured: {md_text(gone, 300)}. "
                "Its figures at capture time:",
                icon=":material/link_off:",
            )
            snapshot_table(case)
        with st.container(horizontal=True):
            prev = st.button(
                "Previous", key="present_prev", icon=":material/arrow_back:",
                disabled=step <= 1, shortcut="ArrowLeft",
            )  # fmt: skip
            nxt = st.button(
                "Next", key="present_next", icon=":material/arrow_forward:", type="primary",
                disabled=step >= len(cases), shortcut="ArrowRight",
            )  # fmt: skip
            stop = st.button("End", key="present_end", shortcut="Escape")
    if prev:
        go_to(col.id, cases, step - 1)
    if nxt:
        go_to(col.id, cases, step + 1)
    if stop:
        st.switch_page(VIEWS["casebook"].script, query_params={"collection": col.id})
