"""Pure figure builders for the stopping playground: (data) -> go.Figure, no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from analysis.playground import (
    ALL_METHODS,
    Diagnostics,
    FrontierPoint,
    Policy,
    QuestionResult,
)
from analysis.playground.compare import pareto_front
from analysis.playground.explain import threshold_parts
from analysis.playground.policies import method_family
from components.common import theme
from components.common.formatting import fmt_num
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
    "published": "Re-simulated at published settings",
    "checkpoint": "Ours: checkpoint rules",
    "sequential": "Ours: sequential arrival",
}
_GROUP_ORDER = {k: i for i, k in enumerate(GROUP_TITLES)}


REPLAY_STEP_MS = 500  # one checkpoint a half second while playing


def family(method: str) -> str:
    """The legend group of a frontier marker: the baselines (SC at full budget, DeepConf
    online), the other published methods, our checkpoint rules, our sequential rules."""
    if method in ("offline", "dco"):
        return "baseline"
    try:
        return method_family(method)  # the policy's declaration (`analysis.playground.policies`)
    except ValueError:  # not a registered method
        return "checkpoint"


def marker_style(method: str) -> tuple[str, str]:
    """The fixed (symbol, colour) of a method's frontier marker."""
    return MARKER_STYLE.get(method, FALLBACK_STYLE)


def _padded(values: Sequence[float], pad_min: float, lo: float | None = None) -> list[float]:
    """An axis range around `values` with headroom, so markers and their labels never touch
    the plot edge."""
    a, b = float(min(values)), float(max(values))
    pad = max(pad_min, 0.08 * (b - a))
    return [a - pad if lo is None else max(lo, a - pad), b + pad]


def sweep_name(policy: Policy, label: str, values: Sequence[float]) -> str:
    """What the sweep line holds, by what it sweeps and what it fixes. A MARS sweep fixes
    gamma, so calibration is off along it: the line of `sc-mars-cal` is the uncalibrated
    rule (`sc-mars`), and says so."""
    span = f" {min(values):g}–{max(values):g}" if values else ""
    return policy.sweep_name(label, span)


def error_segments(pts: Sequence[FrontierPoint]) -> tuple[list, list]:
    """The 95 % intervals of points as line segments (None between them): a vertical one for
    accuracy, a horizontal one for savings, through each point. Plain lines, so the SVG
    renderer (`lite_chart`) draws them as Plotly would draw error bars."""
    xs: list = []
    ys: list = []
    for p in pts:
        (alo, ahi), (slo, shi) = p.accuracy_ci, p.savings_ci
        if np.isfinite(alo) and np.isfinite(ahi):
            xs += [p.savings_pct, p.savings_pct, None]
            ys += [alo, ahi, None]
        if np.isfinite(slo) and np.isfinite(shi):
            xs += [slo, shi, None]
            ys += [p.accuracy_pct, p.accuracy_pct, None]
    return xs, ys


def _error_trace(
    fig: go.Figure,
    pts: Sequence[FrontierPoint],
    color: str,
    group: str | None = None,
    opacity: float = 1.0,
) -> None:
    """Error bars of `pts` in the marker's colour, hidden and shown with its legend group."""
    ex, ey = error_segments(pts)
    if not ex:
        return
    fig.add_trace(
        go.Scatter(
            x=ex,
            y=ey,
            mode="lines",
            name="95 % intervals",
            showlegend=False,
            legendgroup=group,
            line={"color": color, "width": 1.5},
            opacity=opacity,
            hoverinfo="skip",
        )
    )


SWEEP_BAND = "95 % interval of accuracy along the sweep"


