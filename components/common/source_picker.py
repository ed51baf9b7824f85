"""Sidebar: pick the data source of each dataset (sample, Hub, local folder).

Defaults come from the environment presets (`cache.sources.default_source`); choices live in
`st.session_state` so every page sees the same source.
"""

from __future__ import annotations

import streamlit as st

from cache.datasets import DATASETS
from cache.sources import SOURCE_KINDS, SOURCE_LABELS, SourceConfig, default_source
from components.common.url_state import bound


def _k(dataset: str, field: str) -> str:
    return f"src_{dataset}_{field}"


def current_source(dataset: str) -> SourceConfig:
    """The source the user chose for a dataset (the environment preset until they change it)."""
    preset = default_source(dataset)
    s = st.session_state
    kind = s.get(_k(dataset, "kind")) or preset.kind
    return SourceConfig(
        kind=kind if kind in SOURCE_KINDS else preset.kind,
        repo_id=(s.get(_k(dataset, "repo")) or "").strip() or preset.repo_id,
        revision=(s.get(_k(dataset, "rev")) or "").strip() or preset.revision,
        local_path=(s.get(_k(dataset, "path")) or "").strip() or preset.local_path,
    )


def use_sample(dataset: str) -> None:
    """Callback: switch one dataset back to the bundled sample."""
    st.session_state[_k(dataset, "kind")] = "sample"


def render_source_sidebar() -> None:
    """Draw the per-dataset source controls in the sidebar.

    They are bound to the URL (only values that differ from the preset appear there), so a link
    or a reload keeps the chosen source: `?src_mars_kind=Local+folder&src_mars_path=/data/mars`.
    """
    with st.sidebar:
        st.caption("DATA SOURCES")
        for name, info in DATASETS.items():
            preset = default_source(name)
            src = current_source(name)
            with st.expander(f"{info.title} · {src.kind}", expanded=False):
                st.radio(
                    "Source",
                    SOURCE_KINDS,
                    index=SOURCE_KINDS.index(preset.kind),
                    format_func=SOURCE_LABELS.get,
                    **bound(_k(name, "kind")),
                )
                kind = current_source(name).kind
                if kind == "hub":
                    st.text_input(
                        "Repo id",
                        value=preset.repo_id,
                        help=info.repo_note or None,
                        **bound(_k(name, "repo")),
                    )
                    st.text_input(
                        "Revision",
                        value=preset.revision,
                        help="branch, tag or commit",
                        **bound(_k(name, "rev")),
                    )
                elif kind == "local":
                    st.text_input(
                        "Folder laid out like the Hub repo",
                        value=preset.local_path,
                        placeholder="/data/" + name,
                        help="e.g. " + ", ".join(info.files[:3]),
                        **bound(_k(name, "path")),
                    )
