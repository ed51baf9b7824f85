"""Sidebar: pick the data source of each dataset (sample, Hub, local folder).

Defaults come from the environment presets (`cache.sources.default_source`); choices live in
`st.session_state` so every page sees the same source.
"""

from __future__ import annotations

import streamlit as st

from cache.datasets import DATASETS
from cache.sources import SOURCE_KINDS, SOURCE_LABELS, SourceConfig, default_source


def _k(dataset: str, field: str) -> str:
    return f"src_{dataset}_{field}"


def _init(dataset: str) -> None:
    preset = default_source(dataset)
    for field, value in (
        ("kind", preset.kind),
        ("repo", preset.repo_id),
        ("rev", preset.revision),
        ("path", preset.local_path),
    ):
        st.session_state.setdefault(_k(dataset, field), value)


def current_source(dataset: str) -> SourceConfig:
    """The source the user chose for a dataset (the preset until they change it)."""
    _init(dataset)
    s = st.session_state
    return SourceConfig(
        kind=s[_k(dataset, "kind")],
        repo_id=(s[_k(dataset, "repo")] or "").strip() or DATASETS[dataset].default_repo,
        revision=(s[_k(dataset, "rev")] or "").strip() or "main",
        local_path=(s[_k(dataset, "path")] or "").strip(),
    )


def use_sample(dataset: str) -> None:
    """Callback: switch one dataset back to the bundled sample."""
    st.session_state[_k(dataset, "kind")] = "sample"


def render_source_sidebar() -> None:
    """Draw the per-dataset source controls in the sidebar."""
    with st.sidebar:
        st.caption("DATA SOURCES")
        for name, info in DATASETS.items():
            _init(name)
            src = current_source(name)
            badge = {"sample": "sample", "hub": "hub", "local": "local"}[src.kind]
            with st.expander(f"{info.title} · {badge}", expanded=False):
                st.radio(
                    "Source",
                    SOURCE_KINDS,
                    format_func=SOURCE_LABELS.get,
                    key=_k(name, "kind"),
                    horizontal=False,
                )
                kind = st.session_state[_k(name, "kind")]
                if kind == "hub":
                    st.text_input("Repo id", key=_k(name, "repo"), help=info.repo_note or None)
                    st.text_input("Revision", key=_k(name, "rev"), help="branch, tag or commit")
                elif kind == "local":
                    st.text_input(
                        "Folder laid out like the Hub repo",
                        key=_k(name, "path"),
                        placeholder="/data/" + name,
                        help="e.g. " + ", ".join(info.files[:3]),
                    )
