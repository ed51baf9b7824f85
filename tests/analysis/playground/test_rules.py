"""Each stopping rule on small hand-built pools whose answers were computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.playground import (
    ALL_METHODS,
    DCO,
    AdaptiveConsistency,
    Consensus,
    DeepConfOnline,
    EarlyStoppingSC,
    Mars,
    ParallelProbe,
    ProbeStability,
    SelfConsistency,
    SimSettings,
    policy_for_method,
    prepare,
    simulate_question,
)
from analysis.playground.bootstrap import bootstrap_rows
from analysis.playground.mars import calibrate_gamma, margin_rule
from analysis.playground.synthetic import hand_pool

ST = SimSettings(budget=8, iterations=6, warmup=16, seed=3)
W = 2048


def _all_policies():
    out = []
    for m in ALL_METHODS:
        kw = {"warmup_gamma": True, "ucb_z": 1.0} if m.endswith("-cal") else {}
        out.append(policy_for_method(m, **kw))
    return out


# ------------------------------------------------------------------ bad input never raises


@pytest.mark.parametrize("policy", _all_policies(), ids=lambda p: p.method)
def test_all_null_question(policy) -> None:
    prep = prepare(hand_pool(final=[-1, -1, -1], groups=[[1, 0]] * 3))
    res = simulate_question(prep, policy, ST)
    assert res.answers.tolist() == [-1] * 6
    assert not res.correct.any() and res.tokens.sum() == 0
    assert any("no trace has a final answer" in n.message for n in res.notes)


@pytest.mark.parametrize("policy", _all_policies(), ids=lambda p: p.method)
def test_empty_grid_votes_final_answers(policy) -> None:
    # every trace shorter than one window: no checkpoint, nothing can stop early
    prep = prepare(hand_pool(final=[0, 0, 1], groups=None, grid=[], lengths=[900, 1000, 1100]))
    res = simulate_question(prep, policy, ST)
    rows = bootstrap_rows(3, ST.budget, ST.iterations, ST.seed, 0)
    if isinstance(policy, EarlyStoppingSC | AdaptiveConsistency):
        assert (res.tokens <= prep.lengths[rows].sum(axis=1)).all()
        return
    assert (res.stopped_by == "budget").all() and (res.position == 0).all()
    assert np.array_equal(res.tokens, prep.lengths[rows].sum(axis=1))
    expect = [int(np.argmax(np.bincount(prep.final[r], minlength=2))) for r in rows]
    if not getattr(policy, "voting", None) or not policy.voting.weighted:
        assert res.answers.tolist() == expect
    assert any("empty checkpoint grid" in n.message for n in res.notes)


@pytest.mark.parametrize("policy", _all_policies(), ids=lambda p: p.method)
def test_nan_confidences_do_not_raise(policy) -> None:
    conf = [[np.nan, 10.0, 10.0], [10.0, 10.0, 10.0], [10.0, 10.0, 10.0]]
    prep = prepare(hand_pool(final=[0, 0, 1], groups=[[0, 0, 0], [0, 0, 0], [1, 1, 1]], conf=conf))
    res = simulate_question(prep, policy, ST)
    assert res.answers.shape == (6,)
    assert any("non-finite" in n.message for n in res.notes)


def test_nan_q_blocks_every_mars_stop() -> None:
    # q-model features are NaN for every pool row once one conf is NaN (standardisation mean)
    conf = [[np.nan, 10.0], [10.0, 10.0], [10.0, 10.0]]
    prep = prepare(hand_pool(final=[0, 0, 0], groups=[[0, 0]] * 3, conf=conf))
    res = simulate_question(prep, Mars(), ST)
    assert (res.stopped_by == "budget").all()
    assert res.answers.tolist() == [0] * 6


def test_no_votes_anywhere_runs_to_budget() -> None:
    prep = prepare(hand_pool(final=[1, 0, 1], groups=[[-1, -1]] * 3, lengths=[9000, 9000, 9000]))
    for policy in (
        Mars(),
        Consensus(tau=0.5),
        ProbeStability(k=1),
        ParallelProbe(conv=1, warmup=0),
    ):
        res = simulate_question(prep, policy, ST)
        assert (res.stopped_by == "budget").all(), policy
        assert (res.position == 2 * W).all()
        assert (res.tokens == 8 * 9000).all()


# ------------------------------------------------------------------ ties and hand-computed votes


def test_ties_go_to_the_lowest_group_id() -> None:
    # type A answers 1, type B answers 0, at both checkpoints and at the end
    prep = prepare(hand_pool(final=[1, 0], groups=[[1, 1], [0, 0]]))
    st = SimSettings(budget=4, iterations=16, seed=1)
    rows = bootstrap_rows(2, 4, 16, 1, 0)
    n_a = (rows == 0).sum(axis=1)  # row 0 is the type-A trace
    sc = simulate_question(prep, SelfConsistency(), st)
    expect = np.where(n_a > 2, 1, 0)  # 2-2 tie -> group 0
    assert np.array_equal(sc.answers, expect)
    assert (n_a == 2).any()  # the seed does produce ties
    cons = simulate_question(prep, Consensus(tau=0.5), st)  # fires at once, leader = argmax
    assert (cons.stop_index == 0).all() and np.array_equal(cons.answers, expect)


def test_consensus_tau_by_hand() -> None:
    prep = prepare(hand_pool(final=[1, 0], groups=[[1, 1, 1], [0, 0, 0]], lengths=[7000, 7000]))
    st = SimSettings(budget=8, iterations=20, seed=11)
    rows = bootstrap_rows(2, 8, 20, 11, 0)
    n_a = (rows == 0).sum(axis=1)
    res = simulate_question(prep, Consensus(tau=0.75), st)
    fires = np.maximum(n_a, 8 - n_a) >= 6
    assert np.array_equal(res.stopped_by == "consensus", fires)
    assert (res.position[fires] == W).all() and (res.tokens[fires] == 8 * W).all()
    assert (res.tokens[~fires] == 8 * 7000).all()


def test_probe_stability_by_hand() -> None:
    # leader: 2, 2, 1, 1, 1 -> with k=3 stops at checkpoint index 4
    g = [[2, 2, 1, 1, 1]]
    prep = prepare(hand_pool(final=[1], groups=g, lengths=[20000]))
    res = simulate_question(prep, ProbeStability(k=3), ST)
    assert (res.stop_index == 4).all() and (res.position == 5 * W).all()
    assert {res.answer_text(i) for i in range(6)} == {"a1"} and (res.tokens == 8 * 5 * W).all()
    res2 = simulate_question(prep, ProbeStability(k=2), ST)
    assert (res2.stop_index == 1).all() and {res2.answer_text(i) for i in range(6)} == {"a2"}


def test_parallel_probe_by_hand() -> None:
    # all traces agree from the start: stable 1,2,3,4,5 but no stop before index 4 (warmup)
    prep = prepare(hand_pool(final=[0], groups=[[0] * 8], lengths=[40000]))
    res = simulate_question(prep, ParallelProbe(), ST)
    assert (res.stop_index == 4).all() and (res.stopped_by == "pp_consensus").all()
    assert (res.answers == 0).all()
    # winner switches to 1 at index 4: stable 1,2,3 at indices 4,5,6 -> stop at 6
    prep2 = prepare(hand_pool(final=[1], groups=[[0, 0, 0, 0, 1, 1, 1, 1]], lengths=[40000]))
    res2 = simulate_question(prep2, ParallelProbe(), ST)
    assert (res2.stop_index == 6).all() and (res2.answers == 1).all()


def test_parallel_probe_prunes_dissenters_but_reports_unpruned_vote() -> None:
    # 2 traces (type A answers 0 then switches to 1 at index 4; type B answers 1 throughout)
    groups = [[0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1]]
    prep = prepare(hand_pool(final=[0, 1], groups=groups, lengths=[40000, 40000]))
    st = SimSettings(budget=6, iterations=12, seed=5)
    rows = bootstrap_rows(2, 6, 12, 5, 0)
    res = simulate_question(prep, ParallelProbe(), st)
    n_a = (rows == 0).sum(axis=1)
    # winner constant (majority type, 3-3 tie -> 0): stop at index 4 with the unpruned leader
    assert (res.stop_index == 4).all()
    assert np.array_equal(res.answers, np.where(6 - n_a > n_a, 1, 0))


# ------------------------------------------------------------------ MARS


def test_margin_rule_by_hand() -> None:
    votes = np.array([[5.0, 2.0, 0.0]])
    qg = np.array([[0.5, 1.0, 0.0]])
    s_all = np.array([1.5])
    # worst case: 5 > 1*(1.5 + 0.5) = 2; challenger 1: 3 > 2 - 2*1 = 0 -> fires
    fires, lead, margin, thr = margin_rule(votes, qg, s_all, 1.0)
    assert fires[0] and lead[0] == 0
    # strict comparison: V_L equal to the worst-case threshold does not fire
    fires, *_ = margin_rule(
        np.array([[2.0, 0.0, 0.0]]), np.array([[0.5, 0.0, 0.0]]), np.array([1.5]), 1.0
    )
    assert not fires[0]
    # challenger binding: V=[3,2], Q=[0.2,0.1], S_all=0.3, gamma=1: T0 = 0.5 < 3;
    # challenger: 1 > 0.5 - 2*0.1 = 0.3 fires; with gamma=3: T0 = 1.5, rhs = 1.5 - 0.4 = 1.1 > 1
    v, q, s = np.array([[3.0, 2.0]]), np.array([[0.2, 0.1]]), np.array([0.3])
    assert margin_rule(v, q, s, 1.0)[0][0]
    fires, _l, margin, thr = margin_rule(v, q, s, 3.0)
    assert not fires[0] and margin[0] == 1.0 and thr[0] == pytest.approx(1.1)
    # no votes never fires; NaN threshold never fires
    assert not margin_rule(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros(1), 1.0)[0][0]
    assert not margin_rule(v, q, np.array([np.nan]), 1.0)[0][0]


def test_mars_with_injected_q_and_first_checkpoint_guard() -> None:
    # all traces answer 1 at checkpoint 0 (placeholder) and 0 later; finals 0.
    prep = prepare(hand_pool(final=[0, 0], groups=[[1, 0, 0], [1, 0, 0]], lengths=[9000, 9000]))
    prep.cache[("q", ST.warmup)] = (np.zeros((2, 3), dtype=np.float32), object())
    res = simulate_question(prep, Mars(), ST)
    # q = 0: the rule holds at index 0, but the guard needs the warmup majority final (0)
    assert (res.stop_index == 1).all() and (res.answers == 0).all()
    res_ng = simulate_question(prep, Mars(first_checkpoint_guard=False), ST)
    assert (res_ng.stop_index == 0).all() and (res_ng.answers == 1).all()
    # q = 1 everywhere: V_L = 8 > gamma * 2 * 8 never holds for gamma = 1 -> budget
    prep.cache[("q", ST.warmup)] = (np.ones((2, 3), dtype=np.float32), object())
    assert (simulate_question(prep, Mars(), ST).stopped_by == "budget").all()
    # gamma 0.4: 8 > 6.4 -> stops at index 1 (guard blocks index 0)
    assert (simulate_question(prep, Mars(gamma=0.4), ST).stop_index == 1).all()


def test_mars_learned_q_stops_when_answers_never_switch() -> None:
    prep = prepare(hand_pool(final=[0] * 4, groups=[[0, 0, 0]] * 4, lengths=[9000] * 4))
    res = simulate_question(prep, Mars(), ST)
    assert (res.stop_index == 0).all() and (res.tokens == 8 * W).all()
    assert np.allclose(res.savings, 1 - W / 9000)


# ------------------------------------------------------------------ gamma calibration


def _cal(groups, final, z=0.0, gmin=0.5):
    g = np.asarray(groups, dtype=np.int32)
    f = np.asarray(final, dtype=np.int32)
    q = (g != f[:, None]).astype(np.float32)
    return calibrate_gamma(g, q, None, g >= 0, f, 3, z, gmin)


def test_calibration_band_by_hand() -> None:
    # checkpoint 0: answers [1,1,1,0], finals 0 -> oracle q [1,1,1,0]
    # worst case 3 > 6*gamma and challenger 2 > 6*gamma: fires with the wrong answer for gamma <= 0.3
    groups = [[1, 0], [1, 0], [1, 0], [0, 0]]
    cal = _cal(groups, [0, 0, 0, 0], gmin=0.0)
    assert cal.answers[0.3] == 1 and cal.answers[0.4] == 0 and cal.answers[1.0] == 0
    assert cal.gamma_band == 0.4 and cal.gamma == 0.4
    assert _cal(groups, [0, 0, 0, 0]).gamma == 0.5  # floor gamma_min
    ucb = _cal(groups, [0, 0, 0, 0], z=1.0)  # n_elig at gamma=1's stop (index 1) = 4
    assert ucb.n_elig == 4 and ucb.gamma == 0.9


def test_calibration_all_agree_and_never_fires() -> None:
    cal = _cal([[0, 0]] * 4, [0] * 4, gmin=0.0)
    assert cal.gamma_band == 0.0 and cal.gamma == 0.0
    assert _cal([[0, 0]] * 16, [0] * 16, z=1.0, gmin=0.0).gamma == 0.25  # 0 + 1/sqrt(16)
    # every trace switches (q = 1): V = [2, 0, 2], leader 0 (tie); worst case 2 > 6 gamma and
    # challenger 0 > 4 gamma - 2: fires (answer 0) only for gamma <= 0.3; above, the rule never
    # fires and the answer is the vote of the finals [1, 1, 1, 0] = 1 at the last index
    never = _cal([[0, 0], [0, 0], [2, 2], [2, 2]], [1, 1, 1, 0], gmin=0.0)
    assert never.answers[0.3] == 0 and never.stop_index[0.3] == 0
    assert never.answers[0.4] == 1 and never.answers[1.0] == 1 and never.stop_index[1.0] == 1
    assert never.gamma == 0.4


def test_calibration_needs_four_warmup_traces() -> None:
    prep = prepare(hand_pool(final=[0, 0, 1], groups=[[0, 0], [0, 0], [1, 1]]))
    res = simulate_question(prep, Mars(calibrate=True, calibration_q="oracle", gamma=0.7), ST)
    assert res.gamma == 1.0
    assert any("calibration needs 4" in n.message for n in res.notes)


def test_calibration_conf_weights_use_float32_like_published() -> None:
    g = np.array([[1, 0], [1, 0], [1, 0], [0, 0]], dtype=np.int32)
    f = np.zeros(4, dtype=np.int32)
    q = (g != f[:, None]).astype(np.float32)
    w = np.full((4, 2), 0.5, dtype=np.float32)
    cal = calibrate_gamma(g, q, w, g >= 0, f, 2, 0.0, 0.0)
    assert cal.gamma_band == 0.4  # same geometry, weights scale both sides


# ------------------------------------------------------------------ DeepConf truncation


def _dco_pool():
    # type A: min_group 9.0 (lows at windows 0, 50); type B: min_group 7.0 (windows 0, 10, 500)
    lows = [[(0, 9.5), (50, 9.0)], [(0, 9.5), (10, 8.0), (500, 7.0)]]
    return prepare(
        hand_pool(final=[0, 1], groups=[[0, 0], [1, 1]], lengths=[6000, 6000], lows=lows)
    )


def test_truncation_lookup_by_hand() -> None:
    prep = _dco_pool()
    rows = np.array([[0, 1]])
    t = lambda thr: prep.truncation(rows, np.array([thr]))[0].tolist()  # noqa: E731
    assert t(9.0) == [6000, 10 + W]  # 9.0 is not < 9.0
    assert t(8.0) == [6000, 500 + W]
    assert t(7.0) == [6000, 6000]
    assert t(9.6) == [W, W]
    assert t(float("nan")) == [6000, 6000]


def test_dco_threshold_and_tokens_by_hand() -> None:
    prep = _dco_pool()
    st = SimSettings(budget=20, iterations=10, warmup=16, seed=9)
    rows = bootstrap_rows(2, 20, 10, 9, 0)
    res = simulate_question(prep, DeepConfOnline(), st)
    for i in range(10):
        m_a = int((rows[i, :16] == 0).sum())
        thr = 9.0 if m_a >= 3 else (8.0 if m_a == 2 else 7.0)  # 90th pct of 16 values in {7, 9}
        trunc_b = {9.0: 10 + W, 8.0: 500 + W, 7.0: 6000}[thr]
        n_b = int((rows[i] == 1).sum())
        assert res.baseline[i] == (20 - n_b) * 6000 + n_b * trunc_b
        assert res.tokens[i] == res.baseline[i]


def test_dco_weighted_final_vote() -> None:
    # type A answers 0 with conf 1.0, type B answers 1 with conf 3.0; no filtering (equal mins)
    prep = prepare(
        hand_pool(
            final=[0, 1], groups=[[0], [1]], conf=[[6.0], [18.0]], lows=[[(0, 5.0)], [(0, 5.0)]]
        )
    )
    st = SimSettings(budget=8, iterations=12, seed=2)
    rows = bootstrap_rows(2, 8, 12, 2, 0)
    n_a = (rows == 0).sum(axis=1)
    res = simulate_question(prep, DeepConfOnline(), st)
    # 6 * 6.0 == 2 * 18.0 is a tie -> group 0
    assert np.array_equal(res.answers, np.where(n_a * 1.0 >= (8 - n_a) * 3.0, 0, 1))


# ------------------------------------------------------------------ sequential rules


def test_sequential_rules_by_hand() -> None:
    prep = prepare(hand_pool(final=[0, 0], groups=[[0], [0]], lengths=[1000, 3000]))
    st = SimSettings(budget=20, iterations=4, seed=4)
    rows = bootstrap_rows(2, 20, 4, 4, 0)
    cum = np.cumsum(prep.lengths[rows], axis=1)
    cases = {
        EarlyStoppingSC(window=5): 5,
        AdaptiveConsistency("beta", 0.95): 4,  # 1 - 0.5**5 >= 0.95 > 1 - 0.5**4
        AdaptiveConsistency("majority", 0.8): 2,
        AdaptiveConsistency("entropy", 0.75): 4,  # H(0.8, 0.2) = 0.72 <= 0.75 < H(0.75, 0.25)
        AdaptiveConsistency("dirichlet", 0.95): 4,  # one answer: the Beta rule
    }
    for policy, n in cases.items():
        res = simulate_question(prep, policy, st)
        assert (res.position == n).all(), policy
        assert np.array_equal(res.tokens, cum[:, n - 1]) and np.array_equal(
            res.baseline, cum[:, -1]
        )
        assert (res.answers == 0).all()


def test_esc_never_fires_on_disagreement() -> None:
    prep = prepare(hand_pool(final=[0, 1], groups=[[0], [1]], lengths=[1000, 1000]))
    st = SimSettings(budget=20, iterations=6, seed=0)
    rows = bootstrap_rows(2, 20, 6, 0, 0)
    res = simulate_question(prep, EarlyStoppingSC(window=5), st)
    for i in range(6):
        wins = prep.final[rows[i]].reshape(4, 5)
        same = [len(set(w.tolist())) == 1 for w in wins]
        n = 5 * (same.index(True) + 1) if any(same) else 20
        assert res.position[i] == n


def test_dco_composed_rules_run() -> None:
    prep = _dco_pool()
    for policy in (Consensus(voting=DCO, tau=0.6), ProbeStability(voting=DCO, k=2)):
        res = simulate_question(prep, policy, ST)
        assert res.answers.shape == (6,)
        assert (res.tokens <= res.baseline).all()
