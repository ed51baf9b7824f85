"""The "Previous" / "Next wrong trace" buttons of the Single trace tab: they step through
the wrong traces among those the filters pass, in trace order (keys K and J as well)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.mars import trace_filters as tf
from components.common.triage import triaging

PICKED_KEY = "_mars_picked"  # the trace to open (components/mars/single_trace.py pops it)
NEXT_KEY = "mars_next_wrong"
PREV_KEY = "mars_prev_wrong"


def _on_step(traces: list[int], verdicts: list[str], current: int, step: int) -> None:
    nxt = tf.step_wrong(traces, verdicts, current, step)
    if nxt is not None:
        st.session_state[PICKED_KEY] = nxt


def step_buttons(shown: pl.DataFrame, current: int) -> None:
    """The two buttons, each disabled when no wrong trace lies that way."""
    traces = shown["trace_idx"].to_list()
    verdicts = shown.select(tf.verdict_expr().alias("v"))["v"].to_list()
    prev = tf.step_wrong(traces, verdicts, current, -1)
    nxt = tf.step_wrong(traces, verdicts, current, 1)
    st.button(
        "Previous",
        key=PREV_KEY,
        icon=":material/arrow_back:",
        disabled=prev is None,
        help="The previous wrong trace (among the filtered ones, by trace index)"
        + (f": trace {prev}" if prev is not None else ": none before this one"),
        on_click=_on_step,
        args=(traces, verdicts, current, -1),
        shortcut=None if triaging() else "K",
    )
    st.button(
        "Next wrong trace",
        key=NEXT_KEY,
        icon=":material/arrow_forward:",
        disabled=nxt is None,
        help="The next wrong trace (among the filtered ones, by trace index)"
        + (f": trace {nxt}" if nxt is not None else ": none after this one"),
        on_click=_on_step,
        args=(traces, verdicts, current, 1),
        shortcut=None if triaging() else "J",
    )
