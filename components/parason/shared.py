"""What several Parason tabs share: the tab names, the counter labels, opening a trajectory, the
trajectory picker, the filter bar and the table downloads.

Why one module: Browse and Charts draw the same filter bar, every tab takes the same `uuid` deep
link and opens a trajectory the same way, so these live once and the tab modules import them.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.parason.metrics import export_table, filter_table
from analysis.parason.tables import plain_question, speedup_range, speedup_top
from components.common.downloads import download_buttons
from components.common.guards import guard
from components.common.url_keys import ParasonKeys
from components.common.url_state import Param, bound_kept

DATASET = "parason"
VIEWS = ("Browse", "Trajectory", "1x vs 8x", "Charts", "RL")
COUNTER_LABELS = {
    "estimate": "estimate (num_qwen_tokens by char share)",
    "words": "words + tags (whitespace words; every tag, think tag and <|im_end|> counts 1; "
    "the answer included)",
    "qwen": "exact Qwen3 (bundled Qwen BPE vocabulary, offline)",
}
UUID = ParasonKeys.UUID
NODE = ParasonKeys.NODE


def duplicates_note(n: int, subset: str) -> str:
    """What the page says when the subset stores exact duplicate rows."""
    rows = "row" if n == 1 else "rows"
    return (
        f"{n:,} exact duplicate {rows} in {subset} dropped: each row is counted once in the "
        "browse count, the charts and the picker."
    )


def needs_table_note(subset: str) -> str:
    """What a tab that needs the subset's table says when it could not be built."""
    return (
        f"This tab needs {subset}/train.parquet, which could not be read (see the message "
        "above). The RL tab does not need it; another subset may work too."
    )


def open_trajectory(uuid: str, view: str = "Trajectory") -> None:
    """Select a trajectory (URL state) and switch tab; used from callbacks."""
    UUID.write(str(uuid))
    NODE.write(None)
    st.session_state["view"] = view


def on_pick(key: str, param: Param) -> None:
    """A picker's choice becomes URL state; a new trajectory drops the old node."""
    param.write(st.session_state.get(key))
    if param is UUID:
        NODE.write(None)


def picker(table: pl.DataFrame, uid: str | None, label: str = "Trajectory") -> None:
    """The trajectory selectbox (short uuid · plain question start). Why keyed by the uuid: a
    new deep link or click must show its own choice, not the widget's old state."""
    uuids = table["uuid"].to_list()
    questions = dict(zip(uuids, table["question"].fill_null("").to_list(), strict=True))
    key = f"pa_pick_{uid or 'none'}"
    st.selectbox(
        label,
        uuids,
        index=uuids.index(uid) if uid in questions else None,
        format_func=lambda u: f"{u[:8]} · {plain_question(questions.get(u, ''))}",
        placeholder="pick a trajectory",
        key=key,
        on_change=on_pick,
        args=(key, UUID),
    )


def render_filters(table: pl.DataFrame) -> pl.DataFrame:
    """The filter bar above the tabs; returns the filtered (unsorted) table."""
    kinds = sorted(table["kind_mix"].unique().drop_nulls().to_list())
    top = speedup_top(table["speedup"])
    c1, c2, c3, c4, c5 = st.columns([1.2, 2, 2, 1.5, 2.4], vertical_alignment="bottom")
    correct = c1.selectbox("Correctness", ["all", "correct", "incorrect"], **bound_kept("correct"))
    chosen = c2.multiselect(
        "Kind mix", kinds, default=[], placeholder="all kinds", **bound_kept("kinds")
    )
    lo_hi = c3.slider(
        "Speedup T/C", 1.0, top, (1.0, top), step=0.05, format="%.2f", **bound_kept("speedup")
    )
    # bound widgets put the *shown* option in the URL, so the options are the plain words
    warn = c4.selectbox(
        "Warnings", ["any", "with", "without"], help="parser warnings (⚠)", **bound_kept("warn")
    )
    query = c5.text_input("Search questions", placeholder="text or uuid prefix", **bound_kept("q"))
    return filter_table(
        table,
        correctness=correct or "all",
        kinds=chosen or None,
        speedup=speedup_range(lo_hi[0], lo_hi[1], top),
        warnings=warn or "any",
        query=query or "",
    )


def filter_bar(table: pl.DataFrame) -> pl.DataFrame:
    """The bordered filter bar, drawn only in the tabs it acts on (Browse, Charts; on the other
    tabs it would do nothing); its values persist while another tab is open. If it fails, the tab
    still shows the whole subset."""
    filtered = table
    with st.container(border=True), guard("the filters", dataset=DATASET):
        filtered = render_filters(table)
    return filtered


def table_downloads(df: pl.DataFrame, stem: str, key: str) -> None:
    """CSV (list columns joined with ';', as the CLI and earlier downloads wrote them) and
    Parquet (lists kept) of what a table shows, side by side."""
    c1, c2, _ = st.columns([1, 1, 3])
    download_buttons(lambda: export_table(df), stem, key, formats=("csv",), columns=[c1])
    download_buttons(df, stem, key, formats=("parquet",), columns=[c2])
