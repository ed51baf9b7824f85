"""The Browse tab: the filtered, sorted metrics table of a subset; a click on a row opens it."""

from __future__ import annotations

import functools

import polars as pl
import streamlit as st

from analysis.parason.added import only_changed, with_added
from analysis.parason.metrics import SORT_COLUMNS, filter_table
from analysis.parason.tables import browse_frame
from cache.errors import DataError
from cache.sources import SourceConfig
from components.common.casebook import case_counts, source_identity
from components.common.downloads import file_stem
from components.common.lite_table import grid_switch, table_or_grid
from components.common.source_picker import source_pairs
from components.common.triage import triage_button
from components.common.url_keys import ParasonKeys
from components.common.url_state import query_pairs, url_selectbox, url_switch
from components.parason.cached import added
from components.parason.cases import badge, queue_items, sft_file
from components.parason.shared import DATASET, open_trajectory, table_downloads

TABLE_KEY = "pa_table"
# the URL keys of the filter bar and Browse's toggles, named in a queue's origin
FILTER_KEYS = ("correct", "kinds", "speedup", "warn", "q", "grown", "counter")
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
    "added": st.column_config.NumberColumn(
        "8x added",
        width=60,
        help="branches the 8x expansion added to this trajectory (as outlined in the 1x vs 8x "
        "tab); – when the uuid is not in both subsets",
    ),
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


def _on_row_pick(uuids: list[str], row: int) -> None:
    if 0 <= row < len(uuids):
        open_trajectory(uuids[row])


def _with_added(table: pl.DataFrame, src: SourceConfig) -> tuple[pl.DataFrame, str]:
    """The table with its pairs' added-branch counts, or unchanged with the reason why not
    (a source that lacks one of the two SFT subsets still browses)."""
    try:
        return with_added(table, added(src)), ""
    except DataError as exc:
        return table, f"8x added branches unavailable: {exc}"


def _triage(view: pl.DataFrame, subset: str, src: SourceConfig) -> None:
    """ "Triage these N": the filtered rows, in the table's order, as a triage queue."""
    questions = view["question"].to_list() if "question" in view.columns else [None] * view.height
    rows = list(zip(view["uuid"].to_list(), questions, strict=True))
    items = queue_items(subset, rows, source_identity(src, sft_file(subset)), source_pairs())
    filters = [f"{k}={v}" for k, v in query_pairs() if k in FILTER_KEYS]
    origin = f"Parason Browse: {subset}" + (f", filters {' '.join(filters)}" if filters else "")
    triage_button(items, f"Parason {subset} ({len(items):,})", origin, key="pa_triage")


def render_browse(
    filtered: pl.DataFrame, total: int, subset: str, counter: str, src: SourceConfig
) -> None:
    row = st.container(horizontal=True, vertical_alignment="bottom")
    by_label = {v: k for k, v in SORT_COLUMNS.items()}
    with row:
        label = url_selectbox("Sort by", list(by_label), ParasonKeys.SORT, width=220)
        desc = url_switch("Descending", ParasonKeys.DESC)
        grown = url_switch(
            "Only pairs the 8x expansion changed",
            ParasonKeys.GROWN,
            help="trajectories whose 8x row has at least one branch the 1x row does not",
        )
    sort = by_label.get(label or "", "row")
    grid = grid_switch("grid", container=row)
    table, why_not = _with_added(filtered, src)
    if grown and "added" in table.columns:
        table = only_changed(table)
    view = filter_table(table, sort=sort or "row", descending=bool(desc))
    n_changed = int((view["added"].fill_null(0) > 0).sum()) if "added" in view.columns else None
    changed = f" · {n_changed:,} changed by the 8x expansion" if n_changed is not None else ""
    st.caption(
        f"{view.height:,} of {total:,} trajectories in {subset} match the filters{changed} · click "
        "a row to open its DAG · speedup = T/C (tokens over critical-path tokens)."
        + (f" · {why_not}" if why_not else "")
    )
    if view.height == 0:
        st.info(
            "No trajectory matches these filters. Clear the search, widen the speedup range or "
            "turn off “Only pairs the 8x expansion changed”."
        )
        return
    _triage(view, subset, src)
    counts = case_counts(DATASET, "uuid")
    shown = browse_frame(view).insert_column(
        0, pl.Series("cases", [badge(counts.get(u, 0)) for u in view["uuid"].to_list()])
    )
    uuids = view["uuid"].to_list()
    table_or_grid(
        shown,
        key=TABLE_KEY,
        grid=grid,
        columns=COLUMNS,
        height=min(480, 38 + 35 * shown.height),
        label=f"{subset} trajectories",
        on_pick=functools.partial(_on_row_pick, uuids),
    )
    table_downloads(view, file_stem("parason", subset, counter, "filtered"), "pa_browse")
