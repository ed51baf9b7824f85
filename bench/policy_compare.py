"""Policy comparison benchmark: the playground's Compare tab's analysis (A against B on the same
bootstrap samples, `analysis.playground.policy_pair.compare_policies`) on 512 questions x 64
bootstrap iterations (target <= 2 s), with 1,000 paired-bootstrap resamples as the tab uses.

    python bench/policy_compare.py [--questions 512] [--iterations 64] [--repeat 3]

The two runs are drawn at random (seeded): per question an accuracy level, per iteration a
right/wrong outcome and a token count for each policy, correlated as two policies on the same
samples are. Only the comparison is timed (the runs are inputs); wall and CPU seconds are
printed, best of `--repeat`, and the first (cold) run beside it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from analysis.playground.params import DEFAULT_SETTINGS  # noqa: E402
from analysis.playground.policies import published_policy  # noqa: E402
from analysis.playground.policy_pair import compare_policies  # noqa: E402
from analysis.playground.result import QuestionResult  # noqa: E402
from analysis.playground.results import RunResult  # noqa: E402

TARGET_S = 2.0


def _question(qid: int, correct: np.ndarray, tokens: np.ndarray) -> QuestionResult:
    n = correct.shape[0]
    z = np.zeros(n, dtype=np.int64)
    return QuestionResult(
        qid=qid,
        ground_truth="1",
        iterations=np.arange(n, dtype=np.int64),
        answers=z,
        correct=correct,
        tokens=tokens,
        baseline=np.full(n, 512 * 16_000, dtype=np.int64),
        position=z,
        stop_index=z - 1,
        stopped_by=np.array(["budget"] * n, dtype=object),
        labels=["1"],
        n_pool=4096,
    )


def runs(n_q: int, n_it: int, seed: int = 0) -> tuple[RunResult, RunResult]:
    """Two runs on the same (question, iteration) pairs: B agrees with A nine times in ten."""
    rng = np.random.default_rng(seed)
    qa, qb = [], []
    for q in range(n_q):
        p = rng.beta(2, 2)
        a = rng.random(n_it) < p
        flip = rng.random(n_it) < 0.1
        b = np.where(flip, ~a, a)
        ta = rng.integers(2_000_000, 8_000_000, n_it)
        tb = (ta * rng.uniform(0.3, 1.0, n_it)).astype(np.int64)
        qa.append(_question(q, a, ta))
        qb.append(_question(q, b, tb))
    return (
        RunResult(published_policy("offline"), DEFAULT_SETTINGS, qa),
        RunResult(published_policy("dco"), DEFAULT_SETTINGS, qb),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--questions", type=int, default=512)
    ap.add_argument("--iterations", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    a, b = runs(args.questions, args.iterations)
    wall, cpu = [], []
    pair = None
    for _ in range(max(args.repeat, 1)):
        t, c = time.perf_counter(), time.process_time()
        pair = compare_policies(a, b)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    assert pair is not None
    verdict = "ok" if min(wall) <= TARGET_S else "OVER"
    print(
        f"policy comparison, {args.questions} questions x {args.iterations} iterations "
        f"(1,000 paired resamples): best {min(wall):.2f} s wall / {min(cpu):.2f} s CPU, "
        f"first {wall[0]:.2f} s (target <= {TARGET_S:g} s: {verdict})"
    )
    print(
        f"  accuracy A − B {pair.accuracy.estimate:+.2f} pp [{pair.accuracy.lo:+.2f}, "
        f"{pair.accuracy.hi:+.2f}], McNemar p {pair.mcnemar.p_value:.3g} "
        f"({pair.mcnemar.a_only} vs {pair.mcnemar.b_only} discordant)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
