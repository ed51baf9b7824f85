"""Pure figure builders for the stopping playground: (data) -> go.Figure, no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from analysis.stopping import (
    ALL_METHODS,
    PUBLISHED_METHODS,
    Diagnostics,
    FrontierPoint,
    QuestionResult,
    policy_for_method,
)
from analysis.stopping.compare import pareto_front
from components.common import theme
from components.common.safe_text import esc_hover

PALETTE = theme.LINE_PALETTE
MARKER_COLORS = theme.MARKER_COLORS  # 24 colours x 9 symbols: no look repeats among 16+ policies
SYMBOLS = [
    "square",
    "diamond",
    "triangle-up",
    "cross",
    "x",
    "star",
    "pentagon",
    "hexagon",
    "triangle-down",
]
# one fixed (symbol, colour) per method, whatever policy is selected or which others are shown:
# a marker keeps its look when the user switches policy (16 methods, 23 distinct colours)
MARKER_STYLE: dict[str, tuple[str, str]] = {
    m: (SYMBOLS[i % len(SYMBOLS)], MARKER_COLORS[i % len(MARKER_COLORS)])
    for i, m in enumerate(ALL_METHODS)
}
FALLBACK_STYLE = ("circle-open", theme.MARKER_FALLBACK)


GROUP_TITLES = {
    "baseline": "Baselines",
    "published": "Published",
    "checkpoint": "Ours: checkpoint rules",
    "sequential": "Ours: sequential arrival",
}
_GROUP_ORDER = {k: i for i, k in enumerate(GROUP_TITLES)}
_SEQUENTIAL = {m for m in ALL_METHODS if policy_for_method(m).sequential}


REPLAY_STEP_MS = 500  # one checkpoint a half second while playing


def family(method: str) -> str:
    """The legend group of a frontier marker: the baselines (SC at full budget, DeepConf
    online), the other published methods, our checkpoint rules, our sequential rules."""
    if method in ("offline", "dco"):
        return "baseline"
    if method in PUBLISHED_METHODS:
        return "published"
    return "sequential" if method in _SEQUENTIAL else "checkpoint"


def marker_style(method: str) -> tuple[str, str]:
    """The fixed (symbol, colour) of a method's frontier marker."""
    return MARKER_STYLE.get(method, FALLBACK_STYLE)


def _padded(values: Sequence[float], pad_min: float, lo: float | None = None) -> list[float]:
    """An axis range around `values` with headroom, so markers and their labels never touch
    the plot edge."""
    a, b = float(min(values)), float(max(values))
    pad = max(pad_min, 0.08 * (b - a))
    return [a - pad if lo is None else max(lo, a - pad), b + pad]


