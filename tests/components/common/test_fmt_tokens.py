"""fmt_tokens: one way to print a token count, with its unit, "–" when undefined, no "-0"."""

from __future__ import annotations

import pytest

from components.common.formatting import fmt_tokens


@pytest.mark.parametrize(
    ("value", "kwargs", "text"),
    [
        (1116.4, {}, "1,116 tokens"),
        (7.84, {"digits": 1}, "7.8 tokens"),
        (295.0, {"sign": True}, "+295 tokens"),
        (-12.6, {"sign": True}, "-13 tokens"),
        (-0.3, {"sign": True}, "+0 tokens"),  # rounds to zero: no minus sign
        (-0.04, {"digits": 1}, "0.0 tokens"),
        (None, {}, "–"),
        (float("nan"), {}, "–"),
        (float("inf"), {}, "–"),
        ("12", {}, "–"),
    ],
)
def test_fmt_tokens(value: object, kwargs: dict, text: str) -> None:
    assert fmt_tokens(value, **kwargs) == text
