"""The playground's captures store a run's accuracy and savings beside self-consistency's, and
a replayed iteration's vote share per answer over the checkpoints with the stop highlighted."""

from __future__ import annotations

import numpy as np

from analysis.playground.result import Diagnostics, QuestionResult
from cache.casebook.evidence import EVIDENCE_KEY
from components.playground import cases as scs


def _result(stop: int) -> QuestionResult:
    return QuestionResult(
        qid=4,
        ground_truth="42",
        iterations=np.array([0]),
        answers=np.array([1]),
        correct=np.array([True]),
        tokens=np.array([5000]),
        baseline=np.array([9000]),
        position=np.array([4096 if stop >= 0 else 9000]),
        stop_index=np.array([stop]),
        stopped_by=np.array(["consensus" if stop >= 0 else "budget"], dtype=object),
        labels=["17", "<i>42</i>", "5"],
        n_pool=16,
        group_correct=np.array([False, True, False]),
    )


def _diag() -> Diagnostics:
    votes = np.array([[[2, 1, 1], [1, 3, 0], [0, 4, 0]]], dtype=np.int64)  # [I=1, K=3, G=3]
    k = votes.shape[1]
    return Diagnostics(
        grid=np.array([2048, 4096, 6144]),
        votes=votes,
        leader=np.zeros((1, k), np.int64),
        has_votes=np.ones((1, k), bool),
        fires=np.zeros((1, k), bool),
        tokens_at=None,
        n_eligible=np.full((1, k), 4),
        share=np.array([[0.5, 0.75, 1.0]]),
    )


def test_a_replay_snapshot_draws_the_vote_shares_and_the_stop() -> None:
    snap = scs.replay_snapshot(_result(1), _diag(), 0.7)
    ev = snap[EVIDENCE_KEY]
    names = [s["name"] for s in ev["series"]]
    assert names == ["<i>42</i> ✓", "17", "5"]  # by their largest share
    assert ev["series"][0]["y"] == [25.0, 75.0, 100.0] and ev["series"][0]["x"][0] == 2048
    assert ev["highlight"] == {"x": 4096, "y": 75.0, "label": "stop at 4,096 (consensus)"}
    assert snap["leader_share_at_stop"] == 0.75 and snap["tau"] == 0.7
    assert "highlight" not in scs.replay_snapshot(_result(-1), _diag(), None)[EVIDENCE_KEY]
    assert EVIDENCE_KEY not in scs.replay_snapshot(_result(-1), None, None)


def test_run_evidence_puts_the_run_beside_self_consistency() -> None:
    snap = {"accuracy_pct": 80.0, "sc_accuracy_pct": 82.5, "token_savings_pct": 41.2}
    ev = scs.run_evidence("sc-consensus", snap, float("nan"))
    assert ev is not None and ev["categories"] == ["accuracy (%)", "token savings (%)"]
    assert ev["series"] == [
        {"name": "sc-consensus", "values": [80.0, 41.2]},
        {"name": "SC", "values": [82.5, None]},
    ]
