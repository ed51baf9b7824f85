"""A sweep's runs share what does not depend on the swept value (`analysis.playground.sharing`):
the results are those of runs made one by one, and the shortcuts inside are exact."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.playground import SimSettings, policy_for_method, prepare, simulate, sweep
from analysis.playground.rules import beta_prob, beta_prob_counts
from analysis.playground.sharing import active, shared, sharing
from analysis.playground.synthetic import synthetic_pool
from analysis.playground.voting import checkpoint_votes

METHODS = [
    "dco-stability",
    "sc-stability",
    "sc-consensus",
    "dco-consensus",
    "sc-pp",
    "dco",
    "ac-dirichlet",
    "ac-beta",
    "ac-majority",
    "ac-entropy",
    "esc",
    "sc-mars",
]


@pytest.fixture(scope="module")
def preps() -> list:
    return [prepare(synthetic_pool(q, n=60, seed=8)) for q in range(4)]


@pytest.mark.parametrize("method", METHODS)
def test_a_shared_sweep_is_its_runs_one_by_one(preps: list, method: str) -> None:
    st = SimSettings(budget=48, iterations=12, warmup=8)
    pol = policy_for_method(method)
    runs = []
    got = sweep(preps, pol, None, st, run=lambda p: runs.append(simulate(preps, p, st)) or runs[-1])
    assert len(got) == len(pol.main.values) == len(runs)
    for v, point, run in zip(pol.main.values, got, runs, strict=True):
        alone = simulate(preps, pol.with_main(v), st)  # no sharing outside a sweep
        assert run.results_frame().equals(alone.results_frame()), (method, v)
        assert run.per_question_frame().equals(alone.per_question_frame()), (method, v)
        assert [r.notes for r in run.questions] == [r.notes for r in alone.questions]
        assert point.accuracy_pct == pytest.approx(
            float(np.mean([r.correct.mean() * 100 for r in alone.questions])), abs=0
        )


def test_the_scope_ends_with_the_sweep() -> None:
    assert not active()
    calls = []
    with sharing():
        assert active()
        assert shared("k", lambda: calls.append(1) or 1) == shared("k", lambda: 2) == 1
        with sharing():  # a nested scope is the outer one
            assert shared("k", lambda: 3) == 1
    assert not active() and calls == [1]
    assert shared("k", lambda: 4) == 4  # outside a scope: computed every time


def test_beta_table_is_the_beta_function() -> None:
    rng = np.random.default_rng(2)
    top = rng.integers(0, 700, size=(8, 50))
    second = np.minimum(top, rng.integers(0, 700, size=(8, 50)))
    assert np.array_equal(beta_prob_counts(top, second), beta_prob(top, second))


def test_block_votes_are_the_grid_columns() -> None:
    rng = np.random.default_rng(1)
    g, k, k0, k1 = 4, 9, 3, 7
    gidx = np.arange(k)[None, None, :] * (g + 1) + rng.integers(0, g + 1, size=(5, 11, k))
    gidx = gidx.astype(np.int32)
    mask = rng.random((5, 11, k)) < 0.7
    w = rng.random((5, 11, k))
    for m, ww in ((None, None), (mask, None), (mask, w), (None, w)):
        full = checkpoint_votes(gidx[..., k0:k1], None if m is None else m[..., k0:k1],
                                None if ww is None else ww[..., k0:k1], g, k)  # fmt: skip
        block = checkpoint_votes(gidx[..., k0:k1], None if m is None else m[..., k0:k1],
                                 None if ww is None else ww[..., k0:k1], g, k0=k0)  # fmt: skip
        assert np.array_equal(full[:, k0:k1], block)
