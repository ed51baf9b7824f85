"""Home's search box: a query typed here (Enter or the button) opens `/search?q=...`. A light
text box (`components.common.light_control`): Home draws no Streamlit text input or button."""

from __future__ import annotations

import streamlit as st

from components.common.light_control import light_text
from components.common.links import SEARCH

BOX_KEY = "home_search_q"
ENTERED = "home_search_entered"  # the text sent from the box, for the run it starts


def _entered(text: str) -> None:
    st.session_state[ENTERED] = text


def search_box() -> None:
    """A text box and its button; Enter in the box or the button opens the search page."""
    light_text(
        "Search every text",
        "",
        key=BOX_KEY,
        on_enter=_entered,
        placeholder="a phrase in any question, reasoning, proof, probe text or case note",
        button="Search",
        enter_only=True,  # leaving the box (Tab to the button) does not search yet
    )
    text = st.session_state.pop(ENTERED, None)
    if text is not None:  # an empty box opens the search page, with its examples to try
        st.switch_page(SEARCH.script, query_params={"q": text} if text.strip() else None)