def frontier_figure(
    sweep_pts: Sequence[FrontierPoint],
    param_label: str,
    current: FrontierPoint | None,
    others: Sequence[tuple[str, FrontierPoint]],
) -> go.Figure:
    """Accuracy (%) against mean token savings (%): the policy swept over its main parameter,
    the current setting, the baselines and other policies; the Pareto front highlighted."""
    fig = go.Figure()
    xs = [p.savings_pct for p in sweep_pts] + [p.savings_pct for _n, p in others]
    ys = [p.accuracy_pct for p in sweep_pts] + [p.accuracy_pct for _n, p in others]
    if current is not None:
        xs.append(current.savings_pct)
        ys.append(current.accuracy_pct)
    if xs:
        front = pareto_front(np.array(xs), np.array(ys))
        fx, fy = np.array(xs)[front], np.array(ys)[front]
        o = np.argsort(fx)
        fig.add_trace(
            go.Scatter(
                x=fx[o],
                y=fy[o],
                mode="lines+markers",
                name="Pareto front",
                line={"color": theme.PARETO_LINE, "width": 10},
                marker={"size": 16, "color": theme.PARETO_MARKER},
                hoverinfo="skip",
            )
        )
    if sweep_pts:
        fig.add_trace(
            go.Scatter(
                x=[p.savings_pct for p in sweep_pts],
                y=[p.accuracy_pct for p in sweep_pts],
                mode="lines+markers+text",
                name=f"{sweep_pts[0].method} sweep",
                text=[
                    f"{p.value:g}" if i in (0, len(sweep_pts) - 1) else ""
                    for i, p in enumerate(sweep_pts)
                ],
                customdata=[f"{p.value:g}" for p in sweep_pts],
                meta=esc_hover(param_label),
                textposition="top center",
                marker={"size": 8, "color": PALETTE[0]},
                line={"color": PALETTE[0]},
                hovertemplate="%{meta}=%{customdata}<br>savings %{x:.1f}%<br>accuracy %{y:.1f}%<extra></extra>",
            )
        )
    for name, p in sorted(others, key=lambda o: _GROUP_ORDER.get(family(o[1].method), 9)):
        symbol, color = marker_style(p.method)
        fam = family(p.method)
        fig.add_trace(
            go.Scatter(
                x=[p.savings_pct],
                y=[p.accuracy_pct],
                mode="markers",
                name=esc_hover(name),
                legendgroup=fam,
                legendgrouptitle={"text": GROUP_TITLES[fam]},
                marker={
                    "size": 12,
                    "symbol": symbol,
                    "color": color,
                    "line": {"color": theme.MARKER_EDGE, "width": 1},
                },
                customdata=[esc_hover(name)],
                hovertemplate="%{customdata}<br>savings %{x:.1f}%<br>accuracy %{y:.1f}%<extra></extra>",
            )
        )
    if current is not None:
        fig.add_trace(
            go.Scatter(
                x=[current.savings_pct],
                y=[current.accuracy_pct],
                mode="markers",
                name="current setting",
                marker={
                    "size": 18,
                    "color": theme.CURRENT_FILL,
                    "line": {"color": theme.CURRENT_RING, "width": 3},
                },
                hovertemplate="current<br>savings %{x:.1f}%<br>accuracy %{y:.1f}%<extra></extra>",
            )
        )
    fig.update_layout(
        height=420 + 22 * (len(others) // 6),  # room for the legend rows below the axes
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title="mean token savings (%)",
        yaxis_title="accuracy (%)",
        legend={
            "orientation": "h",
            "y": -0.18,
            "yanchor": "top",
            "groupclick": "togglegroup",  # a group title hides or shows the whole group
        },
        uirevision="frontier",
    )
    if xs:  # headroom: the top marker (and the sweep's end label above it) stays off the edge
        fig.update_xaxes(range=_padded(xs, 3.0))
        fig.update_yaxes(range=_padded(ys, 3.0))
    return fig


def per_question_figure(cmp: pd.DataFrame) -> go.Figure:
    """Accuracy change vs SC (bars, red = lost accuracy; top row) and savings (dots; bottom row)
    per question, on a shared question axis. Two rows rather than twin y axes: each axis gets
    its own round ticks (twin axes put 0/19/38/... on the right, off the left grid).
    Square markers make every question clickable."""
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        row_heights=[0.55, 0.45],
    )
    if cmp.empty:
        return fig
    colors = np.where(cmp["lost"], theme.ALERT, theme.GAIN)
    fig.add_trace(
        go.Bar(
            x=cmp["qid"],
            y=cmp["delta_pct"],
            name="accuracy − SC (pp)",
            marker_color=colors,
            hovertemplate="Q%{x}<br>Δ accuracy %{y:.1f} pp<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=cmp["qid"],
            y=cmp["savings_pct"],
            mode="markers",
            name="savings (%)",
            marker={"symbol": "square", "size": 10, "color": PALETTE[0]},
            hovertemplate="Q%{x}<br>savings %{y:.1f}%<extra></extra>",
        ),
        row=2,
        col=1,
    )
    delta = cmp["delta_pct"].to_numpy(dtype=float)
    top = max(10.0, float(np.nanmax(np.abs(delta))) if delta.size else 10.0)
    lo = -top * 1.1 if (delta < 0).any() else -top * 0.05
    hi = top * 1.1 if (delta > 0).any() or not (delta < 0).any() else top * 0.05
    fig.update_layout(
        height=380,
        margin={"l": 10, "r": 10, "t": 20, "b": 10},
        clickmode="event+select",
        legend={"orientation": "h", "y": -0.2, "yanchor": "top"},
        bargap=0.2,
    )
    fig.update_yaxes(title_text="Δ accuracy (pp)", range=[lo, hi], zeroline=True, row=1, col=1)
    # 0..100 with round ticks and headroom: a dot at 100 % stays inside the plot
    fig.update_yaxes(
        title_text="savings (%)",
        range=[-6, 106],
        tickmode="array",
        tickvals=[0, 25, 50, 75, 100],
        row=2,
        col=1,
    )
    fig.update_xaxes(title_text="question", row=2, col=1)
    return fig


