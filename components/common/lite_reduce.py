"""Plotly figure parts the lite chart has no mark for, rewritten as the bars, lines and linear
axes it draws (`lite_spec.chart_spec` runs these on the figure's JSON first).

Why: the Parason Charts tab opens on a log-x scatter, overlaid histograms, stacked category bars
and box plots; drawing them with Plotly cost the tab Plotly's bundle at first paint. Each is
computed here the way Plotly computes it (box quartiles
by Plotly's default linear method with 1.5 IQR whiskers, stacks in trace order), so the lite chart
shows the same numbers; a part these rules do not cover raises `LiteUnsupported` and the figure
is drawn with Plotly.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np


class Unsupported(ValueError):
    """Raised for a part these rewrites do not cover (`lite_spec` turns it into LiteUnsupported)."""


def _finite(values: Any) -> np.ndarray:
    arr = np.array([np.nan if v is None else v for v in (values or [])], dtype=np.float64)
    return arr[np.isfinite(arr)]


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _quantile(sorted_v: np.ndarray, p: float) -> float:
    """Plotly's default box quartiles ("linear": numpy's linear interpolation)."""
    return float(np.quantile(sorted_v, p))


def box_as_bars(t: dict[str, Any], pos: float) -> list[dict[str, Any]]:
    """A vertical box (no points drawn) at x position `pos`: the q1-q3 box as a bar on a base,
    the median and the whiskers (the furthest values within 1.5 IQR) as one line trace in the
    box's legend group."""
    if t.get("x") is not None or t.get("orientation") not in (None, "v"):
        raise Unsupported("a box with x values or horizontal")
    if t.get("boxpoints") not in (False, None) or t.get("boxmean"):
        raise Unsupported("a box with points or a mean")
    v = np.sort(_finite(t.get("y")))
    colour = (t.get("marker") or {}).get("color") or (t.get("line") or {}).get("color")
    name = str(t.get("name") or "")
    group = t.get("legendgroup") or name
    common = {
        "name": name,
        "legendgroup": group,
        "xaxis": t.get("xaxis"),
        "yaxis": t.get("yaxis"),
        "visible": t.get("visible", True),
    }
    if v.size == 0:
        return [{**common, "type": "bar", "x": [], "y": [], "showlegend": t.get("showlegend")}]
    q1, med, q3 = _quantile(v, 0.25), _quantile(v, 0.5), _quantile(v, 0.75)
    iqr = q3 - q1
    lo = float(v[v >= q1 - 1.5 * iqr].min())
    hi = float(v[v <= q3 + 1.5 * iqr].max())
    tip = (
        f"{name}<br>max {_fmt(hi)}<br>q3 {_fmt(q3)}<br>median {_fmt(med)}<br>q1 {_fmt(q1)}"
        f"<br>min {_fmt(lo)}"
    )
    box = {
        **common,
        "type": "bar",
        "x": [pos],
        "y": [q3],
        "base": [q1],
        "showlegend": t.get("showlegend"),
        "opacity": 0.5,
        "marker": {"color": colour, "line": {"color": colour, "width": 2}},
        "hovertext": [tip],
        "hoverinfo": "text",
    }
    half = 0.25
    marks = {
        **common,
        "type": "scatter",
        "mode": "lines",
        "showlegend": False,
        "line": {"color": colour, "width": 2},
        "x": [pos - half, pos + half, None, pos, pos, None, pos, pos],
        "y": [med, med, None, q3, hi, None, q1, lo],
        "hoverinfo": "skip",
    }
    return [box, marks]


def stack_bars(traces: list[dict[str, Any]]) -> None:
    """barmode "stack": each bar sits on the bars of the traces before it at the same x (the
    spec's y becomes the bar's top, `base` its bottom; `bar_tips` keeps its own height)."""
    tops: dict[tuple[Any, Any, Any], float] = {}
    for t in traces:
        if t.get("type") != "bar":
            continue
        xs, ys = t.get("x") or [], t.get("y") or []
        base, top = [], []
        for x, y in zip(xs, ys, strict=False):
            key = (t.get("xaxis"), t.get("yaxis"), x)
            b = tops.get(key, 0.0)
            h = float(y) if isinstance(y, int | float) and math.isfinite(y) else 0.0
            base.append(b)
            top.append(b + h)
            tops[key] = b + h
        t["base"], t["y"] = base, top


