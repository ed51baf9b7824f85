"""The parts of the MARS threshold at one checkpoint of a replay, for the reader.

Why: the replay draws the binding check's two sides (margin, threshold); a reader also needs
which answer binds it (the runner-up that leaves the least slack), gamma, the q sums it is made
of and whether the first-checkpoint guard applies. The arithmetic is `mars.margin_rule`'s at
one checkpoint, so the parts add up to the drawn threshold exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analysis.playground.result import Diagnostics


@dataclass(frozen=True)
class ThresholdParts:
    """One checkpoint's binding check: `margin > threshold` stops (with the guard, at k = 0).

    Against a runner-up a: margin = V_L - V_a, threshold = gamma (S_all + S_L) - (1 + gamma) S_a.
    Against an answer with no votes yet (`runner_up` None): margin = V_L,
    threshold = gamma (S_all + S_L)."""

    k: int
    leader: int  # group id, -1 without votes
    runner_up: int | None  # group id of the binding challenger; None: the no-vote-yet check
    v_leader: float
    v_runner_up: float
    gamma: float
    s_all: float
    s_leader: float
    s_runner_up: float
    margin: float
    threshold: float
    guard: int  # the warmup majority the leader must equal at k = 0 (-1: no guard)
    guard_blocks: bool  # the guard stops a rule that would otherwise fire here


def threshold_parts(diag: Diagnostics, k: int, iteration: int = 0) -> ThresholdParts | None:
    """The parts at checkpoint k of the replayed iteration (None for a rule that is not MARS
    or a checkpoint without votes)."""
    if diag.q_votes is None or diag.q_all is None or diag.gamma is None:
        return None
    votes = diag.votes[iteration, k].astype(np.float64)
    if not (votes > 0).any():
        return None
    qg = diag.q_votes[iteration, k].astype(np.float64)
    s_all = float(diag.q_all[iteration, k])
    gamma = float(diag.gamma)
    lead = int(diag.leader[iteration, k])
    v_l, s_l = float(votes[lead]), float(qg[lead])
    t0 = gamma * (s_all + s_l)
    rel = (votes > 0) & (np.arange(votes.shape[0]) != lead)
    lhs = v_l - votes
    rhs = t0 - (1.0 + gamma) * qg
    with np.errstate(invalid="ignore"):
        gap = np.where(rel, lhs - rhs, np.inf)
    worst = int(np.argmin(gap))
    use_a = bool(gap[worst] < (v_l - t0))
    margin = float(lhs[worst]) if use_a else v_l
    threshold = float(rhs[worst]) if use_a else t0
    guard = int(diag.guard) if k == 0 else -1
    blocks = guard >= 0 and lead != guard
    return ThresholdParts(
        k,
        lead,
        worst if use_a else None,
        v_l,
        float(votes[worst]) if use_a else 0.0,
        gamma,
        s_all,
        s_l,
        float(qg[worst]) if use_a else 0.0,
        margin,
        threshold,
        guard,
        blocks,
    )
