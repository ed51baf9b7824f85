"""The 1x vs 8x table's change cell says which way the latency moved, in words that hold: a
critical-path ratio under 1 is shown with the speed-up it means."""

from __future__ import annotations

import pytest

from analysis.parason.pairs import PairRow, latency_verdict
from components.parason.pairs_view import change_text


@pytest.mark.parametrize(
    ("ratio", "shown"),
    [
        (0.84, "0.84× (1.19× faster)"),
        (0.5, "0.50× (2.00× faster)"),
        (1.87, "1.87× slower"),
        (1.0, "1.00× same"),
        (None, "–"),
    ],
)
def test_a_latency_ratio_reads_the_right_way(ratio: float | None, shown: str) -> None:
    row = PairRow("critical path C (latency)", 100, 100, "tokens", ratio, "ratio",
                  latency_verdict(ratio))  # fmt: skip
    assert change_text(row) == shown
