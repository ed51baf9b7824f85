"""Subset charts of the Parason metrics table (pure figure builders: frame -> go.Figure).

Scatter charts carry the trajectory uuid in `customdata`, so a click can select it. Hover texts
built from dataset text (questions) go through `esc_hover`.
"""

from __future__ import annotations

import hashlib
import math

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from components.common.formatting import fmt_quantity
from components.common.safe_text import esc, esc_hover
from components.common.theme import (
    CORRECTNESS_COLOURS,
    GROUP_COLOURS,
    MARKER_EDGE,
    MIX_COLOURS,
    NOTE_FG,
    RING_FILL,
    SELECTED_RING,
)

CORRECT_NAMES = {True: "correct", False: "incorrect", None: "unknown"}


def _ring_selected(fig: go.Figure, df: pl.DataFrame, selected: str | None, x: str, y: str) -> None:
    """Draw a ring around the selected trajectory's point (no hover: its own point has one)."""
    if selected is None:
        return
    sel = df.filter(pl.col("uuid") == selected)
    if sel.height:
        fig.add_trace(
            go.Scatter(
                x=sel[x].to_list(),
                y=sel[y].to_list(),
                mode="markers",
                name="selected",
                marker=dict(size=16, color=RING_FILL, line=dict(width=3, color=SELECTED_RING)),
                hoverinfo="skip",
                customdata=sel["uuid"].to_list(),
            )
        )


def mix_group(kind_mix: str | None) -> str:
    """Fold the kind-mix labels ('mixed+subtask+trial', ...) into five legend groups."""
    kinds = set((kind_mix or "none").split("+"))
    if "mixed" in kinds:
        return "has mixed stages"
    typed = kinds & {"subtask", "trial"}
    if typed == {"subtask", "trial"}:
        return "Subtask + Trial stages"
    if typed == {"subtask"}:
        return "Subtask only"
    if typed == {"trial"}:
        return "Trial only"
    return "untyped / none"


def _layout(fig: go.Figure, title: str, height: int = 380) -> go.Figure:
    fig.update_layout(
        title=dict(text=esc(title), x=0.01, font=dict(size=14)),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(
            orientation="h", y=-0.18, yanchor="top", x=0, xanchor="left", font=dict(size=11)
        ),
        clickmode="event+select",
    )
    return fig


def _hover(df: pl.DataFrame) -> list[str]:
    return [
        f"{esc(u[:8])} · speedup {fmt_quantity(s, 'x')} · T {t:,.0f}<br>"
        f"{esc_hover((q or '')[:120], 120)}"
        for u, s, t, q in zip(df["uuid"], df["speedup"], df["T"], df["question"], strict=True)
    ]


def speedup_scatter(df: pl.DataFrame, selected: str | None = None) -> go.Figure:
    """Speedup T/C against tokens T, coloured by correctness (click a point to open it)."""
    fig = go.Figure()
    for val in (True, False, None):
        part = df.filter(
            pl.col("correctness").is_null() if val is None else pl.col("correctness") == val
        )
        if part.height == 0:
            continue
        fig.add_trace(
            go.Scatter(
                x=part["T"].to_list(),
                y=part["speedup"].to_list(),
                mode="markers",
                name=CORRECT_NAMES[val],
                marker=dict(
                    color=CORRECTNESS_COLOURS[val],
                    size=8,
                    opacity=0.75,
                    line=dict(width=0.5, color=MARKER_EDGE),
                ),
                customdata=part["uuid"].to_list(),
                hovertext=_hover(part),
                hoverinfo="text",
            )
        )
    _ring_selected(fig, df, selected, "T", "speedup")
    t = df["T"].cast(pl.Float64, strict=False)
    t = t.filter(t.is_finite() & (t > 0))
    ticks = log_ticks(float(t.min()), float(t.max())) if t.len() else []  # type: ignore[arg-type]  # polars types a column min/max loosely
    fig.update_xaxes(title="tokens T", type="log", minor=dict(showgrid=False))
    if ticks:
        fig.update_xaxes(tickvals=ticks, ticktext=[f"{v:,.0f}" for v in ticks])
    fig.update_yaxes(title="speedup T / C")
    return _layout(fig, "Speedup by trajectory length (click a point to open it)")


