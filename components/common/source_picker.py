"""Sidebar: pick the data source of each dataset (sample, Hub, local folder).

Defaults come from the environment presets (`cache.sources.default_source`); choices live in
`st.session_state` (and the URL) so every page sees the same source. Under `RTE_PROFILE=locked`
(a shared server) the presets are the only sources: the sidebar shows them read-only and the
URL's `src_*` keys are ignored. Which folders and repos may be opened at all is decided in
`cache.access`, when a source is resolved.
"""

from __future__ import annotations

import streamlit as st

from cache.access import locked
from cache.datasets import DATASETS
from cache.sources import SOURCE_KINDS, SOURCE_LABELS, SourceConfig, default_source
from components.common.lazy_expander import lazy_expander
from components.common.safe_text import md_text
from components.common.url_state import bound, query_pairs

_KIND_BY_LABEL = {label: kind for kind, label in SOURCE_LABELS.items()}
FIELDS = ("kind", "repo", "rev", "path")


def _k(dataset: str, field: str) -> str:
    return f"src_{dataset}_{field}"


def _chosen(dataset: str, field: str) -> str:
    """The user's choice for one field: the widget's state once the widget exists, else the URL.

    Why the URL: on the first run of a deep link or a reload, a URL-bound widget only takes its
    value from the URL when it is drawn, after the sidebar's header and before the page, so
    reading only the session state would name the preset instead of the source in use."""
    key = _k(dataset, field)
    s = st.session_state
    if key in s:
        return str(s[key] or "").strip()
    raw = (st.query_params.get(key) or "").strip()
    if field == "kind":
        return _KIND_BY_LABEL.get(raw, raw if raw in SOURCE_KINDS else "")
    return raw


def source_pairs() -> tuple[tuple[str, str], ...]:
    """The sidebar's data-source keys of the current URL (`src_*`), for links and queue items
    built on this page: they open the same data."""
    return tuple((k, v) for k, v in query_pairs() if k.startswith("src_"))


def current_source(dataset: str) -> SourceConfig:
    """The source in use for a dataset: the environment preset until the user changes it (and
    always the preset on a locked server)."""
    preset = default_source(dataset)
    if locked():
        return preset
    kind = _chosen(dataset, "kind") or preset.kind
    return SourceConfig(
        kind=kind if kind in SOURCE_KINDS else preset.kind,
        repo_id=_chosen(dataset, "repo") or preset.repo_id,
        revision=_chosen(dataset, "rev") or preset.revision,
        local_path=_chosen(dataset, "path") or preset.local_path,
    )


def use_sample(dataset: str) -> None:
    """Callback: switch one dataset back to the bundled sample (not on a locked server)."""
    if not locked():
        st.session_state[_k(dataset, "kind")] = "sample"


def header(dataset: str) -> str:
    """The sidebar header of a dataset: its title and the kind of source in use."""
    return f"{DATASETS[dataset].title} · {SOURCE_LABELS[current_source(dataset).kind]}"


def render_source_sidebar() -> None:
    """Draw the per-dataset source controls in the sidebar (read-only on a locked server).

    They are bound to the URL (only values that differ from the preset appear there), so a link
    or a reload keeps the chosen source: `?src_mars_kind=Local+folder&src_mars_path=/data/mars`.
    """
    if locked():
        _render_locked()
        return
    with st.sidebar:
        st.caption("DATA SOURCES")
        for name in DATASETS:
            asked = _seed_kind(name)
            # the controls are drawn while the box is open (or the link sets a source): three
            # closed boxes of radios cost every view's first paint
            with lazy_expander(
                header(name),
                url_keys=[_k(name, f) for f in FIELDS],
                key=f"src_{name}_box",
                expanded=asked is not None,
            ) as draw:
                if draw:
                    _source_fields(name, asked)


def _source_fields(name: str, asked: str | None) -> None:
    """A dataset's source controls: the kind, then the repo and revision or the folder."""
    info = DATASETS[name]
    preset = default_source(name)
    if asked is not None:
        st.warning(
            f"The link asks for source “{md_text(asked, 60)}”, which is not one of "
            f"{', '.join(SOURCE_LABELS.values())}: showing "
            f"{SOURCE_LABELS[preset.kind]} instead.",
            icon=":material/link_off:",
        )
    seeded = _k(name, "kind") in st.session_state
    st.radio(
        "Source",
        SOURCE_KINDS,
        index=None if seeded else SOURCE_KINDS.index(preset.kind),
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


def _seed_kind(dataset: str) -> str | None:
    """A link's source kind, before the radio bound to it exists: a plain kind (`local`) is
    taken as its label would be; anything else is returned so the sidebar can say so (the radio
    itself would drop it silently)."""
    key = _k(dataset, "kind")
    if key in st.session_state:
        return None
    raw = (st.query_params.get(key) or "").strip()
    if not raw or raw in _KIND_BY_LABEL:
        return None
    if raw in SOURCE_KINDS:
        st.session_state[key] = raw
        return None
    return raw


def _render_locked() -> None:
    """The configured sources as text: nothing to change, nothing taken from the URL."""
    with st.sidebar:
        st.caption("DATA SOURCES (set by this server)")
        for name in DATASETS:
            with st.expander(header(name), expanded=False):
                st.caption(md_text(current_source(name).describe(), 300))
        if any(_k(d, f) in st.query_params for d in DATASETS for f in FIELDS):
            st.caption("This server ignores the source settings in the link.")
