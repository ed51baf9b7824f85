"""Realism statistics of the bundled sample: how much right and wrong traces overlap.

Why: a demo sample on which every confidence signal splits right from wrong traces perfectly makes
every confidence-based stopping policy look excellent. These pure functions measure what the
sample generators are tuned to (`bench/sample_realism.py` prints them, `tests/cache/
test_sample_realism.py` holds them in range). They take plain arrays, so they work on the MARS
feature table, the FineProofs trace summary and the Parason pair table alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def auroc(
    scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray
) -> float | None:
    """P(score of a right trace > score of a wrong one), ties counted half (the Mann-Whitney U
    statistic over n_right * n_wrong); non-finite scores are left out. None without both classes."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    keep = np.isfinite(s)
    s, y = s[keep], y[keep]
    n1 = int(y.sum())
    n0 = int(y.size - n1)
    if n1 == 0 or n0 == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(s.size, dtype=np.float64)
    sorted_s = s[order]
    # average ranks over ties (1-based)
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_s)) + 1]
    ends = np.r_[starts[1:], s.size]
    avg = (starts + ends + 1) / 2.0
    ranks[order] = np.repeat(avg, ends - starts)
    u = ranks[y].sum() - n1 * (n1 + 1) / 2.0
    return float(u / (n1 * n0))


def per_question_auroc(
    qids: Sequence[int] | np.ndarray,
    labels: Sequence[bool] | np.ndarray,
    scores: Sequence[float] | np.ndarray,
) -> dict[int, float]:
    """AUROC of `scores` (right vs wrong) within each question that has both classes."""
    q = np.asarray(qids)
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    out: dict[int, float] = {}
    for qid in np.unique(q).tolist():
        m = q == qid
        a = auroc(s[m], y[m])
        if a is not None:
            out[int(qid)] = a
    return out


@dataclass(frozen=True)
class Spread:
    """Distribution of per-question values: n, min, quartiles, max, share below 0.5 and == 1."""

    n: int
    min: float | None
    q1: float | None
    median: float | None
    q3: float | None
    max: float | None
    share_below_half: float | None
    share_one: float | None


def spread(values: Sequence[float] | np.ndarray) -> Spread:
    """Summary of per-question AUROCs (linear-interpolated quartiles); None fields when empty."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return Spread(0, None, None, None, None, None, None, None)
    q = np.quantile(v, [0.0, 0.25, 0.5, 0.75, 1.0])
    return Spread(
        n=int(v.size),
        min=float(q[0]),
        q1=float(q[1]),
        median=float(q[2]),
        q3=float(q[3]),
        max=float(q[4]),
        share_below_half=float((v < 0.5).mean()),
        share_one=float((v == 1.0).mean()),
    )


@dataclass(frozen=True)
class ProbeDynamics:
    """How probed answers move: traces with >= 1 answer flip, and traces that converge late."""

    n_traces: int  # traces with at least 2 answered probes
    n_flip: int  # ... whose answered probes change answer at least once
    n_final: int  # traces with a final answer and at least MIN_PROBES_LATE probes
    n_late: int  # ... whose probes hold the final answer only from the second-to-last one on


MIN_PROBES_LATE = 4


def probe_dynamics(
    probe_groups: Sequence[Sequence[int]], final_groups: Sequence[int]
) -> ProbeDynamics:
    """Answer flips and late convergence from each trace's probe answer groups (in position
    order, -1 = no answer) and its final answer group (-1 = none).

    Flip: two consecutive answered probes with different groups. Late convergence: the first probe
    from which every later probe holds the final answer is the second-to-last probe or later."""
    n_traces = n_flip = n_final = n_late = 0
    for groups, final in zip(probe_groups, final_groups, strict=True):
        g = np.asarray(groups if groups is not None else [], dtype=np.int64)
        answered = g[g >= 0]
        if answered.size >= 2:
            n_traces += 1
            n_flip += int((answered[1:] != answered[:-1]).any())
        if final is not None and final >= 0 and g.size >= MIN_PROBES_LATE:
            n_final += 1
            off = np.flatnonzero(g != final)
            start = int(off[-1]) + 1 if off.size else 0
            n_late += int(start >= g.size - 2)
    return ProbeDynamics(n_traces, n_flip, n_final, n_late)


@dataclass(frozen=True)
class DropOutcomes:
    """FineProofs traces by drop flags and how they end."""

    n_traces: int
    n_recovery: int  # traces with a recovery (a significant rise after a significant drop)
    n_dropped: int  # traces with at least one significant drop
    n_false_drop: int  # ... that still end right (endpoint grade >= END_RIGHT)


END_RIGHT = 0.5


def drop_outcomes(
    n_sig_drops: Sequence[int], n_recoveries: Sequence[int], endpoint: Sequence[float | None]
) -> DropOutcomes:
    """Count recoveries and false drops (a drop flagged although the trace's endpoint grade is
    >= END_RIGHT; a missing endpoint is not counted as right)."""
    d = np.asarray(n_sig_drops, dtype=np.int64)
    r = np.asarray(n_recoveries, dtype=np.int64)
    e = np.asarray([np.nan if x is None else x for x in endpoint], dtype=np.float64)
    right = np.nan_to_num(e, nan=-1.0) >= END_RIGHT
    return DropOutcomes(
        n_traces=int(d.size),
        n_recovery=int((r > 0).sum()),
        n_dropped=int((d > 0).sum()),
        n_false_drop=int(((d > 0) & right).sum()),
    )


@dataclass(frozen=True)
class PathChanges:
    """Paired Parason 1x/8x rows by what the extra Trials did to the critical path C."""

    n_pairs: int
    n_longer: int  # C_8x > C_1x
    n_not_longer: int  # C_8x <= C_1x
    n_right_to_wrong: int = 0  # over every pair, whether or not the 8x row added branches
    n_wrong_to_right: int = 0


def path_changes(
    c_1x: Sequence[float],
    c_8x: Sequence[float],
    right_1x: Sequence[bool] = (),
    right_8x: Sequence[bool] = (),
) -> PathChanges:
    """Count pairs whose 8x critical path is longer than the 1x one (and the rest), and the
    pairs whose verdict changed (given the two rows' correctness)."""
    a = np.asarray(c_1x, dtype=np.float64)
    b = np.asarray(c_8x, dtype=np.float64)
    longer = int((b > a).sum())
    r1 = np.asarray(right_1x, dtype=bool)
    r8 = np.asarray(right_8x, dtype=bool)
    return PathChanges(
        n_pairs=int(a.size),
        n_longer=longer,
        n_not_longer=int(a.size) - longer,
        n_right_to_wrong=int((r1 & ~r8).sum()),
        n_wrong_to_right=int((~r1 & r8).sum()),
    )