def shared_bins(values: pl.Series, n: int = 30) -> dict | None:
    """One bin grid for every overlaid histogram. Why: plotly bins each trace on its own, so the
    correct and incorrect bars had different widths and could not be compared."""
    v = values.cast(pl.Float64, strict=False)
    v = v.filter(v.is_finite())
    if v.len() == 0:
        return None
    lo, hi = float(v.min()), float(v.max())  # type: ignore[arg-type]  # polars types a column min/max loosely
    size = (hi - lo) / n if hi > lo else 1.0
    return dict(start=lo, end=hi + size * 1e-6, size=size)


def log_ticks(lo: float, hi: float) -> list[float]:
    """Major ticks for a log axis over [lo, hi]: the powers of ten, or 1-2-5 steps when the range
    spans less than two decades. Why: plotly's default labels minor ticks ("5 100 2 5 1000")."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= 0 or hi <= 0:
        return []
    lo, hi = min(lo, hi), max(lo, hi)
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    decades = [10.0**k for k in range(k0, k1 + 1) if lo <= 10.0**k <= hi]
    if len(decades) >= 2:
        return decades
    steps = [m * 10.0**k for k in range(k0, k1 + 1) for m in (1, 2, 5)]
    return [t for t in steps if lo <= t <= hi]


def jitter(uuids: list[str], scale: float = 0.012) -> list[float]:
    """A small, stable offset per trajectory (from its uuid), so points piled on the same spot
    (often ratio 0) spread out, and the selected ring lands on its jittered point."""
    out = []
    for u in uuids:
        h = int(hashlib.sha1(str(u).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        out.append((h * 2 - 1) * scale)
    return out


def speedup_hist(df: pl.DataFrame) -> go.Figure:
    fig = go.Figure()
    bins = shared_bins(df["speedup"])
    for val in (True, False, None):
        part = df.filter(
            pl.col("correctness").is_null() if val is None else pl.col("correctness") == val
        )
        if part.height:
            fig.add_trace(
                go.Histogram(
                    x=part["speedup"].to_list(),
                    name=CORRECT_NAMES[val],
                    marker_color=CORRECTNESS_COLOURS[val],
                    opacity=0.7,
                    xbins=bins,
                    autobinx=bins is None,
                )
            )
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title="speedup T / C")
    fig.update_yaxes(title="trajectories")
    return _layout(fig, "Speedup distribution")


def branches_hist(df: pl.DataFrame) -> go.Figure:
    """Branches per stage over all stages of the subset, stacked by block kind."""
    stages = (
        df.select("branches", "block_kinds")
        .explode(["branches", "block_kinds"])
        .drop_nulls()
        .group_by("branches", "block_kinds")
        .len()
        .sort("branches")
    )
    fig = go.Figure()
    for kind in ("subtask", "trial", "mixed", "untyped"):
        part = stages.filter(pl.col("block_kinds") == kind)
        if part.height:
            fig.add_trace(
                go.Bar(
                    x=[str(b) for b in part["branches"].to_list()],
                    y=part["len"].to_list(),
                    name=kind,
                    marker_color=MIX_COLOURS[kind],
                )
            )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(
        title="branches in a stage",
        type="category",
        categoryorder="array",
        categoryarray=[str(b) for b in sorted(set(stages["branches"].to_list()))],
    )
    fig.update_yaxes(title="stages")
    return _layout(fig, "Branches per stage")


def ratio_scatter(df: pl.DataFrame, selected: str | None = None) -> go.Figure:
    """Subtask ratio against trial ratio, coloured by the trajectory's kind mix."""
    fig = go.Figure()
    uuids = df["uuid"].to_list()
    grouped = df.with_columns(
        pl.col("kind_mix").map_elements(mix_group, return_dtype=pl.String).alias("_group"),
        (pl.col("subtask_ratio") + pl.Series(jitter(uuids), dtype=pl.Float64)).alias("_x"),
        (
            pl.col("trial_ratio") + pl.Series(jitter([u + "/y" for u in uuids]), dtype=pl.Float64)
        ).alias("_y"),
    )
    for group, colour in GROUP_COLOURS.items():
        part = grouped.filter(pl.col("_group") == group)
        if part.height == 0:
            continue
        fig.add_trace(
            go.Scatter(
                x=part["_x"].to_list(),
                y=part["_y"].to_list(),
                mode="markers",
                name=group,
                marker=dict(
                    color=colour, size=7, opacity=0.55, line=dict(width=0.5, color=MARKER_EDGE)
                ),
                customdata=part["uuid"].to_list(),
                hovertext=[
                    f"{h}<br>subtask {a:.1%} · trial {b:.1%}"
                    for h, a, b in zip(
                        _hover(part), part["subtask_ratio"], part["trial_ratio"], strict=True
                    )
                ],
                hoverinfo="text",
            )
        )
    _ring_selected(fig, grouped, selected, "_x", "_y")
    fig.update_xaxes(title="subtask ratio (Subtask-block thread tokens / T)", range=[-0.04, 1.02])
    fig.update_yaxes(title="trial ratio", range=[-0.04, 1.02])
    return _layout(fig, "Subtask vs trial ratio (jittered ±0.01 to unpile; click to open)")


