"""MARS figures: pure builders `(data) -> go.Figure`, callable from tests and the bench.

Why this shape: up to 1,000 confidence curves must stay under 2 MB of figure JSON, so curves of
one correctness class go into *one* trace (NaN-separated) with float32 arrays (plotly ships them
as base64 typed arrays), and probe markers are two more traces. The traces are WebGL only when
there are many points: for the default 30 curves an SVG chart draws noticeably sooner in a new
tab (no WebGL context to set up; bench/first_paint.py). Every piece of
dataset text (answers, raw_text, labels) goes through `esc_hover`/`esc` before plotly sees it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
import polars as pl
from plotly.colors import sample_colorscale, unlabel_rgb

from analysis.mars.features import CURVE_POINTS
from analysis.mars.summaries import VoteShares
from analysis.mars.windows import NO_ANSWER
from components.common import theme
from components.common.formatting import counted, fmt_kilo, fmt_num
from components.common.safe_text import esc_hover
from components.mars.curve_figures import BY_AGREEMENT, BY_CORRECTNESS, PROBE_STYLES

LEGEND_CHARS = 22
Y_TITLE = "confidence (−mean top-20 logprob)"
HOVER_TEXT_CHARS = 60


def _f32(values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def smooth_rows(y: np.ndarray, k: int) -> np.ndarray:
    """Centred moving average of width k along each row (NaN-aware, edges use what exists)."""
    if k <= 1 or y.size == 0:
        return y.astype(np.float32)
    ok = np.isfinite(y)
    v = np.where(ok, y, 0.0).astype(np.float64)
    pad = k // 2
    cv = np.concatenate([np.zeros((y.shape[0], 1)), np.cumsum(v, axis=1)], axis=1)
    cn = np.concatenate([np.zeros((y.shape[0], 1)), np.cumsum(ok, axis=1)], axis=1)
    idx = np.arange(y.shape[1])
    lo = np.clip(idx - pad, 0, y.shape[1])
    hi = np.clip(idx + pad + 1, 0, y.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (cv[:, hi] - cv[:, lo]) / (cn[:, hi] - cn[:, lo])
    out[~ok] = np.nan
    return out.astype(np.float32)


def curve_matrix(feats: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(x centres [n, P], y [n, P]) of the stored plotting curves; empty traces give NaN rows."""
    n = feats.height
    lengths = feats["length"].to_numpy().astype(np.float64)
    y = np.full((n, CURVE_POINTS), np.nan, dtype=np.float32)
    for i, c in enumerate(feats["curve"].to_list()):
        if c:
            y[i, : len(c)] = c
    edges = lengths[:, None] * np.arange(CURVE_POINTS + 1)[None, :] / CURVE_POINTS
    x = ((edges[:, :-1] + edges[:, 1:]) / 2).astype(np.float32)
    return x, y


def _vote_rows(vs: VoteShares) -> list[tuple[str, bool, np.ndarray]]:
    """The stacked rows, completed to 100% at every checkpoint: whatever share the given rows
    leave out (traces in no listed group) becomes an explicit "not counted" row, so the stack
    never stops short of the top with a gap that looks like data."""
    rows = [
        (label, bool(ok), np.nan_to_num(np.asarray(share, dtype=np.float64)))
        for label, ok, share in zip(vs.labels, vs.correct, vs.shares, strict=True)
    ]
    total = np.sum([r[2] for r in rows], axis=0) if rows else np.zeros(len(vs.positions))
    missing = np.clip(1.0 - total, 0.0, 1.0)
    if np.any(missing > 1e-4):
        rows.append(("not counted", False, missing))
    return rows


