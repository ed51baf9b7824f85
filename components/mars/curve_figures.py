"""The Curves tab's figures: fixed-window confidence curves with probe markers on them, and the
pool's quantile bands (pure builders, callable from tests and the bench).

Why this shape: up to 1,000 curves must stay under 2 MB of figure JSON, so the curves of one
correctness class go into *one* trace (NaN-separated) with float32 arrays, and each marker class
is one more trace. Traces are WebGL only when there are many points (an SVG chart draws sooner;
bench/first_paint.py). Dataset text (answers, raw_text) goes through `esc_hover` first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import polars as pl

from analysis.mars.windows import AGREE, DIFFER, NO_ANSWER, Band, CurveSet, probe_agreement
from components.common import theme
from components.common.formatting import fmt_num
from components.common.safe_text import esc_hover

SVG_MAX_POINTS = 12_000  # curve points plus markers up to which a plain SVG scatter draws faster
HOVER_TEXT_CHARS = 60
BY_AGREEMENT, BY_CORRECTNESS = "agreement with the final answer", "correctness"


def y_title(window: int) -> str:
    return f"confidence, mean of the previous {window:,} tokens"


@dataclass(frozen=True)
class Threshold:
    """A policy's confidence threshold drawn across the curves, with what it is."""

    value: float
    label: str