def _sweep_band(fig: go.Figure, pts: Sequence[FrontierPoint], color: str) -> None:
    """The sweep's accuracy intervals as one shaded band along its points (by savings): a dozen
    bars side by side read as a fence, not as a curve's uncertainty. The savings intervals stay
    in each point's tip."""
    ok = sorted(
        (p for p in pts if np.isfinite(p.accuracy_ci[0]) and np.isfinite(p.accuracy_ci[1])),
        key=lambda p: p.savings_pct,
    )
    if len(ok) < 2:
        _error_trace(fig, ok, color, "sweep", 0.45)  # one point: its bars
        return
    x = [p.savings_pct for p in ok]
    fig.add_trace(
        go.Scatter(
            x=x + x[::-1],
            y=[p.accuracy_ci[1] for p in ok] + [p.accuracy_ci[0] for p in ok][::-1],
            fill="toself",
            fillcolor=color,
            opacity=0.18,
            mode="lines",
            line={"width": 0, "color": color},
            name=SWEEP_BAND,
            legendgroup="sweep",
            legendrank=2,  # right after the sweep's own entry
            hoverinfo="skip",
        )
    )


_CI_HOVER = (
    "<br>accuracy 95 % CI [%{customdata[1]}, %{customdata[2]}] %"
    "<br>savings 95 % CI [%{customdata[3]}, %{customdata[4]}] %"
)


def _ci_cells(p: FrontierPoint) -> list[str]:
    return [fmt_num(v, ".1f") for v in (*p.accuracy_ci, *p.savings_ci)]


def step_front(xs: Sequence[float], ys: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The Pareto front of (savings, accuracy) points as a staircase: sorted by savings; past a
    point's savings only the next point's (lower) accuracy is reachable, so the line drops at
    each point and runs flat to the next (no diagonal implying points in between)."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    if not x.size:
        return x, y
    front = pareto_front(x, y)
    fx, fy = x[front], y[front]
    pts = np.unique(np.stack([fx, -fy], axis=1), axis=0)  # by savings; a point drawn twice once
    fx, fy = pts[:, 0], -pts[:, 1]
    sx, sy = [fx[0]], [fy[0]]
    for i in range(1, fx.shape[0]):
        sx += [fx[i - 1], fx[i]]
        sy += [fy[i], fy[i]]
    return np.array(sx), np.array(sy)


def frontier_figure(
    sweep_pts: Sequence[FrontierPoint],
    param_label: str,
    current: FrontierPoint | None,
    others: Sequence[tuple[str, FrontierPoint]],
    sweep_title: str | None = None,
) -> go.Figure:
    """Accuracy (%) against mean token savings (%): the policy swept over its main parameter
    (its accuracy intervals a band), the current setting, the baselines and other policies, each
    with its 95 % intervals (error bars); the Pareto front drawn as a staircase."""
    fig = go.Figure()
    xs = [p.savings_pct for p in sweep_pts] + [p.savings_pct for _n, p in others]
    ys = [p.accuracy_pct for p in sweep_pts] + [p.accuracy_pct for _n, p in others]
    if current is not None:
        xs.append(current.savings_pct)
        ys.append(current.accuracy_pct)
    if sweep_pts:
        _sweep_band(fig, sweep_pts, PALETTE[0])  # beneath the front and the sweep's line
    if xs:
        sx, sy = step_front(xs, ys)
        fig.add_trace(
            go.Scatter(
                x=sx,
                y=sy,
                mode="lines",
                name="Pareto front (steps)",
                line={"color": theme.PARETO_LINE, "width": 10},
                hoverinfo="skip",
            )
        )
    if sweep_pts:
        name = sweep_title or f"{sweep_pts[0].method}: {param_label} swept"
        fig.add_trace(
            go.Scatter(
                x=[p.savings_pct for p in sweep_pts],
                y=[p.accuracy_pct for p in sweep_pts],
                mode="lines+markers+text",
                name=esc_hover(name),
                text=[
                    f"{p.value:g}" if i in (0, len(sweep_pts) - 1) else ""
                    for i, p in enumerate(sweep_pts)
                ],
                customdata=[[f"{p.value:g}", *_ci_cells(p)] for p in sweep_pts],
                meta=esc_hover(param_label),
                textposition="top center",
                marker={"size": 8, "color": PALETTE[0]},
                line={"color": PALETTE[0]},
                hovertemplate="%{meta}=%{customdata[0]}<br>savings %{x:.1f}%<br>accuracy "
                "%{y:.1f}%" + _CI_HOVER + "<extra></extra>",
                legendgroup="sweep",
                legendrank=1,  # first in the legend, its band next
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
                customdata=[[esc_hover(name), *_ci_cells(p)]],
                hovertemplate="%{customdata[0]}<br>savings %{x:.1f}%<br>accuracy %{y:.1f}%"
                + _CI_HOVER
                + "<extra></extra>",
            )
        )
        _error_trace(fig, [p], color, fam)
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
                customdata=[["", *_ci_cells(current)]],
                hovertemplate="current<br>savings %{x:.1f}%<br>accuracy %{y:.1f}%"
                + _CI_HOVER
                + "<extra></extra>",
                legendgroup="current",
            )
        )
        _error_trace(fig, [current], theme.CURRENT_RING, "current")
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
    if xs:  # headroom: markers, error bars and the sweep's end labels stay off the edge
        all_pts = [*sweep_pts, *(p for _n, p in others)]
        if current is not None:
            all_pts.append(current)
        ex = xs + [v for p in all_pts for v in p.savings_ci if np.isfinite(v)]
        ey = ys + [v for p in all_pts for v in p.accuracy_ci if np.isfinite(v)]
        fig.update_xaxes(range=_padded(ex, 3.0))
        fig.update_yaxes(range=_padded(ey, 3.0))
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