def bar_tips(traces: list[dict[str, Any]]) -> None:
    """Hover text for bars without any, as Plotly labels them (name, x: height); set before the
    stack and category rewrites change x and y."""
    for t in traces:
        if t.get("type") != "bar" or t.get("hovertext") is not None or t.get("hovertemplate"):
            continue
        name = str(t.get("name") or "")
        pairs = zip(t.get("x") or [], t.get("y") or [], strict=False)
        t["hovertext"] = [
            f"{name}<br>{x}: {_fmt(float(y))}".removeprefix("<br>")
            if isinstance(y, int | float)
            else ""
            for x, y in pairs
        ]
        t["hoverinfo"] = "text"


def category_positions(traces: list[dict[str, Any]], axes: dict[str, dict[str, Any]]) -> None:
    """Category x axes as positions 0..n-1 with the categories as tick labels, in the axis's
    `categoryarray` order or else the order of first appearance (as Plotly orders them)."""
    for key, axis in axes.items():
        if not key.startswith("xaxis") or axis.get("type") != "category":
            continue
        ref = "x" + key[5:]
        mine = [t for t in traces if (t.get("xaxis") or "x") == ref]
        order = [str(c) for c in axis.get("categoryarray") or []]
        for t in mine:
            for x in t.get("x") or []:
                if str(x) not in order:
                    order.append(str(x))
        where = {c: i for i, c in enumerate(order)}
        for t in mine:
            t["x"] = [where[str(x)] for x in t.get("x") or []]
        axis.update(
            type="linear",
            tickvals=list(range(len(order))),
            ticktext=order,
            showgrid=False,
        )
        for k in ("categoryarray", "categoryorder"):
            axis.pop(k, None)


def log_axes(
    traces: list[dict[str, Any]], axes: dict[str, dict[str, Any]], shapes: list[dict[str, Any]]
) -> None:
    """Log axes as linear axes over log10 of the values (values <= 0 are left out, as Plotly
    leaves them out), ticked at the axis's tick values or the powers of ten."""
    for key, axis in axes.items():
        if axis.get("type") != "log":
            continue
        letter, ref = key[0], key[0] + key[5:]
        seen: list[float] = []
        for t in traces:
            if (t.get(f"{letter}axis") or letter) != ref:
                continue
            vals = []
            for v in t.get(letter) or []:
                ok = isinstance(v, int | float) and not isinstance(v, bool) and v > 0
                vals.append(math.log10(v) if ok and math.isfinite(v) else None)
                if ok:
                    seen.append(float(v))
            t[letter] = vals
        for s in shapes:
            if (s.get(f"{letter}ref") or letter) == ref:
                for end in ("0", "1"):
                    v = s.get(f"{letter}{end}")
                    if isinstance(v, int | float) and v > 0:
                        s[f"{letter}{end}"] = math.log10(v)
        ticks = [float(v) for v in axis.get("tickvals") or [] if v and v > 0]
        text = list(axis.get("ticktext") or [])
        if not ticks and seen:
            k0, k1 = math.floor(math.log10(min(seen))), math.ceil(math.log10(max(seen)))
            ticks = [10.0**k for k in range(k0, k1 + 1)]
            text = [f"{v:,.6g}" for v in ticks]
        axis.update(
            type="linear",
            tickvals=[math.log10(v) for v in ticks] or None,
            ticktext=text or None,
        )


_FIELD = re.compile(r"%\{([^}:]+)(?::([^}]*))?\}")
COLOURBAR_STEPS = 20


def _sub(template: str, values: dict[str, Any]) -> str:
    def one(m: re.Match[str]) -> str:
        v = values.get(m.group(1))
        if isinstance(v, float) and not math.isfinite(v):
            return ""
        try:
            return format(v, m.group(2)) if m.group(2) and v is not None else str(v)
        except (TypeError, ValueError):
            return str(v)

    return _FIELD.sub(one, template)


