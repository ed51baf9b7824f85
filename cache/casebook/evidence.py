"""A case's evidence: a small, bounded picture of the chart it points at, stored at capture time
in its snapshot under `EVIDENCE_KEY`, so a report (`cache.casebook.report`) can draw it as inline
SVG (`cache.casebook.evidence_svg`) long after the data source is gone.

Two kinds, both plain JSON:

    {"kind": "line", "title", "x_label", "y_label",
     "series": [{"name", "x": [...], "y": [...]}],          # y may hold None (a gap)
     "marks": [{"x", "label"}],                              # vertical rules (probes, drops)
     "highlight": {"x", "y", "label"},                       # the point the case is about
     "y_range": [lo, hi]}                                    # optional
    {"kind": "bars", "title", "y_label", "categories": [...],
     "series": [{"name", "values": [...]}], "highlight": {"category"}}

`line_evidence` and `bar_evidence` build one from a view's arrays; `clean_evidence` bounds and
normalises any value (a view's, or one read back from a stored or imported case, which is
untrusted): at most MAX_POINTS points a series (min/max per bucket, so dips survive), numbers
rounded to 5 significant digits, NaN/inf as None, texts shortened. Pure: no Streamlit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

EVIDENCE_KEY = "evidence"
KINDS = ("line", "bars")
MAX_POINTS = 300  # a series
MAX_SERIES = 8
MAX_MARKS = 40
MAX_CATEGORIES = 60
MAX_NAME = 60  # a series name, a category, a mark's label
MAX_TITLE = 160  # a title or an axis label
_DIGITS = 5


def _num(v: object) -> float | int | None:
    """A finite number rounded to 5 significant digits (integers kept), else None."""
    if v is None or isinstance(v, bool | np.bool_):
        return None
    if isinstance(v, int | np.integer):
        i = int(v)
        return i if abs(i) < 2**53 else float(f"{i:.{_DIGITS}g}")
    try:
        f = float(v)  # type: ignore[arg-type]  # numbers and numpy scalars
    except (TypeError, ValueError, OverflowError):
        return None
    return float(f"{f:.{_DIGITS}g}") if math.isfinite(f) else None


def _text(v: object, limit: int) -> str:
    s = " ".join(str("" if v is None else v).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _floats(values: Any) -> np.ndarray:
    """Numbers as float64 (None and anything else not a finite number as NaN)."""
    try:
        return np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return np.array(
            [np.nan if (x := _num(v)) is None else float(x) for v in values],
            dtype=np.float64,
        )


def downsample(y: object, n: int = MAX_POINTS) -> list[int]:
    """The indices of at most `n` points that keep the shape of a series y: the first and last
    point and, in each of n/2 equal buckets of the index, the lowest and the highest y (a gap
    keeps its bucket's first point, so it stays a gap)."""
    ys = _floats(y)
    size = int(ys.shape[0])
    if size <= n:
        return list(range(size))
    gaps = bool(np.isnan(ys).any())
    buckets = max(1, (n - 2) // (3 if gaps else 2))  # a bucket keeps 2 points, 3 with a gap
    edges = np.linspace(1, size - 1, buckets + 1).astype(int)
    keep = {0, size - 1}
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        if hi <= lo:
            continue
        part = ys[lo:hi]
        finite = np.isfinite(part)
        if not finite.all():
            keep.add(int(lo + np.flatnonzero(~finite)[0]))
        if finite.any():
            keep.add(int(lo + np.nanargmin(part)))
            keep.add(int(lo + np.nanargmax(part)))
    return sorted(keep)[:n]


def _series_line(s: Mapping[str, Any]) -> dict[str, Any] | None:
    xs, ys = s.get("x"), s.get("y")
    if not isinstance(xs, Sequence) or not isinstance(ys, Sequence):
        return None
    if isinstance(xs, str | bytes) or isinstance(ys, str | bytes):
        return None
    pts = [(_num(a), _num(b)) for a, b in zip(xs, ys, strict=False)]
    pts = [(a, b) for a, b in pts if a is not None]
    if not pts:
        return None
    idx = downsample([np.nan if p[1] is None else p[1] for p in pts])
    return {
        "name": _text(s.get("name"), MAX_NAME),
        "x": [pts[i][0] for i in idx],
        "y": [pts[i][1] for i in idx],
    }


def _mapping_list(v: object, limit: int) -> list[Mapping[str, Any]]:
    if not isinstance(v, Sequence) or isinstance(v, str | bytes):
        return []
    return [m for m in v if isinstance(m, Mapping)][:limit]


def _clean_line(ev: Mapping[str, Any], out: dict[str, Any]) -> dict[str, Any] | None:
    series = [s for m in _mapping_list(ev.get("series"), MAX_SERIES) if (s := _series_line(m))]
    if not series:
        return None
    out["x_label"] = _text(ev.get("x_label"), MAX_TITLE)
    out["series"] = series
    marks = []
    for m in _mapping_list(ev.get("marks"), MAX_MARKS):
        x = _num(m.get("x"))
        if x is not None:
            marks.append({"x": x, "label": _text(m.get("label"), MAX_NAME)})
    out["marks"] = marks
    h = ev.get("highlight")
    if isinstance(h, Mapping) and _num(h.get("x")) is not None:
        out["highlight"] = {
            "x": _num(h.get("x")),
            "y": _num(h.get("y")),
            "label": _text(h.get("label"), MAX_NAME),
        }
    yr = ev.get("y_range")
    if isinstance(yr, Sequence) and not isinstance(yr, str | bytes) and len(yr) == 2:
        lo, hi = _num(yr[0]), _num(yr[1])
        if lo is not None and hi is not None and lo < hi:
            out["y_range"] = [lo, hi]
    return out


def _clean_bars(ev: Mapping[str, Any], out: dict[str, Any]) -> dict[str, Any] | None:
    cats = ev.get("categories")
    if not isinstance(cats, Sequence) or isinstance(cats, str | bytes) or not cats:
        return None
    categories = [_text(c, MAX_NAME) for c in cats[:MAX_CATEGORIES]]
    series = []
    for m in _mapping_list(ev.get("series"), MAX_SERIES):
        vals = m.get("values")
        if not isinstance(vals, Sequence) or isinstance(vals, str | bytes):
            continue
        values = [_num(v) for v in vals[: len(categories)]]
        values += [None] * (len(categories) - len(values))
        if any(v is not None for v in values):
            series.append({"name": _text(m.get("name"), MAX_NAME), "values": values})
    if not series:
        return None
    out["categories"] = categories
    out["series"] = series
    if len(cats) > MAX_CATEGORIES:
        out["title"] = _text(f"{out['title']} (first {MAX_CATEGORIES} of {len(cats)})", MAX_TITLE)
    h = ev.get("highlight")
    if isinstance(h, Mapping) and _text(h.get("category"), MAX_NAME) in categories:
        out["highlight"] = {"category": _text(h.get("category"), MAX_NAME)}
    return out


def clean_evidence(value: object) -> dict[str, Any] | None:
    """`value` as bounded, plain evidence, or None when it is not evidence (any other shape, an
    unknown kind, nothing to draw). A JSON text of evidence is read too."""
    if isinstance(value, str):
        if len(value) > 1_000_000:
            return None
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    if not isinstance(value, Mapping) or value.get("kind") not in KINDS:
        return None
    out: dict[str, Any] = {
        "kind": value["kind"],
        "title": _text(value.get("title"), MAX_TITLE),
        "y_label": _text(value.get("y_label"), MAX_TITLE),
    }
    if value["kind"] == "line":
        return _clean_line(value, out)
    return _clean_bars(value, out)


def _thinned(name: str, x: Iterable[object], y: Iterable[object]) -> dict[str, Any]:
    """A series cut to MAX_POINTS with numpy before the per-point cleaning (a full-resolution
    trace has tens of thousands of points)."""
    xs = _floats(x if isinstance(x, np.ndarray) else list(x))
    ys = _floats(y if isinstance(y, np.ndarray) else list(y))
    size = min(xs.shape[0], ys.shape[0])
    xs, ys = xs[:size], ys[:size]
    keep = np.isfinite(xs)
    xs, ys = xs[keep], ys[keep]
    idx = downsample(ys)
    return {
        "name": name,
        "x": xs[idx].tolist(),
        "y": [None if v != v else v for v in ys[idx].tolist()],
    }


def line_evidence(
    *,
    title: str,
    x_label: str,
    y_label: str,
    series: Iterable[tuple[str, Iterable[object], Iterable[object]]],
    marks: Iterable[tuple[object, str]] = (),
    highlight: tuple[object, object, str] | None = None,
    y_range: tuple[float, float] | None = None,
) -> dict[str, Any] | None:
    """Line evidence from (name, x, y) series, (x, label) marks and an (x, y, label) highlight;
    None when no series has a point."""
    ev: dict[str, Any] = {
        "kind": "line",
        "title": title,
        "x_label": x_label,
        "y_label": y_label,
        "series": [_thinned(n, x, y) for n, x, y in series],
        "marks": [{"x": x, "label": label} for x, label in marks],
    }
    if highlight is not None:
        ev["highlight"] = {"x": highlight[0], "y": highlight[1], "label": highlight[2]}
    if y_range is not None:
        ev["y_range"] = list(y_range)
    return clean_evidence(ev)


def bar_evidence(
    *,
    title: str,
    y_label: str,
    categories: Sequence[object],
    series: Iterable[tuple[str, Iterable[object]]],
    highlight: object = None,
) -> dict[str, Any] | None:
    """Grouped bars: one value per category for each (name, values) series; None when empty."""
    ev: dict[str, Any] = {
        "kind": "bars",
        "title": title,
        "y_label": y_label,
        "categories": [str(c) for c in categories],
        "series": [{"name": n, "values": list(v)} for n, v in series],
    }
    if highlight is not None:
        ev["highlight"] = {"category": str(highlight)}
    return clean_evidence(ev)


def with_evidence(
    snapshot: Mapping[str, Any], evidence: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The snapshot with its evidence under EVIDENCE_KEY (unchanged when there is none)."""
    out = dict(snapshot)
    if evidence:
        out[EVIDENCE_KEY] = dict(evidence)
    return out


def snapshot_figures(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot's key figures, for a table: everything but the evidence."""
    return {k: v for k, v in snapshot.items() if k != EVIDENCE_KEY}
