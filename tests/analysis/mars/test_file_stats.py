"""File-level pass@1, majority@k and AUROC on hand-built pools (figures computed by hand)."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl

from analysis.mars.file_stats import (
    auroc,
    bootstrap_mean,
    file_majority,
    file_summary,
    majority_at_k,
    per_question_pass,
    signal_separation,
)


def _pool() -> pl.DataFrame:
    """q0: two right, one wrong, one without answer; q1: one right; q2: three wrong (a tie)."""
    return pl.DataFrame(
        {
            "qid": [0, 0, 0, 0, 1, 2, 2, 2],
            "trace_idx": [0, 1, 2, 3, 0, 0, 1, 2],
            "final_group": [0, 0, 1, -1, 0, 1, 2, -1],
            "final_correct": [True, True, False, None, True, False, False, False],
            "min_group": [9.0, 7.0, 8.0, 1.0, 5.0, 3.0, 2.0, 1.0],
            "bottom_10": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            "tail_conf": [1.0, 2.0, 3.0, 4.0, 1.0, 1.0, 2.0, 3.0],
            "mean_conf": [4.0, 3.0, 2.0, 1.0, 1.0, 3.0, 2.0, 1.0],
        }
    )


def test_pass_at_1_counts_no_answer_as_wrong() -> None:
    per_q = per_question_pass(_pool())
    assert per_q.tolist() == [0.5, 1.0, 0.0]  # 2/4, 1/1, 0/3
    assert bootstrap_mean(per_q).value == 0.5


def test_majority_vote_over_all_traces() -> None:
    f = _pool()
    q = {k: v for (k,), v in f.partition_by("qid", as_dict=True).items()}
    assert (
        majority_at_k(
            q[0]["final_group"].to_numpy(), q[0]["final_correct"].fill_null(False).to_numpy()
        )
        == 1.0
    )
    assert majority_at_k(q[2]["final_group"].to_numpy(), q[2]["final_correct"].to_numpy()) == 0.0
    est = file_majority(f)
    assert est.value == (1.0 + 1.0 + 0.0) / 3 and est.n == 3


def test_a_tie_scores_the_share_of_tied_answers_that_are_right() -> None:
    assert majority_at_k(np.array([0, 1, -1]), np.array([True, False, False])) == 0.5


def test_majority_at_k_subsets() -> None:
    g, ok = np.array([0, 0, 0, 0]), np.array([True] * 4)
    assert majority_at_k(g, ok, k=2) == 1.0
    # one right answer among two: a 1-subset is right half the time (pass@1), within MC error
    v = majority_at_k(np.array([0, 1]), np.array([True, False]), k=1, draws=2000)
    assert abs(v - 0.5) < 0.05


def test_bootstrap_interval_of_two_questions() -> None:
    """Means of resamples of [0, 1] are 0, 0.5, 1 with probability 1/4, 1/2, 1/4."""
    est = bootstrap_mean(np.array([0.0, 1.0]))
    assert (est.value, est.lo, est.hi, est.n) == (0.5, 0.0, 1.0, 2)
    same = bootstrap_mean(np.array([0.25, 0.25, 0.25]))
    assert (same.lo, same.hi) == (0.25, 0.25)


def _u_by_hand(right: list[float], wrong: list[float]) -> float:
    """Mann-Whitney U / (n_r n_w) from its definition: pairs where right wins, ties half."""
    wins = sum(1.0 if r > w else 0.5 if r == w else 0.0 for r, w in itertools.product(right, wrong))
    return wins / (len(right) * len(wrong))


def test_auroc_is_mann_whitney_u() -> None:
    assert auroc(np.array([3.0, 2.0]), np.array([1.0, 2.0])) == 0.875  # 3.5 of 4 pairs
    rng = np.random.default_rng(1)
    r, w = rng.integers(0, 6, 17).astype(float), rng.integers(0, 6, 11).astype(float)
    assert abs(auroc(r, w) - _u_by_hand(r.tolist(), w.tolist())) < 1e-12
    assert np.isnan(auroc(np.array([1.0]), np.array([])))


def test_signal_separation_pooled_and_per_question() -> None:
    out = {s.signal: s for s in signal_separation(_pool())}
    mg = out["min_group"]
    # pooled: right 9, 7, 5 vs wrong 8, 1, 3, 2, 1 -> 13 of 15 pairs
    assert mg.pooled == _u_by_hand([9, 7, 5], [8, 1, 3, 2, 1]) == 13 / 15
    assert (mg.n_right, mg.n_wrong) == (3, 5)
    # only q0 has both classes: right 9, 7 vs wrong 8, 1 -> 3 of 4
    assert (mg.median_q, mg.n_questions) == (0.75, 1)
    assert out["bottom_10"].pooled == 0.5  # all tied
    assert out["mean_conf"].median_q == 1.0  # right 4, 3 vs wrong 2, 1


def test_file_summary_bundles_the_figures() -> None:
    s = file_summary(_pool(), 2)
    assert (s.pass_at_1.value, s.pass_at_1.n) == (0.5, 3)
    assert s.majority_all.value == 2 / 3 and s.k == 2
    assert [x.signal for x in s.separation] == ["min_group", "bottom_10", "tail_conf", "mean_conf"]
