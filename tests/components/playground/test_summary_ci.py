"""The headline's difference with SC: coloured only when its paired interval excludes 0."""

from __future__ import annotations

import numpy as np

from analysis.playground import SelfConsistency, SimSettings, prepare, simulate
from analysis.playground.synthetic import hand_pool
from analysis.playground.uncertainty import Interval
from components.playground.summary import delta_color, untruncated_savings


def _iv(lo: float, hi: float) -> Interval:
    return Interval((lo + hi) / 2, lo, hi, 30, 8, 1000, 0)


def test_a_difference_covering_zero_is_grey() -> None:
    assert delta_color(_iv(0.0, 13.3)) == "off"  # lower end exactly 0: no clear win
    assert delta_color(_iv(-2.0, 5.0)) == "off"
    assert delta_color(_iv(0.5, 13.3)) == "normal"
    assert delta_color(_iv(-9.0, -0.1)) == "normal"
    assert delta_color(_iv(float("nan"), float("nan"))) == "off"


def test_same_run_against_itself_is_a_zero_difference_all_ties() -> None:
    pool = hand_pool(final=[0, 1, 0, 0], groups=[[0], [1], [0], [0]], lengths=[100] * 4)
    run = simulate([prepare(pool)], SelfConsistency(), SimSettings(4, 5, 2, 2048, 42))
    cmp = run.paired_with(run)
    assert (cmp.wins, cmp.losses, cmp.ties) == (0, 0, 1)
    assert (cmp.diff.estimate, cmp.diff.lo, cmp.diff.hi) == (0.0, 0.0, 0.0)
    per_q = untruncated_savings(run, run)
    assert per_q is not None and np.array_equal(per_q[0], np.zeros(5))  # SC saves nothing