def replay_steps(grid: np.ndarray) -> dict[str, object]:
    """The replay's Play control and checkpoint slider, as `lite_chart` steps: step k shows every
    line and the token bars up to checkpoint k; it opens on the last checkpoint."""
    k = int(grid.shape[0])
    return {
        "counts": list(range(1, k + 1)),
        "labels": [f"{int(p)}" for p in grid],
        "active": max(k - 1, 0),
        "prefix": "checkpoint at ",
        "suffix": " tokens",
        "duration": REPLAY_STEP_MS,
    }


def replay_figure(
    diag: Diagnostics | None,
    res: QuestionResult,
    rule_label: str,
    tau: float | None = None,
    top: int = 6,
) -> go.Figure:
    """One bootstrap iteration: vote share per answer group at each checkpoint, the rule's
    signal (MARS margin vs threshold, or the leader's share), tokens spent, the stop marker.
    Drawn by `lite_chart` with `replay_steps`: Play steps through the checkpoints in the browser."""
    fig = make_subplots(
        rows=3,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        row_heights=[0.45, 0.3, 0.25],
        subplot_titles=("vote share per answer", esc_hover(rule_label), "tokens spent (M)"),
    )
    if diag is None or diag.votes.shape[1] == 0:
        fig.add_annotation(
            text="no checkpoints to replay",
            showarrow=False,
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
        )
        return fig
    grid = diag.grid.astype(float)
    votes = diag.votes[0]  # [K, G]
    tot = votes.sum(axis=1, keepdims=True)
    share = np.divide(votes, tot, out=np.zeros_like(votes), where=tot > 0)
    order = np.argsort(-share.max(axis=0), kind="stable")[:top]
    series: list[tuple[int, str, np.ndarray, dict]] = []
    for i, gid in enumerate(order):
        label = res.labels[gid] if gid < len(res.labels) else f"group {gid}"
        ok = bool(res.group_correct[gid]) if gid < res.group_correct.shape[0] else False
        name = f"{label[:30]}{' ✓' if ok else ''}"
        series.append((1, name, share[:, gid] * 100, {"color": PALETTE[i % len(PALETTE)]}))
    if diag.margin is not None and diag.threshold is not None:
        series.append((2, "margin", diag.margin[0], {"color": theme.SIGNAL}))
        series.append((2, "threshold", diag.threshold[0], {"color": theme.ALERT, "dash": "dash"}))
    elif diag.share is not None:
        series.append((2, "leader share (%)", diag.share[0] * 100, {"color": theme.SIGNAL}))
        if tau is not None:
            thr_line = np.full(grid.shape, tau * 100)
            series.append((2, "tau (%)", thr_line, {"color": theme.ALERT, "dash": "dash"}))
    tokens = diag.tokens_at[0] / 1e6 if diag.tokens_at is not None else np.zeros_like(grid)
    for row, name, y, line in series:
        fig.add_trace(
            go.Scatter(
                x=grid,
                y=y,
                mode="lines+markers",
                name=esc_hover(name),
                line=line,
                # the answer label rides in customdata: inside the template, `%{...}` in an
                # answer would be read as a plotly placeholder
                customdata=[esc_hover(name)] * grid.shape[0],
                hovertemplate="%{customdata}<br>p=%{x:.0f}<br>%{y:.2f}<extra></extra>",
            ),
            row=row,
            col=1,
        )
    fig.add_trace(
        go.Bar(
            x=grid,
            y=tokens,
            name="tokens (M)",
            marker_color=theme.TOKENS_BAR,
            hovertemplate="p=%{x:.0f}<br>%{y:.3f} M tokens<extra></extra>",
        ),
        row=3,
        col=1,
    )
    stop = int(res.stop_index[0])
    if stop >= 0:
        for r in (1, 2, 3):
            fig.add_vline(x=grid[stop], line_dash="dot", line_color=theme.ALERT, row=r, col=1)
        # inside the top panel, just below its top edge: above it (paper y = 1) the label sat
        # on the subplot title "vote share per answer"
        fig.add_annotation(
            x=grid[stop],
            y=0.97,
            xref="x",
            yref="y domain",
            yanchor="top",
            xanchor="left" if stop < grid.shape[0] / 2 else "right",
            text=f" stop at {int(grid[stop])} ({esc_hover(str(res.stopped_by[0]))}) ",
            showarrow=False,
            font={"color": theme.ALERT},
            bgcolor=theme.STOP_LABEL_BG,
            name="stop label",
        )
    fig.update_layout(
        height=700,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        legend={"orientation": "v", "x": 1.01, "y": 1.0, "font": {"size": 11}},
    )
    fig.update_xaxes(title_text="checkpoint position (tokens)", row=3, col=1, title_standoff=4)
    return fig
