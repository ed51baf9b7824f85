"""When McNemar's p and the paired interval disagree, the comparison says which to read."""

from __future__ import annotations

import math

import pytest

from components.playground.policy_compare import disagreement_note


@pytest.mark.parametrize(
    ("lo", "hi", "p", "says"),
    [
        (-12.2, 0.2, 2.05e-18, True),  # the interval holds 0, the p is tiny: say so
        (-12.2, -0.2, 2.05e-18, False),  # both say real
        (-1.0, 1.0, 0.4, False),  # both say not shown
        (0.0, 3.0, 0.01, True),  # 0 on the interval's edge is held by it
        (-1.0, 1.0, math.nan, False),  # no test: nothing to reconcile
    ],
)
def test_a_note_only_when_the_p_value_and_the_interval_disagree(
    lo: float, hi: float, p: float, says: bool
) -> None:
    note = disagreement_note(lo, hi, p)
    assert (note is not None) == says
    if note:
        assert "Read the interval" in note and "independent" in note


def test_the_note_writes_the_p_value_as_the_figure_does() -> None:
    """Regression (a walk): the figure read 0.000977 and the note beside it 0.00098."""
    from components.common.formatting import fmt_num
    from components.playground.policy_compare import P_SPEC

    note = disagreement_note(-1.0, 3.0, 2 * 0.5**11)
    assert note is not None and "(0.000977)" in note and fmt_num(2 * 0.5**11, P_SPEC) == "0.000977"
