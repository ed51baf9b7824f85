"""The "Distributions" tab: final answers, and per-trace values right vs wrong."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.mars.store import MarsFeatureStore
from components.mars import figures as mf


def render_distributions(store: MarsFeatureStore, feats: pl.DataFrame, qid: int) -> None:
    a, b = st.columns(2)
    n_none = int((feats["final_group"] < 0).sum())
    a.plotly_chart(mf.answers_bar(store.question_groups(qid), n_none=n_none), width="stretch")
    b.plotly_chart(
        mf.compare_hist(feats, "length", "length: right vs wrong", x_title="trace length (tokens)"),
        width="stretch",
    )
    c, d = st.columns(2)
    c.plotly_chart(
        mf.compare_hist(
            feats,
            "min_group",
            "lowest group confidence (DeepConf min_group)",
            x_title="lowest 2,048-token group confidence",
        ),
        width="stretch",
    )
    d.plotly_chart(
        mf.compare_hist(
            feats,
            "tail_conf",
            "tail confidence (last 2,048 tokens)",
            x_title="mean confidence of the last 2,048 tokens",
        ),
        width="stretch",
    )
