"""FineProofs prefix values: where along a proof attempt the value collapses, whether a drop is
real or noise, and the text of the step where it happened."""

from __future__ import annotations

import streamlit as st

from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.fineproofs import cached as fc
from components.fineproofs.view import (
    DATASET,
    PROBLEM,
    VIEWS,
    render_collection,
    render_overview,
    render_trace,
    show_notes,
)

ensure_routed()

st.title("FineProofs prefix values")
st.caption(
    "Where along a proof attempt does the value of its prefixes collapse, is the drop real or "
    "noise (±2 SE), and what does the step say? Values are mean rubric grades of 32 continuations."
)

src = current_source(DATASET)
ok = False
with guard("the prefix table", dataset=DATASET):
    _annotated, notes, _extra = fc.prefixes(src)
    show_notes(notes)
    ok = True

if ok:
    tabs = st.tabs(
        list(VIEWS),
        key="view",
        bind="query-params",
        default="Trace" if PROBLEM.read() else "Overview",
    )
    for tab, name in zip(tabs, VIEWS, strict=True):
        if not tab.open:
            continue
        with tab:
            if name == "Overview":
                with guard("the overview", dataset=DATASET):
                    render_overview(src)
            elif name == "Trace":
                with guard("the trace view", dataset=DATASET):
                    render_trace(src)
            else:
                with guard("the collection overview", dataset=DATASET):
                    render_collection(src)
