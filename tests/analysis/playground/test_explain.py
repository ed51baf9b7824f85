"""The replay's threshold parts: they add up to the binding check the rule drew."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.playground import Mars, SimSettings, prepare, replay
from analysis.playground.explain import threshold_parts
from analysis.playground.mars import margin_rule
from analysis.playground.result import Diagnostics
from analysis.playground.synthetic import hand_pool

ST = SimSettings(budget=8, iterations=6, warmup=16, seed=3)


def _diag(votes: list[float], qg: list[float], s_all: float, gamma: float, guard: int = -1):
    v = np.array([[votes]])  # [I=1, K=1, G]
    q = np.array([[qg]])
    lead = np.array([[int(np.argmax(votes))]])
    _f, _l, margin, thr = margin_rule(v[0], q[0], np.array([s_all]), gamma)
    d = Diagnostics(
        np.array([2048]),
        v,
        lead,
        np.array([[True]]),
        np.array([[False]]),
        None,
        np.array([[3]]),
        margin[None],
        thr[None],
        None,
        q,
        np.array([[s_all]]),
        gamma,
        guard,
    )
    return d


def test_runner_up_binds_and_the_parts_add_up() -> None:
    # V = [3, 2], S = [0.2, 0.1], S_all = 0.3, gamma = 3: T0 = 3 * 0.5 = 1.5 (slack 1.5);
    # against answer 1: margin 1, threshold 1.5 - 4 * 0.1 = 1.1 (slack -0.1): it binds
    d = _diag([3.0, 2.0], [0.2, 0.1], 0.3, 3.0)
    p = threshold_parts(d, 0)
    assert p is not None
    assert (p.leader, p.runner_up, p.v_leader, p.v_runner_up) == (0, 1, 3.0, 2.0)
    assert (p.s_all, p.s_leader, p.s_runner_up, p.gamma) == (0.3, 0.2, 0.1, 3.0)
    assert p.margin == 1.0 and p.threshold == pytest.approx(1.1)
    assert p.margin == d.margin[0, 0] and p.threshold == d.threshold[0, 0]
    assert p.threshold == p.gamma * (p.s_all + p.s_leader) - (1 + p.gamma) * p.s_runner_up


def test_no_vote_challenger_binds_when_the_leader_is_alone() -> None:
    # only the leader has votes: the check is V_L > gamma (S_all + S_L) = 0.5 * (1.5 + 1.5)
    d = _diag([4.0, 0.0], [1.5, 0.0], 1.5, 0.5, guard=1)
    p = threshold_parts(d, 0)
    assert p is not None and p.runner_up is None
    assert (p.margin, p.threshold) == (4.0, 1.5)
    assert p.guard == 1 and p.guard_blocks  # leader 0 is not the warmup majority 1


def test_replay_diagnostics_carry_gamma_q_sums_and_guard() -> None:
    prep = prepare(hand_pool(final=[0, 0], groups=[[1, 0, 0], [1, 0, 0]], lengths=[9000, 9000]))
    prep.cache[("q", ST.warmup)] = (np.zeros((2, 3), dtype=np.float32), object())
    res, diag = replay(prep, Mars(gamma=0.7), ST, 0)
    assert diag is not None and diag.gamma == 0.7 and diag.guard == 0
    first = threshold_parts(diag, 0)
    assert first is not None and first.leader == 1 and first.guard_blocks  # placeholder leads
    second = threshold_parts(diag, 1)
    assert second is not None and not second.guard_blocks and second.s_all == 0.0
    assert int(res.stop_index[0]) == 1  # stopped where the guard no longer blocks
