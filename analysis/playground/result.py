"""One question's simulated iterations and the replay's per-checkpoint internals.

Why its own module: the checkpoint engine, the sequential-arrival rules and the result tables
all build or read these; keeping them here lets each import it without importing the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from analysis.playground.notes import Note


@dataclass
class QuestionResult:
    """One question's simulated iterations (answers are compact group ids of `prep`)."""

    qid: int
    ground_truth: str
    iterations: np.ndarray  # int64 [I] iteration indices
    answers: np.ndarray  # int64 [I] compact group id, -1 = no answer
    correct: np.ndarray  # bool [I]
    tokens: np.ndarray  # int64 [I]
    baseline: np.ndarray  # int64 [I]
    position: np.ndarray  # int64 [I] stop position (tokens), or traces generated (sequential)
    stop_index: np.ndarray  # int64 [I] checkpoint index / traces, -1 = by budget
    stopped_by: np.ndarray  # object [I]
    labels: list[str]
    n_pool: int
    gamma: float | None = None
    notes: list[Note] = field(default_factory=list)
    extra_votes: dict[str, np.ndarray] = field(default_factory=dict)  # offline DeepConf votes
    group_correct: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=bool))

    def is_correct(self, answers: np.ndarray) -> np.ndarray:
        """Correctness of compact group ids (-1 = no answer = wrong)."""
        a = np.asarray(answers, dtype=np.int64)
        return (a >= 0) & self.group_correct[np.maximum(a, 0)]

    def answer_text(self, i: int) -> str:
        a = int(self.answers[i])
        return self.labels[a] if a >= 0 else ""

    @property
    def savings(self) -> np.ndarray:
        """Per-iteration token savings fraction (0 where the baseline is 0)."""
        base = self.baseline.astype(np.float64)
        out = np.zeros_like(base)
        np.divide(self.tokens, base, out=out, where=base > 0)
        return np.where(base > 0, 1.0 - out, 0.0)


@dataclass
class Diagnostics:
    """Per-checkpoint internals of a run, for the replay view ([I, K] unless noted)."""

    grid: np.ndarray
    votes: np.ndarray  # [I, K, G]
    leader: np.ndarray
    has_votes: np.ndarray
    fires: np.ndarray  # rule fired at k
    tokens_at: np.ndarray | None  # [I, K] sum_j min(len, trunc, p_k)
    n_eligible: np.ndarray
    margin: np.ndarray | None = None  # MARS: lhs of the binding check
    threshold: np.ndarray | None = None  # MARS: its rhs
    share: np.ndarray | None = None  # leader share of the vote
    q_votes: np.ndarray | None = None  # MARS: S_a per answer [I, K, G]
    q_all: np.ndarray | None = None  # MARS: S_all [I, K]
    gamma: float | None = None  # MARS: the gamma the threshold used
    guard: int = -1  # MARS: the answer the first checkpoint's leader must be (-1: no guard)
