"""The "Vote evolution" tab: how the pool's answers are shared out at every checkpoint."""

from __future__ import annotations

import streamlit as st

from analysis.mars.summaries import vote_shares
from cache.sources import SourceConfig
from components.mars import cached as mc
from components.mars import figures as mf
from components.mars.charts import chart, zoom_switch


def render_votes(rel: str, src: SourceConfig, qid: int) -> None:
    pool = mc.pool(rel, src, qid)
    vs = vote_shares(pool)
    if not vs.positions.size:
        st.info("No probe checkpoints in this question.")
        return
    zoom = zoom_switch()
    chart(mf.vote_figure(vs, pool.ground_truth), key="mars_votes", zoom=zoom)
    st.caption(
        "At each checkpoint every trace contributes its answer then: the probe answer while it "
        "is still running, its final answer once it has ended. Light grey hatched: no answer "
        "(yet); mid grey: all smaller answers pooled; the stack always adds up to 100%. The green "
        "band is the ground truth's share: where it becomes the largest is when the pool 'knows' "
        "the answer. Tick **zoom** and hover for the full answers at a checkpoint."
    )
