"""Bootstrap: seeds, pool order, tokens, budget larger than the pool."""

from __future__ import annotations

import numpy as np

from analysis.playground import (
    EarlyStoppingSC,
    ParallelProbe,
    SelfConsistency,
    SimSettings,
    prepare,
    simulate,
    simulate_question,
)
from analysis.playground.bootstrap import bootstrap_rows
from analysis.playground.engine import BUDGET_NOTE, budget_note
from analysis.playground.synthetic import hand_pool


def test_rows_follow_published_seeding() -> None:
    rows = bootstrap_rows(10, 7, 3, seed=42, qid=5)
    for i in range(3):
        rng = np.random.default_rng(42 + 5 * 10000 + i)
        assert np.array_equal(rows[i], rng.choice(10, size=7, replace=True))
    assert not np.array_equal(bootstrap_rows(10, 7, 3, seed=43, qid=5), rows)
    assert np.array_equal(bootstrap_rows(10, 7, [2], seed=42, qid=5)[0], rows[2])


def test_pool_is_non_null_finals_in_trace_idx_order() -> None:
    # stored out of order; trace 3 has no final answer and must not be sampled
    pool = hand_pool(
        final=[-1, 0, 1, 0],
        groups=[[0], [0], [1], [0]],
        lengths=[100, 200, 300, 400],
        trace_idx=[3, 1, 2, 0],
    )
    prep = prepare(pool)
    assert prep.n == 3
    assert prep.lengths.tolist() == [400, 200, 300]  # trace_idx 0, 1, 2
    assert prep.final.tolist() == [0, 0, 1]


def test_tokens_are_sums_of_sampled_lengths_and_budget_may_exceed_pool() -> None:
    pool = hand_pool(final=[0, 1, 0], groups=[[0], [1], [0]], lengths=[1000, 3000, 5000])
    prep = prepare(pool)
    st = SimSettings(budget=10, iterations=5, warmup=16, seed=7)
    res = simulate_question(prep, SelfConsistency(), st)
    rows = bootstrap_rows(3, 10, 5, seed=7, qid=0)
    assert np.array_equal(res.tokens, prep.lengths[rows].sum(axis=1))
    assert np.array_equal(res.baseline, res.tokens)
    assert np.all(res.savings == 0.0)
    # answer = majority final (lowest id on ties) of the sampled rows
    for i in range(5):
        counts = np.bincount(prep.final[rows[i]], minlength=2)
        assert res.answers[i] == int(np.argmax(counts))
    assert any("fewer than warmup" in n.message for n in res.notes)


def test_iteration_subset_equals_full_run_row() -> None:
    pool = hand_pool(final=[0, 1, 0, 1, 1], groups=[[0, 0]] * 5, lengths=[5000] * 5)
    prep = prepare(pool)
    st = SimSettings(budget=9, iterations=6)
    full = simulate_question(prep, SelfConsistency(), st)
    one = simulate_question(prep, SelfConsistency(), st, iterations=np.array([4]))
    assert one.answers[0] == full.answers[4] and one.tokens[0] == full.tokens[4]


def test_simulate_runs_every_question_and_reports_progress() -> None:
    preps = [prepare(hand_pool(final=[0, 0], groups=[[0], [0]], qid=q)) for q in range(3)]
    seen: list[float] = []
    run = simulate(
        preps,
        SelfConsistency(),
        SimSettings(budget=4, iterations=2),
        progress=lambda f, m: seen.append(f),
    )
    assert [r.qid for r in run.questions] == [0, 1, 2]
    assert seen[-1] == 1.0
    assert run.per_question_frame()["accuracy"].tolist() == [1.0, 1.0, 1.0]


def test_budget_above_the_pool_is_noted_not_refused() -> None:
    """Sampling is with replacement: a budget above the pool runs, and says so (once)."""
    prep = prepare(hand_pool(final=[0, 1, 0], groups=[[0], [1], [0]], lengths=[10, 20, 30]))
    for policy in (SelfConsistency(), ParallelProbe(), EarlyStoppingSC()):
        res = simulate_question(prep, policy, SimSettings(budget=8, iterations=2, warmup=2))
        assert budget_note(8, 3).message == "budget 8 > pool of 3 traces: sampled with replacement"
        assert [n.message for n in res.notes if BUDGET_NOTE in n.message] == [
            budget_note(8, 3).message
        ], policy
        assert res.n_pool == 3 and res.baseline.shape == (2,)
    for budget in (2, 3):  # at or below the pool: no note
        res = simulate_question(prep, SelfConsistency(), SimSettings(budget=budget, iterations=2))
        assert not [n.message for n in res.notes if BUDGET_NOTE in n.message]
    # an empty pool has its own note ("no trace has a final answer"), not this one
    empty = prepare(hand_pool(final=[-1, -1], groups=[[0], [1]]))
    res = simulate_question(empty, SelfConsistency(), SimSettings(budget=8, iterations=2))
    assert not [n.message for n in res.notes if BUDGET_NOTE in n.message]
