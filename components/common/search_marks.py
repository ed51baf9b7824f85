"""A search hit's phrase, marked in the view the hit opens.

A hit's link carries the text the search matched (`hl`, and `hlcs` when case mattered). The
view draws as it always does; a script in the browser then marks every place where that text
occurs on the page with the CSS Custom Highlight API: ranges over the page's text, painted by a
`::highlight()` rule. Nothing of the page is rewritten and the phrase is never HTML, so marking
cannot change what the text says or load anything. Marks span the coloured steps and nodes of a
text, but not typeset maths, whose source KaTeX replaces.
"""

from __future__ import annotations

import streamlit as st

from components.common.registered import joined_js, registered
from components.common.safe_text import md_text
from components.common.theme import HIT_BG
from components.common.url_state import Param, parse_bool

MAX_PHRASE = 200  # characters: a hit's link carries no longer text
# the "Next mark" button, drawn by the component in its shadow root: a plain text button
_CSS = """
.rte-next-mark { font: inherit; font-size: 0.875rem; border: 1px solid rgba(49, 51, 63, 0.2);
  border-radius: 0.5rem; background: transparent; color: var(--st-text-color, #31333f);
  padding: 0.2rem 0.6rem; cursor: pointer; white-space: nowrap; }
.rte-next-mark:hover { border-color: var(--st-primary-color, #3b6fd8); }
.rte-next-mark:focus-visible { outline: 2px solid var(--st-primary-color, #3b6fd8); }
.rte-next-mark:disabled { cursor: default; opacity: 0.6; }
"""


LINE_KEY = "rte_marks_line"
# our own constant CSS (no user text): the line naming the marks, with Next mark and Clear marks,
# stays pinned under the header while the reader is down the view at the hit; not when a present
# banner or a triage bar holds that place
_PAGE_CSS = f"""<style>
@media (min-height: 600px) {{
  [data-testid="stLayoutWrapper"]:has(> .st-key-{LINE_KEY}) {{
    position: sticky; top: 3.75rem; z-index: 980;
  }}
  [data-testid="stMain"]:has(.st-key-tq_bar, .st-key-present_banner)
    [data-testid="stLayoutWrapper"]:has(> .st-key-{LINE_KEY}) {{ position: static; }}
}}
.st-key-{LINE_KEY} {{
  background: var(--st-background-color, #fff); box-shadow: 0 6px 10px -8px rgba(0, 0, 0, 0.3);
  padding: 0.25rem 0;
}}
/* the header above the pinned line is opaque: the view does not show through between them */
body:has(.st-key-{LINE_KEY}) [data-testid="stHeader"] {{
  background: var(--st-background-color, #fff);
}}
</style>"""


def phrase(raw: str) -> str:
    """A marked phrase from a URL: bounded, not blank, no control characters but line breaks
    and tabs (a hit of a regular expression can span lines)."""
    if len(raw) > MAX_PHRASE or not raw.strip():
        raise ValueError(raw)
    if any(not (c.isprintable() or c in "\n\t") for c in raw):
        raise ValueError(raw)
    return raw


HL = Param("hl", None, parse=phrase)
HLCS = Param("hlcs", False, parse=parse_bool)


def mark_pairs(match: str, case_sensitive: bool) -> dict[str, str]:
    """The keys a hit's link adds to mark its text: none for a text too long or blank to mark."""
    try:
        phrase(match)
    except ValueError:
        return {}
    return {HL.key: match, **({HLCS.key: "1"} if case_sensitive else {})}


def _clear() -> None:
    for key in (HL.key, HLCS.key):
        if key in st.query_params:
            del st.query_params[key]


def search_marks() -> None:
    """Once per run, above the view: when the link names a phrase, mark it, and say what the
    marks are."""
    text, case = HL.read(), bool(HLCS.read())
    if not text:  # nothing drawn: a view without marks pays nothing (the script stops itself)
        return
    mount = registered(
        "rte_search_marks", lambda: joined_js("page_scroll.js", "search_marks.js"), _CSS
    )
    with st.sidebar:  # a zero-height element costs no room there
        mount(
            key="rte_search_marks",
            data={"phrase": text, "cs": case, "colour": HIT_BG},
            height=0,
        )
    st.html(_PAGE_CSS)
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key=LINE_KEY):
        shown = md_text(text if len(text) <= 80 else text[:79] + "…", 200)
        st.caption(
            f":material/ink_highlighter: Marked: “{shown}”, the text the search found"
            f"{'' if case else ' (any case)'}.",
            width="content",
        )
        mount(key="rte_search_marks_next", data={"button": True}, width="content")
        st.button("Clear marks", key="rte_search_marks_clear", type="tertiary", on_click=_clear)
