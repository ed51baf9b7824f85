"""The playground's 95 % intervals: two-level bootstrap (questions, then iterations) and the
paired comparison with SC, checked against an independent loop-by-loop bootstrap."""

from __future__ import annotations

import numpy as np

from analysis.playground import SelfConsistency, SimSettings, point_of, prepare, simulate
from analysis.playground.synthetic import hand_pool
from analysis.playground.uncertainty import (
    CHUNK,
    Interval,
    bootstrap_interval,
    paired_comparison,
)


def _independent(values: list[np.ndarray], b: int, seed: int) -> tuple[float, float]:
    """The documented resampling, written as plain loops: per replicate, draw questions with
    replacement, then each drawn question's iterations with replacement; mean of means."""
    q = len(values)
    width = max(v.size for v in values)
    reps = []
    for c, start in enumerate(range(0, b, CHUNK)):
        n_c = min(CHUNK, b - start)
        rng = np.random.default_rng([seed, c])
        qi = rng.integers(0, q, size=(n_c, q))
        u = rng.random((n_c, q, width))
        for r in range(n_c):
            means = []
            for slot in range(q):
                v = values[int(qi[r, slot])]
                picks = [min(int(u[r, slot, j] * v.size), v.size - 1) for j in range(v.size)]
                means.append(sum(float(v[p]) for p in picks) / v.size)
            reps.append(sum(means) / q)
    lo, hi = np.percentile(np.array(reps), [2.5, 97.5])
    return float(lo), float(hi)


def test_interval_equals_an_independent_bootstrap_with_the_same_seed() -> None:
    rng = np.random.default_rng(7)
    # ragged on purpose: one question with 3 iterations, the others 5
    values = [(rng.random(5) < p) * 100.0 for p in (0.2, 0.5, 0.9, 0.6)]
    values.append(np.array([100.0, 0.0, 100.0]))
    iv = bootstrap_interval(values, b=250, seed=3)
    lo, hi = _independent(values, 250, 3)
    assert iv.lo == lo and iv.hi == hi
    assert iv.estimate == np.mean([v.mean() for v in values])
    assert (iv.n_questions, iv.n_iterations, iv.b, iv.seed) == (5, 5, 250, 3)
    assert bootstrap_interval(values, b=250, seed=4) != iv  # the seed matters


def test_interval_is_close_to_the_normal_approximation_on_many_questions() -> None:
    # 200 questions, 1 iteration each: the two-level bootstrap is the plain bootstrap of the
    # question means, whose 95 % interval is about mean +- 1.96 SE
    rng = np.random.default_rng(11)
    x = (rng.random(200) < 0.6) * 100.0
    iv = bootstrap_interval([np.array([v]) for v in x], b=2000)
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert abs(iv.lo - (x.mean() - 1.96 * se)) < 0.25 * se
    assert abs(iv.hi - (x.mean() + 1.96 * se)) < 0.25 * se


def test_constant_values_give_a_zero_width_interval_and_empty_input_nan() -> None:
    iv = bootstrap_interval([np.full(4, 50.0), np.full(2, 50.0)])
    assert (iv.estimate, iv.lo, iv.hi) == (50.0, 50.0, 50.0)
    empty = bootstrap_interval([np.zeros(0)])
    assert empty.n_questions == 0 and np.isnan(empty.lo) and empty.covers_zero


def test_paired_difference_counts_wins_losses_ties_and_is_exact_when_paired() -> None:
    pol = {1: np.array([100.0, 100, 0, 100]), 2: np.array([0.0, 0]), 3: np.array([100.0])}
    sc = {1: np.array([0.0, 100, 0, 100]), 2: np.array([100.0, 0]), 3: np.array([100.0])}
    cmp = paired_comparison(pol, sc, b=200, seed=0)
    assert (cmp.wins, cmp.losses, cmp.ties) == (1, 1, 1)
    # mean over questions of (25, -50, 0) pp
    assert cmp.diff.estimate == (25.0 - 50.0 + 0.0) / 3
    assert cmp.diff.lo <= cmp.diff.estimate <= cmp.diff.hi
    assert cmp.diff.covers_zero  # -50 .. +25 per question: no clear sign
    # identical runs: a difference of exactly 0 with a zero-width interval, every question a tie
    same = paired_comparison(sc, sc, b=50)
    assert (same.diff.lo, same.diff.hi, same.ties) == (0.0, 0.0, 3)
    # a question SC lacks, or with other iterations, is left out
    odd = paired_comparison({**pol, 4: np.ones(2)}, {**sc, 1: np.ones(3)}, b=50)
    assert odd.diff.n_questions == 2


def test_clear_gain_does_not_cover_zero() -> None:
    pol = {q: np.full(8, 100.0) for q in range(10)}
    sc = {q: np.array([100.0, 0, 0, 0, 0, 0, 0, 0]) for q in range(10)}
    cmp = paired_comparison(pol, sc, b=300)
    assert cmp.diff.estimate == 87.5 and cmp.diff.lo > 0 and not cmp.diff.covers_zero
    assert cmp.wins == 10


def test_frontier_point_carries_the_run_intervals() -> None:
    pool = hand_pool(final=[0, 1, 0, 0], groups=[[0], [1], [0], [0]], lengths=[100] * 4)
    run = simulate([prepare(pool)], SelfConsistency(), SimSettings(4, 6, 2, 2048, 42))
    pt = point_of(run)
    acc = run.accuracy_interval
    assert isinstance(acc, Interval) and acc.n_iterations == 6 and acc.n_questions == 1
    assert pt.accuracy_ci == (acc.lo, acc.hi)
    assert pt.accuracy_pct == acc.estimate
    assert pt.savings_ci == (0.0, 0.0)  # SC never stops early: 0 % savings in every iteration
