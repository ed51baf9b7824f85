"""A Plotly figure as the small drawing spec `lite_chart` draws in the browser, without Plotly.

Why: a view that draws any Plotly chart at first paint pays for Plotly's 4.7 MB bundle in a new
tab, seconds of browser CPU on the benchmark machine (bench/first_paint.py), whatever the
figure holds. The figures a view opens on are plain scatter and bar charts, so the same
`go.Figure` the view builds (one builder, also for the zoomable Plotly version) is reduced here to
what those need: points, lines, bars, text labels, shapes, annotations, a legend, and steps (a
Play button and a slider showing the first points of every trace, for a replay). Histograms, box
plots, heatmaps, stacked bars and log or category axes are first rewritten as those
(`lite_reduce`), with the same numbers.

Everything is resolved in Python, so the browser code stays small: colour scales become colours,
hover templates become one plain-text tooltip a point (the browser sets it as text, never as
HTML), typed arrays become lists with None for NaN. A figure using anything this module cannot draw
raises `LiteUnsupported`, and the caller draws it with Plotly instead.
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale, sample_colorscale

from components.common import lite_reduce
from components.common.theme import LINE_PALETTE

TRACE_TYPES = {"scatter", "scattergl", "bar", "histogram"}
# layout keys a figure may use; anything else that changes the drawing is refused
LAYOUT_KEYS = {
    "height",
    "margin",
    "legend",
    "showlegend",
    "title",
    "hovermode",
    "clickmode",
    "dragmode",
    "uirevision",
    "bargap",
    "bargroupgap",
    "barmode",
    "shapes",
    "annotations",
    "template",
    "font",
    "width",
    "autosize",
    "hoverlabel",  # tooltips are plain text, aligned left
    "plot_bgcolor",
}
_AXIS = re.compile(r"^[xy]axis\d*$")
_FIELD = re.compile(r"%\{([^}:]+)(?::([^}]*))?\}")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_EXTRA = re.compile(r"<extra>.*?</extra>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_INDEX = re.compile(r"^(\w+)\[(\d+)\]$")
DEFAULT_HEIGHT = 450


class LiteUnsupported(ValueError):
    """The figure uses something the lite renderer does not draw."""


def plain_text(markup: object) -> str:
    """Plotly's pseudo-HTML label as plain text: `<br>` as a newline, tags dropped, entities
    decoded. Dataset text reached Plotly escaped (`safe_text.esc_hover`), so its own `<` and `&`
    come back as characters; the browser shows the result as text, never as markup."""
    if markup is None:
        return ""
    s = _EXTRA.sub("", str(markup))
    s = _BR.sub("\n", s)
    s = _TAG.sub("", s)
    return html.unescape(s)


def _array(value: Any) -> list | None:
    """A Plotly data array (list, tuple or numpy array, as `to_plotly_json` gives it) as a list."""
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        return _clean(value.tolist())
    if isinstance(value, list | tuple):
        return _clean([v.tolist() if isinstance(v, np.ndarray) else v for v in value])
    return None


def _clean(values: list) -> list:
    """NaN and inf as None (JSON has no NaN); numpy scalars as Python numbers."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, list):
            out.append(_clean(v))
        elif isinstance(v, float) and not math.isfinite(v):
            out.append(None)
        elif isinstance(v, np.generic):
            item = v.item()
            out.append(None if isinstance(item, float) and not math.isfinite(item) else item)
        else:
            out.append(v)
    return out


def _scalar_or_list(value: Any) -> Any:
    arr = _array(value)
    return arr if arr is not None else value