def vote_figure(vs: VoteShares, ground_truth: str) -> go.Figure:
    """Stacked shares of each answer group among all traces at every checkpoint (sums to 100%).

    Colours: the ground truth always green, other answers from a qualitative palette (no
    greens), the pooled "other" answers mid grey, "no answer" light grey hatched. Legend labels
    are short; the hover carries the full (escaped) answer."""
    fig = go.Figure()
    x = _f32(vs.positions)
    k = 0
    for label, ok, share in _vote_rows(vs):
        pattern = None
        if label in ("no answer", "not counted"):
            color, pattern = theme.FAINT, {"shape": "/", "fgcolor": theme.HATCH, "size": 6}
        elif label.startswith("other ("):
            color = theme.MUTED
        elif ok:
            color = theme.CORRECT
        else:
            color = theme.ANSWER_PALETTE[k % len(theme.ANSWER_PALETTE)]
            k += 1
        short = esc_hover(label, LEGEND_CHARS).replace("<br>", " ")
        name = ("✓ " if ok else "") + short + (" (ground truth)" if ok else "")
        full = ("✓ " if ok else "") + esc_hover(label, 300) + (" (ground truth)" if ok else "")
        fig.add_trace(
            go.Scatter(
                x=x,
                y=_f32(share),
                mode="lines",
                stackgroup="one",
                line={"width": 2.5 if ok else 0.5, "color": theme.TRUTH_EDGE if ok else color},
                fillcolor=color,
                fillpattern=pattern,
                name=name,
                # the answer goes in as data, never into the template: `%{...}` in an answer
                # would otherwise be read as a placeholder
                customdata=[full] * len(x),
                hovertemplate="%{customdata}: %{y:.1%}<extra></extra>",
            )
        )
    fig.update_layout(
        xaxis={"title": "checkpoint (tokens generated)", "hoverformat": ",.0f"},
        yaxis={"title": "share of all traces", "tickformat": ".0%", "range": [0, 1]},
        height=600,
        margin={"l": 60, "r": 20, "t": 40, "b": 50},
        title=f"ground truth: {esc_hover(ground_truth, 60)}",
        legend={"orientation": "h", "y": -0.14, "yanchor": "top", "traceorder": "normal"},
        hovermode="x unified",
    )
    return fig


def answers_bar(groups: pl.DataFrame, top: int = 15, n_none: int = 0) -> go.Figure:
    """Final-answer counts per group (ground truth highlighted), plus a hatched "no answer" bar
    for the traces that ended without one."""
    g = groups.filter(pl.col("n_final") > 0).sort(["n_final", "group_id"], descending=[True, False])
    g = g.head(top)
    ok = g["is_correct"].to_list()
    # positional x: two long answers with the same opening must stay two bars; the shortened
    # label is only the tick text (short enough that plotly never drops it), the full
    # (escaped) answer is hover data, never the template
    ticks = [esc_hover(a, 12) + (" ✓" if c else "") for a, c in zip(g["label"], ok, strict=True)]
    hover = [esc_hover(a, 120) + (" ✓" if c else "") for a, c in zip(g["label"], ok, strict=True)]
    counts = g["n_final"].to_list()
    colors = [theme.CORRECT if c else theme.OTHER_ANSWER for c in ok]
    patterns = [""] * len(ok)
    if n_none > 0:
        ticks.append("(no answer)")
        hover.append("no final answer")
        counts.append(int(n_none))
        colors.append(theme.FAINT)
        patterns.append("/")
    pos = list(range(len(counts)))
    fig = go.Figure(
        go.Bar(
            x=pos,
            y=counts,
            marker={
                "color": colors,
                "pattern": {"shape": patterns, "fgcolor": theme.HATCH},
            },
            customdata=hover,
            hovertemplate="%{customdata}: %{y} traces<extra></extra>",
        )
    )
    fig.update_xaxes(
        tickmode="array",
        tickvals=pos,
        ticktext=ticks,
        tickangle=-30 if any(len(t) > 6 for t in ticks) else 0,
        title="final answer",
        automargin=True,
    )
    fig.update_layout(
        title="final answers (green = ground truth)",
        yaxis_title="traces",
        height=340,
        margin={"l": 50, "r": 10, "t": 40, "b": 40},
    )
    return fig


def compare_hist(
    feats: pl.DataFrame, column: str, title: str, x_title: str = "", nbins: int = 30
) -> go.Figure:
    """Histograms of a per-trace value, right vs wrong (or no) final answers, on shared bins and
    side by side (barmode "group"), so neither class hides the other."""
    fig = go.Figure()
    ok = feats["final_correct"].to_numpy().astype(bool)
    vals = feats[column].to_numpy().astype(np.float64)
    fin = np.isfinite(vals)
    if fin.any():
        lo, hi = float(vals[fin].min()), float(vals[fin].max())
        size = (hi - lo) / nbins if hi > lo else 1.0
        bins = {"start": lo, "end": hi + size * 1e-6, "size": size}
    else:
        bins = None
    for name, mask, color in (("right", ok, theme.CORRECT), ("wrong / none", ~ok, theme.WRONG)):
        v = vals[mask & fin]
        if v.size:
            fig.add_trace(
                go.Histogram(
                    x=_f32(v),
                    name=f"{name} ({v.size})",
                    marker_color=color,
                    opacity=0.85,
                    xbins=bins,
                )
            )
    fig.update_layout(
        barmode="group",
        bargap=0.15,
        bargroupgap=0.0,
        title=title,
        xaxis_title=x_title,
        yaxis_title="traces",
        height=320,
        margin={"l": 50, "r": 10, "t": 40, "b": 40},
        legend={"orientation": "h", "y": -0.3},
    )
    return fig


