"""Home's search box: a query typed here opens `/search?q=...`."""

from __future__ import annotations

import streamlit as st

from components.common.links import SEARCH

BOX_KEY = "home_search_q"


def search_box() -> None:
    """A one-line form; Enter or the button opens the search page on the query."""
    with (
        st.form("home_search", border=False, enter_to_submit=True),
        st.container(horizontal=True, vertical_alignment="bottom"),
    ):
        text = st.text_input(
            "Search every text",
            placeholder="a phrase in any question, reasoning, proof, probe text or case note",
            key=BOX_KEY,
        )
        go = st.form_submit_button("Search", icon=":material/search:")
    if go and text and text.strip():
        st.switch_page(SEARCH.script, query_params={"q": text})