def _fmt(value: Any, spec: str | None) -> str:
    """A hover value under a d3-style format (the subset Python's format() shares)."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if spec:
        try:
            if spec.endswith("d"):
                return format(int(round(value)), spec)
            return format(value, spec)
        except (ValueError, TypeError):
            return str(value)
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return f"{value:.6g}"


def _field(name: str, point: int, trace: dict[str, Any]) -> Any:
    m = _INDEX.match(name)
    key, index = (m.group(1), int(m.group(2))) if m else (name, None)
    if key == "meta":
        v = trace.get("meta")
        return v[index] if index is not None and isinstance(v, list | tuple) else v
    arr = trace.get(f"_{key}")
    if arr is None:
        v = trace.get(key)
        return v if not isinstance(v, list | tuple | np.ndarray) else None
    if not isinstance(arr, list):
        v = arr
    elif point < len(arr):
        v = arr[point]
    else:
        return None
    if index is not None:
        return v[index] if isinstance(v, list | tuple) and index < len(v) else None
    return v


def _substitute(m: re.Match[str], point: int, trace: dict[str, Any]) -> str:
    return _fmt(_field(m.group(1), point, trace), m.group(2))


def _tips(t: dict[str, Any], n: int) -> list[str] | None:
    """One plain-text tooltip a point, as Plotly would label it; None when hovering is off."""
    info = str(t.get("hoverinfo") or "")
    if info in ("skip", "none"):
        return None
    template = t.get("hovertemplate")
    if isinstance(template, list | tuple):
        raise LiteUnsupported("a hover template per point")
    out = []
    for i in range(n):
        if template:
            text = _FIELD.sub(partial(_substitute, point=i, trace=t), str(template))
        else:
            given = _field("hovertext", i, t) or _field("text", i, t)
            x, y = _field("x", i, t), _field("y", i, t)
            text = (
                str(given)
                if given
                else f"{t.get('name') or ''}\n({_fmt(x, None)}, {_fmt(y, None)})".strip()
            )
        out.append(plain_text(text).strip())
    return out


def _colours(marker: dict[str, Any], n: int) -> Any:
    """Marker colours: numbers on a colour scale become colour strings."""
    colour = marker.get("color")
    arr = _array(colour)
    if arr is None or not arr or not isinstance(arr[0], int | float | type(None)):
        return arr if arr is not None else colour
    scale = marker.get("colorscale")
    if scale is None:
        raise LiteUnsupported("numeric marker colours without a colour scale")
    named = get_colorscale(scale) if isinstance(scale, str) else [list(s) for s in scale]
    vals = [float(v) if v is not None else math.nan for v in arr]
    finite = [v for v in vals if math.isfinite(v)]
    lo = marker.get("cmin", min(finite) if finite else 0.0)
    hi = marker.get("cmax", max(finite) if finite else 1.0)
    span = (hi - lo) or 1.0
    ts = [min(1.0, max(0.0, (v - lo) / span)) if math.isfinite(v) else 0.0 for v in vals]
    return list(sample_colorscale(named, ts)) if ts else []


def _histogram_as_bars(t: dict[str, Any]) -> dict[str, Any]:
    """A histogram with explicit bins (`xbins` start, end, size) as the bars Plotly draws: a count
    per bin, bins closed on the left; empty bins are gaps. Hover: the bin's range and count."""
    bins = dict(t.get("xbins") or {})
    if t.get("histfunc") or t.get("histnorm") or t.get("y") is not None:
        raise LiteUnsupported("a histogram of anything but counts of x")
    if not all(isinstance(bins.get(k), int | float) for k in ("start", "end", "size")):
        raise LiteUnsupported("a histogram without explicit bins")
    start, end, size = float(bins["start"]), float(bins["end"]), float(bins["size"])
    if not size > 0 or not end > start:
        raise LiteUnsupported("a histogram with empty bins")
    x = np.asarray(_array(t.get("x")) or [], dtype=np.float64)
    x = x[np.isfinite(x) & (x >= start) & (x < end)]
    n_bins = math.ceil((end - start) / size)
    counts = np.bincount(
        np.minimum(((x - start) / size).astype(np.int64), n_bins - 1), minlength=n_bins
    )
    lo = start + size * np.arange(n_bins)
    name = plain_text(t.get("name")) if t.get("name") is not None else ""
    out = {k: v for k, v in t.items() if k not in ("x", "xbins", "hovertemplate", "text")}
    out.update(
        type="bar",
        x=(lo + size / 2).tolist(),
        y=[int(c) if c else None for c in counts],
        hovertext=[
            f"{name}\n{_fmt(a, None)} – {_fmt(a + size, None)}: {int(c)}".strip()
            for a, c in zip(lo.tolist(), counts.tolist(), strict=True)
        ],
    )
    return out


