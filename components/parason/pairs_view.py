"""The 1x vs 8x tab's display frames and its two extra views: the accepted Trial of each OR stage
(a counterfactual C), and every paired row of the subset (ΔC, ΔT, correctness changes).

Why display text built here: every cell goes through `components.common.formatting`, so a token
count carries its unit, a ratio reads "1.29×" and an undefined figure "–"; the builders are pure
and tested cell by cell.
"""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st
from plotly.subplots import make_subplots

from analysis.parason.accepted import AcceptedView
from analysis.parason.dag import url_node
from analysis.parason.metrics import Metrics
from analysis.parason.pairs import (
    PairRow,
    PairStage,
    change_counts,
    pair_rows,
    pair_spreads,
    paired_table,
)
from components.common.formatting import DASH, fmt_num, fmt_quantity, fmt_tokens
from components.common.md_table import md_frame
from components.common.theme import CORRECTNESS_COLOURS, NOTE_FG

OR_JOIN_NOTE = (
    "C is counted as the published code counts it (get_parallel_stats): every join, an OR join of "
    "Trials included, waits for all of its branches, so a stage costs s_b + its longest Trial even "
    "when a shorter Trial is the one accepted. Extra Trials can therefore lengthen C."
)
CHANGE_KIND = {"ratio": "ratio 8x / 1x", "diff": "difference 8x − 1x"}


def _q(v: float | None, style: str, sign: bool = False) -> str:
    """`fmt_quantity` that takes an undefined figure (None -> "–")."""
    return DASH if v is None else fmt_quantity(v, style, sign)


def _value(v: float | None, style: str) -> str:
    return fmt_tokens(v) if style == "tokens" else _q(v, style)


def change_text(r: PairRow) -> str:
    """The change cell: a ratio as "1.59× slower" or, below 1, "0.84× (1.19× faster)" (a
    ratio under 1 is not "faster" by itself), a difference with its unit ("+295 tokens")."""
    if r.change_kind == "ratio":
        text = _q(r.change, "x")
        if not r.verdict or r.change is None:
            return text
        if r.verdict == "faster" and r.change > 0:
            return f"{text} ({_q(1 / r.change, 'x')} faster)"
        return f"{text} {r.verdict}"
    if r.style == "tokens":
        return fmt_tokens(r.change, sign=True)
    return _q(r.change, r.style, sign=True)


def compare_frame(m1: Metrics, m8: Metrics) -> pl.DataFrame:
    """The headline figures of both rows with the change and how the change is formed."""
    rows = pair_rows(m1, m8)
    return pl.DataFrame(
        {
            "metric": [r.metric for r in rows],
            "sft-1x": [_value(r.one, r.style) for r in rows],
            "sft-8x": [_value(r.eight, r.style) for r in rows],
            "8x vs 1x": [change_text(r) for r in rows],
            "change is": [CHANGE_KIND[r.change_kind] for r in rows],
        }
    )


def latency_note(m1: Metrics, m8: Metrics) -> str | None:
    """A plain sentence when the 8x row is slower on its critical path; None otherwise."""
    if m1.C <= 0 or m8.C <= m1.C:
        return None
    pct = (m8.C / m1.C - 1) * 100
    text = (
        f"The 8x row is slower: its critical path C is {fmt_tokens(m8.C)} against "
        f"{fmt_tokens(m1.C)} (C_8x / C_1x = {_q(m8.C / m1.C, 'x')}, {pct:.0f} % longer)."
    )
    if m8.C > m1.T:
        text += (
            f" It is longer than the 1x row's whole sequential work T_1x ({fmt_tokens(m1.T)}): "
            "decoding the 1x row one token at a time would finish first."
        )
    if (m8.speedup or 0) > (m1.speedup or 0):
        text += (
            f" Its speedup T/C still rises ({_q(m1.speedup, 'x')} → "
            f"{_q(m8.speedup, 'x')}) because the extra Trials add "
            f"{fmt_tokens(m8.T - m1.T)} to T."
        )
    return text


