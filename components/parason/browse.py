"""The Browse tab: the filtered, sorted metrics table of a subset; a click on a row opens it."""

from __future__ import annotations

import functools

import polars as pl
import streamlit as st

from analysis.parason.metrics import SORT_COLUMNS, filter_table
from analysis.parason.tables import browse_frame
from components.common.casebook import case_counts
from components.common.downloads import file_stem
from components.common.formatting import DASH
from components.common.selection import event_of, selected_rows
from components.common.url_state import bound_kept
from components.parason.cases import badge
from components.parason.shared import DATASET, open_trajectory, table_downloads

TABLE_KEY = "pa_table"
COLUMNS = {
    "cases": st.column_config.TextColumn("cases", width=52, help="cases in the casebook"),
    "uuid": st.column_config.TextColumn("uuid", width=80, help="first 8 characters"),
    "question": st.column_config.TextColumn("question (start)", width=250),
    "correctness": st.column_config.Column("correct", width=55),
    "speedup": st.column_config.NumberColumn("speedup", format="%.2f", width=70),
    "T": st.column_config.NumberColumn("T", format="%.0f", help="response tokens", width=60),
    "C": st.column_config.NumberColumn("C", format="%.0f", help="critical-path tokens", width=60),
    "stages": st.column_config.NumberColumn("stages", width=50),
    "branches": st.column_config.TextColumn("branches", width=70),
    "kind_mix": st.column_config.TextColumn("kind mix", width=100),
    "n_warnings": st.column_config.NumberColumn(
        "⚠", help="parser warnings (invalid data); informational notes are not counted", width=36
    ),
    "warnings": st.column_config.TextColumn("warnings", width=90),
    "notes": st.column_config.TextColumn(
        "notes", width=80, help="informational parser notes: tolerated, the row stays valid"
    ),
    "vs_stored": st.column_config.NumberColumn(
        "Δ stored",
        format="%+.0f",
        width=70,
        help="this counter's count of the whole text minus the stored num_qwen_tokens (which "
        "counts the whole chat template): a difference, not a verdict",
    ),
}


def _on_table_select(uuids: list[str]) -> None:
    rows = selected_rows(event_of(TABLE_KEY))
    if rows and rows[0] < len(uuids):
        open_trajectory(uuids[rows[0]])


def render_browse(filtered: pl.DataFrame, total: int, subset: str, counter: str) -> None:
    row = st.container(horizontal=True, vertical_alignment="bottom")
    by_label = {v: k for k, v in SORT_COLUMNS.items()}
    label = row.selectbox("Sort by", list(by_label), width=220, **bound_kept("sort"))
    sort = by_label.get(label or "", "row")
    desc = row.toggle("Descending", value=False, **bound_kept("desc"))
    view = filter_table(filtered, sort=sort or "row", descending=bool(desc))
    st.caption(
        f"{view.height:,} of {total:,} trajectories in {subset} match the filters · click a row to open "
        "its DAG · speedup = T/C (tokens over critical-path tokens)."
    )
    if view.height == 0:
        st.info("No trajectory matches these filters. Clear the search or widen the speedup range.")
        return
    counts = case_counts(DATASET, "uuid")
    shown = browse_frame(view).insert_column(
        0, pl.Series("cases", [badge(counts.get(u, 0)) for u in view["uuid"].to_list()])
    )
    st.dataframe(
        shown,
        key=TABLE_KEY,
        on_select=functools.partial(_on_table_select, view["uuid"].to_list()),
        selection_mode="single-row",
        hide_index=True,
        height=min(480, 38 + 35 * shown.height),
        column_config=COLUMNS,
        placeholder=DASH,
    )
    table_downloads(view, file_stem("parason", subset, counter, "filtered"), "pa_browse")
