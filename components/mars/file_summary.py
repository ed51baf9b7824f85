"""The file-level figures on the Distributions tab: pass@1, majority@k with 95 % intervals, the
AUROC of each confidence signal and DeepConf's bottom-10 % histogram, over every question.

Why a module: these are the numbers a reader compares with the papers' tables, so each one says
its n and how its interval was made (`analysis.mars.file_stats`)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.mars.file_stats import (
    BOOT,
    MC_DRAWS,
    Estimate,
    SignalSeparation,
)
from analysis.mars.store import MarsFeatureStore
from cache.sources import SourceConfig
from components.common.formatting import fmt_num, fmt_quantity
from components.common.md_table import md_frame
from components.common.stat_row import stat_row
from components.mars import cached as mc
from components.mars import figures as mf
from components.mars.charts import chart

SIGNAL_NAMES = {
    "min_group": "min_group: lowest 2,048-token group",
    "bottom_10": "bottom_10: mean of the lowest 10 % of groups",
    "tail_conf": "tail_conf: last 2,048 tokens",
    "mean_conf": "mean_conf: whole trace",
}


def estimate_text(e: Estimate) -> str:
    """`43.2%` and its interval: `95% CI 35.1%–51.0%, n = 30 questions`."""
    return (
        f"95% CI {fmt_quantity(e.lo, '%')}–{fmt_quantity(e.hi, '%')}, "
        f"n = {e.n:,} question{'s' if e.n != 1 else ''}"
    )


def separation_table(seps: list[SignalSeparation]) -> pl.DataFrame:
    """One row per signal, numbers as text (two decimals; "–" when a class is missing)."""
    return pl.DataFrame(
        {
            "signal": [SIGNAL_NAMES.get(s.signal, s.signal) for s in seps],
            "pooled AUROC": [fmt_num(s.pooled) for s in seps],
            "right / wrong traces": [f"{s.n_right:,} / {s.n_wrong:,}" for s in seps],
            "per-question AUROC: median (quartiles)": [
                f"{fmt_num(s.median_q)} ({fmt_num(s.q25)}–{fmt_num(s.q75)})"
                if s.n_questions
                else "–"
                for s in seps
            ],
            "questions": [s.n_questions for s in seps],
        }
    )


def render_file_summary(
    rel: str, src: SourceConfig, store: MarsFeatureStore, k: int, *, zoom: bool = False
) -> None:
    s = mc.file_summary(rel, src, k)
    n_traces = store.features.height
    st.subheader("This file: every question", divider="gray")
    with stat_row("mars_file_stats", label="This file") as row:
        row.metric("pass@1", fmt_quantity(s.pass_at_1.value, "%"))
        row.metric("majority@all", fmt_quantity(s.majority_all.value, "%"))
        row.metric(f"majority@{k}", fmt_quantity(s.majority_k.value, "%"))
    st.caption(
        f"Over {s.pass_at_1.n:,} questions and {n_traces:,} traces. **pass@1** "
        f"({estimate_text(s.pass_at_1)}): the mean over questions of the share of traces whose "
        "final answer is right (no answer counts as wrong). **majority@all** "
        f"({estimate_text(s.majority_all)}): the majority vote of each question's final answers "
        "(traces without an answer do not vote; a tie for first place scores the share of tied "
        f"answers that are right). **majority@{k}** ({estimate_text(s.majority_k)}): the same "
        f"vote over {k} traces drawn at random without replacement, averaged over {MC_DRAWS} "
        f"draws per question. Intervals: 95 % percentile bootstrap over questions ({BOOT:,} "
        "resamples)."
    )
    st.markdown("**How well each signal separates right from wrong traces (AUROC)**")
    # a Markdown table wraps its cells (a data grid ran past the right edge at 1024 px) and
    # draws with the page's text, not as one more kind of element for a new tab to load
    st.markdown(md_frame(separation_table(s.separation)))
    st.caption(
        "AUROC: the chance that a trace with a right final answer scores higher than one with a "
        "wrong or no answer (ties count half; 0.5 = no separation, 1 = perfect). Pooled: over "
        "all traces of the file (mixes easy and hard questions). Per question: median and "
        "quartiles over the questions that have both right and wrong traces."
    )
    chart(
        mf.compare_hist(
            store.features,
            "bottom_10",
            "bottom-10 % group confidence, all traces of the file",
            x_title="mean of the lowest 10 % of 2,048-token group confidences",
        ),
        key="mars_dist_bottom_10",
        zoom=zoom,
    )
    st.caption(
        "DeepConf's main offline signal (bottom_10), right vs wrong or no final answer, on "
        "shared bins; the legend gives each class's n."
    )
