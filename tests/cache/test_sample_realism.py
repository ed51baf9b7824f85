"""The sample's realism statistics (cache/sample/realism.py): exact figures on hand-built inputs,
an independent AUROC, and the bundled sample held in range (issue 30, item 1)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from bench.sample_realism import SIGNALS, fineproofs_realism, mars_realism, parason_realism
from cache.sample.realism import (
    DropOutcomes,
    PathChanges,
    ProbeDynamics,
    auroc,
    drop_outcomes,
    path_changes,
    per_question_auroc,
    probe_dynamics,
    spread,
)


def _pairwise_auroc(scores: list[float], labels: list[bool]) -> float:
    """Mann-Whitney U by hand: every (right, wrong) pair, 1 if right scores higher, 1/2 on a tie."""
    right = [s for s, y in zip(scores, labels, strict=True) if y]
    wrong = [s for s, y in zip(scores, labels, strict=True) if not y]
    wins = sum(1.0 if r > w else 0.5 if r == w else 0.0 for r, w in itertools.product(right, wrong))
    return wins / (len(right) * len(wrong))


def test_auroc_exact_small_cases() -> None:
    assert auroc([3.0, 2.0, 1.0], [True, False, False]) == 1.0
    assert auroc([1.0, 2.0, 3.0], [True, False, False]) == 0.0
    # right {2, 4}, wrong {1, 3}: pairs (2>1) (2<3) (4>1) (4>3) -> 3/4
    assert auroc([2.0, 4.0, 1.0, 3.0], [True, True, False, False]) == 0.75
    # a tie counts half: right {2}, wrong {2, 1} -> (0.5 + 1) / 2
    assert auroc([2.0, 2.0, 1.0], [True, False, False]) == 0.75
    assert auroc([1.0, 2.0], [True, True]) is None  # one class only
    assert auroc([float("nan"), 1.0, 0.5], [False, True, False]) == 1.0  # NaN left out


def test_auroc_matches_mann_whitney_by_hand() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(4, 30))
        scores = np.round(rng.normal(0, 1, n), 1).tolist()  # rounding makes ties
        labels = (rng.random(n) < 0.5).tolist()
        if all(labels) or not any(labels):
            continue
        assert auroc(scores, labels) == pytest.approx(_pairwise_auroc(scores, labels), abs=1e-12)


def test_per_question_auroc_skips_single_class_questions() -> None:
    got = per_question_auroc(
        [1, 1, 1, 2, 2, 3, 3],
        [True, False, False, True, True, True, False],
        [0.9, 0.1, 0.95, 0.3, 0.2, 0.1, 0.2],
    )
    assert got == {1: 0.5, 3: 0.0}


def test_spread_exact() -> None:
    s = spread([0.4, 0.6, 0.8, 1.0, 1.0])
    assert (s.n, s.min, s.q1, s.median, s.q3, s.max) == (5, 0.4, 0.6, 0.8, 1.0, 1.0)
    assert s.share_below_half == pytest.approx(0.2)
    assert s.share_one == pytest.approx(0.4)
    assert spread([]).median is None and spread([]).n == 0


def test_probe_dynamics_exact() -> None:
    groups = [
        [5, 5, 2, 2],  # flips 5 -> 2, final 2 from probe 3 of 4: late
        [-1, 2, 2, 2],  # no flip (the no-answer probe is skipped), final 2 from probe 2: early
        [1, 2, 1, 2, 2],  # flips; final 2 from probe 4 of 5: late
        [7, -1],  # one answered probe: not counted for flips; < 4 probes: not for late
        [3, 3, 3, 3],  # no flip; no final answer: not counted for late
    ]
    finals = [2, 2, 2, 7, -1]
    assert probe_dynamics(groups, finals) == ProbeDynamics(
        n_traces=4, n_flip=2, n_final=3, n_late=2
    )


def test_drop_outcomes_exact() -> None:
    got = drop_outcomes([0, 1, 2, 1, 3], [0, 1, 0, 0, 1], [0.9, 0.8, 0.2, None, 0.5])
    # dropped: traces 2-5; ending right (>= 0.5): 2 and 5 (a missing endpoint is not right)
    assert got == DropOutcomes(n_traces=5, n_recovery=2, n_dropped=4, n_false_drop=2)


def test_path_changes_exact() -> None:
    assert path_changes([100, 200, 300], [150, 200, 250]) == PathChanges(3, 1, 2)
    flips = path_changes(
        [1, 1, 1, 1], [1, 1, 1, 1], [True, True, False, False], [False, True, True, False]
    )
    assert flips == PathChanges(4, 0, 4, n_right_to_wrong=1, n_wrong_to_right=1)


# ------------------------------------------------------------------ the bundled sample in range
@pytest.fixture(scope="module")
def mars_stats(sample_root: Path):  # type: ignore[no-untyped-def]
    return mars_realism(sample_root / "mars")


def test_mars_confidence_overlaps_as_in_real_pools(mars_stats) -> None:  # type: ignore[no-untyped-def]
    # all 9 files, the DeepSeek-8B AIME 2025 one (published-simulator reference) included
    for s in SIGNALS:
        every = mars_stats.all_files[s]
        assert every.n >= 200, s  # most questions have both right and wrong traces
        assert 0.55 <= every.median <= 0.75, (s, every)
        assert every.q1 >= 0.5 and every.q3 <= 0.85, (s, every)  # spread over ~0.5-0.85
        assert every.share_one < 0.05, (s, every)
        assert 0.05 <= every.share_below_half <= 0.3, (s, every)  # some point the wrong way


def test_mars_probes_flip_and_converge_late(mars_stats) -> None:  # type: ignore[no-untyped-def]
    d = mars_stats.dynamics
    assert 0.5 <= d.n_flip / d.n_traces <= 0.95
    assert 0.1 <= d.n_late / d.n_final <= 0.4


def test_fineproofs_has_recoveries_and_false_drops(sample_root: Path) -> None:
    fp = fineproofs_realism(sample_root / "fineproofs")
    assert fp.n_traces == 48
    assert fp.n_recovery >= 5
    assert fp.n_false_drop >= 5
    assert fp.n_dropped - fp.n_false_drop >= 5  # and drops that are real


def test_parason_8x_rows_lengthen_c_or_not(sample_root: Path) -> None:
    pc = parason_realism(sample_root / "parason")
    assert pc.n_pairs >= 100
    assert pc.n_longer >= 0.2 * pc.n_pairs
    assert pc.n_not_longer >= 0.2 * pc.n_pairs
    # paired rows whose verdict changed, both ways (the all-pairs view counts them)
    assert pc.n_right_to_wrong >= 5 and pc.n_wrong_to_right >= 2
