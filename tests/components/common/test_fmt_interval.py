"""`fmt_interval`: the playground's 95 % intervals as text."""

from __future__ import annotations

from components.common.formatting import fmt_interval


def test_interval_text() -> None:
    assert fmt_interval(61.234, 70.41) == "[61.2, 70.4]"
    assert fmt_interval(61.234, 70.41, unit=" %") == "[61.2, 70.4] %"
    assert fmt_interval(-1.25, 11.0, "+.1f", " pp") == "[-1.2, +11.0] pp"


def test_interval_never_prints_negative_zero_or_none() -> None:
    assert fmt_interval(-0.04, 0.0, "+.1f") == "[0.0, 0.0]"
    assert fmt_interval(-0.0, 3.0) == "[0.0, 3.0]"
    assert fmt_interval(None, 3.0) == "–"
    assert fmt_interval(float("nan"), 3.0) == "–"
    assert fmt_interval(1.0, float("inf")) == "–"