def stage_compare_frame(stages: list[PairStage]) -> pl.DataFrame:
    """Per stage, each figure as "1x → 8x" (branches, stage cost, longest thread, stage speedup)
    with the 8x/1x ratios; token columns name their unit in the header. Why one cell for both
    rows: thirteen columns did not fit at 1440 px."""
    if not stages:
        return pl.DataFrame()

    def both(one: str, eight: str) -> str:
        return f"{one} → {eight}"

    def tok(v: float | None) -> str:
        return fmt_num(v, ",.1f")

    return pl.DataFrame(
        {
            "stage": [s.stage + 1 for s in stages],
            "join": [s.join for s in stages],
            "branches 1x → 8x": [
                both(fmt_num(s.branches_1x, ".0f"), str(s.branches_8x)) for s in stages
            ],
            "added": [str(s.added) for s in stages],
            "cost 1x → 8x (tokens)": [both(tok(s.cost_1x), tok(s.cost_8x)) for s in stages],
            "cost 8x / 1x": [_q(s.cost_change, "x") for s in stages],
            "longest thread 1x → 8x (tokens)": [
                both(tok(s.longest_1x), tok(s.longest_8x)) for s in stages
            ],
            "speedup 1x → 8x": [both(_q(s.speedup_1x, "x"), _q(s.speedup_8x, "x")) for s in stages],
            "speedup 8x / 1x": [_q(s.speedup_change, "x") for s in stages],
        }
    )


# ---------------------------------------------------------------- accepted Trial
def _trial(node: str | None) -> str:
    return f"trial {url_node(node)}" if node else "none marked"


def accepted_summary_frame(views: dict[str, AcceptedView]) -> pl.DataFrame:
    """One line per row (sft-1x, sft-8x): OR stages, how many mark one accepted Trial, C as
    counted and the two counterfactual Cs."""
    return pl.DataFrame(
        {
            "row": list(views),
            "OR stages": [str(len(v.stages)) for v in views.values()],
            "with one accepted Trial": [str(v.marked) for v in views.values()],
            "C as counted (tokens)": [fmt_num(v.C, ",.0f") for v in views.values()],
            "C waiting for the accepted Trial (tokens)": [
                fmt_num(v.C_accepted, ",.0f") for v in views.values()
            ],
            "C waiting for the first Trial to finish (tokens)": [
                fmt_num(v.C_first, ",.0f") for v in views.values()
            ],
        }
    )


def accepted_stage_frame(views: dict[str, AcceptedView]) -> pl.DataFrame:
    """Per OR stage of each row: the Trials' verdicts, the accepted and the first-finishing Trial,
    and what the stage costs waiting for all, the accepted one, or the first one."""
    rows = []
    for name, v in views.items():
        for s in v.stages:
            marks = {"accepted": "✓", "rejected": "✗"}
            rows.append(
                {
                    "row": name,
                    "stage": s.stage + 1,
                    "Trials (verdict)": " ".join(
                        f"{t.position}{marks.get(t.verdict or '', '·')}" for t in s.trials
                    ),
                    "accepted": _trial(s.accepted),
                    "first to finish": _trial(s.first),
                    "wait for all (tokens)": fmt_num(s.cost_all, ",.1f"),
                    "wait for accepted (tokens)": fmt_num(s.cost_accepted, ",.1f"),
                    "wait for first (tokens)": fmt_num(s.cost_first, ",.1f"),
                }
            )
    return pl.DataFrame(rows) if rows else pl.DataFrame()


ACCEPTED_NOTE = (
    "Counterfactual, not what the runtime does: C if each OR stage had waited only for its "
    'accepted Trial (a Trial\'s verdict is the last "Accepted" / "Rejected" in its text; a '
    "stage with no single accepted Trial keeps its longest), or only for the Trial that finishes "
    "first (fewest critical tokens). s_b stays as counted. Trials: position and verdict "
    "(✓ accepted, ✗ rejected, · unmarked)."
)


