"""Parason: how does a trajectory parallelise? Subtask/Trial DAGs, critical-path metrics, the
1x-vs-8x Trial expansion, subset charts and the RL prompts."""

from __future__ import annotations

import streamlit as st

from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.common.url_keys import ParasonKeys
from components.common.url_state import url_radio, url_selectbox, url_tabs
from components.parason import cached as pc
from components.parason.browse import render_browse
from components.parason.charts_tab import render_charts
from components.parason.compare import render_compare
from components.parason.rl import render_rl
from components.parason.shared import (
    COUNTER_LABELS,
    DATASET,
    VIEWS,
    duplicates_note,
    filter_bar,
    needs_table_note,
    tabs_default,
)
from components.parason.trajectory import render_trajectory

ensure_routed()

st.title("Parason DAGs")
st.caption(
    "Where does a trajectory fork, is each branch an AND sub-goal (Subtask) or an OR attempt "
    "(Trial), how balanced are the branches, and what does the critical path cost against the "
    "sequential length?"
)

src = current_source(DATASET)
# a wrapping row, not columns: at 1024 px a column cut "sft-8x" to "sft"
top = st.container(horizontal=True, vertical_alignment="bottom")
with top:
    subset = str(url_radio("Subset", list(pc.SUBSETS), ParasonKeys.SUBSET, width=200))
    counter = str(
        url_selectbox(
            "Token counter",
            list(pc.counters_available()),
            ParasonKeys.COUNTER,
            help=" · ".join(f"{k}: {v}" for k, v in COUNTER_LABELS.items())
            + " (qwen counts offline from the bundled Qwen vocabulary)",
            width=300,
        )
    )

table = None
with guard(f"the {subset} metrics table", dataset=DATASET):
    table, n_duplicates = pc.metrics_with_duplicates(subset, src, counter)
    if n_duplicates:
        st.info(duplicates_note(n_duplicates, subset), icon=":material/content_copy:")

# every tab is drawn even when the subset's table failed: the RL tab does not need it
name = url_tabs("Parason views", VIEWS, "view", tabs_default())
if name == "RL":
    with guard("the RL prompts", dataset=DATASET):
        render_rl(src)
elif name == "1x vs 8x":
    with guard("the 1x vs 8x comparison", dataset=DATASET):
        render_compare(src, counter)
elif table is None:
    st.info(needs_table_note(subset), icon=":material/info:")
elif name == "Browse":
    with guard("the browsing table", dataset=DATASET):
        render_browse(filter_bar(table), table.height, subset, counter, src)
elif name == "Trajectory":
    with guard("the trajectory view", dataset=DATASET):
        render_trajectory(src, subset, counter, table)
else:
    with guard("the subset charts", dataset=DATASET):
        render_charts(filter_bar(table), table.height, counter)
