"""The phrase a search hit's link marks: what a URL may carry as `hl`, and the keys a hit adds."""

from __future__ import annotations

import pytest

from components.common.search_marks import MAX_PHRASE, mark_pairs, phrase


@pytest.mark.parametrize(
    "text", ["double-check", "Wait,\nlet me", "a\tb", "𝔽 <b>x</b> é", "x" * MAX_PHRASE]
)
def test_a_hits_text_is_a_phrase(text: str) -> None:
    assert phrase(text) == text
    assert mark_pairs(text, False) == {"hl": text}
    assert mark_pairs(text, True) == {"hl": text, "hlcs": "1"}


@pytest.mark.parametrize("text", ["", "   ", "\n", "x" * (MAX_PHRASE + 1), "a\x00b", "a\x1bb"])
def test_blank_long_or_control_text_is_no_phrase(text: str) -> None:
    with pytest.raises(ValueError):
        phrase(text)
    assert mark_pairs(text, True) == {}