def heatmap_as_bars(t: dict[str, Any], layout: dict[str, Any]) -> list[dict[str, Any]]:
    """A heatmap (categories across, rows at positions 0..n-1, a fixed zmin/zmax) as one row of
    coloured bars a row, each cell's hover from the trace's template, and its colour bar as a
    column of colour steps beside it on its own axes (`layout` gains them)."""
    if t.get("xaxis") not in (None, "x") or t.get("yaxis") not in (None, "y"):
        raise Unsupported("a heatmap off the first axes")
    z = np.array(t.get("z") if t.get("z") is not None else [], dtype=np.float64)
    if z.ndim != 2 or t.get("zmin") is None or t.get("zmax") is None:
        raise Unsupported("a heatmap without a 2-D z and a fixed zmin/zmax")
    rows, cols = z.shape
    given_x, given_y = t.get("x"), t.get("y")
    xs: list[Any] = list(given_x) if given_x is not None else list(range(cols))
    ys: list[Any] = list(given_y) if given_y is not None else list(range(rows))
    labels_y: list[str] | None = None
    if not all(isinstance(y, int | float) for y in ys):  # category rows: row i at position i
        labels_y, ys = [str(y) for y in ys], list(range(rows))
    text = t.get("text")
    custom = t.get("customdata")
    template = str(t.get("hovertemplate") or "%{x}, %{y}: %{z}")
    gap = 0.08 if t.get("ygap") else 0.0
    scale, zmin, zmax = t.get("colorscale"), float(t["zmin"]), float(t["zmax"])
    out = []
    for i in range(rows):
        cells = [j for j in range(cols) if math.isfinite(z[i, j])]
        tips = [
            _sub(
                template,
                {
                    "x": xs[j],
                    "y": labels_y[i] if labels_y else ys[i],
                    "z": float(z[i, j]),
                    "text": text[i][j] if text is not None else "",
                    "customdata": custom[i][j] if custom is not None else "",
                },
            )
            for j in cells
        ]
        out.append(
            {
                "type": "bar",
                "name": f"row {labels_y[i] if labels_y else ys[i]}",
                "showlegend": False,
                "x": cells,
                "y": [ys[i] + 0.5 - gap] * len(cells),
                "base": [ys[i] - 0.5 + gap] * len(cells),
                "marker": {
                    "color": [float(z[i, j]) for j in cells],
                    "colorscale": scale,
                    "cmin": zmin,
                    "cmax": zmax,
                },
                "hovertext": tips,
                "hoverinfo": "text",
            }
        )
    xaxis = dict(layout.get("xaxis") or {})
    labels = [str(x) for x in xs]
    step = max(1, math.ceil(cols / 10))
    xaxis.update(
        type="linear",  # the columns are positions 0..n-1 now, labelled by their ticks
        domain=[0.0, 0.88],
        tickvals=list(range(0, cols, step)),
        ticktext=labels[::step],
        showgrid=False,
        range=[-0.5, cols - 0.5],
    )
    yaxis = dict(layout.get("yaxis") or {})
    yaxis.update(range=[min(ys) - 0.5, max(ys) + 0.5], showgrid=False)
    if labels_y:
        yaxis.update(tickvals=ys, ticktext=labels_y)
    bar = t.get("colorbar") or {}
    title = (bar.get("title") or {}).get("text") if isinstance(bar.get("title"), dict) else None
    layout.update(
        xaxis=xaxis,
        yaxis=yaxis,
        xaxis2={"domain": [0.9, 0.94], "anchor": "y2", "showticklabels": False, "showgrid": False,
                "title": "", "range": [-0.5, 0.5]},
        # no tick labels beside the bar (they would run into the cells): its ends are named
        # above it, with its title, as Plotly puts a colour bar's title
        yaxis2={"anchor": "x2", "range": [zmin, zmax], "showgrid": False,
                "showticklabels": False},
        annotations=[*(layout.get("annotations") or []), {
            "text": f"{title + ' ' if title else ''}{zmin:g}–{zmax:g}", "xref": "paper",
            "yref": "paper", "x": 0.94, "y": 1.0, "xanchor": "right", "yanchor": "bottom",
            "showarrow": False, "font": {"size": 11},
        }],
        bargap=0.0,
        barmode="overlay",  # one row a trace: each cell fills its column, not a share of it
    )  # fmt: skip
    size = (zmax - zmin) / COLOURBAR_STEPS
    mids = [zmin + (k + 0.5) * size for k in range(COLOURBAR_STEPS)]
    out.append(
        {
            "type": "bar",
            "name": title or "colour",
            "showlegend": False,
            "xaxis": "x2",
            "yaxis": "y2",
            "x": [0] * COLOURBAR_STEPS,
            "y": [m + size / 2 for m in mids],
            "base": [m - size / 2 for m in mids],
            "marker": {"color": mids, "colorscale": scale, "cmin": zmin, "cmax": zmax},
            "hoverinfo": "skip",
        }
    )
    return out
