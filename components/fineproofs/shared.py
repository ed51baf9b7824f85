"""What the FineProofs tabs share: opening a trace (URL state + tab switch) and data notes.

Why a module of its own: the Overview's grid and table open a trace in the Trace tab, and the
Trace tab's own picker does too; each tab module imports this instead of another tab.
"""

from __future__ import annotations

import streamlit as st

from components.common.safe_text import md_text
from components.common.url_keys import FineproofsKeys
from components.common.url_state import Param, parse_bool, selector_key

DATASET = "fineproofs"
TABS = ("Overview", "Trace", "Collection")
TAB_KEY = "view"  # the tabs' URL-bound key
# the page's switch: Benjamini-Hochberg drop flags (`url_switch`)
FDR = Param("fdr", False, parse=parse_bool)
FDR_Q = 0.05


def correction() -> str:
    """The drop-flag rule the page's switch chose: "bh" (Benjamini-Hochberg per trace) or
    "none" (each z-test alone). Read by the cached tables, so every tab uses the same flags."""
    return "bh" if st.session_state.get(selector_key(FDR)) is True else "none"


def open_trace(problem_id: str, sample_index: int, prefix: int | None = None) -> None:
    """Select a trace (URL state) and switch to the Trace tab; used from callbacks."""
    FineproofsKeys.PROBLEM.write(str(problem_id))
    FineproofsKeys.SAMPLE.write(int(sample_index))
    FineproofsKeys.PREFIX.write(int(prefix) if prefix else None)
    st.session_state[TAB_KEY] = "Trace"


def show_notes(notes: list[str]) -> None:
    """Data notes (what was found in the data and what was done about it), one warning each."""
    for n in notes:
        st.warning(md_text(n, 600), icon="🔎")


def needs_prefix_table(what: str) -> None:
    """Say why a tab is empty when the prefix table is broken, and where the rest still is."""
    st.info(
        f"{what[0].upper()}{what[1:]} needs data/prefix_values.parquet, which could not be "
        "read (the error above says why and what to do). The Collection tab still shows "
        "summary.json and trace_manifest.json, which do not need it.",
        icon="ℹ️",
    )
