"""Present mode: step through a collection, each step in the view where its case was captured,
with the case's title and note in a banner pinned above the view. The URL carries the collection
and the step (`?present=<collection id>&step=<n>`), so a presentation can be shared as a link;
Previous and Next answer the arrow keys too.

A presenter's view: while presenting, the sidebar and every capture and editing control are
hidden, the banner stays pinned, and the view scrolls its captured item (the container a view
opens with `components.common.casebook.evidence`) into sight below the banner and outlines it.
"""

from __future__ import annotations

import streamlit as st

from cache.casebook.model import Case, Collection
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.casebook.shared import case_href, case_title, item_missing, snapshot_table
from components.common.browser import focus_evidence, navigate
from components.common.casebook import EVIDENCE_PREFIX, store
from components.common.click_text import text_block
from components.common.guards import show_error
from components.common.links import view_href
from components.common.maths import maths_on
from components.common.safe_text import esc, md_html, md_text
from components.common.theme import CASE_ACCENT
from components.common.url_state import Param, int_in, safe_token

PRESENT = Param("present", None, parse=safe_token(64))
STEP = Param("step", 1, parse=int_in(1, 100_000))
BANNER_KEY = "present_banner"

# our own constant CSS (no user text): the presenter's layout
_PRESENTER_CSS = f"""<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapseButton"] {{
  display: none !important;
}}
[data-testid="stHeader"] {{ background: var(--st-background-color, #fff); }}
[data-testid="stLayoutWrapper"]:has(> .st-key-{BANNER_KEY}) {{
  position: sticky; top: 3.75rem; z-index: 990;
}}
.st-key-{BANNER_KEY} {{
  background: var(--st-background-color, #fff); box-shadow: 0 6px 10px -8px rgba(0, 0, 0, 0.35);
}}
.st-key-{BANNER_KEY} .rte-present-note {{ max-height: 18vh; overflow-y: auto; }}
[class*="st-key-{EVIDENCE_PREFIX}_"] {{
  outline: 3px solid {CASE_ACCENT}; outline-offset: 6px; border-radius: 6px;
}}
</style>"""


def _live(s: CaseStore, col: Collection) -> list[Case]:
    return [c for c in (s.get(i) for i in col.case_ids) if c is not None and not c.deleted]


def _load(s: CaseStore, cid: str) -> tuple[Collection, list[Case]] | None:
    col = s.get_collection(cid) or s.find_collection(cid)
    return None if col is None else (col, _live(s, col))


def start(book: CaseStore, cid: str, step: int) -> None:
    """`casebook?present=<id>&step=<n>`: open that step's view (a message if there is none)."""
    loaded = _load(book, cid)
    if loaded is None:
        st.warning("This presentation's collection no longer exists.", icon=":material/slideshow:")
        return
    col, cases = loaded
    if not cases:
        st.info(f"The collection “{md_text(col.name)}” has no cases to present yet.")
        return
    if step_path(col.id, cases, step) is None:
        banner()  # a step with no view of ours is shown here, in the casebook, as text
        return
    go_to(col.id, cases, step)


def step_path(cid: str, cases: list[Case], step: int) -> str | None:
    """The URL path of step `step` (1-based, clamped) of the presentation."""
    step = max(1, min(step, len(cases)))
    case = cases[step - 1]
    has_maths = any(k == "maths" for k, _ in case.query)
    carried = {"maths": "true"} if maths_on() and not has_maths else {}  # the reader's switch
    return case_href(case, present=cid, step=str(step), **carried)


def go_to(cid: str, cases: list[Case], step: int) -> None:
    """Open step `step` (1-based) of the presentation; a step whose view is not ours is opened
    in the casebook, whose banner says so."""
    path = step_path(cid, cases, step)
    navigate(path or view_href("casebook", present=cid, step=max(1, min(step, len(cases)))))


def presenting() -> bool:
    return bool(PRESENT.read())


def banner() -> None:
    """Above every view while presenting: where we are, the case's title and note, and the
    controls. Nothing when the URL has no `present` key."""
    cid = PRESENT.read()
    if not cid:
        return
    st.html(_PRESENTER_CSS)
    try:
        loaded = _load(store(), cid)
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
    with st.container(border=True, key=BANNER_KEY):
        _banner_body(col, cases, step, case)
    focus_evidence(EVIDENCE_PREFIX)


def _banner_body(col: Collection, cases: list[Case], step: int, case: Case) -> None:
    head, buttons = st.columns([3, 2], vertical_alignment="top")
    with head:
        text_block(
            f"<div style='font-size:0.8rem;color:{CASE_ACCENT}'>Presenting “{esc(col.name)}” · "
            f"step {step} of {len(cases)}</div>"
            f"<div data-testid='present-title' style='font-size:1.2rem;font-weight:600'>"
            f"{esc(case_title(case))}</div>"
            + (
                f"<div class='rte-present-note' style='overflow-wrap:anywhere'>"
                f"{md_html(case.note, maths=maths_on())}</div>"
                if case.note
                else ""
            ),
            key="present_note",
        )
    with buttons, st.container(horizontal=True, horizontal_alignment="right"):
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
        navigate(view_href("casebook", collection=col.id, tab="Collections"))
    gone = item_missing(case)
    if gone:
        st.warning(
            f"This step cannot be shown as it was captured: {md_text(gone, 300)}. "
            "Its figures at capture time:",
            icon=":material/link_off:",
        )
        snapshot_table(case)
    elif case_href(case) is None:
        st.warning(
            f"This step was captured in a view this version does not have "
            f"({md_text(case.view, 80)}). Its figures at capture time:",
            icon=":material/link_off:",
        )
        snapshot_table(case)