def _answer(res: QuestionResult, gid: int | None) -> str:
    """An answer group's label for a legend or hover line (escaped by the caller)."""
    if gid is None:
        return "an answer with no votes yet"
    if gid < 0:
        return "no answer"
    return res.labels[gid][:30] if gid < len(res.labels) else f"group {gid}"


def replay_figure(
    diag: Diagnostics | None,
    res: QuestionResult,
    rule_label: str,
    tau: float | None = None,
    top: int = 6,
    vote_unit: str = "votes",
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
    signal_title = "leader share (%)"
    runner: list[str] | None = None
    if diag.margin is not None and diag.threshold is not None:
        parts = [threshold_parts(diag, k) for k in range(grid.shape[0])]
        runner = [
            "runner-up: " + esc_hover(_answer(res, p.runner_up) if p is not None else "–")
            for p in parts
        ]
        series.append((2, "margin", diag.margin[0], {"color": theme.SIGNAL}))  # V_L − V_a
        series.append((2, "threshold", diag.threshold[0], {"color": theme.ALERT, "dash": "dash"}))
        signal_title = f"margin ({vote_unit})"
    elif diag.share is not None:
        series.append((2, "leader share (%)", diag.share[0] * 100, {"color": theme.SIGNAL}))
        if tau is not None:
            thr_line = np.full(grid.shape, tau * 100)
            series.append((2, "tau (%)", thr_line, {"color": theme.ALERT, "dash": "dash"}))
    tokens = diag.tokens_at[0] / 1e6 if diag.tokens_at is not None else np.zeros_like(grid)
    for row, name, y, line in series:
        unit = "%" if row == 1 else ""
        extra = runner if row == 2 and runner is not None else [""] * grid.shape[0]
        fig.add_trace(
            go.Scatter(
                x=grid,
                y=y,
                mode="lines+markers",
                name=esc_hover(name),
                line=line,
                # the answer label rides in customdata: inside the template, `%{...}` in an
                # answer would be read as a plotly placeholder
                customdata=[[esc_hover(name), e] for e in extra],
                hovertemplate="%{customdata[0]}<br>checkpoint at %{x:,.0f} tokens<br>%{y:.2f}"
                + unit
                + "<br>%{customdata[1]}<extra></extra>",
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
            text=f" stop at {int(grid[stop]):,} tokens ({esc_hover(str(res.stopped_by[0]))}) ",
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
    fig.update_yaxes(title_text="vote share (%)", ticksuffix="%", row=1, col=1)
    fig.update_yaxes(title_text=signal_title, row=2, col=1)
    fig.update_yaxes(title_text="tokens (M)", row=3, col=1)
    return fig
