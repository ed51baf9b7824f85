"""MARS view helpers: data notes counted once read in the singular."""

from __future__ import annotations

import pytest

from components.mars_view import singular_note


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "1 final answers are long text spans (kept as their own wrong groups)",
            "1 final answer is a long text span (kept as its own wrong group)",
        ),
        (
            "1 traces with probes out of order (re-sorted); e.g. trace_idx 0",
            "1 trace with probes out of order (re-sorted); e.g. trace_idx 0",
        ),
        (
            "1 duplicate trace_idx rows; the first is kept",
            "1 duplicate trace_idx row; the first is kept",
        ),
        ("1 traces; missing trace_idx 1", "1 trace; missing trace_idx 1"),
        ("3 final answers are long text spans", "3 final answers are long text spans"),
        ("12 traces with empty confs", "12 traces with empty confs"),
        (
            "no trace has a final answer; nothing can vote",
            "no trace has a final answer; nothing can vote",
        ),
        (None, ""),
    ],
)
def test_singular_note(message: object, expected: str) -> None:
    assert singular_note(message) == expected
