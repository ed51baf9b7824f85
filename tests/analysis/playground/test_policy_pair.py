"""Two policies compared on the same bootstrap samples: the exact McNemar p-value against
scipy's binomial test, the paired interval against a direct re-implementation of the documented
draw, and the per-question table (differences, first differing iteration, A's losses)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from analysis.playground.params import DEFAULT_SETTINGS
from analysis.playground.policies import published_policy
from analysis.playground.policy_pair import a_loses, compare_policies, mcnemar_exact
from analysis.playground.result import QuestionResult
from analysis.playground.results import RunResult


def _question(qid: int, correct: list[int], tokens: list[int], start: int = 0) -> QuestionResult:
    n = len(correct)
    z = np.zeros(n, dtype=np.int64)
    return QuestionResult(
        qid=qid,
        ground_truth="1",
        iterations=np.arange(start, start + n, dtype=np.int64),
        answers=z,
        correct=np.asarray(correct, dtype=bool),
        tokens=np.asarray(tokens, dtype=np.int64),
        baseline=np.full(n, 100, dtype=np.int64),
        position=z,
        stop_index=z - 1,
        stopped_by=np.array(["budget"] * n, dtype=object),
        labels=["1"],
        n_pool=8,
    )


def _run(*questions: QuestionResult) -> RunResult:
    return RunResult(published_policy("offline"), DEFAULT_SETTINGS, list(questions))


@pytest.mark.parametrize(
    "a_only,b_only", [(0, 0), (0, 5), (3, 3), (7, 2), (1, 19), (40, 25), (1600, 1700), (700, 0)]
)
def test_mcnemar_matches_scipys_exact_binomial_test(a_only: int, b_only: int) -> None:
    got = mcnemar_exact(a_only, b_only)
    n = a_only + b_only
    want = 1.0 if n == 0 else binomtest(a_only, n, 0.5, alternative="two-sided").pvalue
    assert got.p_value == pytest.approx(want, rel=1e-12)
    assert (got.a_only, got.b_only) == (a_only, b_only)


def test_per_question_differences_and_the_first_differing_iteration() -> None:
    a = _run(
        _question(0, [1, 1, 0, 1], [10, 20, 30, 40]),
        _question(1, [0, 0, 0, 0], [50, 50, 50, 50]),
        _question(2, [1, 1], [5, 5]),  # B lacks it: not compared
    )
    b = _run(
        _question(0, [1, 0, 0, 0], [40, 40, 40, 40]),
        _question(1, [0, 1, 1, 0], [10, 10, 10, 10]),
    )
    pair = compare_policies(a, b, n_boot=200, seed=3)
    df = pair.per_question.set_index("qid")
    assert list(df.index) == [0, 1]
    assert df.loc[0, "accuracy_diff_pp"] == pytest.approx(50.0)
    assert df.loc[0, "tokens_diff"] == pytest.approx(25.0 - 40.0)
    assert df.loc[0, "first_differing_iteration"] == 1
    assert df.loc[1, "first_differing_iteration"] == 1
    assert (pair.mcnemar.a_only, pair.mcnemar.b_only) == (2, 2)
    assert (pair.a_wins, pair.b_wins, pair.ties) == (1, 1, 0)
    assert pair.accuracy.estimate == pytest.approx((50.0 - 50.0) / 2)
    assert a_loses(pair)["qid"].tolist() == [1]


def test_iterations_are_paired_by_index_not_position() -> None:
    a = _run(_question(0, [1, 0, 1], [1, 1, 1], start=0))
    b = _run(_question(0, [0, 1, 1], [1, 1, 1], start=1))  # iterations 1, 2, 3
    pair = compare_policies(a, b, n_boot=50)
    row = pair.per_question.iloc[0]
    assert row["iterations"] == 2  # iterations 1 and 2
    # A on 1, 2 = [0, 1]; B on 1, 2 = [0, 1]
    assert row["accuracy_diff_pp"] == 0 and row["first_differing_iteration"] is None


def test_the_paired_interval_matches_a_direct_bootstrap() -> None:
    """The interval on A - B is the documented two-level bootstrap of the per-iteration
    differences (questions, then iterations), re-implemented here from the docstring."""
    rng = np.random.default_rng(5)
    qa, qb = [], []
    for q in range(12):
        ca, cb = rng.random(16) < 0.6, rng.random(16) < 0.5
        qa.append(_question(q, ca.astype(int).tolist(), [1] * 16))
        qb.append(_question(q, cb.astype(int).tolist(), [1] * 16))
    pair = compare_policies(_run(*qa), _run(*qb), n_boot=300, seed=7)
    diffs = [100.0 * (a.correct.astype(float) - b.correct) for a, b in zip(qa, qb, strict=True)]
    reps = []
    for c in range(3):  # CHUNK = 100 replicates a chunk
        g = np.random.default_rng([7, c])
        qs = g.integers(0, 12, (100, 12))
        u = g.random((100, 12, 16))
        for r in range(100):
            reps.append(
                np.mean(
                    [
                        diffs[q][np.floor(u[r, j, :16] * 16).astype(int)].mean()
                        for j, q in enumerate(qs[r])
                    ]
                )
            )
    lo, hi = np.percentile(reps, [2.5, 97.5])
    assert pair.accuracy.estimate == pytest.approx(np.mean([d.mean() for d in diffs]))
    assert (pair.accuracy.lo, pair.accuracy.hi) == pytest.approx((lo, hi))
