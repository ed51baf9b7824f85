"""Home: what each dataset holds under the chosen source, and where to go next."""

from __future__ import annotations

import streamlit as st

from cache.datasets import DATASETS
from cache.inventory import inventory
from cache.paths import cache_root
from cache.sample import sample_root
from components.common.cached import resolve, st_progress
from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.home.cards import dataset_card

ensure_routed()

st.title("Reasoning Trace Explorer")
st.markdown(
    "Look *inside* LLM reasoning data: **Parason** parallel trajectories as Subtask/Trial DAGs, "
    "**MARS** pools of sampled traces with per-token confidence and probed answers, a live "
    "**stopping-policy playground**, and **FineProofs** prefix values of proof attempts. "
    "Pick each dataset's source in the sidebar; the bundled sample works offline."
)

for name, info in DATASETS.items():
    with st.container(border=True), guard(f"the {info.title} summary", dataset=name):
        source = current_source(name)
        if source.kind == "sample" and not sample_root(name).is_dir():
            with st_progress(f"Generating the {info.title} sample (first run only)…") as bar:
                from cache.sources import resolve_file

                resolve_file(name, info.files[0], source, progress=bar)
        elif source.kind == "local":
            resolve(name, info.files[0], source)  # a clear message when the folder is wrong
        dataset_card(inventory(name, source))

st.caption(
    f"Derived tables and the generated sample live in `{cache_root()}` (set `RTE_CACHE_DIR` to move them)."
)
