"""The 1x vs 8x tab: one trajectory in both SFT subsets, the branches the 8x expansion added,
the headline metrics side by side, both DAGs and the per-stage comparison.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.parason.analyse import analyse_row
from analysis.parason.metrics import Metrics
from analysis.parason.tables import (
    added_nodes,
    compare_rows,
    compare_stage_frame,
    resolve_uuid,
)
from cache.sources import SourceConfig
from components.common.casebook import capture
from components.common.formatting import fmt_quantity
from components.common.guards import guard
from components.parason import cached as pc
from components.parason import cases as pcs
from components.parason.dag_panel import COLLAPSE_AT, dag_view
from components.parason.shared import DATASET, UUID, picker

HOW_ADDED = (
    "How added branches are "
    "found: each 8x stage is compared with the same stage of the 1x row; a thread whose text (number "
    "prefix ignored) occurs in the 1x stage is original, the others are added (when no text matches "
    "at all, threads past the 1x count are the added ones). Click a node to read it in "
    "the Trajectory tab."
)


def compare_frame(m1: Metrics, m8: Metrics) -> pl.DataFrame:
    """The headline metrics of both expansions side by side, with the change, as display text
    (rounded per metric: a token count with three decimals reads as false precision)."""
    rows = compare_rows(m1, m8)
    return pl.DataFrame(
        {
            "metric": [r.metric for r in rows],
            "sft-1x": [fmt_quantity(r.one, r.style) for r in rows],
            "sft-8x": [fmt_quantity(r.eight, r.style) for r in rows],
            "change": [fmt_quantity(r.change, r.style, sign=True) for r in rows],
        }
    )


def render_compare(src: SourceConfig, counter: str) -> None:
    t1 = pc.metrics("sft-1x", src, counter)
    t8 = pc.metrics("sft-8x", src, counter)
    common = t1.join(t8.select("uuid"), on="uuid", how="semi")
    if common.height == 0:
        st.info("No trajectory is present in both sft-1x and sft-8x.")
        return
    asked = UUID.read()
    uid = resolve_uuid(common, asked)
    if uid is None:
        if asked is not None:
            st.warning(
                "This trajectory is not in both subsets; showing the first one that is.",
                icon=":material/search:",
            )
        uid = str(common["uuid"][0])
    picker(common, uid, "Trajectory (in both subsets)")
    r1 = t1.filter(pl.col("uuid") == uid).row(0, named=True)
    r8 = t8.filter(pl.col("uuid") == uid).row(0, named=True)
    row1 = pc.row("sft-1x", src, uid, r1["row"])
    row8 = pc.row("sft-8x", src, uid, r8["row"])
    if row1 is None or row8 is None:
        st.error("One of the two rows could not be read back; re-fetch the files.")
        return
    a1, a8 = analyse_row(row1, counter), analyse_row(row8, counter)
    added = added_nodes(a1.traj, a8.traj)
    if not added:
        st.info("No added branches in this pair.", icon=":material/info:")
    said = f"{len(added)} branches were added by the 8x expansion (magenta outline and '+'). "
    st.caption((said if added else "") + HOW_ADDED)
    with guard("the pair's casebook control", dataset=DATASET):
        capture(
            DATASET,
            DATASET,
            pcs.pair_item(uid),
            title=pcs.pair_title(row8.get("question")),
            snapshot=pcs.pair_snapshot(a1.metrics, a8.metrics, len(added)),
            source=src,
            file=pcs.PAIR_FILE,
            key=f"pa_pair_{uid}",
            label="Add pair to casebook",
        )
    st.dataframe(compare_frame(a1.metrics, a8.metrics), hide_index=True)
    c1, c8 = st.columns(2)
    widest = max(a1.metrics.branches_max, min(a8.metrics.branches_max, COLLAPSE_AT))
    height = max(320, min(900, 160 + 34 * widest))
    with c1, guard("the 1x DAG", dataset=DATASET):
        st.markdown("**sft-1x**")
        dag_view(a1.dag, None, set(), "pa_dag_1x", height=height, subset="sft-1x", compact=True)
    with c8, guard("the 8x DAG", dataset=DATASET):
        st.markdown("**sft-8x** (added branches outlined in magenta, marked +)")
        dag_view(a8.dag, None, added, "pa_dag_8x", height=height, subset="sft-8x", compact=True)
    stages = compare_stage_frame(a1.metrics, a8.metrics, a8.traj, added)
    if stages.height:
        st.dataframe(stages, hide_index=True)
