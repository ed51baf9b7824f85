"""What several Parason tabs share: the tab names, the counter labels, opening a trajectory, the
trajectory picker, the filter bar and the table downloads.

Why one module: Browse and Charts draw the same filter bar, every tab takes the same `uuid` deep
link and opens a trajectory the same way, so these live once and the tab modules import them.
"""

from __future__ import annotations

import functools

import polars as pl
import streamlit as st

from analysis.parason.dag import node_from_url, url_node
from analysis.parason.metrics import export_table, filter_table
from analysis.parason.tables import plain_question, speedup_range, speedup_top
from components.common.downloads import download_buttons
from components.common.guards import guard
from components.common.lazy_expander import lazy_expander
from components.common.light_control import light_select
from components.common.url_keys import ParasonKeys
from components.common.url_state import (
    Param,
    bound_kept,
    one_of,
    refused_link,
    say_refused,
    selector_key,
)

DATASET = "parason"
VIEWS = ("Browse", "Trajectory", "1x vs 8x", "Charts", "RL")
COUNTER_LABELS = {
    "estimate": "estimate (num_qwen_tokens by char share)",
    "words": "words + tags (whitespace words; every tag, think tag and <|im_end|> counts 1; "
    "the answer included)",
    "qwen": "exact Qwen3 (bundled Qwen BPE vocabulary, offline)",
}
FILTER_WIDTHS = (140, 220, 230, 130, 230)  # px: correctness, kinds, speedup, warnings, search
UUID = ParasonKeys.UUID
NODE = ParasonKeys.NODE


def duplicates_note(n: int, subset: str) -> str:
    """What the page says when the subset stores exact duplicate rows."""
    rows = "row" if n == 1 else "rows"
    return (
        f"{n:,} exact duplicate {rows} in {subset} dropped: each row is counted once in the "
        "browse count, the charts and the picker."
    )


def switch_subset(subset: str) -> None:
    """Choose the subset from a callback (a node clicked in the 1x vs 8x DAGs), as a pick in
    the subset control does."""
    st.session_state[selector_key(ParasonKeys.SUBSET)] = subset


def tabs_default() -> str:
    """The tabs' default, fixed for the session: Trajectory when it opened on a `uuid` deep link,
    else Browse. Why fixed: the default is part of the tabs' identity, so a default that followed
    the uuid made a chart click (which sets the uuid) look like a first load, where the URL's
    `view=Charts` wins over the switch to Trajectory; the first click only highlighted."""
    key = "pa_tabs_default"
    if key not in st.session_state:
        st.session_state[key] = "Trajectory" if UUID.read() else "Browse"
    return str(st.session_state[key])


def needs_table_note(subset: str) -> str:
    """What a tab that needs the subset's table says when it could not be built."""
    return (
        f"This tab needs {subset}/train.parquet, which could not be read (see the message "
        "above). The RL tab does not need it; another subset may work too."
    )


def read_node() -> str | None:
    """The URL's node as a parser id: the 1-based dotted form ("2.3") or an old 0-based id."""
    return node_from_url(NODE.read())


def write_node(node: str | None) -> None:
    """Put a parser node id into the URL in the 1-based form the labels use ("b1t2" -> "2.3")."""
    NODE.write(url_node(node))


def open_trajectory(uuid: str, view: str = "Trajectory") -> None:
    """Select a trajectory (URL state) and switch tab; used from callbacks."""
    UUID.write(str(uuid))
    NODE.write(None)
    st.session_state["view"] = view


def on_pick(key: str, param: Param) -> None:
    """A picker's choice becomes URL state; a new trajectory drops the old node."""
    if param is NODE:
        write_node(st.session_state.get(key))
        return
    param.write(st.session_state.get(key))
    if param is UUID:
        NODE.write(None)


PICK_NONE = "pick a trajectory (type a few characters of its uuid or question)"