def zoom_figure(
    confs: np.ndarray,
    groups: np.ndarray,
    window: int,
    probes: pl.DataFrame,
    smooth: int = 1,
    probes_by: str = BY_AGREEMENT,
) -> go.Figure:
    """One trace at full resolution: token confidences, the W-token group confidence (plotted at
    each window's last token), and every probe at its stored avg_conf (the mean of the W tokens
    before it: on the group line), by agreement with the final answer or by correctness."""
    c = _f32(confs)
    if smooth > 1 and c.size:
        c = smooth_rows(c[None, :], smooth)[0]
    fig = go.Figure()
    fig.add_trace(
        go.Scattergl(
            y=c,
            x0=0,
            dx=1,
            mode="lines",
            line={
                "color": theme.TOKEN_LINE_SMOOTHED if smooth > 1 else theme.TOKEN_LINE,
                "width": 1,
            },
            name="token confidence" + (f" (smoothed over {smooth})" if smooth > 1 else ""),
        )
    )
    g = _f32(groups)
    fig.add_trace(
        go.Scattergl(
            y=g,
            x0=min(window, max(c.size, 1)) - 1,
            dx=1,
            mode="lines",
            line={"color": theme.GROUP_LINE, "width": 2},
            name=f"group confidence (W = {window})",
        )
    )
    if probes.height:
        # one trace per class, so the legend shows the very symbols drawn; WebGL like the lines
        # and added last (an SVG trace would sit *under* the WebGL canvas); the white outline
        # keeps markers readable on top of the lines
        column = "vs final" if probes_by == BY_AGREEMENT else "_verdict"
        ok = (
            probes["is_correct_group"]
            if "is_correct_group" in probes.columns
            else probes["is_correct"]
        ).fill_null(False)
        has = probes["answer"].is_not_null() & (probes["answer"] != "")
        if "group" in probes.columns:
            has = probes["group"] != "—"
        probes = probes.with_columns(
            _verdict=pl.when(~has)
            .then(pl.lit(NO_ANSWER))
            .when(ok)
            .then(pl.lit("right"))
            .otherwise(pl.lit("wrong"))
        )
        if column not in probes.columns:
            column = "_verdict"
            probes_by = BY_CORRECTNESS
        for key, name, symbol, color in PROBE_STYLES[probes_by]:
            sub = probes.filter(pl.col(column) == key)
            if not sub.height:
                continue
            hover = [
                f"token {p:,}<br>answer: {esc_hover(a, 80)} ({g}; {v})<br>raw: {esc_hover(r, 200)}"
                f"<br>avg_conf: {fmt_num(c, inf='–')}"
                for p, a, r, c, g, v in sub.select(
                    "position",
                    "answer",
                    "raw_text",
                    "avg_conf",
                    pl.col("vs final") if "vs final" in sub.columns else pl.lit("–"),
                    "_verdict",
                ).iter_rows()
            ]
            fig.add_trace(
                go.Scattergl(
                    x=_f32(sub["position"].to_numpy()),
                    y=_f32(sub["avg_conf"].to_numpy()),
                    mode="markers",
                    marker={
                        "symbol": symbol,
                        "color": color,
                        "size": 14,
                        "line": {
                            "color": color if symbol.endswith("-open") else theme.MARKER_OUTLINE,
                            "width": 2,
                        },
                    },
                    name=f"{name} ({sub.height})",
                    text=hover,
                    hovertemplate="%{text}<extra></extra>",
                )
            )
    fig.update_layout(
        xaxis_title="token position",
        yaxis_title=Y_TITLE,
        height=420,
        margin={"l": 60, "r": 20, "t": 10, "b": 50},
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


def text_colors(values: np.ndarray, scale: str = theme.GRID_SCALE) -> list[str]:
    """Black or white label text for each fill colour of `scale` at `values` (0..1), whichever
    contrasts more (relative luminance of the fill, WCAG weights)."""
    if not len(values):
        return []
    fills = sample_colorscale(scale, np.clip(np.nan_to_num(values), 0, 1).tolist())
    out = []
    for c in fills:
        r, g, b = (v / 255 for v in unlabel_rgb(c))
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (r, g, b)]
        lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
        # contrast with white (1.05 / (lum + 0.05)) vs with black ((lum + 0.05) / 0.05)
        out.append(
            theme.TEXT_LIGHT if 1.05 / (lum + 0.05) > (lum + 0.05) / 0.05 else theme.TEXT_DARK
        )
    return out


