"""The frontier section: accuracy against token savings, the policy swept over its main
parameter next to the baselines and the other policies."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from analysis.stopping import FrontierPoint, Policy, RunResult, point_of
from components.common.lite_chart import lite_chart
from components.common.safe_text import md_text
from components.stopping.figures import frontier_figure


def show_frontier(
    policy: Policy,
    cur: RunResult,
    sweep_pts: Sequence[FrontierPoint],
    label: str,
    others: Sequence[tuple[str, FrontierPoint]],
) -> None:
    st.subheader("Accuracy against token savings")
    if not sweep_pts:
        st.caption("This policy has no parameter to sweep; it is shown with the other policies.")
    fig = frontier_figure(sweep_pts, label, point_of(cur), others)
    lite_chart(fig, key="frontier")
    note = policy.main.note
    st.caption(
        f"Line: {md_text(policy.method)} swept over {md_text(label) or '—'}; ring: current setting; "
        "markers: baselines and other policies at their published defaults; green band: Pareto front."
        + (f" Along the {label} sweep, {note}." if note else "")  # our own text
    )
