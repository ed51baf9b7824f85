"""The Dirichlet criterion's probability (`dirichlet_prob`) is exact up to its quadrature: closed
forms, an exact rational count, independent fine references and a large Monte Carlo agree."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from analysis.playground.rules import (
    beta_prob,
    clear_dirichlet_memo,
    dirichlet_at_least,
    dirichlet_prob,
)

TOL = 1e-9  # the promise; measured errors are near 1e-13


def _exact(counts: tuple[int, ...]) -> Fraction:
    """P(G_0 > max G_i), G_i ~ Gamma(count_i + 1), as a fraction: merge the independent unit
    Poisson processes whose a_i-th arrivals the G_i are; the labels of the merged arrivals are
    uniform, and class 0 wins if it reaches its quota a_0 after every other class reached its."""
    a = [c + 1 for c in counts]
    k = len(a)

    @cache
    def win(state: tuple[int, ...]) -> Fraction:  # state[0] < a[0]; the others capped at a_i
        moving, stay = Fraction(0), 0
        for i in range(k):
            if i == 0:
                if state[0] + 1 == a[0]:
                    moving += int(all(state[j] >= a[j] for j in range(1, k)))
                else:
                    moving += win((state[0] + 1, *state[1:]))
            elif state[i] >= a[i]:
                stay += 1  # this arrival changes nothing
            else:
                moving += win(state[:i] + (state[i] + 1,) + state[i + 1 :])
        return moving / (k - stay)

    return win((0,) * k)


def _fine(counts: tuple[int, ...]) -> float:
    """An independent reference: scipy's regularised incomplete gamma, trapezoid rule on a very
    fine grid in x (spectrally accurate for an integrand this smooth that vanishes at both
    ends)."""
    from scipy.special import gammainc, gammaln

    a = np.asarray(counts, dtype=np.float64) + 1.0
    hi = a[0] + 40.0 * math.sqrt(a[0]) + 80.0
    x = np.linspace(0.0, hi, 60_001)[1:]
    with np.errstate(divide="ignore"):
        f = np.exp((a[0] - 1.0) * np.log(x) - x - gammaln(a[0]))
    g = np.prod([gammainc(ai, x) for ai in a[1:]], axis=0)
    return float(np.sum(f * g) * (x[1] - x[0]))


@pytest.mark.parametrize("a", [0, 1, 2, 5, 17, 100, 511, 1500, 3000])
def test_two_classes_is_the_beta_tail(a: int) -> None:
    for b in sorted({0, 1, a // 3, a // 2, max(0, a - 7), a, a + 3, 2 * a + 1}):
        got = dirichlet_prob((a, b))
        assert got == pytest.approx(float(beta_prob(a, b)), abs=1e-12), (a, b)


@pytest.mark.parametrize("k", range(2, 11))
def test_equal_counts_are_one_over_k(k: int) -> None:
    for c in (0, 1, 4, 63, 512, 2500):
        assert dirichlet_prob((c,) * k) == pytest.approx(1.0 / k, abs=1e-12), (k, c)


@pytest.mark.parametrize(
    "counts",
    [(1, 1, 1), (3, 2, 1), (2, 1, 1, 0), (5, 5, 1), (6, 4, 3, 2), (9, 2, 2, 1, 1), (0, 3, 1)],
)
def test_small_counts_equal_the_exact_fraction(counts: tuple[int, ...]) -> None:
    assert dirichlet_prob(counts) == pytest.approx(float(_exact(counts)), abs=1e-13)


def test_against_a_fine_independent_quadrature() -> None:
    rng = np.random.default_rng(11)
    tuples = [(314, 139, 56, 20, 3), (100, 99, 98, 97), (3000, 2900, 100), (30, 1, 1)]
    tuples += [(2000, 1500, 1400, 1300, 1200, 1100, 1000, 900, 800, 700)]
    for _ in range(10):  # up to 10 classes, counts up to a few thousand, some near-equal
        k, hi = int(rng.integers(3, 11)), int(rng.choice([10, 100, 1000, 4000]))
        tuples.append(tuple(sorted(rng.integers(0, hi, size=k).tolist(), reverse=True)))
        c = int(rng.integers(2, 3000))
        near = c - rng.integers(0, 1 + c // 20, size=int(rng.integers(3, 11)))
        tuples.append(tuple(sorted(near.tolist(), reverse=True)))
    for t in tuples:
        assert abs(dirichlet_prob(t) - _fine(t)) < TOL, t


def test_against_mpmath_at_high_precision() -> None:
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 20
    for counts in [(10, 3, 2), (40, 38, 35, 30, 20)]:
        a = [c + 1 for c in counts]

        def integrand(x, a=a):  # type: ignore[no-untyped-def]
            v = mp.exp((a[0] - 1) * mp.log(x) - x - mp.loggamma(a[0]))
            for ai in a[1:]:
                v *= mp.gammainc(ai, 0, x, regularized=True)
            return v

        s = math.sqrt(a[0])
        cuts = [0, *(a[0] + j * s for j in range(-8, 10, 2) if a[0] + j * s > 0), mp.inf]
        assert abs(dirichlet_prob(counts) - float(mp.quad(integrand, cuts))) < 1e-12, counts


def test_a_large_monte_carlo_agrees_within_its_error() -> None:
    rng = np.random.default_rng(4)
    n = 1_000_000
    for counts in [(12, 9, 7, 3), (40, 35, 30, 30, 5), (8, 8, 7)]:
        x = rng.gamma(np.asarray(counts, dtype=np.float64) + 1.0, size=(n, len(counts)))
        est = float(np.mean(x[:, 0] > x[:, 1:].max(axis=1)))
        se = math.sqrt(est * (1 - est) / n)
        assert abs(dirichlet_prob(counts) - est) < 5 * se, (counts, est)


def test_a_probability_a_hair_below_one_keeps_its_complement() -> None:
    # 1 - P is integrated directly: P(Gamma(31) < Gamma(2)) is P(class 0 has >= 31 of the
    # first 32 merged arrivals) = P(Bin(32, 1/2) >= 31) exactly
    q = 33 / 2**32
    assert 1.0 - dirichlet_prob((30, 1)) == pytest.approx(q, rel=1e-9)
    assert not dirichlet_at_least((30, 1, 1), 1.0)  # 1 - P ~ 3e-8: not 1 in floating point
    assert dirichlet_at_least((400, 3, 2, 1), 1.0)  # 1 - P far below the float's resolution
    # a small probability is exact in absolute terms (true value ~2^-401)
    assert dirichlet_prob((0, 400, 3)) < 1e-15


def test_decisions_and_memo() -> None:
    clear_dirichlet_memo()
    t = (9, 4, 4, 2)
    p = dirichlet_prob(t)
    for thr in (0.0, p - 1e-12, p, p + 1e-12, 0.5, 0.95, 1.0):
        assert dirichlet_at_least(t, thr) == (p >= thr)
    clear_dirichlet_memo()
    assert dirichlet_prob(t) == p  # deterministic: the same number after a cold start
    assert dirichlet_prob((7,)) == 1.0
