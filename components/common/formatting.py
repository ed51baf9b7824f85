"""Numbers for people have one home: labels, hover text, table cells and captions.

Missing values (None, NaN) print as an en dash; infinities as ∞ / −∞, never as "inf".
"""

from __future__ import annotations

import math

DASH = "–"


def _as_float(v: object) -> float | None:
    if v is None or isinstance(v, bool | str):
        return None
    try:
        return float(v)  # type: ignore[arg-type]  # any numeric-like value; failures are caught
    except (TypeError, ValueError):
        return None


def fmt_num(v: object, spec: str = ".2f", *, inf: str | None = None) -> str:
    """`format(v, spec)`; None/NaN -> "–"; ±inf -> "∞"/"−∞" (or `inf` when given, e.g. "–")."""
    x = _as_float(v)
    if x is None or math.isnan(x):
        return DASH
    if math.isinf(x):
        if inf is not None:
            return inf
        return "∞" if x > 0 else "−∞"
    return format(x, spec)


def fmt_quantity(value: float, style: str, sign: bool = False) -> str:
    """A table cell by kind: style "x" speedups as 1.98×, "%" ratios as 95.1% (differences in
    points, "+3.0 pt"), anything else a count as 1,116."""
    x = _as_float(value)
    if x is None or not math.isfinite(x):
        return DASH
    if style == "x":
        return f"{x:+,.2f}×" if sign else f"{x:,.2f}×"
    if style == "%":
        return f"{x * 100:+.1f} pt" if sign else f"{x * 100:.1f}%"
    return f"{x:+,.0f}" if sign else f"{x:,.0f}"


def fmt_kilo(v: object, digits: int = 1) -> str:
    """A token count in thousands (12.3k); "–" when missing."""
    x = _as_float(v)
    if x is None or not math.isfinite(x):
        return DASH
    return f"{x / 1000:.{digits}f}k"
