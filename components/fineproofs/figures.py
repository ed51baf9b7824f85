"""FineProofs figures: pure builders `(data) -> go.Figure`, callable from tests and the bench.

Why scatter squares for the overview: `st.plotly_chart(on_select=...)` emits no selection for
heatmaps, so each cell is a square marker carrying (problem_id, sample_index, ordinal) in its
customdata; a click selects the trace. Only one page of traces is drawn, so the payload stays
small whatever the collection size. All hover text built from data goes through `esc_hover`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import polars as pl

from analysis.fineproofs.values import GRADE_BINS
from components.common.safe_text import esc_hover
from components.common.theme import (
    ALERT,
    FOCUS,
    FP_BAND,
    FP_BIMODAL,
    FP_ENDPOINT,
    FP_FIRST_ERROR,
    FP_GRID,
    FP_GUIDE,
    FP_HIST_SCALE,
    FP_RECOVERY,
    VALUE_SCALE,
)

CHANGE_RANGE = 0.5
ROW_PX = 22  # overview row pitch; the figure height follows the rows shown
TOP_PX, BOTTOM_PX = 8, 48
MARK_DY = 0.07  # vertical offset of the drop/recovery/first-error marks from their point


def _f32(values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def value_curve_figure(
    series: pl.DataFrame, x: str = "ordinal", selected: int | None = None
) -> go.Figure:
    """Value per prefix with a +/-2 SE band, significant drops/recoveries, the first-error
    candidate, and the endpoint grade as a separate star (a single grade, not a mean)."""
    xs = _f32(series[x].to_numpy()) if x in series.columns else _f32(series["ordinal"].to_numpy())
    v = series["value"].cast(pl.Float64).fill_nan(None).to_numpy().astype(np.float64)
    se = series["se"].cast(pl.Float64).fill_nan(None).to_numpy().astype(np.float64)
    lo = np.clip(v - 2 * se, 0, 1)
    hi = np.clip(v + 2 * se, 0, 1)
    ords = series["ordinal"].to_list()
    steps = series["step"].to_list()
    fig = go.Figure()
    band = ~np.isnan(lo) & ~np.isnan(hi)
    if band.any():
        fig.add_trace(
            go.Scatter(
                x=np.r_[xs[band], xs[band][::-1]],
                y=_f32(np.r_[hi[band], lo[band][::-1]]),
                fill="toself",
                fillcolor=FP_BAND,
                mode="lines",
                line={"width": 0},
                hoverinfo="skip",
                name="±2 SE",
            )
        )
    change = series["change"].to_list()
    hover = [
        f"prefix {o} · step {s}<br>value {vv:.3f} ± {2 * e:.3f} (2 SE)"
        + (f"<br>change {c:+.3f}" if c is not None and c == c else "")
        + (f"<br>{esc_hover(f)}" if f else "")
        if vv == vv
        else f"prefix {o} · step {s}<br>no grade"
        for o, s, vv, e, c, f in zip(
            ords, steps, v, se, change, series["flags"].to_list(), strict=True
        )
    ]
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=_f32(v),
            mode="lines+markers",
            line={"color": FOCUS},
            marker={"size": 9},
            customdata=np.array(ords),
            hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>",
            name="mean grade",
            connectgaps=False,
        )
    )
    # markers sit beside their point, not on it, so a drop and a first-error candidate at the
    # same prefix stay visible: ▼ above (pointing at it), ▲ and × below, ○ around the point
    for col, symbol, color, name, dy in (
        ("sig_drop", "triangle-down", ALERT, "significant drop", MARK_DY),
        ("recovery", "triangle-up", FP_RECOVERY, "recovery", -MARK_DY),
        ("first_error", "x", FP_FIRST_ERROR, "first-error candidate", -MARK_DY),
        ("bimodal", "circle-open", FP_BIMODAL, "bimodal prefix", 0.0),
    ):
        m = series[col].fill_null(False).to_numpy() & ~np.isnan(v)
        if m.any():
            fig.add_trace(
                go.Scatter(
                    x=xs[m],
                    y=_f32(v[m] + dy),
                    mode="markers",
                    marker={
                        "symbol": symbol,
                        "size": 13 if symbol != "x" else 11,
                        "color": color,
                        "line": {"width": 2, "color": color},
                    },
                    customdata=np.array(ords)[m],
                    hoverinfo="skip",
                    name=name,
                )
            )
    x_max = float(np.nanmax(xs)) if len(xs) and not np.isnan(xs).all() else 1.0
    if x == "ordinal":
        n_x = int(round(x_max))
        tickvals = list(range(1, n_x + 1)) if n_x <= 20 else [1, *range(5, n_x + 1, 5)]
        ticktext = [str(t) for t in tickvals]
        ex = float(int(round(x_max)) + 1)
    else:
        tickvals = [0.0, 0.25, 0.5, 0.75, 1.0]
        ticktext = ["0", "0.25", "0.5", "0.75", "1"]
        ex = max(1.0, x_max) + 0.12
    endpoint = series["endpoint"].drop_nulls() if "endpoint" in series.columns else pl.Series([])
    has_end = bool(endpoint.len() and endpoint[0] == endpoint[0])
    if has_end:
        tickvals, ticktext = [*tickvals, ex], [*ticktext, "end"]
        fig.add_trace(
            go.Scatter(
                x=[ex],
                y=[float(endpoint[0])],
                mode="markers",
                marker={"symbol": "star", "size": 16, "color": FP_ENDPOINT},
                hovertemplate="endpoint grade (base grading log): %{y:.3f}<extra></extra>",
                name="endpoint grade",
            )
        )
    if selected is not None and selected in ords:
        i = ords.index(selected)
        fig.add_vline(x=float(xs[i]), line_dash="dot", line_color=FP_GUIDE)
    fig.update_layout(
        height=340,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        legend={"orientation": "h", "y": -0.25},
        clickmode="event+select",
        plot_bgcolor="white",
    )
    fig.update_yaxes(
        range=[-MARK_DY - 0.04, 1 + MARK_DY + 0.04],  # room for the offset markers
        tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
        title_text="mean grade of continuations",
        gridcolor=FP_GRID,
    )
    lo_x = 0.5 if x == "ordinal" else -0.03
    fig.update_xaxes(
        title_text="prefix ordinal" if x == "ordinal" else "relative depth (step / num_steps)",
        gridcolor=FP_GRID,
        tickmode="array",
        tickvals=tickvals,
        ticktext=ticktext,  # "end" = the endpoint grade's column (★)
        range=[lo_x, (ex if has_end else x_max) + (0.5 if x == "ordinal" else 0.05)],
    )
    return fig


def hist_heatmap_figure(series: pl.DataFrame) -> go.Figure:
    """Continuation-grade histogram at every prefix (grade level x prefix), as fractions.

    When every histogram is a k/7 comb only the 8 grade levels are drawn; otherwise all 20 bins.
    """
    ords = series["ordinal"].to_list()
    hists = series["hist"].to_list() if "hist" in series.columns else [None] * len(ords)
    mat = np.full((20, len(ords)), np.nan, dtype=np.float64)
    for j, h in enumerate(hists):
        if h is not None and len(h) == 20 and sum(h) > 0:
            mat[:, j] = np.asarray(h, dtype=np.float64) / float(sum(h))
    off = np.setdiff1d(np.arange(20), GRADE_BINS)
    comb = np.nan_to_num(mat[off]).sum() == 0
    if comb:
        z = mat[GRADE_BINS]
        ylab = [f"{k}/7" for k in range(8)]
    else:
        z = mat
        ylab = [f"{b / 20:.2f}–{(b + 1) / 20:.2f}" for b in range(20)]
    fig = go.Figure(
        go.Heatmap(
            z=_f32(z),
            x=[str(o) for o in ords],
            y=ylab,
            colorscale=FP_HIST_SCALE,
            zmin=0,
            zmax=1,
            colorbar={"title": {"text": "share"}, "thickness": 12},
            hovertemplate="prefix %{x} · grade %{y}: %{z:.2f} of continuations<extra></extra>",
            xgap=2,
            ygap=1,
        )
    )
    fig.update_layout(height=300, margin={"l": 10, "r": 10, "t": 30, "b": 40})
    fig.update_xaxes(title_text="prefix ordinal", type="category")
    fig.update_yaxes(title_text="continuation grade")
    return fig


def _unique_labels(names: Sequence[object], limit: int) -> list[str]:
    """Escaped labels cut to `limit` chars, numbered where the cut ones coincide (so two sources
    sharing their first `limit` characters are still told apart on the axis)."""
    cut = [esc_hover(n, limit) for n in names]
    seen: dict[str, int] = {}
    out = []
    for c in cut:
        seen[c] = seen.get(c, 0) + 1
        out.append(f"{c} ({seen[c]})" if cut.count(c) > 1 else c)
    return out


def depth_distribution_figure(depth: pl.DataFrame) -> go.Figure:
    """Median value per source x relative-depth bin (a heatmap: nothing to click here), with the
    count, mean, IQR and significant-drop rate in the hover."""
    sources = depth.select("source").unique(maintain_order=True)["source"].to_list()
    n_bins = int(depth["depth_bin"].max() or 0) + 1 if depth.height else 1
    z = np.full((len(sources), n_bins), np.nan)
    text = np.full((len(sources), n_bins), "", dtype=object)
    for r in depth.iter_rows(named=True):
        i, j = sources.index(r["source"]), int(r["depth_bin"])
        z[i, j] = r["median"]
        text[i, j] = (
            f"n={r['count']} · mean {r['mean']:.3f} · IQR {r['q25']:.2f}–{r['q75']:.2f}"
            f" · drops {100 * (r['sig_drop_rate'] or 0):.0f}%"
        )
    fig = go.Figure(
        go.Heatmap(
            z=_f32(z),
            x=[f"{j / n_bins:.1f}–{(j + 1) / n_bins:.1f}" for j in range(n_bins)],
            y=list(range(len(sources))),  # positions: two names cut to 40 chars may coincide
            text=[[esc_hover(s, 80)] * n_bins for s in sources],
            customdata=text,
            colorscale=VALUE_SCALE,
            zmin=0,
            zmax=1,
            xgap=2,
            ygap=2,
            colorbar={"title": {"text": "median"}, "thickness": 12},
            hovertemplate="%{text} · depth %{x}: median %{z:.3f}<br>%{customdata}<extra></extra>",
        )
    )
    fig.update_layout(height=80 + 32 * len(sources), margin={"l": 10, "r": 10, "t": 10, "b": 10})
    fig.update_yaxes(
        tickmode="array",
        tickvals=list(range(len(sources))),
        ticktext=_unique_labels(sources, 40),
        title_text="source",
        automargin=True,
    )
    fig.update_xaxes(title_text="relative depth step/num_steps (binned)")
    return fig


def bar_figure(
    values: Sequence[float],
    labels: Sequence[str],
    title: str = "",
    x_title: str = "",
    y_title: str = "count",
    max_ticks: int = 6,
) -> go.Figure:
    """A plain bar chart for numeric lists found in summary.json / trace_manifest.json, and the
    traces per failure shape. Bars sit at integer positions so at most `max_ticks` labels are
    shown, horizontally (20 bin labels turned 90° were unreadable); every bar's full label is
    in its hover."""
    names = [esc_hover(x, 40) for x in labels]
    pos = np.arange(len(names), dtype=np.float32)
    step = max(1, math.ceil(len(names) / max(1, max_ticks)))
    fig = go.Figure(
        go.Bar(
            x=pos,
            y=_f32(values),
            marker_color=FOCUS,
            hovertext=names,
            hovertemplate="%{hovertext}: %{y}<extra></extra>",
        )
    )
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 36 if title else 10, "b": 10},
        title=esc_hover(title, 80) if title else None,
        bargap=0.15,
        plot_bgcolor="white",
    )
    fig.update_xaxes(
        tickmode="array",
        tickvals=pos[::step].tolist(),
        ticktext=names[::step],
        tickangle=0,
        title_text=esc_hover(x_title, 80),
        automargin=True,
    )
    fig.update_yaxes(title_text=esc_hover(y_title, 80), gridcolor=FP_GRID, automargin=True)
    return fig
