"""A case's evidence (`cache.casebook.evidence`) drawn as a small static SVG for the HTML report:
axes with a few ticks and their labels, the lines or grouped bars, the marks and the highlighted
point. Inline markup only: no script, no style sheet, no link, no external reference; every text
is escaped and every number is one the evidence cleaning let through (finite, rounded).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from cache.casebook.evidence import clean_evidence
from cache.casebook.palette import (
    EVIDENCE_AXIS,
    EVIDENCE_GRID,
    EVIDENCE_HIGHLIGHT,
    EVIDENCE_MARK,
    EVIDENCE_SERIES,
)
from cache.safe_html import esc

WIDTH, PLOT_HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 30, 44  # margins around the plot area
LEGEND_ROW = 16
CHAR_W = 6.2  # rough width of a character at the small font size (for the legend's layout)
FONT = "font-family='system-ui,sans-serif' font-size='11'"


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (about `target` of them: steps of 1, 2, 2.5 or 5 × 10^k)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-9))
    first = math.ceil(lo / step - 1e-9)
    ticks: list[float] = []
    i = first
    while i * step <= hi + step * 1e-9 and len(ticks) < 50:
        ticks.append(round(i * step, 10) + 0.0)
        i += 1
    return ticks


def tick_labels(ticks: Sequence[float]) -> list[str]:
    """`2,048`, `0.25`, `12k`, `1.5M`: one unit for the whole axis, as many decimals as the step
    between ticks needs."""
    if not ticks:
        return []
    step = ticks[1] - ticks[0] if len(ticks) > 1 else abs(ticks[0]) or 1.0
    top = max(abs(t) for t in ticks)
    if top >= 1e6 and step >= 1e5:
        return [f"{t / 1e6:g}M" if t else "0" for t in ticks]
    if top >= 1e4 and step >= 1e3:
        return [f"{t / 1e3:g}k" if t else "0" for t in ticks]
    if step >= 1:
        return [f"{t:,.0f}" for t in ticks]
    decimals = next((d for d in range(7) if abs(round(step, d) - step) < step * 1e-6), 6)
    return [f"{t:.{decimals}f}" for t in ticks]


class _Scale:
    """Data to pixels along one axis (`flip` for y: up is larger)."""

    def __init__(self, lo: float, hi: float, a: float, b: float) -> None:
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        self.lo, self.hi, self.a, self.b = lo, hi, a, b

    def __call__(self, v: float) -> float:
        return round(self.a + (v - self.lo) / (self.hi - self.lo) * (self.b - self.a), 1)


def _extent(values: Sequence[float], pad: float = 0.0) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    if hi <= lo:
        return lo - (abs(lo) * 0.1 or 1.0), hi + (abs(hi) * 0.1 or 1.0)
    span = hi - lo
    return lo - span * pad, hi + span * pad


def _legend(names: Sequence[str], y: float) -> tuple[str, int]:
    """Coloured swatches and names, wrapped over rows; the markup and how many rows it took."""
    parts, x, rows = [], float(LEFT), 1
    for i, name in enumerate(names):
        w = 18 + CHAR_W * len(name) + 14
        if x + w > WIDTH - RIGHT and x > LEFT:
            x, rows = float(LEFT), rows + 1
        yy = y + (rows - 1) * LEGEND_ROW
        colour = EVIDENCE_SERIES[i % len(EVIDENCE_SERIES)]
        parts.append(
            f"<rect x='{x:.1f}' y='{yy - 8:.1f}' width='12' height='8' fill='{colour}'/>"
            f"<text x='{x + 16:.1f}' y='{yy:.1f}' {FONT} fill='{EVIDENCE_AXIS}'>{esc(name)}</text>"
        )
        x += w
    return "".join(parts), rows


def _frame(ev: Mapping[str, Any], body: str, legend_names: Sequence[str]) -> str:
    legend, rows = (
        _legend(legend_names, TOP + PLOT_HEIGHT + BOTTOM + 4) if legend_names else ("", 0)
    )
    height = TOP + PLOT_HEIGHT + BOTTOM + rows * LEGEND_ROW + (6 if rows else 0)
    title = esc(ev.get("title") or "evidence")
    y_label = esc(ev.get("y_label") or "")
    x_label = esc(ev.get("x_label") or "")
    mid_y = TOP + PLOT_HEIGHT / 2
    return (
        f"<svg class='evidence' viewBox='0 0 {WIDTH} {height}' width='{WIDTH}' height='{height}'"
        f" role='img' aria-label='{title}'><title>{title}</title>"
        f"<text x='{LEFT}' y='16' font-family='system-ui,sans-serif' font-size='12'"
        f" font-weight='600' fill='{EVIDENCE_AXIS}'>{title}</text>"
        + body
        + f"<text x='{LEFT + (WIDTH - LEFT - RIGHT) / 2:.1f}' y='{TOP + PLOT_HEIGHT + 34}' {FONT}"
        f" text-anchor='middle' fill='{EVIDENCE_AXIS}'>{x_label}</text>"
        f"<text x='14' y='{mid_y:.1f}' {FONT} text-anchor='middle' fill='{EVIDENCE_AXIS}'"
        f" transform='rotate(-90 14 {mid_y:.1f})'>{y_label}</text>" + legend + "</svg>"
    )


def _y_axis(ys: _Scale, ticks: Sequence[float]) -> str:
    out = []
    for t, label in zip(ticks, tick_labels(ticks), strict=True):
        py = ys(t)
        out.append(
            f"<line x1='{LEFT}' x2='{WIDTH - RIGHT}' y1='{py}' y2='{py}' stroke='{EVIDENCE_GRID}'/>"
            f"<text x='{LEFT - 6}' y='{py + 4}' {FONT} text-anchor='end' fill='{EVIDENCE_AXIS}'>"
            f"{esc(label)}</text>"
        )
    bottom = TOP + PLOT_HEIGHT
    out.append(
        f"<line x1='{LEFT}' x2='{LEFT}' y1='{TOP}' y2='{bottom}' stroke='{EVIDENCE_AXIS}'/>"
        f"<line x1='{LEFT}' x2='{WIDTH - RIGHT}' y1='{bottom}' y2='{bottom}'"
        f" stroke='{EVIDENCE_AXIS}'/>"
    )
    return "".join(out)


def _line_svg(ev: Mapping[str, Any]) -> str:
    series = ev["series"]
    xs_all = [x for s in series for x in s["x"]]
    ys_all = [y for s in series for y in s["y"] if y is not None]
    marks = ev.get("marks") or []
    hl = ev.get("highlight")
    xs_all += [m["x"] for m in marks] + ([hl["x"]] if hl else [])
    if hl and hl.get("y") is not None:
        ys_all.append(hl["y"])
    y_lo, y_hi = ev["y_range"] if "y_range" in ev else _extent(ys_all or [0.0], 0.05)
    x_lo, x_hi = _extent(xs_all)
    y_ticks = nice_ticks(y_lo, y_hi, 4)
    x_ticks = nice_ticks(x_lo, x_hi, 6)
    xs = _Scale(x_lo, x_hi, LEFT, WIDTH - RIGHT)
    ys = _Scale(y_lo, y_hi, TOP + PLOT_HEIGHT, TOP)
    bottom = TOP + PLOT_HEIGHT
    body = [_y_axis(ys, [t for t in y_ticks if y_lo <= t <= y_hi])]
    x_ticks = [t for t in x_ticks if x_lo <= t <= x_hi]
    for t, tl in zip(x_ticks, tick_labels(x_ticks), strict=True):
        px = xs(t)
        body.append(
            f"<line x1='{px}' x2='{px}' y1='{bottom}' y2='{bottom + 4}' stroke='{EVIDENCE_AXIS}'/>"
            f"<text x='{px}' y='{bottom + 16}' {FONT} text-anchor='middle'"
            f" fill='{EVIDENCE_AXIS}'>{esc(tl)}</text>"
        )
    for i, m in enumerate(marks):
        px = xs(m["x"])
        label = (
            f"<text x='{px + 2}' y='{TOP + 9}' font-family='system-ui,sans-serif' font-size='9'"
            f" fill='{EVIDENCE_MARK}'>{esc(m['label'])}</text>"
            if m["label"] and i < 12
            else ""
        )
        body.append(
            f"<line x1='{px}' x2='{px}' y1='{TOP}' y2='{bottom}' stroke='{EVIDENCE_MARK}'"
            f" stroke-dasharray='3 3'/>{label}"
        )
    for i, s in enumerate(series):
        colour = EVIDENCE_SERIES[i % len(EVIDENCE_SERIES)]
        for run in _runs(s["x"], s["y"]):
            clipped = [(xs(x), ys(min(max(y, y_lo), y_hi))) for x, y in run]
            if len(clipped) == 1:
                cx, cy = clipped[0]
                body.append(f"<circle cx='{cx}' cy='{cy}' r='2' fill='{colour}'/>")
                continue
            pts = " ".join(f"{x},{y}" for x, y in clipped)
            body.append(
                f"<polyline points='{pts}' fill='none' stroke='{colour}' stroke-width='1.5'/>"
            )
    if hl:
        px = xs(hl["x"])
        if hl.get("y") is None:
            body.append(
                f"<line x1='{px}' x2='{px}' y1='{TOP}' y2='{bottom}'"
                f" stroke='{EVIDENCE_HIGHLIGHT}' stroke-width='2'/>"
            )
            py = TOP + 12.0
        else:
            py = ys(min(max(hl["y"], y_lo), y_hi))
            body.append(
                f"<circle cx='{px}' cy='{py}' r='5' fill='none' stroke='{EVIDENCE_HIGHLIGHT}'"
                " stroke-width='2'/>"
            )
        anchor = "end" if px > LEFT + (WIDTH - LEFT - RIGHT) * 0.7 else "start"
        dx = -8 if anchor == "end" else 8
        body.append(
            f"<text x='{px + dx}' y='{max(py - 6, TOP + 10)}' {FONT} font-weight='600'"
            f" text-anchor='{anchor}' fill='{EVIDENCE_HIGHLIGHT}'>{esc(hl['label'])}</text>"
        )
    names = [s["name"] for s in series] if len(series) > 1 else []
    return _frame(ev, "".join(body), names)


def _runs(xs: Sequence[float], ys: Sequence[float | None]) -> list[list[tuple[float, float]]]:
    """The stretches of a series between gaps (y None)."""
    runs: list[list[tuple[float, float]]] = [[]]
    for x, y in zip(xs, ys, strict=False):
        if y is None:
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append((x, y))
    return [r for r in runs if r]


def _bars_svg(ev: Mapping[str, Any]) -> str:
    cats: list[str] = ev["categories"]
    series = ev["series"]
    values = [v for s in series for v in s["values"] if v is not None]
    y_lo, y_hi = min(0.0, *values), max(0.0, *values)
    if y_hi <= y_lo:
        y_hi = y_lo + 1.0
    y_ticks = nice_ticks(y_lo, y_hi, 4)
    y_lo, y_hi = min(y_lo, y_ticks[0]), max(y_hi, y_ticks[-1])
    ys = _Scale(y_lo, y_hi, TOP + PLOT_HEIGHT, TOP)
    bottom = TOP + PLOT_HEIGHT
    slot = (WIDTH - LEFT - RIGHT) / len(cats)
    bar_w = max(1.0, slot * 0.8 / len(series))
    zero = ys(0.0)
    highlighted = (ev.get("highlight") or {}).get("category")
    every = max(1, math.ceil(len(cats) * 7 * CHAR_W / (WIDTH - LEFT - RIGHT)))
    limit = max(3, int(slot * every / CHAR_W) - 1)
    body = [_y_axis(ys, y_ticks)]
    for ci, cat in enumerate(cats):
        x0 = LEFT + ci * slot + slot * 0.1
        hl = cat == highlighted
        if hl:
            body.append(
                f"<rect x='{LEFT + ci * slot:.1f}' y='{TOP}' width='{slot:.1f}'"
                f" height='{PLOT_HEIGHT}' fill='{EVIDENCE_HIGHLIGHT}' fill-opacity='0.08'/>"
            )
        for si, s in enumerate(series):
            v = s["values"][ci]
            if v is None:
                continue
            py = ys(v)
            top, h = min(py, zero), abs(zero - py)
            colour = EVIDENCE_SERIES[si % len(EVIDENCE_SERIES)]
            body.append(
                f"<rect x='{x0 + si * bar_w:.1f}' y='{top:.1f}' width='{bar_w:.1f}'"
                f" height='{max(h, 0.5):.1f}' fill='{colour}'"
                + (f" stroke='{EVIDENCE_HIGHLIGHT}' stroke-width='1.5'" if hl else "")
                + "/>"
            )
        if ci % every == 0:
            text = cat if len(cat) <= limit else cat[: max(1, limit - 1)] + "…"
            weight = " font-weight='600'" if hl else ""
            fill = EVIDENCE_HIGHLIGHT if hl else EVIDENCE_AXIS
            body.append(
                f"<text x='{LEFT + (ci + 0.5) * slot:.1f}' y='{bottom + 16}' {FONT}{weight}"
                f" text-anchor='middle' fill='{fill}'>{esc(text)}</text>"
            )
    names = [s["name"] for s in series] if len(series) > 1 else []
    return _frame(ev, "".join(body), names)


def evidence_svg(value: object) -> str:
    """The evidence as an inline `<svg>` element, or "" when `value` is not drawable evidence."""
    ev = clean_evidence(value)
    if ev is None:
        return ""
    return _line_svg(ev) if ev["kind"] == "line" else _bars_svg(ev)