def _stack(traces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plotly's stacked areas (`stackgroup`): each trace's y on top of the previous ones of its
    group, filled down to them (`base`); the tooltips keep the trace's own values."""
    tops: dict[str, np.ndarray] = {}
    for t in traces:
        group = t.pop("_stackgroup", None)
        if group is None:
            continue
        y = np.array([math.nan if v is None else v for v in t["y"]], dtype=np.float64)
        base = tops.get(group, np.zeros_like(y))
        if base.shape != y.shape:
            raise LiteUnsupported("stacked traces of different lengths")
        top = base + np.nan_to_num(y)
        tops[group] = top
        t["y"], t["base"] = top.tolist(), base.tolist()
    return traces


def _band_as_area(t: dict[str, Any]) -> dict[str, Any]:
    """A band drawn as Plotly draws one with `fill="toself"` (its upper edge along x, then its
    lower edge back along the same x) as an area from the lower edge (`base`) up to the upper."""
    x, y = _array(t.get("x")) or [], _array(t.get("y")) or []
    k = len(x) // 2
    if len(x) != len(y) or len(x) % 2 or not k or x[:k] != x[k:][::-1]:
        raise LiteUnsupported("a filled shape that is not a band along x")
    return {**t, "x": x[:k], "y": y[:k], "base": y[k:][::-1], "fill": None}


def _trace(t: dict[str, Any], index: int) -> dict[str, Any]:
    kind = str(t.get("type") or "scatter")
    if kind not in TRACE_TYPES:
        raise LiteUnsupported(f"a {kind} trace")
    if kind == "histogram":
        if (t.get("orientation") or "v") != "v":
            raise LiteUnsupported("horizontal histograms")
        t, kind = _histogram_as_bars(t), "bar"
    if t.get("stackgroup") and (t.get("orientation") or "v") != "v":
        raise LiteUnsupported("horizontal stacks")
    if kind == "bar" and (t.get("orientation") or "v") != "v":
        raise LiteUnsupported("horizontal bars")
    if t.get("fill") == "toself":
        t = _band_as_area(t)
    elif t.get("fill") not in (None, "none"):
        raise LiteUnsupported("filled areas")
    for key in ("x", "y", "customdata", "text", "hovertext"):
        t[f"_{key}"] = _array(t.get(key))
    x, y = t["_x"] or [], t["_y"] or []
    if not y and t.get("y") is None:
        raise LiteUnsupported("a trace without y values")
    n = min(len(x), len(y)) if x else len(y)
    if not x:
        x = list(range(n))
        t["_x"] = x
    default_colour = LINE_PALETTE[index % len(LINE_PALETTE)]
    marker = dict(t.get("marker") or {})
    line = dict(t.get("line") or {})
    mline = dict(marker.get("line") or {})
    text = t["_text"] if t["_text"] is not None else t.get("text")
    mode = str(t.get("mode") or ("lines+markers" if n < 20 else "lines"))
    if kind == "bar":
        mode = "bars"
    pattern = dict(marker.get("pattern") or {})
    textfont = dict(t.get("textfont") or {})
    group_title = (t.get("legendgrouptitle") or {}).get("text")
    return {
        "type": kind if kind == "bar" else "scatter",
        "mode": mode,
        "name": plain_text(t.get("name")) if t.get("name") is not None else f"trace {index}",
        "showlegend": t.get("showlegend"),
        "legendrank": float(t.get("legendrank", 1000)),  # Plotly's default: trace order
        "legendgroup": t.get("legendgroup"),
        "grouptitle": plain_text(group_title) if group_title else None,
        "visible": t.get("visible", True),
        "xaxis": t.get("xaxis") or "x",
        "yaxis": t.get("yaxis") or "y",
        "x": x[:n],
        "y": y[:n],
        "opacity": t.get("opacity", 1),
        "line": {
            "color": line.get("color") or default_colour,
            "width": line.get("width", 2),
            "dash": line.get("dash") or "solid",
        },
        "marker": {
            "color": _colours(marker, n) or (line.get("color") or default_colour),
            "size": _scalar_or_list(marker.get("size", 6)),
            "symbol": _scalar_or_list(marker.get("symbol", "circle")),
            "opacity": _scalar_or_list(marker.get("opacity", 1)),
            "line_color": _scalar_or_list(mline.get("color")),
            "line_width": _scalar_or_list(mline.get("width", 0)),
            "pattern": _scalar_or_list(pattern.get("shape")) or None,
            "patterncolor": pattern.get("fgcolor"),
        },
        "fillcolor": t.get("fillcolor") or line.get("color") or default_colour,
        "fillpattern": (t.get("fillpattern") or {}).get("shape") or None,
        "fillpatterncolor": (t.get("fillpattern") or {}).get("fgcolor"),
        "_stackgroup": t.get("stackgroup") or None,
        # labels drawn on the points; text that is only hover text is already in `tips`
        "text": None
        if "text" not in mode
        else (
            [plain_text(v) for v in text] if isinstance(text, list) else plain_text(text) or None
        ),
        "textposition": t.get("textposition") or "middle center",
        "textcolor": _scalar_or_list(textfont.get("color")),
        "textsize": textfont.get("size", 12),
        # a halo behind the label (Plotly's text shadow), so lines crossing it do not hide it
        "texthalo": bool(textfont.get("shadow")) and textfont.get("shadow") != "none",
        "tips": _tips(t, n),
        "picks": t["_customdata"][:n] if isinstance(t["_customdata"], list) else None,
        # a bar's bottom (stacked bars, boxes); None: from 0
        **({"base": base} if (base := (_array(t.get("base")) or [])[:n]) else {}),
    }


def _axis(spec: dict[str, Any]) -> dict[str, Any]:
    title = spec.get("title")
    title_text = title.get("text") if isinstance(title, dict) else title
    if spec.get("type") not in (None, "-", "linear"):
        raise LiteUnsupported(f"a {spec.get('type')} axis")
    if spec.get("overlaying") or spec.get("side") == "right":
        raise LiteUnsupported("twin axes")
    return {
        "domain": list(spec.get("domain") or [0.0, 1.0]),
        "range": _array(spec.get("range")),
        "title": plain_text(title_text) if title_text else "",
        "visible": spec.get("visible", True),
        "showticklabels": spec.get("showticklabels", True),
        "tickvals": _array(spec.get("tickvals")),
        "ticktext": [plain_text(v) for v in spec.get("ticktext") or []] or None,
        "tickformat": spec.get("tickformat") or "",
        "ticksuffix": spec.get("ticksuffix") or "",
        "anchor": spec.get("anchor"),
        "matches": spec.get("matches"),
        "reversed": spec.get("autorange") == "reversed",
        "zeroline": bool(spec.get("zeroline", False)),
        "showgrid": spec.get("showgrid", True),
        # Plotly's automargin widens the margin to fit long tick labels: their width in px
        "labelwidth": int(6.5 * max(len(str(v)) for v in spec["ticktext"]))
        if spec.get("automargin") and spec.get("ticktext")
        else None,
    }


def _shape(s: dict[str, Any]) -> dict[str, Any]:
    if s.get("type") not in ("line", "rect"):
        raise LiteUnsupported(f"a {s.get('type')} shape")
    line = s.get("line") or {}
    return {
        "type": s["type"],
        "x0": s.get("x0"),
        "x1": s.get("x1"),
        "y0": s.get("y0"),
        "y1": s.get("y1"),
        "xref": s.get("xref") or "x",
        "yref": s.get("yref") or "y",
        "color": line.get("color") or "#444",
        "width": line.get("width", 2),
        "dash": line.get("dash") or "solid",
        "fill": s.get("fillcolor"),
        "opacity": s.get("opacity", 1),
    }


def _annotation(a: dict[str, Any]) -> dict[str, Any]:
    font = a.get("font") or {}
    return {
        "text": plain_text(a.get("text")),
        "x": a.get("x"),
        "y": a.get("y"),
        "xref": a.get("xref") or "x",
        "yref": a.get("yref") or "y",
        "xanchor": a.get("xanchor") or "center",
        "yanchor": a.get("yanchor") or "middle",
        "color": font.get("color") or "#31333f",
        "size": font.get("size", 12),
        "bg": a.get("bgcolor"),
        "yshift": a.get("yshift") or 0,
    }


def chart_spec(fig: go.Figure, steps: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What `lite_chart` draws for `fig`; `LiteUnsupported` when it cannot draw it faithfully.

    `steps` adds a Play button and a slider: step k shows the first `counts[k]` points of every
    trace, under `prefix + labels[k] + suffix`, `duration` ms a step, opening on step `active`
    (the axes keep the whole data's range)."""
    if fig.frames:
        raise LiteUnsupported("Plotly animation frames (pass steps instead)")
    layout = fig.layout.to_plotly_json()
    extra = {k for k in layout if not _AXIS.match(k)} - LAYOUT_KEYS
    if extra:
        raise LiteUnsupported("layout " + ", ".join(sorted(extra)))
    if layout.get("barmode") not in (None, "group", "overlay", "stack"):
        raise LiteUnsupported(f"barmode {layout.get('barmode')}")
    try:
        data = _reduced([dict(t.to_plotly_json()) for t in fig.data], layout)
    except lite_reduce.Unsupported as exc:
        raise LiteUnsupported(str(exc)) from exc
    traces = _stack([_trace(t, i) for i, t in enumerate(data)])
    axes = {k: _axis(v) for k, v in layout.items() if _AXIS.match(k)}
    for t in traces:
        for ref, letter in ((t["xaxis"], "x"), (t["yaxis"], "y")):
            axes.setdefault(f"{letter}axis{ref[1:]}", _axis({}))
    legend = dict(layout.get("legend") or {})
    margin = {
        k: int((layout.get("margin") or {}).get(k, d))
        for k, d in (("l", 80), ("r", 80), ("t", 100), ("b", 80))
    }
    for t in traces:
        t["x"], t["y"] = _pack(t["x"]), _pack(t["y"])
        if t.get("base") is not None:
            t["base"] = _pack(t["base"])
    title = layout.get("title")
    title_text = title.get("text") if isinstance(title, dict) else title
    return {
        "height": int(layout.get("height") or DEFAULT_HEIGHT),
        "margin": margin,
        "title": plain_text(title_text) if title_text else "",
        "axes": axes,
        "traces": traces,
        "shapes": [_shape(dict(s)) for s in layout.get("shapes") or []],
        "annotations": [_annotation(dict(a)) for a in layout.get("annotations") or []],
        "legend": {
            "show": layout.get("showlegend", _legend_default(traces)),
            "orientation": legend.get("orientation") or "v",
            "groupclick": legend.get("groupclick") or "togglegroup",
            "fontsize": (legend.get("font") or {}).get("size", 12),
        },
        "bargap": float(layout.get("bargap", 0.2)),
        "barmode": layout.get("barmode") or "group",
        "bargroupgap": float(layout.get("bargroupgap", 0.0)),
        # room between the title and the plot for notes drawn above the plot (subplot titles)
        "titlepad": 20 if title_text and _notes_above(layout) else 0,
        "bg": layout.get("plot_bgcolor"),
        "steps": _steps(steps),
        "selectable": "select" in str(layout.get("clickmode") or ""),
        "revision": str(layout.get("uirevision") or ""),
    }


def _reduced(data: list[dict[str, Any]], layout: dict[str, Any]) -> list[dict[str, Any]]:
    """Histograms, boxes, stacks, category and log axes as what the lite chart draws
    (`lite_reduce`); `layout` is changed in place."""
    out: list[dict[str, Any]] = []
    boxes: dict[str, list[str]] = {}  # x axis -> the box names on it, in order
    spans: dict[str, tuple[float, float]] = {}  # y axis -> its boxes' lowest and highest whisker
    for t in data:
        kind = t.get("type")
        if kind == "heatmap":
            out.extend(lite_reduce.heatmap_as_bars(t, layout))
        elif kind == "box":
            ref = t.get("xaxis") or "x"
            names = boxes.setdefault(ref, [])
            name = str(t.get("name") or "")
            if name not in names:
                names.append(name)
            drawn = lite_reduce.box_as_bars(t, float(names.index(name)))
            out.extend(drawn)
            ends = [v for d in drawn for v in d.get("y") or [] if isinstance(v, int | float)]
            if ends:
                y_ref = t.get("yaxis") or "y"
                lo, hi = spans.get(y_ref, (min(ends), max(ends)))
                spans[y_ref] = (min(lo, *ends), max(hi, *ends))
        else:
            out.append(t)
    for ref, names in boxes.items():
        key = "xaxis" + ref[1:]
        axis = dict(layout.get(key) or {})
        axis.update(tickvals=list(range(len(names))), ticktext=names, showgrid=False)
        layout[key] = axis
    if boxes and "bargap" not in layout:
        layout["bargap"] = 0.5  # a box half its slot, as Plotly draws them side by side
    if boxes and layout.get("barmode") in (None, "group"):
        layout["barmode"] = "overlay"  # each box has its own slot: not shifted within it
    for y_ref, (lo, hi) in spans.items():
        # whiskers end inside the plot, padded as Plotly pads a box's axis
        key = "yaxis" + y_ref[1:]
        axis = dict(layout.get(key) or {})
        if not axis.get("range") and hi > lo:
            pad = (hi - lo) * 0.05
            axis["range"] = [lo - pad, hi + pad]
            layout[key] = axis
    if any(kind == "histogram" for kind in (t.get("type") for t in data)):
        layout.setdefault("bargap", 0.0)
    stacked = layout.get("barmode") == "stack"
    if stacked:
        lite_reduce.bar_tips(out)
    axes = {k: dict(v) for k, v in layout.items() if _AXIS.match(k)}
    lite_reduce.category_positions(out, axes)
    shapes = [dict(s) for s in layout.get("shapes") or []]
    lite_reduce.log_axes(out, axes, shapes)
    layout.update(axes)
    if shapes:
        layout["shapes"] = shapes
    if stacked:
        lite_reduce.stack_bars(out)
        layout["barmode"] = "overlay"
    return out


def _notes_above(layout: dict[str, Any]) -> bool:
    return any(
        a.get("yref") == "paper" and (a.get("y") or 0) >= 1 and a.get("yanchor") == "bottom"
        for a in layout.get("annotations") or []
    )


def _steps(steps: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if steps is None:
        return None
    counts = [int(c) for c in steps["counts"]]
    if not counts:
        raise LiteUnsupported("steps without any step")
    labels = [plain_text(x) for x in steps.get("labels") or counts]
    return {
        "counts": counts,
        "labels": labels + [""] * (len(counts) - len(labels)),
        "active": min(max(int(steps.get("active", len(counts) - 1)), 0), len(counts) - 1),
        "prefix": plain_text(steps.get("prefix")),
        "suffix": plain_text(steps.get("suffix")),
        "duration": int(steps.get("duration", 500)),
    }


def _pack(values: list) -> Any:
    """Numbers as base64 float32 (a third of their JSON text; drawing needs no more), NaN for
    gaps; other values (categories) stay a list."""
    if not all(
        v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in values
    ):
        return values
    arr = np.array([math.nan if v is None else v for v in values], dtype=np.float32)
    return {"f32": base64.b64encode(arr.tobytes()).decode("ascii")}


def unpack(values: Any) -> list:
    """The inverse of `_pack`, for tests and callers that read a spec."""
    if isinstance(values, dict) and "f32" in values:
        arr = np.frombuffer(base64.b64decode(values["f32"]), dtype=np.float32)
        return [None if not math.isfinite(v) else v for v in arr.astype(np.float64).tolist()]
    return list(values)


def _legend_default(traces: Sequence[dict[str, Any]]) -> bool:
    """Plotly shows a legend when more than one trace would be in it."""
    return sum(1 for t in traces if t["showlegend"] is not False) > 1