def picker(table: pl.DataFrame, uid: str | None, label: str = "Trajectory") -> None:
    """The trajectory picker (short uuid · plain question start), a light select one can type
    into: a few characters of the uuid or of the question find it among hundreds. A pick opens
    the trajectory (URL state) and drops the old node."""
    uuids = table["uuid"].to_list()
    questions = dict(zip(uuids, table["question"].fill_null("").to_list(), strict=True))
    labels = [f"{u[:8]} · {plain_question(questions.get(u, ''), limit=120)}" for u in uuids]
    shown = uid in questions
    light_select(
        label,
        labels if shown else [PICK_NONE, *labels],
        uuids.index(uid) if shown else 0,
        key="pa_pick",
        on_pick=functools.partial(_on_pick_trajectory, uuids, 0 if shown else 1),
        typed=True,
    )


def _on_pick_trajectory(uuids: list[str], first: int, i: int) -> None:
    if i >= first:  # not the "pick a trajectory" line
        UUID.write(uuids[i - first])
        NODE.write(None)


CORRECTNESS = ("all", "correct", "incorrect")  # the filters' choices, as the URL holds them
WARNINGS = ("any", "with", "without")


def render_filters(table: pl.DataFrame) -> pl.DataFrame:
    """The filter bar above the tabs; returns the filtered (unsorted) table."""
    kinds = sorted(table["kind_mix"].unique().drop_nulls().to_list())
    top = speedup_top(table["speedup"])
    # a wrapping row of fixed-width controls: columns cut labels and values at 1024 px
    bar = st.container(horizontal=True, vertical_alignment="bottom")
    asked = {
        "correct": refused_link("correct", set(CORRECTNESS).__contains__),
        "warn": refused_link("warn", set(WARNINGS).__contains__),
    }
    correct = bar.selectbox(
        "Correctness", list(CORRECTNESS), width=FILTER_WIDTHS[0],
        **bound_kept("correct"),
    )  # fmt: skip
    chosen = bar.multiselect(
        "Kind mix", kinds, default=[], placeholder="all kinds", width=FILTER_WIDTHS[1],
        **bound_kept("kinds"),
    )  # fmt: skip
    lo_hi = bar.slider(
        "Speedup T/C", 1.0, top, (1.0, top), step=0.05, format="%.2f", width=FILTER_WIDTHS[2],
        **bound_kept("speedup"),
    )  # fmt: skip
    # bound widgets put the *shown* option in the URL, so the options are the plain words
    warn = bar.selectbox(
        "Warnings", list(WARNINGS), width=FILTER_WIDTHS[3],
        help="parser warnings (⚠, invalid data); notes are not warnings", **bound_kept("warn"),
    )  # fmt: skip
    query = bar.text_input(
        "Search questions", placeholder="text or uuid prefix", width=FILTER_WIDTHS[4],
        **bound_kept("q"),
    )  # fmt: skip
    say_refused("correct", asked["correct"], "Correctness", correct, one_of(CORRECTNESS))
    say_refused("warn", asked["warn"], "Warnings", warn, one_of(WARNINGS))
    return filter_table(
        table,
        correctness=correct or "all",
        kinds=chosen or None,
        speedup=speedup_range(lo_hi[0], lo_hi[1], top),
        warnings=warn or "any",
        query=query or "",
    )


FILTER_KEYS = ("correct", "kinds", "speedup", "warn", "q")  # the filters' URL keys


def filter_bar(table: pl.DataFrame) -> pl.DataFrame:
    """The filter bar, drawn only in the tabs it acts on (Browse, Charts; on the other tabs it
    would do nothing); its values persist while another tab is open. A closed bar with no
    filter set draws no widget (`lazy_expander`). If it fails, the tab still shows the whole
    subset."""
    filtered = table
    with lazy_expander(
        "Filter trajectories", FILTER_KEYS, "pa_filters_open", icon=":material/filter_list:"
    ) as draw:
        if draw:
            with guard("the filters", dataset=DATASET):
                filtered = render_filters(table)
    return filtered


def table_downloads(df: pl.DataFrame, stem: str, key: str) -> None:
    """CSV (list columns joined with ';', as the CLI and earlier downloads wrote them) and
    Parquet (lists kept) of what a table shows, side by side."""
    row = st.container(horizontal=True)  # content-wide buttons: narrow columns cut the labels
    download_buttons(lambda: export_table(df), stem, key, formats=("csv",), columns=[row])
    download_buttons(df, stem, key, formats=("parquet",), columns=[row])
