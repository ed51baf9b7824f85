"""The 1x vs 8x tab: one trajectory in both SFT subsets, the branches the 8x expansion added,
the headline metrics side by side, both DAGs and the per-stage comparison.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.parason.accepted import accepted_view
from analysis.parason.analyse import analyse_row
from analysis.parason.pairs import pair_stages
from analysis.parason.tables import added_nodes, resolve_uuid
from cache.sources import SourceConfig
from components.common.casebook import capture
from components.common.guards import guard
from components.common.md_table import md_frame
from components.common.url_keys import ParasonKeys
from components.common.url_state import url_radio
from components.parason import cached as pc
from components.parason import cases as pcs
from components.parason.dag_panel import COLLAPSE_AT, dag_view, zoom_box
from components.parason.pairs_view import (
    OR_JOIN_NOTE,
    compare_frame,
    latency_note,
    render_accepted,
    render_all_pairs,
    stage_compare_frame,
)
from components.parason.shared import COUNTER_LABELS, DATASET, UUID, picker

SCOPES = ("one pair", "all pairs")
HOW_ADDED = (
    "How added branches are "
    "found: each 8x stage is compared with the same stage of the 1x row; a thread whose text (number "
    "prefix ignored) occurs in the 1x stage is original, the others are added (when no text matches "
    "at all, threads past the 1x count are the added ones). Click a node to read it in "
    "the Trajectory tab."
)


def first_grown_pair(t1: pl.DataFrame, t8: pl.DataFrame) -> str | None:
    """The first pair whose 8x row has more branches than its 1x row: a view opened without a
    pair shows one the expansion changed (most pairs of a subset have no added branch)."""
    if "branches" not in t1.columns or "branches" not in t8.columns:
        return None
    n = pl.col("branches").list.sum()
    pairs = t1.select("uuid", n1=n).join(t8.select("uuid", n8=n), on="uuid")
    grown = pairs.filter(pl.col("n8") > pl.col("n1"))
    return str(grown["uuid"][0]) if grown.height else None


def render_compare(src: SourceConfig, counter: str) -> None:
    t1 = pc.metrics("sft-1x", src, counter)
    t8 = pc.metrics("sft-8x", src, counter)
    common = t1.join(t8.select("uuid"), on="uuid", how="semi")
    if common.height == 0:
        st.info("No trajectory is present in both sft-1x and sft-8x.")
        return
    scope = url_radio("Compare", SCOPES, ParasonKeys.PAIRS, width="content")
    if scope == "all pairs":
        with guard("the paired rows", dataset=DATASET):
            render_all_pairs(t1, t8, COUNTER_LABELS.get(counter, counter))
        return
    asked = UUID.read()
    uid = resolve_uuid(common, asked)
    if uid is None:
        if asked is not None:
            st.warning(
                "This trajectory is not in both subsets; showing the first one that is.",
                icon=":material/search:",
            )
        uid = first_grown_pair(t1, t8) or str(common["uuid"][0])
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
    st.markdown(md_frame(compare_frame(a1.metrics, a8.metrics)))
    note = latency_note(a1.metrics, a8.metrics)
    if note:
        st.warning(note, icon=":material/hourglass_bottom:")
    st.caption(
        OR_JOIN_NOTE + " T_1x / C: the 1x row's sequential work over this row's critical path "
        "(below 1×: slower than decoding the 1x row one token at a time)."
    )
    zoom = zoom_box()
    c1, c8 = st.columns(2)
    widest = max(a1.metrics.branches_max, min(a8.metrics.branches_max, COLLAPSE_AT))
    height = max(320, min(900, 160 + 34 * widest))
    with c1, guard("the 1x DAG", dataset=DATASET):
        st.markdown("**sft-1x**")
        dag_view(
            a1.dag,
            None,
            set(),
            "pa_dag_1x",
            height=height,
            subset="sft-1x",
            compact=True,
            zoom=zoom,
        )
    with c8, guard("the 8x DAG", dataset=DATASET):
        st.markdown("**sft-8x** (added branches outlined in magenta, marked +)")
        dag_view(
            a8.dag,
            None,
            added,
            "pa_dag_8x",
            height=height,
            subset="sft-8x",
            compact=True,
            zoom=zoom,
        )
    stages = stage_compare_frame(pair_stages(a1.metrics, a8.metrics, a8.traj, added))
    if stages.height:
        st.markdown(
            "**Stages** · cost = s_b + the longest thread (the stage's share of C) · longest = "
            "the stage's longest thread · speedup = (s_b + Σ threads) / cost"
        )
        st.markdown(md_frame(stages))
    with guard("the accepted Trial view", dataset=DATASET):
        render_accepted(
            {
                "sft-1x": accepted_view(a1.traj, a1.counts, a1.metrics.C),
                "sft-8x": accepted_view(a8.traj, a8.counts, a8.metrics.C),
            }
        )
