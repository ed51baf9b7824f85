"""Home's search box: a query typed here (Enter or the button) opens `/search?q=...`."""

from __future__ import annotations

import streamlit as st

from components.common.links import SEARCH

BOX_KEY = "home_search_q"
_ENTERED = "home_search_entered"


def _entered() -> None:
    st.session_state[_ENTERED] = True


def search_box() -> None:
    """A text box and a button; Enter in the box or the button opens the search page."""
    with st.container(horizontal=True, vertical_alignment="bottom"):
        text = st.text_input(
            "Search every text",
            placeholder="a phrase in any question, reasoning, proof, probe text or case note",
            key=BOX_KEY,
            on_change=_entered,
        )
        clicked = st.button("Search", icon=":material/search:", key="home_search_go")
    entered = st.session_state.pop(_ENTERED, False)
    if (clicked or entered) and text and text.strip():
        st.switch_page(SEARCH.script, query_params={"q": text})
