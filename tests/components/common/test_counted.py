"""A count with its noun in the right number (the lists, toasts and search counts use it)."""

from __future__ import annotations

import pytest

from components.common.formatting import counted


@pytest.mark.parametrize(
    ("n", "noun", "plural", "said"),
    [
        (1, "case", None, "1 case"),
        (0, "case", None, "0 cases"),
        (2, "hit", None, "2 hits"),
        (12345, "item", None, "12,345 items"),
        (3, "labelled step case", None, "3 labelled step cases"),
        (2, "analysis", "analyses", "2 analyses"),
    ],
)
def test_the_noun_follows_the_count(n: int, noun: str, plural: str | None, said: str) -> None:
    assert counted(n, noun, plural) == said
