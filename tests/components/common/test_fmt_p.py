"""A p-value reads as a p-value: four decimals, and one too small for them as "< 0.0001"."""

from __future__ import annotations

import math

import pytest

from components.common.formatting import DASH, fmt_p


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (0.0015, "0.0015"),
        (0.04999, "0.0500"),
        (0.00005, "0.0001"),
        (0.0000499, "< 0.0001"),
        (2.05e-18, "< 0.0001"),
        (0.0, "< 0.0001"),
        (1.0, "1.0000"),
        (math.nan, DASH),
        (None, DASH),
    ],
)
def test_a_p_value_is_never_shown_as_zero(p: float | None, shown: str) -> None:
    assert fmt_p(p) == shown
