"""The reference diff (ours against the published simulator's summaries, when the source holds
them) and the downloads of the current run, named after the run."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.stopping import Policy, RunResult
from analysis.stopping.compare import reference_comparison
from cache.datasets import mars_reference_dir
from cache.sources import SourceConfig
from components.common import theme
from components.common.downloads import download_buttons, file_stem
from components.common.safe_text import md_text
from components.stopping import cached as pc

REFERENCE_TITLE = "Against the published reference"


def show_reference(rel: str, src: SourceConfig, cur: RunResult, full: bool) -> None:
    ref = pc.reference_csvs(rel, src, cur.policy.method)
    if ref is None:  # one line, no heading over it
        st.caption(
            f"**{REFERENCE_TITLE}:** this source holds no repro\\_reference CSVs for "
            f"{md_text(cur.policy.method)} on this file (the Hub copy has them; the bundled "
            "sample has them for the 7 published methods on DeepSeek-8B · AIME 2025 only)."
        )
        return
    st.subheader(REFERENCE_TITLE)
    per_q, overall = ref
    if src.kind == "sample":
        st.caption(
            "Bundled sample: the reference is the published MARS simulator's output on this generated "
            "file (budget 512, 64 iterations, warmup 16, seed 42; -cal with z = 1, gamma min 0.5), "
            "run through a transcription of its logic; see cache/sample/mars\\_reference/NOTE.md."
        )
    if not full:
        st.info(
            "The reference uses the published setting: turn off the quick preview to compare like with like."
        )
    source = f"{mars_reference_dir(rel, cur.policy.method)}/summary_per_question.csv"
    diff = reference_comparison(cur.per_question_frame(), per_q, source=source)
    dcols = [c for c in diff.columns if c.startswith("d_")]
    styled = diff.style.format(precision=2).map(
        lambda v: (
            f"background-color: {theme.DIFF_BG}" if isinstance(v, float) and abs(v) > 1e-6 else ""
        ),
        subset=dcols,
    )
    st.dataframe(styled, hide_index=True, width="stretch")
    if not overall.empty:
        st.dataframe(
            pd.concat(
                [cur.overall_frame().assign(source="ours"), overall.assign(source="reference")]
            ),
            hide_index=True,
        )


def policy_tokens(policy: Policy) -> list[str]:
    """The policy's parameters as file-name words (`gamma=0.9`), from its own widget list."""
    out = []
    for spec in policy.ui_params():
        obj: object = policy
        for part in spec.field.split("."):
            obj = getattr(obj, part)
        out.append(f"{spec.key}={obj}")
    return out


def run_stem(rel: str, run: RunResult, what: str) -> str:
    """`mars_<file>_<method>_<params>_<settings>_<what>`: the download says which run it is."""
    s = run.settings
    return file_stem(
        "mars",
        rel,
        run.policy.method,
        *policy_tokens(run.policy),
        f"budget{s.budget}",
        f"iters{s.iterations}",
        f"warmup{s.warmup}",
        f"w{s.window}",
        f"seed{s.seed}",
        what,
    )


def show_downloads(rel: str, cur: RunResult) -> None:
    """The three published CSVs of the current run (results, per question, overall)."""
    cols = st.columns(3)
    frames = (
        ("results", cur.results_frame),
        ("summary_per_question", cur.per_question_frame),
        ("summary_overall", cur.overall_frame),
    )
    for col, (what, frame) in zip(cols, frames, strict=True):
        download_buttons(
            frame,
            run_stem(rel, cur, what),
            key=f"dl_{what}",
            formats=("csv",),
            columns=[col],
            label=what.replace("_", " "),
        )