def overview_grid(
    ov: pl.DataFrame,
    selected: int | None = None,
    cols: int = 10,
    marked: Mapping[int, int] | None = None,
) -> go.Figure:
    """The questions as clickable squares: fill = pass@1 (label text black or white by the
    fill's luminance), a black ring = the majority vote is wrong (no ring: right), a blue frame
    around the selected question, and an inner ring (casebook accent) on the questions in
    `marked` (qid -> number of cases)."""
    marked = marked or {}
    n = ov.height
    q = ov["qid"].to_numpy()
    xs = (np.arange(n) % cols).astype(np.float32)
    ys = (-(np.arange(n) // cols)).astype(np.float32)
    acc = ov["pass_at_1"].fill_null(0).to_numpy().astype(np.float64)
    tie = (
        ov["majority_tie"].fill_null(0).to_numpy() > 1
        if "majority_tie" in ov.columns
        else np.zeros(n, dtype=bool)
    )
    maj_ok = ov["majority_correct"].fill_null(False).to_numpy().astype(bool) & ~tie
    ring_w = [0.0 if ok else 3.5 for ok in maj_ok]
    ring_c = [
        theme.TRANSPARENT if ok else (theme.NO_ANSWER if t else theme.GRID_RING)
        for ok, t in zip(maj_ok, tie, strict=True)
    ]
    hover = []
    for r in ov.iter_rows(named=True):
        if int(r.get("majority_tie") or 0) > 1:
            tied = ", ".join(esc_hover(a, 20) for a in (r.get("majority_tied") or [])[:4])
            verdict = "the ground truth among them" if r.get("tie_has_truth") else "all wrong"
            majority = (
                f"tie between {r['majority_tie']} answers, {r['majority_votes']} votes each: "
                f"{tied} ({verdict})"
            )
        else:
            majority = (
                f"{esc_hover(r['majority_answer'], 40)} "
                f"({'right' if r['majority_correct'] else 'wrong'})"
            )
        hover.append(
            f"Q{r['qid']} · {r['n_traces']} traces<br>pass@1 {fmt_num(r['pass_at_1'], '.0%', inf='–')}"
            f"<br>majority: {majority}"
            f"<br>{r['n_answers']} distinct answers, {r['n_null']} without answer"
            f"<br>median length right {fmt_kilo(r['median_len_correct'])} · wrong {fmt_kilo(r['median_len_wrong'])}"
            + (
                f"<br>{counted(marked[r['qid']], 'case')} in the casebook"
                if r["qid"] in marked
                else ""
            )
        )
    fig = go.Figure()
    if selected is not None and selected in set(q.tolist()):
        i = int(np.flatnonzero(q == selected)[0])
        # a frame *behind* the squares (bigger, so it shows around the selected one)
        fig.add_trace(
            go.Scatter(
                x=xs[i : i + 1],
                y=ys[i : i + 1],
                mode="markers",
                marker={
                    "symbol": "square",
                    "size": 60,
                    "color": theme.TRANSPARENT,
                    "line": {"width": 4, "color": theme.GRID_SELECTED},
                },
                customdata=[int(selected)],
                hoverinfo="skip",
                showlegend=False,
                name="selected",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers+text",
            text=[f"Q{v}" for v in q],
            textfont={"size": 12, "color": text_colors(acc)},
            marker={
                "symbol": "square",
                "size": 46,
                "color": acc.astype(np.float32),
                "colorscale": theme.GRID_SCALE,
                "cmin": 0,
                "cmax": 1,
                "colorbar": {"title": "pass@1", "thickness": 12},
                "line": {"width": ring_w, "color": ring_c},
            },
            customdata=[int(v) for v in q],
            hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>",
            showlegend=False,
            name="questions",
        )
    )
    ringed = np.flatnonzero(np.isin(q, np.fromiter(marked, dtype=np.int64, count=len(marked))))
    # inside the square's edge, so it never hides the black ring or the selection frame; a
    # white halo under the accent keeps it readable on dark fills
    for name, colour, width in (
        ("has cases (halo)", theme.MARKER_EDGE, 6.0),
        ("has cases", theme.CASE_ACCENT, 3.0),
    ):
        if not len(ringed):
            break
        fig.add_trace(
            go.Scatter(
                x=xs[ringed],
                y=ys[ringed],
                mode="markers",
                marker={
                    "symbol": "square-open",
                    "size": 36,
                    "color": colour,
                    "line": {"width": width},
                },
                customdata=[int(v) for v in q[ringed]],
                hoverinfo="skip",
                showlegend=False,
                name=name,
            )
        )
    rows = int(np.ceil(n / cols)) if n else 1
    fig.update_layout(
        height=70 * rows + 40,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"visible": False, "range": [-0.6, cols - 0.4]},
        yaxis={"visible": False, "range": [-(rows - 1) - 0.6, 0.6]},
        dragmode=False,
        clickmode="event+select",
    )
    return fig
