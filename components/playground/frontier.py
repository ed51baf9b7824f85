"""The frontier section: accuracy against token savings, the policy swept over its main
parameter next to the baselines and the other policies."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from analysis.playground import FrontierPoint, Policy, RunResult, point_of
from components.common.lite_chart import lite_chart
from components.common.safe_text import md_text
from components.playground.figures import frontier_figure, sweep_name


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
    title = sweep_name(policy, label, [p.value for p in sweep_pts if p.value is not None])
    fig = frontier_figure(sweep_pts, label, point_of(cur), others, sweep_title=title)
    lite_chart(fig, key="frontier")
    note = policy.main.note
    st.caption(
        (f"Line: {md_text(title)}, everything else as set above; " if sweep_pts else "")
        + "ring: the current setting; markers: the baselines and other policies, re-simulated "
        "by this app at their published settings on this file (not the papers' numbers). "
        "Bars through each marker and the ring: 95 % intervals of accuracy (vertical) and "
        "savings (horizontal), two-level bootstrap over questions and iterations"
        + (
            "; the shaded band: the line's accuracy intervals (hover a point on the line for "
            "both of its intervals)"
            if sweep_pts
            else ""
        )
        + ". Green steps: the "
        "Pareto front; between two points only the lower accuracy is reachable."
        + (f" Along the sweep, {note}." if note and sweep_pts else "")  # our own text
    )
    names = [name for name, _ in others]
    if policy.voting.filter or any(name.startswith("dco") for name in names):  # sc-* / dco-*
        st.caption(
            "**Two savings scales.** As the MARS simulator reports it, a DeepConf policy's "
            "(dco…) savings are against DeepConf online's own truncated cost, so dco sits at 0 %; "
            "the others' are against self-consistency at the full budget. Points of the two "
            "kinds are not on one token scale, and the front above runs across both: compare "
            "their tokens in the Compare tab."
        )
