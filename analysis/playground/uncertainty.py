"""95 % intervals on the playground's figures: a two-level bootstrap over questions and
iterations, and the paired comparison of a policy with self-consistency (SC).

Why two levels: a figure is the mean over questions of each question's mean over bootstrap
iterations, so its noise has two sources, which questions the file happens to hold and which
traces each iteration drew. One replicate resamples the questions with replacement, then, for
each drawn question, its iterations with replacement, and recomputes the figure; the interval is
the 2.5th-97.5th percentile (numpy linear) of B replicates.

Draw order (a test re-implements it): replicates in chunks of `CHUNK`; chunk c draws from
`numpy.random.default_rng([seed, c])` first the question indices `integers(0, Q, (c_n, Q))`,
then `random((c_n, Q, I_max))`, whose first n_q values per drawn question q pick its iterations
as `floor(u * n_q)`.

The comparison with SC is paired: iteration i of question q draws the same traces under every
policy (`bootstrap.bootstrap_rows`), so the per-iteration differences are resampled with the
same indices, and the interval is on the mean difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

B_DEFAULT = 1000
SEED_DEFAULT = 0
LEVEL = 0.95
CHUNK = 100  # replicates drawn and evaluated together (memory: CHUNK x Q x I_max values)
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Interval:
    """A figure (mean over questions of per-question means) with its bootstrap interval.
    `lo`/`hi` are NaN when there is no question with an iteration."""

    estimate: float
    lo: float
    hi: float
    n_questions: int
    n_iterations: int  # iterations per question (the largest, if they differ)
    b: int
    seed: int

    @property
    def covers_zero(self) -> bool:
        """True when 0 lies inside the interval (or the interval is undefined): no clear sign."""
        return not (self.lo > 0 or self.hi < 0)


def _padded(values: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Questions with at least one iteration as a [Q, I_max] array (zeros past each count)
    and the counts [Q]."""
    rows = [np.asarray(v, dtype=np.float64).ravel() for v in values]
    rows = [r for r in rows if r.size]
    counts = np.array([r.size for r in rows], dtype=np.int64)
    width = int(counts.max()) if counts.size else 0
    out = np.zeros((len(rows), width))
    for i, r in enumerate(rows):
        out[i, : r.size] = r
    return out, counts


def bootstrap_interval(
    values: Sequence[np.ndarray], b: int = B_DEFAULT, seed: int = SEED_DEFAULT
) -> Interval:
    """The mean over questions of each question's mean of `values[q]` (one value per
    iteration), with its two-level percentile bootstrap interval (module docstring).
    Questions without iterations are left out, as the playground's figures leave them out."""
    data, counts = _padded(values)
    q = counts.shape[0]
    width = data.shape[1] if q else 0
    if q == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0, 0, int(b), int(seed))
    est = float((data.sum(axis=1) / counts).mean())
    reps = np.empty(int(b))
    ragged = bool((counts != width).any())
    flat = data.ravel()
    for c, start in enumerate(range(0, int(b), CHUNK)):
        n_c = min(CHUNK, int(b) - start)
        rng = np.random.default_rng([int(seed), c])
        qi = rng.integers(0, q, size=(n_c, q))
        u = rng.random((n_c, q, width))
        n = counts[qi]  # [c, Q]
        it = np.minimum((u * n[..., None]).astype(np.int64), n[..., None] - 1)  # rounding
        vals = flat[(qi * width)[..., None] + it]  # [c, Q, I_max]
        if ragged:  # past a question's count: 0, so the row sum is over its own iterations
            vals = np.where(np.arange(width) < n[..., None], vals, 0.0)
        reps[start : start + n_c] = (vals.sum(axis=2) / n).mean(axis=1)
    tail = (1 - LEVEL) / 2 * 100
    lo, hi = np.percentile(reps, [tail, 100 - tail])
    return Interval(est, float(lo), float(hi), q, width, int(b), int(seed))


@dataclass(frozen=True)
class PairedComparison:
    """A policy against SC on the same bootstrap samples: the mean difference (percentage
    points) with its paired interval, and per question whether the policy's accuracy is
    higher (win), lower (loss) or equal (tie) over the iterations both ran."""

    diff: Interval
    wins: int
    losses: int
    ties: int


def paired_comparison(
    policy: dict[int, np.ndarray],
    sc: dict[int, np.ndarray],
    b: int = B_DEFAULT,
    seed: int = SEED_DEFAULT,
) -> PairedComparison:
    """`policy` and `sc` map a question id to its per-iteration values (e.g. 100 x correct);
    questions both have, with the same number of iterations, are compared; iteration i of one
    is paired with iteration i of the other."""
    diffs, wins, losses, ties = [], 0, 0, 0
    for qid in sorted(policy):
        a = np.asarray(policy[qid], dtype=np.float64)
        s = sc.get(qid)
        if s is None or np.asarray(s).shape != a.shape or not a.size:
            continue
        d = a - np.asarray(s, dtype=np.float64)
        diffs.append(d)
        m = float(d.mean())
        if m > TIE_TOLERANCE:
            wins += 1
        elif m < -TIE_TOLERANCE:
            losses += 1
        else:
            ties += 1
    return PairedComparison(bootstrap_interval(diffs, b, seed), wins, losses, ties)
