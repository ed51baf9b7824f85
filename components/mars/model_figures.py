"""Figures of the "Compare models" tab: pure builders `(table) -> go.Figure`, one colour per
model throughout, every model on the same token axis. Answers are dataset text: they go through
`esc_hover` and into hover data, never into a template."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl

from components.common import theme
from components.common.safe_text import esc_hover

# blue, orange, purple, brown, pink, grey: no green or red, which mean right and wrong here
MODEL_COLOURS = [theme.LINE_PALETTE[i] for i in (0, 1, 4, 5, 6, 7)]
TOP_ANSWERS = 12


def model_colour(models: list[str], model: str) -> str:
    return MODEL_COLOURS[models.index(model) % len(MODEL_COLOURS)]


def answers_by_model(dist: pl.DataFrame, models: list[str], top: int = TOP_ANSWERS) -> go.Figure:
    """Grouped bars: each model's share of traces per final answer, answers on shared keys (the
    most voted first, "no final answer" last). A tick marked ✓ is an answer some model's file
    judges the ground truth."""
    fig = go.Figure()
    d = pl.concat([dist.filter(pl.col("key") != "∅").head(top), dist.filter(pl.col("key") == "∅")])
    pos = list(range(d.height))
    ok = [bool(c) for c in d["correct_in"].to_list()]
    ticks = [
        "(no answer)" if k == "∅" else esc_hover(a, 12) + (" ✓" if c else "")
        for k, a, c in zip(d["key"], d["answer"], ok, strict=True)
    ]
    hover = [
        esc_hover(a, 120) + (f" (ground truth in {esc_hover(c, 80)})" if c else "")
        for a, c in zip(d["answer"], d["correct_in"], strict=True)
    ]
    for m in models:
        if m not in d.columns:
            continue
        fig.add_trace(
            go.Bar(
                x=pos,
                y=d[f"{m} %"].to_list(),
                name=esc_hover(m, 40),
                marker={"color": model_colour(models, m)},
                customdata=[[h, n] for h, n in zip(hover, d[m].to_list(), strict=True)],
                hovertemplate=(
                    f"{esc_hover(m, 40)}<br>%{{customdata[0]}}: %{{y:.1%}} "
                    "(%{customdata[1]} traces)<extra></extra>"
                ),
            )
        )
    fig.update_xaxes(
        tickmode="array",
        tickvals=pos,
        ticktext=ticks,
        tickangle=-30 if any(len(t) > 6 for t in ticks) else 0,
        title="final answer (same answer, same bar group)",
        automargin=True,
    )
    fig.update_layout(
        barmode="group",
        title="final answers: share of each model's traces",
        yaxis={"title": "share of the model's traces", "tickformat": ".0%"},
        height=380,
        margin={"l": 60, "r": 10, "t": 40, "b": 40},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"},
    )
    return fig


def truth_share_figure(
    ts: pl.DataFrame, models: list[str], x_max: float | None = None
) -> go.Figure:
    """The ground truth's share of each model's traces at every checkpoint (solid), and the
    share with no answer yet (dotted), all models on one token axis."""
    fig = go.Figure()
    for m in models:
        part = ts.filter(pl.col("model") == m).sort("position")
        if not part.height:
            continue
        colour = model_colour(models, m)
        fig.add_trace(
            go.Scatter(
                x=part["position"].to_list(),
                y=part["truth"].to_list(),
                mode="lines+markers",
                name=f"{esc_hover(m, 40)}: ground truth",
                line={"color": colour, "width": 2.5},
                marker={"size": 5},
                hovertemplate="%{y:.1%} answer the ground truth<extra>"
                + esc_hover(m, 40)
                + "</extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=part["position"].to_list(),
                y=part["none"].to_list(),
                mode="lines",
                name=f"{esc_hover(m, 40)}: no answer yet",
                line={"color": colour, "width": 1.2, "dash": "dot"},
                hovertemplate="%{y:.1%} no answer yet<extra>" + esc_hover(m, 40) + "</extra>",
            )
        )
    fig.update_layout(
        title="vote evolution: the ground truth's share of each model's traces",
        xaxis={
            "title": "checkpoint (tokens generated)",
            "hoverformat": ",.0f",
            "rangemode": "tozero",
        },
        yaxis={"title": "share of all traces", "tickformat": ".0%", "range": [0, 1.02]},
        height=400,
        margin={"l": 60, "r": 10, "t": 40, "b": 50},
        legend={"orientation": "h", "y": -0.2, "yanchor": "top"},
        hovermode="x unified",
    )
    if x_max:
        fig.update_xaxes(range=[0, x_max])
    return fig


def pooled_curves_figure(
    pc: pl.DataFrame, models: list[str], bin_tokens: int, x_max: float | None = None
) -> go.Figure:
    """Median confidence along the token axis per model: right traces solid, wrong or no
    answer dashed; n (traces in the bin) on hover."""
    fig = go.Figure()
    for m in models:
        for cls, dash in (("right", "solid"), ("wrong", "dash")):
            part = pc.filter((pl.col("model") == m) & (pl.col("cls") == cls)).sort("x")
            if not part.height:
                continue
            what = "right final answer" if cls == "right" else "wrong / no final answer"
            fig.add_trace(
                go.Scatter(
                    x=part["x"].to_list(),
                    y=part["median"].to_list(),
                    mode="lines",
                    name=f"{esc_hover(m, 40)}: {what}",
                    line={"color": model_colour(models, m), "dash": dash, "width": 2},
                    customdata=part["n"].to_list(),
                    hovertemplate="median %{y:.2f} over %{customdata} traces<extra>"
                    + esc_hover(m, 40)
                    + f" ({what})</extra>",
                )
            )
    fig.update_layout(
        title=f"confidence along the traces (median per {bin_tokens:,}-token bin)",
        xaxis={"title": "tokens generated", "hoverformat": ",.0f", "rangemode": "tozero"},
        yaxis={"title": "confidence (−mean top-20 logprob)"},
        height=400,
        margin={"l": 60, "r": 10, "t": 40, "b": 50},
        legend={"orientation": "h", "y": -0.2, "yanchor": "top"},
    )
    if x_max:
        fig.update_xaxes(range=[0, x_max])
    return fig
