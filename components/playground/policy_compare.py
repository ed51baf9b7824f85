"""The Compare tab: the current policy (A) against a second policy (B) on the same bootstrap
samples. Overall the paired difference in accuracy and tokens with 95 % intervals and an exact
McNemar test; per question the paired differences, and the questions where A loses to B, each
linking to A's replay at the first iteration where the two disagree.

B runs at its published settings with the current bootstrap settings (same budget, iterations
and seed, so iteration i draws the same traces under both); its choice lives in the URL
(`?vs=`)."""

from __future__ import annotations

import pandas as pd
import polars as pl
import streamlit as st

from analysis.playground import Policy, RunResult, SimSettings
from analysis.playground.policies import all_methods, method_label
from analysis.playground.policy_pair import PolicyPair, a_loses, compare_policies
from cache.sources import SourceConfig
from components.common.cached import st_progress
from components.common.downloads import download_buttons, file_stem
from components.common.formatting import fmt_interval, fmt_num
from components.common.links import view_href
from components.common.lite_table import lite_table
from components.common.safe_text import md_text
from components.common.stat_row import stat_row
from components.common.url_keys import PlaygroundKeys
from components.common.url_state import Param, query_pairs, safe_token, url_selectbox
from components.playground import cached as pc
from components.playground.controls import published_policy

VS_KEY = "vs"
DEFAULT_B = "offline"
P_SPEC = ".3g"  # the McNemar p, the same in the figures and in the note on it
# what a replay link sets itself; every other key of the current state (file, policy, its
# parameters, the bootstrap settings) is kept as it is
_SET = ("qid", "it", "view", VS_KEY)


def _pick_b(current: str) -> str:
    methods = [m for m in all_methods() if m != current]
    default = DEFAULT_B if DEFAULT_B in methods else methods[0]
    b = url_selectbox(
        "Compare with (policy B, at its published settings)",
        methods,
        Param(VS_KEY, DEFAULT_B, parse=safe_token(64)),
        fallback=default,
        fmt=lambda m: f"{m} · {method_label(m)}",
    )
    return str(b or default)


def _replay_link(qid: int, iteration: object) -> str | None:
    """A's replay of `qid` at `iteration`, with the current policy and bootstrap settings."""
    if iteration is None or iteration != iteration:
        return None
    keep = ({"file"} | set(PlaygroundKeys.WIDGETS)) - set(_SET)
    params = {k: v for k, v in query_pairs() if k in keep}
    return view_href("playground", **params, qid=int(qid), it=int(iteration), view="Questions")


def _headline(pair: PolicyPair, a: str, b: str) -> None:
    acc, tok, mc = pair.accuracy, pair.tokens, pair.mcnemar
    with stat_row("pg_pair_stats", label="A against B") as m:
        m.metric(
            f"accuracy A − B · 95 % CI {fmt_interval(acc.lo, acc.hi, '+.1f')} pp",
            f"{fmt_num(acc.estimate, '+.1f')} pp",
            help="mean over questions of the per-iteration difference (A right = 100, wrong = 0); "
            "paired two-level bootstrap over questions and iterations",
        )
        k = 1000.0
        m.metric(
            f"tokens A − B per iteration · 95 % CI {fmt_interval(tok.lo / k, tok.hi / k, '+.0f')}k",
            f"{fmt_num(tok.estimate / k, '+,.0f')}k",
            help="thousands of tokens generated per bootstrap iteration (all traces of the "
            "question); negative: A spends fewer tokens than B on the same traces",
        )
        m.metric(
            "McNemar exact p (two-sided, iterations as independent)",
            fmt_num(mc.p_value, P_SPEC),
            help=f"iterations A right and B wrong: {mc.a_only:,}; B right and A wrong: "
            f"{mc.b_only:,}; the test uses only these",
        )
        m.metric(
            "questions A better / worse / same",
            f"{pair.a_wins} / {pair.b_wins} / {pair.ties}",
        )
    st.caption(
        f"A = {md_text(a)}, B = {md_text(b)}, on the same bootstrap samples (iteration i draws "
        f"the same traces under both). Discordant iterations: A right and B wrong {mc.a_only:,}, "
        f"B right and A wrong {mc.b_only:,}; McNemar's exact test treats them as independent, "
        "which iterations of one question are not (they reuse its traces), so read the interval "
        "for the size of the difference and the p-value for how lopsided the split is."
    )
    note = disagreement_note(acc.lo, acc.hi, mc.p_value)
    if note:
        st.warning(note, icon=":material/balance:")


