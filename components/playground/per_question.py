"""The per-question section: each question's accuracy and savings next to self-consistency.
A selected row or chart point picks the question the replay shows; the link column opens the
question in the MARS view; the cases column marks questions with casebook cases on this file."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import streamlit as st

from analysis.playground import RunResult
from analysis.playground.compare import per_question_comparison
from components.common.formatting import DASH, counted
from components.common.links import view_href
from components.common.lite_chart import lite_chart
from components.common.lite_table import grid_switch, lite_table
from components.common.selection import selected_points, selected_rows
from components.playground.cases import case_mark, qid_case_counts
from components.playground.figures import per_question_figure
from components.playground.replay import default_question

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

TABLE_COLUMNS = [
    "flag",
    "qid",
    "cases",
    "accuracy_pct",
    "sc_accuracy_pct",
    "delta_pct",
    "savings_pct",
    "mean_position",
    "stop_reasons",
    "gamma",
    "ground_truth",
    "n_pool",
    "open",
]


def _new_pick(source: str, value: int | None) -> int | None:
    """`value` when this selection (table row or chart point) changed since the last run, else
    None: a new selection moves the replay's question picker once, and the picker stays free to
    change afterwards while the old selection is still highlighted."""
    key = f"_pg_last_pick_{source}"
    prev = st.session_state.get(key)
    st.session_state[key] = value
    return value if value is not None and value != prev else None


@st.cache_resource(max_entries=32, show_spinner=False)
def _per_question_figure(cmp: pd.DataFrame) -> go.Figure:
    """Why kept: every run of the Questions tab (a click on the chart or the table, a replay
    step) drew the same chart again. Shared and never changed after it is built."""
    return per_question_figure(cmp)


def _row_of(table: pd.DataFrame, qid: int | None) -> int | None:
    """The table row of question `qid` (the one the replay shows), if it is there."""
    qids = [int(q) for q in table["qid"].tolist()]
    if qid not in qids:  # the replay's first run: the URL's question, else the first
        qid = default_question(qids)
    return qids.index(qid) if qid in qids else None


def question_labels(cur: RunResult, sc: RunResult) -> dict[int, str]:
    """Each question's label in the replay's picker: this run's accuracy next to
    self-consistency's, the questions that lose against it marked."""
    cmp = per_question_comparison(cur, sc)
    return {
        int(r.qid): f"Q{int(r.qid)} · {r.accuracy_pct:.0f}% (SC {r.sc_accuracy_pct:.0f}%)"
        + (" · lost" if r.lost else "")
        for r in cmp.itertuples()
    }


def show_per_question(
    rel: str, cur: RunResult, sc: RunResult, replayed: int | None = None
) -> int | None:
    """Per-question table and chart; returns a newly selected question (for the replay).
    `replayed`: the question the replay shows, marked in the table."""
    st.subheader("Per question, next to self-consistency")
    cmp = per_question_comparison(cur, sc)
    if cmp.empty:
        st.info("No questions in this file.")
        return None
    lost = cmp[cmp["lost"]]
    if len(lost):
        st.markdown(
            f"**{counted(len(lost), 'question')} {'loses' if len(lost) == 1 else 'lose'} accuracy** against SC: "
            + ", ".join(f"Q{q}" for q in lost["qid"])
        )
    else:
        st.markdown("No question loses accuracy against SC.")
    ev = lite_chart(_per_question_figure(cmp), key="perq_chart", kept=True)
    pts = selected_points(ev)
    chart_q = int(pts[0]["x"]) if pts and pts[0].get("x") is not None else None
    table = cmp.assign(flag=np.where(cmp["lost"], "🔻 lost", ""))
    table["open"] = [view_href("mars", file=rel, qid=int(q)) for q in table["qid"]]
    counts = qid_case_counts(rel)
    table["cases"] = [case_mark(counts.get(int(q), 0)) for q in table["qid"]]
    table["ground_truth"] = table["ground_truth"].map(lambda t: str(t)[:60])
    table["mean_position"] = table["mean_position"].round().astype("Int64")  # whole tokens
    # a policy without gamma would show a column of empty cells ("None" in the grid)
    cols = [c for c in TABLE_COLUMNS if c != "gamma" or table["gamma"].notna().any()]
    columns = {
        "cases": st.column_config.TextColumn(
            "cases", help="casebook cases on this question of the file", width="small"
        ),
        "accuracy_pct": st.column_config.NumberColumn("accuracy %", format="%.1f"),
        "sc_accuracy_pct": st.column_config.NumberColumn("SC %", format="%.1f"),
        "delta_pct": st.column_config.NumberColumn("Δ pp", format="%+.1f"),
        "savings_pct": st.column_config.NumberColumn("savings %", format="%.1f"),
        "mean_position": st.column_config.NumberColumn(
            "mean stop position (tokens)", format="localized"
        ),
        "stop_reasons": st.column_config.TextColumn("stop reasons (iterations)"),
        "n_pool": st.column_config.NumberColumn("pool (traces)"),
        "gamma": st.column_config.NumberColumn("gamma", format="%.2f"),
        "ground_truth": st.column_config.TextColumn("ground truth"),
        "open": st.column_config.LinkColumn("MARS view", display_text="open ↗"),
    }
    if grid_switch("perq_grid"):
        sel = st.dataframe(
            table[cols],
            hide_index=True,
            width="stretch",
            key="perq_table",
            on_select="rerun",
            selection_mode="single-row",
            column_config=columns,
            placeholder=DASH,
        )
        rows = selected_rows(sel)
        picked = rows[0] if rows else None
    else:
        picked = lite_table(
            pl.from_pandas(table[cols]),
            key="perq_lite_table",
            columns=columns,
            label="questions",
            pickable=True,
            selected=_row_of(table, replayed),
        )
    row_q = int(table.iloc[picked]["qid"]) if picked is not None and picked < len(table) else None
    st.caption(
        "Pick a row (or click the chart) to replay that question; “open ↗” shows it in the MARS view."
    )
    new_row, new_chart = _new_pick("table", row_q), _new_pick("chart", chart_q)
    return new_row if new_row is not None else new_chart
