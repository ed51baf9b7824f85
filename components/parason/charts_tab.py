"""The Charts tab: subset charts of the filtered metrics table; a click on a point opens it.
Drawn as light SVG charts (no Plotly bundle at first paint), with Plotly on "zoom"."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl
import streamlit as st

from components.common.guards import guard
from components.common.lite_chart import lite_chart
from components.common.selection import event_of, point_values
from components.parason.charts import (
    branches_hist,
    by_correctness,
    note_counter,
    ratio_scatter,
    speedup_hist,
    speedup_scatter,
)
from components.parason.dag_panel import zoom_box
from components.parason.shared import COUNTER_LABELS, DATASET, UUID, open_trajectory

if TYPE_CHECKING:
    import plotly.graph_objects as go

PLAIN = {"displayModeBar": False}


def selected_uuid(event: object) -> str | None:
    """The uuid of the first clicked point that carries one in a plotly selection event."""
    return next((v for v in point_values(event) if isinstance(v, str)), None)


def _on_chart_select(key: str) -> None:
    uid = selected_uuid(event_of(key))
    if uid:
        open_trajectory(uid)


# each chart's builder, by its key; the scatters ring the open trajectory
BUILDERS: dict[str, Callable[[pl.DataFrame, str | None], go.Figure]] = {
    "pa_ch_speed": speedup_scatter,
    "pa_ch_ratio": ratio_scatter,
    "pa_ch_hist": lambda df, _uid: speedup_hist(df),
    "pa_ch_branches": lambda df, _uid: branches_hist(df),
    "pa_ch_correct": lambda df, _uid: by_correctness(df),
}


@st.cache_resource(max_entries=64, show_spinner=False)
def _figure(key: str, filtered: pl.DataFrame, uid: str | None, label: str) -> go.Figure:
    """Why kept: every run of the tab (a new tab, a click, a filter) drew the same five figures
    again from the same rows. Shared and never changed after it is built (`lite_chart(kept=)`)."""
    return note_counter(BUILDERS[key](filtered, uid), label)


def _clickable(fig: go.Figure, key: str, zoom: bool) -> None:
    on_select = functools.partial(_on_chart_select, key)
    if zoom:
        st.plotly_chart(fig, key=key, on_select=on_select, selection_mode="points", config=PLAIN)
    else:
        lite_chart(fig, key=key, on_select=on_select, kept=True)


def _plain(fig: go.Figure, key: str, zoom: bool) -> None:
    if zoom:
        st.plotly_chart(fig, key=key, config=PLAIN)
    else:
        lite_chart(fig, key=key, kept=True)


def render_charts(filtered: pl.DataFrame, total: int, counter: str = "estimate") -> None:
    if filtered.height == 0:
        st.info("No trajectory matches the filters above.")
        return
    # a row, not columns: a fixed share of the width cut the switch's label to "z…" at 1024 px
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.caption(
        f"{filtered.height:,} of {total:,} trajectories (the filters above apply). Click a point to open its DAG."
    )
    with row:
        zoom = zoom_box()
    uid = UUID.read()
    label = COUNTER_LABELS.get(counter, counter)
    # one chart per row, each the page's full width: the scatters need the room, and two
    # fixed-width charts side by side left half the page empty at 1440 px and cut titles at 1024
    c1, c2, c3, c4 = (st.container() for _ in range(4))
    with c1, guard("the speedup chart", dataset=DATASET):
        _clickable(_figure("pa_ch_speed", filtered, uid, label), "pa_ch_speed", zoom)
    with c2, guard("the ratio chart", dataset=DATASET):
        _clickable(_figure("pa_ch_ratio", filtered, uid, label), "pa_ch_ratio", zoom)
    with c3, guard("the speedup histogram", dataset=DATASET):
        _plain(_figure("pa_ch_hist", filtered, None, label), "pa_ch_hist", zoom)
    with c4, guard("the branches histogram", dataset=DATASET):
        _plain(_figure("pa_ch_branches", filtered, None, label), "pa_ch_branches", zoom)
    with guard("the correctness split", dataset=DATASET):
        _plain(_figure("pa_ch_correct", filtered, None, label), "pa_ch_correct", zoom)
