"""A typed trace reference (the FineProofs Trace tab's box): a problem id or its unique start,
then optionally a sample; anything else is a sentence saying what is wrong."""

from __future__ import annotations

import pytest

from analysis.fineproofs.overview import resolve_trace

TRACES = [
    ("73c49ae5d8a1b2c3", 0),
    ("73c49ae5d8a1b2c3", 3),
    ("73c4ffff00001111", 1),
    ("b6c7bc42f2000000", 9),
]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("73c49ae5d8a1b2c3 3", ("73c49ae5d8a1b2c3", 3)),
        ("73c49ae5d8 3", ("73c49ae5d8a1b2c3", 3)),  # the grid's ten characters
        ("73c49ae5d8·s3", ("73c49ae5d8a1b2c3", 3)),  # as the grid labels a row
        ("  73c49ae5d8:3 ", ("73c49ae5d8a1b2c3", 3)),
        ("73c49ae5d8", ("73c49ae5d8a1b2c3", 0)),  # the problem's first sample
        ("b6c7", ("b6c7bc42f2000000", 9)),
    ],
)
def test_a_reference_names_its_trace(text: str, want: tuple[str, int]) -> None:
    assert resolve_trace(text, TRACES) == want


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("73c4 1", "2 problem ids start with “73c4”: type more of it."),
        ("ffff", "No problem id starts with “ffff”."),
        ("73c49ae5d8 5", "Problem 73c49ae5d8a1b2c3 has no sample 5 (its samples: 0, 3)."),
        ("", "Enter a problem id (its start is enough), then a sample number: 73c49ae5d8 3."),
        (
            "<b>x</b> 1",
            "Enter a problem id (its start is enough), then a sample number: 73c49ae5d8 3.",
        ),
    ],
)
def test_anything_else_says_what_is_wrong(text: str, why: str) -> None:
    assert resolve_trace(text, TRACES) == why