def by_correctness(df: pl.DataFrame) -> go.Figure:
    """Box plots of speedup, parallel ratio and tokens split by correctness."""
    metrics = [("speedup", "speedup T/C"), ("parallel_ratio", "parallel ratio"), ("T", "tokens T")]
    # room between the plots for each one's y title beside the ticks of the one before it
    fig = make_subplots(
        rows=1, cols=3, subplot_titles=[m[1] for m in metrics], horizontal_spacing=0.1
    )
    for val in (True, False, None):
        part = df.filter(
            pl.col("correctness").is_null() if val is None else pl.col("correctness") == val
        )
        if not part.height:
            continue
        for i, (col, _) in enumerate(metrics, 1):
            fig.add_trace(
                go.Box(
                    y=part[col].to_list(),
                    name=f"{CORRECT_NAMES[val]} (n={part.height:,})",
                    marker_color=CORRECTNESS_COLOURS[val],
                    boxpoints=False,
                    showlegend=i == 1,
                    legendgroup=CORRECT_NAMES[val],
                ),
                row=1,
                col=i,
            )
    fig.update_annotations(font_size=12)
    for i, unit in enumerate(("speedup (×)", "share of T", "tokens"), 1):
        fig.update_yaxes(title_text=unit, row=1, col=i)
    return _layout(fig, "Metrics by correctness", height=360)


def note_counter(fig: go.Figure, counter_label: str) -> go.Figure:
    """Say on the figure itself which token counter made its numbers (they differ by counter)."""
    # subplot titles are annotations just above the plot: the note then goes above them, or it
    # covered the right-hand title ("tokens T" of the correctness split)
    titled = bool(fig.layout.annotations)
    fig.add_annotation(
        text=f"token counts: {esc(counter_label)}",
        xref="paper", yref="paper", x=1, y=1.02, xanchor="right", yanchor="bottom",
        yshift=22 if titled else 0, showarrow=False, font=dict(size=10, color=NOTE_FG),
    )  # fmt: skip
    need = 75 if titled else 30
    top = fig.layout.margin.t
    if top is None or top < need:  # room above the plot so the note is not clipped
        fig.update_layout(margin_t=need)
    return fig