def _f32(values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def _scatter_class(n_points: int) -> type[go.Scatter] | type[go.Scattergl]:
    """One class for every trace of a figure (an SVG trace would sit under a WebGL canvas)."""
    return go.Scatter if n_points <= SVG_MAX_POINTS else go.Scattergl


def _joined(xs: list[np.ndarray], ys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Curves joined into one polyline with NaN breaks (one trace for many curves)."""
    if not xs:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    brk = np.array([np.nan])
    x = np.concatenate([np.concatenate([np.asarray(v, np.float64), brk]) for v in xs])
    y = np.concatenate([np.concatenate([np.asarray(v, np.float64), brk]) for v in ys])
    return x.astype(np.float32), y.astype(np.float32)


PROBE_STYLES = {
    BY_AGREEMENT: (
        (AGREE, "probe agrees with final answer", "circle", theme.PROBE_AGREE),
        (DIFFER, "probe differs from final answer", "diamond", theme.PROBE_DIFFER),
        (NO_ANSWER, "probe: no answer", "circle-open", theme.NO_ANSWER),
    ),
    BY_CORRECTNESS: (
        ("right", "probe answer right", "circle", theme.CORRECT),
        ("wrong", "probe answer wrong", "x", theme.WRONG),
        (NO_ANSWER, "probe: no answer", "circle-open", theme.NO_ANSWER),
    ),
}


def probe_points(
    feats: pl.DataFrame, cs: CurveSet, probe_text: pl.DataFrame | None = None
) -> pl.DataFrame:
    """One row per probe of the shown traces: trace_idx, position, y (on the curve), agreement,
    correctness ("right" / "wrong" / "no answer"), answer, raw_text, avg_conf."""
    ys = {int(t): y for t, y in zip(cs.trace_idx.tolist(), cs.probe_y, strict=True)}
    rows: dict[str, list] = {k: [] for k in ("trace_idx", "position", "y", "agree", "verdict")}
    rows["avg_conf"] = []
    for r in feats.select(
        "trace_idx", "final_group", "probe_pos", "probe_group", "probe_correct", "probe_avg_conf"
    ).iter_rows(named=True):
        pos = r["probe_pos"] or []
        if not pos or int(r["trace_idx"]) not in ys:
            continue
        groups = np.asarray(r["probe_group"] or [-1] * len(pos), dtype=np.int64)
        agree = probe_agreement(groups, int(r["final_group"]))
        ok = r["probe_correct"] or [False] * len(pos)
        rows["trace_idx"] += [int(r["trace_idx"])] * len(pos)
        rows["position"] += [int(p) for p in pos]
        rows["y"] += ys[int(r["trace_idx"])].tolist()
        rows["agree"] += agree.tolist()
        rows["verdict"] += [
            NO_ANSWER if g < 0 else ("right" if o else "wrong")
            for g, o in zip(groups.tolist(), ok, strict=True)
        ]
        rows["avg_conf"] += list(r["probe_avg_conf"] or [None] * len(pos))
    p = pl.DataFrame(
        rows,
        schema={
            "trace_idx": pl.Int64,
            "position": pl.Int64,
            "y": pl.Float64,
            "agree": pl.String,
            "verdict": pl.String,
            "avg_conf": pl.Float64,
        },
    )
    if probe_text is not None and probe_text.height:
        return p.join(
            probe_text.select("trace_idx", "position", "answer", "raw_text"),
            on=["trace_idx", "position"],
            how="left",
        )
    return p.with_columns(answer=pl.lit(None, pl.String), raw_text=pl.lit(None, pl.String))


def _probe_hover(p: pl.DataFrame, budget_chars: int = 450_000) -> list[str]:
    """Escaped hover lines; raw_text is cut shorter when there are many markers, so 1,000 curves
    stay under the 2 MB payload (the Single trace tab shows raw_text in full)."""
    raw_chars = int(min(HOVER_TEXT_CHARS, max(16, budget_chars / max(p.height, 1) - 90)))
    return [
        f"trace {t} @ token {pos:,}: {esc_hover(a, 30)} ({g}; {v})"
        f"<br>{esc_hover(raw, raw_chars)}<br>curve here {fmt_num(y, inf='–')}"
        f" · stored avg_conf {fmt_num(c, inf='–')}"
        for t, pos, a, raw, y, g, v, c in p.select(
            "trace_idx", "position", "answer", "raw_text", "y", "agree", "verdict", "avg_conf"
        ).iter_rows()
    ]


def curves_figure(
    feats: pl.DataFrame,
    cs: CurveSet,
    probe_text: pl.DataFrame | None = None,
    show_probes: bool = True,
    probes_by: str = BY_AGREEMENT,
    threshold: Threshold | None = None,
) -> go.Figure:
    """The traces' fixed-window curves, coloured by final correctness, trace ends (|), probe
    markers on the curves (by agreement with the trace's final answer, or by correctness) and an
    optional policy threshold."""
    fig = go.Figure()
    pos_of = {int(t): i for i, t in enumerate(cs.trace_idx.tolist())}
    rows = [pos_of.get(int(t)) for t in feats["trace_idx"].to_list()]
    correct = feats["final_correct"].fill_null(False).to_numpy().astype(bool)
    has_answer = feats["final_group"].to_numpy() >= 0
    n_points = sum(cs.x[i].size for i in rows if i is not None)
    p = probe_points(feats, cs, probe_text) if show_probes else None
    trace_cls = _scatter_class(n_points + feats.height + (p.height if p is not None else 0))
    few = feats.height <= 60
    # wrong first and right last (the minority class would vanish under the other); the
    # legend keeps right / wrong / none order through legendrank
    for name, mask, color, rank in (
        ("wrong final answer", ~correct & has_answer, theme.WRONG, 2),
        ("no final answer", ~has_answer, theme.NO_ANSWER, 3),
        ("right final answer", correct, theme.CORRECT, 1),
    ):
        idx = [rows[j] for j in np.flatnonzero(mask) if rows[j] is not None]
        if not idx:
            continue
        xs, ys = _joined([cs.x[i] for i in idx], [cs.y[i] for i in idx])
        fig.add_trace(
            trace_cls(
                x=xs,
                y=ys,
                mode="lines",
                line={"color": color, "width": 1.5 if few else 1},
                opacity=0.7 if few else 0.45,
                name=f"{name} ({len(idx)})",
                hoverinfo="skip",
                legendgroup=name,
                legendrank=rank,
            )
        )
    ends = [
        (int(t), float(cs.x[i][-1]), float(cs.y[i][-1]), c, a)
        for t, i, c, a in zip(feats["trace_idx"].to_list(), rows, correct, has_answer, strict=True)
        if i is not None and cs.x[i].size
    ]
    if ends:
        fig.add_trace(
            trace_cls(
                x=_f32([e[1] for e in ends]),
                y=_f32([e[2] for e in ends]),
                mode="markers",
                marker={
                    "symbol": "line-ns-open",
                    "size": 9,
                    "color": [
                        theme.CORRECT if c else (theme.WRONG if a else theme.NO_ANSWER)
                        for _, _, _, c, a in ends
                    ],
                    "line": {"width": 2},
                },
                name="trace end",
                customdata=[e[0] for e in ends],  # plain ints: selection events carry them
                hovertemplate="trace %{customdata} ends at token %{x:,}<extra></extra>",
                legendrank=4,
            )
        )
    if p is not None and p.height:
        column = "agree" if probes_by == BY_AGREEMENT else "verdict"
        for key, name, symbol, color in PROBE_STYLES[probes_by]:
            sub = p.filter(pl.col(column) == key)
            if not sub.height:
                continue
            open_ = symbol.endswith("-open") or symbol == "x"
            fig.add_trace(
                trace_cls(
                    x=_f32(sub["position"].to_numpy()),
                    y=_f32(sub["y"].to_numpy()),
                    mode="markers",
                    marker={
                        "symbol": symbol,
                        "size": 7,
                        "color": color,
                        "opacity": 0.9,
                        "line": {"width": 1.5 if open_ else 0.5, "color": color},
                    },
                    name=f"{name} ({sub.height})",
                    text=_probe_hover(sub),
                    # [trace, position]: a click opens that trace at that probe
                    customdata=list(
                        zip(sub["trace_idx"].to_list(), sub["position"].to_list(), strict=True)
                    ),
                    hovertemplate="%{text}<extra></extra>",
                    legendrank=5,
                )
            )
    if threshold is not None and np.isfinite(threshold.value):
        # a line trace, not a shape: its label sits in the legend, clear of the curves
        xmax = max((float(cs.x[i][-1]) for i in rows if i is not None and cs.x[i].size), default=1)
        fig.add_trace(
            trace_cls(
                x=_f32([0, xmax]),
                y=_f32([threshold.value, threshold.value]),
                mode="lines",
                line={"color": theme.THRESHOLD_LINE, "width": 2, "dash": "dash"},
                name=esc_hover(threshold.label, 120),
                hoverinfo="skip",
                legendrank=0,
            )
        )
    fig.update_layout(
        xaxis_title="token position (tokens generated)",
        yaxis_title=y_title(cs.window),
        height=480,
        margin={"l": 60, "r": 20, "t": 10, "b": 50},
        legend={"orientation": "h", "y": -0.15},
        hovermode="closest",
        clickmode="event+select",
    )
    return fig


def bands_figure(grid: np.ndarray, bands: list[Band], window: int) -> go.Figure:
    """10th-90th percentile band and median of each class over the whole pool (points with
    fewer than three running traces left out)."""
    fig = go.Figure()
    style = {
        "right": (theme.CORRECT, theme.CORRECT_BAND),
        "wrong": (theme.WRONG, theme.WRONG_BAND),
    }
    for b in bands:
        color, fill = style.get(b.name, (theme.NO_ANSWER, theme.FAINT))
        ok = np.isfinite(b.q[1])
        if not ok.any():
            continue
        gx = _f32(grid[ok])
        lo, med, hi = (_f32(v[ok]) for v in b.q)
        fig.add_trace(
            go.Scatter(
                x=gx,
                y=hi,
                mode="lines",
                line={"width": 0},
                showlegend=False,
                legendgroup=b.name,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=gx,
                y=lo,
                mode="lines",
                line={"width": 0},
                fill="tonexty",
                fillcolor=fill,
                name=f"{b.name}: 10th–90th percentile",
                legendgroup=b.name,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=gx,
                y=med,
                mode="lines",
                line={"color": color, "width": 2},
                name=f"{b.name}: median (all {b.n:,} traces)",
                legendgroup=b.name,
                customdata=b.alive[ok].tolist(),
                hovertemplate="token %{x:,}: median %{y:.2f} (%{customdata} traces running)"
                "<extra></extra>",
            )
        )
    fig.update_layout(
        xaxis_title="token position (tokens generated)",
        yaxis_title=y_title(window),
        height=480,
        margin={"l": 60, "r": 20, "t": 10, "b": 50},
        legend={"orientation": "h", "y": -0.15},
    )
    return fig
