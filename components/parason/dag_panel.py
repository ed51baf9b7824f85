"""One trajectory's DAG on the page: the collapse controls, the clickable figure, and what a click
on a node does. Shared by the Trajectory tab and the two half-width DAGs of 1x vs 8x.
"""

from __future__ import annotations

import functools

import networkx as nx
import plotly.graph_objects as go
import streamlit as st

from analysis.parason.dag import collapse_dag, layout
from analysis.parason.tables import collapse_notes, widest_stage
from components.common.lite_chart import lite_chart
from components.common.selection import event_of, point_values
from components.common.url_keys import ParasonKeys
from components.common.url_state import url_switch
from components.parason.charts import note_counter
from components.parason.dag import dag_figure
from components.parason.shared import switch_subset, write_node

COLLAPSE_AT = 12
DAG_LEGEND = (
    "Left to right by stage; size = tokens. Shapes: ▶ fork (a stage opens) · ■ AND join · "
    "◆ OR join · ★ mixed join · ● thread (green Subtask = AND sub-goal, orange Trial = OR attempt, "
    "purple untyped) · grey ● text outside the parallel blocks · dark ✦ the boxed answer · "
    "grey ⬢ collapsed branches (+n). Red = critical path; ⚠ = parser warning. Click a node to read it."
)

ZOOM_HELP = (
    "Draw the charts with Plotly: scroll or drag to zoom, pan. It loads Plotly's 4.7 MB bundle, "
    "so the tab opens slower in a new browser tab."
)


def zoom_box() -> bool:
    """The URL-bound "zoom" switch of the DAG tabs and the Charts tab: their charts are light SVG
    charts (no Plotly bundle at first paint) unless it is on."""
    return url_switch("zoom", ParasonKeys.ZOOM, help=ZOOM_HELP)


def on_dag_select(key: str, subset: str | None = None) -> None:
    """A clicked DAG node becomes the URL's node; from the 1x/8x comparison it also opens that
    subset's Trajectory tab, where the node text is shown."""
    node = next((v for v in point_values(event_of(key)) if isinstance(v, str)), None)
    if node is None:
        return
    write_node(node)
    if subset is not None:
        switch_subset(subset)
        st.session_state["view"] = "Trajectory"


def dag_controls(g: nx.DiGraph, key: str, compact: bool = False) -> tuple[bool, int]:
    """Collapse toggle + branches slider, shown only for a stage wider than COLLAPSE_AT. Why
    `compact`: in the half-width 1x/8x columns the long labels were cut to "C…"."""
    widest = widest_stage(g)
    if widest <= COLLAPSE_AT:
        return False, COLLAPSE_AT
    c1, c2, _ = st.columns([1, 1.4, 0.2] if compact else [1.4, 2, 3], vertical_alignment="bottom")
    collapse = c1.toggle(
        "Collapse" if compact else "Collapse wide stages", value=True, key=f"{key}_collapse",
        help=f"The widest stage has {widest} branches. Keep the critical branch, the selected one and the heaviest others; merge the rest into one node.",
    )  # fmt: skip
    keep = c2.slider(
        "Shown per stage" if compact else "Branches shown per stage", 4, 40, COLLAPSE_AT,
        key=f"{key}_keep", disabled=not collapse,
    )  # fmt: skip
    return collapse, keep


def dag_view(
    g: nx.DiGraph,
    selected: str | None,
    added: set[str],
    key: str,
    title: str = "",
    height: int | None = None,
    subset: str | None = None,
    compact: bool = False,
    zoom: bool = False,
) -> tuple[go.Figure, nx.DiGraph]:
    """Draw the (possibly collapsed) DAG with click selection, with Plotly only when `zoom`;
    returns the figure and the drawn graph, so the caller can offer the figure for download and
    check what is on screen."""
    collapse, keep = dag_controls(g, key, compact)
    h = collapse_dag(g, keep, keep=[selected] if selected else ()) if collapse else g
    fig = dag_figure(h, layout(h), selected=selected, added=added, title=title, height=height)
    counter = str(g.graph.get("counter", ""))
    # side by side, the long name ("estimate (num_qwen_tokens spread ...)") ran off the left edge
    note_counter(fig, counter.split(" (", 1)[0] if compact else counter)
    for note in collapse_notes(g, h):
        st.caption(note)
    on_select = functools.partial(on_dag_select, key, subset)
    if zoom:
        st.plotly_chart(
            fig,
            key=key,
            on_select=on_select,
            selection_mode="points",
            config={"displaylogo": False, "scrollZoom": True},
        )
    else:
        lite_chart(fig, key=key, on_select=on_select)
    return fig, h
