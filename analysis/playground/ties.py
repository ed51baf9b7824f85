"""Which simulated outcomes hang on a vote tied for first place.

Why: the published MARS simulator numbers answer groups in Python set order, so when two groups
have exactly the same vote its `argmax` picks whichever its set put first (hash-seed dependent);
ours picks the lowest id (first appearance). An exact tie is therefore not a defect, and a
difference against `repro_reference` that comes from one is expected. We find those outcomes
by running the same question again with the group numbering reversed, i.e. with every tie
broken the other way (highest original id wins). Nothing else changes: votes are summed in
trace order whatever the ids are, and the q-model's features (flips, streaks) only compare ids
for equality. An iteration whose answer, cost, stop position or reason changes between the two
runs is one whose outcome a tie decided; the same holds for a calibrated gamma (a tie in the
warmup calibration's votes) and the first-checkpoint guard (a tie in the warmup majority).
With three or more groups tied, the two runs cover the two extreme orders, not every order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from analysis.playground.engine import simulate_question
from analysis.playground.params import Policy, SimSettings
from analysis.playground.prepare import PreparedQuestion
from analysis.playground.result import QuestionResult
from analysis.playground.results import question_summary


def with_ties_reversed(prep: PreparedQuestion) -> PreparedQuestion:
    """The same question with compact group ids reversed (g -> G-1-g), so every `argmax` tie
    goes to the other group. Labels and correctness follow their groups; caches start empty."""
    g = prep.n_groups
    final = (g - 1 - prep.final).astype(np.int32)
    groups = np.where(prep.groups >= 0, g - 1 - prep.groups, -1).astype(np.int32)
    k = prep.n_checkpoints
    gidx = (
        np.arange(k, dtype=np.int32)[None, :] * (g + 1) + np.where(groups >= 0, groups, g)
    ).astype(np.int32)
    labels = list(prep.group_labels)
    labels = (labels + [""] * g)[:g][::-1]
    return replace(
        prep,
        final=final,
        groups=np.ascontiguousarray(groups),
        gidx=np.ascontiguousarray(gidx),
        group_ids=prep.group_ids[::-1].copy(),
        group_labels=labels,
        group_correct=prep.group_correct[::-1].copy(),
        cache={},
    )


@dataclass(frozen=True)
class TieCheck:
    """One question, simulated with ties broken both ways."""

    qid: int
    tied: np.ndarray  # bool [I]: the iteration's outcome changes with the tie-break
    gamma: float | None  # ours (lowest id wins)
    alt_gamma: float | None  # with ties broken the other way
    alt_summary: dict  # the published per-question columns of the other-way run

    @property
    def n_tied(self) -> int:
        return int(self.tied.sum())


def tie_check(
    prep: PreparedQuestion,
    policy: Policy,
    settings: SimSettings,
    ours: QuestionResult | None = None,
) -> TieCheck:
    """Simulate `prep` with ties broken the other way and compare iteration by iteration with
    `ours` (simulated here when not given). Answers are compared as groups, not ids."""
    mine = ours if ours is not None else simulate_question(prep, policy, settings)
    alt = simulate_question(with_ties_reversed(prep), policy, settings)
    g = prep.n_groups
    alt_answers = np.where(alt.answers >= 0, g - 1 - alt.answers, -1)
    same_shape = alt.answers.shape == mine.answers.shape
    if not same_shape:  # cannot happen for one settings object; say "all tied" rather than lie
        tied = np.ones(mine.answers.shape, dtype=bool)
    else:
        tied = (
            (alt_answers != mine.answers)
            | (alt.tokens != mine.tokens)
            | (alt.position != mine.position)
            | (alt.stopped_by.astype(str) != mine.stopped_by.astype(str))
        )
    return TieCheck(
        qid=prep.qid,
        tied=np.asarray(tied, dtype=bool),
        gamma=mine.gamma,
        alt_gamma=alt.gamma,
        alt_summary=question_summary(alt),
    )