def render_accepted(views: dict[str, AcceptedView]) -> None:
    st.markdown("**Accepted Trial** (what an OR join could skip)")
    if not any(v.stages for v in views.values()):
        st.caption("Neither row has an OR (Trial) stage.")
        return
    st.markdown(md_frame(accepted_summary_frame(views)))
    st.markdown(md_frame(accepted_stage_frame(views)))
    st.caption(ACCEPTED_NOTE)


# ---------------------------------------------------------------- every pair
def spread_frame(pairs: pl.DataFrame) -> pl.DataFrame:
    """ΔC, C_8x / C_1x and ΔT over the paired rows: n, median, exact 95 % interval of the
    median, and the share of pairs where the 8x row is longer."""
    spreads = pair_spreads(pairs)

    def f(v: float | None, style: str) -> str:
        return fmt_tokens(v, sign=True) if style == "tokens" else _q(v, "x")

    return pl.DataFrame(
        {
            "quantity": [s.name for s in spreads],
            "n pairs": [f"{s.n:,}" for s in spreads],
            "median": [f(s.median, s.style) for s in spreads],
            "95 % interval of the median": [
                f"{f(s.low, s.style)} to {f(s.high, s.style)}" if s.low is not None else "–"
                for s in spreads
            ],
            "8x longer in": [_q(s.share_up, "%") for s in spreads],
        }
    )


def change_frame(pairs: pl.DataFrame) -> pl.DataFrame:
    """Correctness changes from the 1x to the 8x row, with 95 % Wilson intervals."""
    counts = change_counts(pairs)
    return pl.DataFrame(
        {
            "correctness 1x → 8x": [c.change for c in counts],
            "pairs": [f"{c.count:,} of {c.n:,}" for c in counts],
            "share": [_q(c.count / c.n if c.n else None, "%") for c in counts],
            "95 % interval (Wilson)": [
                f"{_q(c.low, '%')} to {_q(c.high, '%')}"
                if c.low is not None and c.high is not None
                else "–"
                for c in counts
            ],
        }
    )


def deltas_figure(pairs: pl.DataFrame) -> go.Figure:
    """Histograms of ΔC and ΔT over the pairs, a line at 0 (no change)."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("ΔC = C_8x − C_1x (latency added)", "ΔT = T_8x − T_1x (compute added)"),
        horizontal_spacing=0.08,
    )
    for col, name in ((1, "dC"), (2, "dT")):
        vals = pairs[name].drop_nulls().to_list()
        fig.add_trace(
            go.Histogram(
                x=vals,
                nbinsx=30,
                marker_color=CORRECTNESS_COLOURS[None],
                showlegend=False,
                hovertemplate="%{x} tokens: %{y} pairs<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.add_vline(x=0, line_dash="dot", line_color=NOTE_FG, row=1, col=col)  # type: ignore[arg-type]  # plotly accepts subplot coordinates here
        fig.update_xaxes(title_text="tokens (8x − 1x)", row=1, col=col)
        fig.update_yaxes(title_text="pairs", row=1, col=col)
    fig.update_annotations(font_size=13)
    fig.update_layout(height=340, margin=dict(l=10, r=10, t=40, b=10), bargap=0.05)
    return fig


def render_all_pairs(t1: pl.DataFrame, t8: pl.DataFrame, counter_label: str) -> None:
    pairs = paired_table(t1, t8)
    if pairs.height == 0:
        st.info("No trajectory is present in both sft-1x and sft-8x.")
        return
    st.caption(
        f"{pairs.height:,} questions have a row in both subsets (same uuid). Token counts: "
        f"{counter_label}. Intervals: the median's exact distribution-free 95 % interval "
        "(order statistics, binomial ½), and Wilson 95 % intervals for the shares."
    )
    st.markdown(md_frame(spread_frame(pairs)))
    st.plotly_chart(deltas_figure(pairs), config={"displayModeBar": False})
    st.markdown(md_frame(change_frame(pairs)))
    st.caption(OR_JOIN_NOTE)
