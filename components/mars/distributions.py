"""The "Distributions" tab: the file's pass@1, majority@k and signal AUROCs, then the open
question's final answers and per-trace values right vs wrong."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.mars.store import MarsFeatureStore
from cache.sources import SourceConfig
from components.common.guards import guard
from components.mars import figures as mf
from components.mars.charts import chart, zoom_switch
from components.mars.file_summary import render_file_summary

DATASET = "mars"


MAJORITY_K = 16  # DeepConf's warmup size: a small budget's vote


def render_distributions(
    rel: str, src: SourceConfig, store: MarsFeatureStore, feats: pl.DataFrame, qid: int
) -> None:
    zoom = zoom_switch()
    with guard("the file-level figures", dataset=DATASET):
        render_file_summary(rel, src, store, MAJORITY_K, zoom=zoom)
    st.subheader(f"This question: Q{qid}", divider="gray")
    a, b = st.columns(2)
    n_none = int((feats["final_group"] < 0).sum())
    bars = mf.answers_bar(store.question_groups(qid), n_none=n_none)
    chart(bars, key="mars_dist_answers", zoom=zoom, where=a)
    chart(
        mf.compare_hist(feats, "length", "length: right vs wrong", x_title="trace length (tokens)"),
        key="mars_dist_length",
        zoom=zoom,
        where=b,
    )
    c, d = st.columns(2)
    chart(
        mf.compare_hist(
            feats,
            "min_group",
            "lowest group confidence (min_group)",
            x_title="lowest 2,048-token group confidence",
        ),
        key="mars_dist_min_group",
        zoom=zoom,
        where=c,
    )
    chart(
        mf.compare_hist(
            feats,
            "tail_conf",
            "tail confidence (tail_conf)",
            x_title="mean confidence of the last 2,048 tokens",
        ),
        key="mars_dist_tail_conf",
        zoom=zoom,
        where=d,
    )
