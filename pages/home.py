"""Home: what each dataset holds under the chosen source, and where to go next."""

from __future__ import annotations

import streamlit as st

from cache.inventory import inventory
from cache.paths import cache_root
from components.common.cached import resolve
from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.home.cards import dataset_card, home_cards, sample_note
from components.home.search_box import search_box

ensure_routed()

st.title("Reasoning Trace Explorer")
st.markdown(
    "Look *inside* LLM reasoning data: **Parason** parallel trajectories as Subtask/Trial DAGs, "
    "**MARS** pools of sampled traces with per-token confidence and probed answers, a live "
    "**stopping-policy playground**, and **FineProofs** prefix values of proof attempts. "
    "Pick each dataset's source in the sidebar; the bundled sample works offline."
)
search_box()
if any(current_source(info.name).kind == "sample" for info in home_cards()):
    sample_note()

for info in home_cards():
    name = info.name
    with st.container(border=True), guard(f"the {info.title} summary", dataset=name):
        source = current_source(name)
        if source.kind == "sample":
            resolve(name, info.files[0], source)  # generates the sample with a bar on first use
        # a wrong or refused folder or repo raises here with a clear message; a folder that
        # holds only some of the files is a card saying which ones ("1 / 9 files")
        dataset_card(inventory(name, source))

st.caption(
    f"Derived tables and the generated sample live in `{cache_root()}` (set `RTE_CACHE_DIR` to move them)."
)
