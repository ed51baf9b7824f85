"""FineProofs prefix values: where along a proof attempt the value collapses, whether a drop is
real or noise, and the text of the step where it happened."""

from __future__ import annotations

import streamlit as st

from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.common.url_keys import FineproofsKeys
from components.common.url_state import url_switch, url_tabs
from components.fineproofs import cached as fc
from components.fineproofs.collection import render_collection
from components.fineproofs.overview import render_overview
from components.fineproofs.shared import (
    DATASET,
    FDR,
    TAB_KEY,
    TABS,
    needs_prefix_table,
    show_notes,
)
from components.fineproofs.trace import render_trace

ensure_routed()

st.title("FineProofs prefix values")
st.caption(
    "Where along a proof attempt does the value of its prefixes collapse, is the drop real or "
    "noise (±2 SE), and what does the step say? Values are mean rubric grades of 32 continuations."
)

src = current_source(DATASET)
url_switch(
    "Benjamini-Hochberg drop flags (FDR 5 % per trace)",
    FDR,
    help=(
        "Each trace makes one z-test per change between consecutive prefixes (about 7). Off: a "
        "change is flagged when z < −2 (or > 2) and |change| ≥ 0.15, each test alone, so about "
        "4.6 % of unchanged steps are flagged by chance. On: the trace's tests are corrected "
        "together (Benjamini-Hochberg, q = 0.05): among flagged changes at most 5 % are expected "
        "to be false. Drops, recoveries, first-error candidates and shapes follow the switch."
    ),
)
ok = False
with guard("the prefix table", dataset=DATASET):
    _annotated, notes, _extra = fc.prefixes(src)
    show_notes(notes)
    ok = True

RENDER = {
    "Overview": ("the overview", render_overview),
    "Trace": ("the trace view", render_trace),
    "Collection": ("the collection overview", render_collection),
}
name = url_tabs(
    "FineProofs views", TABS, TAB_KEY, "Trace" if FineproofsKeys.PROBLEM.read() else "Overview"
)
what, render = RENDER[name]
with guard(what, dataset=DATASET):
    # a broken prefix table hides only what needs it: the side files still show
    if name == "Collection":
        render_collection(src, prefix_ok=ok)
    elif ok:
        render(src)
    else:
        needs_prefix_table(what)