def disagreement_note(lo: float, hi: float, p_value: float) -> str | None:
    """When McNemar's p says "significant" while the paired interval holds 0, which to read: the
    test counts every iteration as a new pair, but iterations of one question reuse its traces,
    so its p is far too small; the interval resamples questions too."""
    if not (lo <= 0.0 <= hi) or not p_value < 0.05:
        return None
    return (
        f"The p-value ({fmt_num(p_value, P_SPEC)}) and the interval disagree: the interval holds 0, so the "
        "accuracy difference is not shown to be real. McNemar's test counts every iteration as "
        "an independent pair, and the iterations of one question reuse its traces; the interval "
        "resamples the questions as well. Read the interval."
    )


COLUMNS = {  # the two tables' columns, declared once
    "qid": st.column_config.NumberColumn("question"),
    "iterations": st.column_config.NumberColumn("iterations", help="paired bootstrap iterations"),
    "accuracy_a_pct": st.column_config.NumberColumn("A accuracy %", format="%.1f"),
    "accuracy_b_pct": st.column_config.NumberColumn("B accuracy %", format="%.1f"),
    "accuracy_diff_pp": st.column_config.NumberColumn("A − B (pp)", format="%+.1f"),
    "tokens_diff_k": st.column_config.NumberColumn(
        "tokens A − B (k)", format="%+.0f", help="thousands of tokens per iteration"
    ),
    "a_only": st.column_config.NumberColumn("A right, B wrong", help="iterations of this question"),
    "b_only": st.column_config.NumberColumn("B right, A wrong", help="iterations of this question"),
    "first_differing_iteration": st.column_config.NumberColumn("first differing iteration"),
    "replay": st.column_config.LinkColumn("A's replay", display_text="replay ↗"),
}


def _in_thousands(per_question: pd.DataFrame) -> pd.DataFrame:
    """The rows with their token difference in thousands (`tokens_diff_k`), as both tables
    show it."""
    return per_question.assign(tokens_diff_k=per_question["tokens_diff"] / 1000.0)


def _losses_table(pair: PolicyPair) -> None:
    lost = a_loses(pair)
    st.markdown(f"**Questions where A loses to B** ({len(lost)} of {len(pair.per_question)})")
    if lost.empty:
        st.info("A is at least as accurate as B on every question compared.")
        return
    shown = _in_thousands(lost).assign(
        replay=[
            _replay_link(q, it)
            for q, it in zip(lost["qid"], lost["first_differing_iteration"], strict=True)
        ],
    )
    lite_table(
        pl.from_pandas(
            shown[
                [
                    "qid",
                    "replay",
                    "first_differing_iteration",
                    "accuracy_a_pct",
                    "accuracy_b_pct",
                    "accuracy_diff_pp",
                    "b_only",
                    "tokens_diff_k",
                ]
            ]
        ),
        key="pg_losses",
        label="questions where A loses to B",
        columns=COLUMNS,
    )


def _every_question(per_question: pd.DataFrame) -> None:
    """Every question compared, A's losses and wins alike, as the download holds them."""
    cols = ["qid", "iterations", "accuracy_a_pct", "accuracy_b_pct", "accuracy_diff_pp"]
    cols += ["a_only", "b_only", "tokens_diff_k"]
    lite_table(
        pl.from_pandas(_in_thousands(per_question)[cols]),
        key="pg_every_question",
        label="every question compared",
        columns=COLUMNS,
    )


def show_policy_compare(
    rel: str, src: SourceConfig, policy: Policy, settings: SimSettings, cur: RunResult
) -> None:
    b_method = _pick_b(policy.method)
    with st_progress(f"Simulating {b_method} on the same samples…") as bar:
        b_run = pc.run_with_progress(rel, src, [published_policy(b_method)], settings, bar)[0]
    pair = compare_policies(cur, b_run)
    if pair.per_question.empty:
        st.info("The two runs share no question and iteration: nothing to compare.")
        return
    _headline(pair, policy.method, b_method)
    _losses_table(pair)
    st.markdown(f"**Every question** ({len(pair.per_question)})")
    table: pd.DataFrame = pair.per_question
    _every_question(table)
    download_buttons(
        table,
        file_stem("playground", rel, policy.method, "vs", b_method, "per-question"),
        "pg_compare",
    )
