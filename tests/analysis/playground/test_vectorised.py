"""The vectorised engine equals the plain per-iteration loop on random pools, for every policy."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.playground import ALL_METHODS, SimSettings, policy_for_method, prepare, simulate
from analysis.playground.engine import simulate_question
from analysis.playground.reference_loop import reference_question, reference_simulate
from analysis.playground.synthetic import synthetic_pool

FIELDS = ("answers", "tokens", "baseline", "position", "stop_index")


@pytest.fixture(scope="module")
def preps():
    # varied shapes: small pools (< warmup), many groups, short traces, several seeds
    pools = [
        synthetic_pool(0, n=120, seed=1),
        synthetic_pool(1, n=10, seed=2),
        synthetic_pool(2, n=200, seed=3, n_groups=12, null_share=0.3),
        synthetic_pool(3, n=60, seed=4, median_len=3000),
    ]
    return [prepare(p) for p in pools]


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize(
    "settings", [SimSettings(48, 6, 16, 2048, 42), SimSettings(7, 3, 4, 2048, 1)]
)
def test_engine_equals_reference_loop(preps, method: str, settings: SimSettings) -> None:
    kw = {"warmup_gamma": True, "ucb_z": 1.0} if method.endswith("-cal") else {}
    policy = policy_for_method(method, **kw)
    for prep in preps:
        fast = simulate_question(prep, policy, settings)
        slow = reference_question(prep, policy, settings)
        for f in FIELDS:
            assert np.array_equal(getattr(fast, f), getattr(slow, f)), (method, prep.qid, f)
        assert list(fast.stopped_by) == list(slow.stopped_by)
        assert fast.gamma == slow.gamma


def test_frames_agree(preps) -> None:
    policy = policy_for_method("sc-pp")
    st = SimSettings(32, 4)
    a = simulate(preps, policy, st).per_question_frame()
    b = reference_simulate(preps, policy, st).per_question_frame()
    assert a.equals(b)


def test_cached_q_and_calibration_do_not_change_results(preps) -> None:
    policy = policy_for_method("dco-mars-cal", warmup_gamma=True, ucb_z=1.0)
    st = SimSettings(32, 4)
    first = [simulate_question(p, policy, st) for p in preps]
    second = [simulate_question(p, policy, st) for p in preps]  # now from prep.cache
    for a, b in zip(first, second, strict=True):
        assert np.array_equal(a.answers, b.answers) and np.array_equal(a.tokens, b.tokens)


def test_deepconf_offline_votes_equal_loop(preps) -> None:
    policy = policy_for_method("offline")
    st = SimSettings(40, 5)
    for prep in preps:
        fast = simulate_question(prep, policy, st).extra_votes
        slow = reference_question(prep, policy, st).extra_votes
        assert fast.keys() == slow.keys() and len(fast) == 7
        for name in fast:
            assert np.array_equal(fast[name], slow[name]), name
