"""Numbers for people have one home: labels, hover text, table cells and captions.

Missing values (None, NaN) print as an en dash; infinities as ∞ / −∞, never as "inf".
"""

from __future__ import annotations

import math

DASH = "–"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun in the right number: "1 case", "2 cases", "1,024 hits"."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


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


def fmt_p(v: object) -> str:
    """A p-value to four decimals, and one below 0.0001 as "< 0.0001" (never "0.0000", which
    reads as impossible)."""
    x = _as_float(v)
    if x is not None and 0 <= x < 0.00005:
        return "< 0.0001"
    return fmt_num(v, ".4f")


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


def fmt_interval(lo: object, hi: object, spec: str = ".1f", unit: str = "") -> str:
    """A 95 % interval as "[61.2, 70.4]" plus `unit`; "–" when an end is missing; never
    "-0.0" (an end that rounds to zero prints unsigned)."""
    ends = [fmt_num(v, spec, inf=DASH) for v in (lo, hi)]
    if DASH in ends:
        return DASH
    ends = [e.lstrip("+-") if float(e) == 0 else e for e in ends]
    return f"[{ends[0]}, {ends[1]}]{unit}"


def fmt_tokens(v: object, digits: int = 0, sign: bool = False) -> str:
    """A token count with its unit ("1,116 tokens", "7.8 tokens", "+295 tokens"); "–" when
    missing; a value that rounds to zero prints without a minus sign."""
    x = _as_float(v)
    if x is None or not math.isfinite(x):
        return DASH
    x = round(x, digits) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0
    return f"{x:{'+' if sign else ''},.{digits}f} tokens"
