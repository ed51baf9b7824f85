"""Search: one query over every text the datasets hold and the casebook's notes."""

from __future__ import annotations

import streamlit as st

from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import source_pairs
from components.search.cached import corpus
from components.search.view import (
    compiled_or_message,
    empty_state,
    filter_bar,
    query_bar,
    results,
)

ensure_routed()

st.title("Search")
st.caption(
    "Find a word, a phrase or a pattern in every question, reasoning step, answer, proof step, "
    "probe text and case note; each hit opens in its view at the hit."
)

query = query_bar()
with guard("the search texts"):
    texts = corpus()
    for name, problem in texts.problems.items():
        st.warning(f"{texts.titles.get(name, name)} is not searched: {problem}")
    if not query.text:
        empty_state()  # the filters come with a query: nothing to narrow before it
    else:
        filters = filter_bar(texts)
        compiled = compiled_or_message(query)
        if compiled is not None:
            results(texts, compiled, filters, dict(source_pairs()))
