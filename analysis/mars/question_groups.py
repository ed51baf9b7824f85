"""One question's answers grouped, apart from its numbers: what a build's helper process needs
(`analysis.mars.fact_feed`) without pyarrow or the numeric pass (a fifth of its start-up).

Group ids follow first appearance: final answers in trace_idx order (`trace_order`), then probe
answers (see `analysis.mars.features`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from analysis.mars.answers import AnswerGrouper, compares_symbolic


def majority_ground_truth(gts: list) -> str:
    """The most common non-null ground truth of a question ("" if none)."""
    return max(set(gts), key=gts.count) if gts else ""


def _question_grouper(gt: object, finals: list, probe_answers: list) -> AnswerGrouper:
    """The grouper of one question: whether its non-numeric answers are compared pairwise (the
    published simulator's cap) is decided from all of them, final and probe, before any is
    added."""
    return AnswerGrouper(gt, symbolic_pairwise=compares_symbolic(chain(finals, probe_answers)))


@dataclass(frozen=True)
class GroupSummary:
    """What a question's finalisation needs of its grouper once every answer is in: each group's
    label and correctness. Why not the grouper: the build's fact helper sends this back over a
    pipe (`analysis.mars.fact_feed`), so its parent does not group the question again."""

    labels: list[str]
    group_correct: np.ndarray  # bool [n_groups]

    @classmethod
    def of(cls, grouper: AnswerGrouper) -> GroupSummary:
        return cls(grouper.labels, grouper.group_correct)

    @property
    def n_groups(self) -> int:
        return len(self.labels)

    def correct_of(self, groups: np.ndarray) -> np.ndarray:
        """Correctness of each group id in `groups` (-1 -> False)."""
        table = np.concatenate([self.group_correct, np.zeros(1, dtype=bool)])
        g = np.asarray(groups, dtype=np.int64)
        return table[np.where(g < 0, table.shape[0] - 1, g)]


@dataclass(frozen=True)
class WarmedGroups:
    """One question's answers grouped, with what they were grouped from: `warm_grouping` makes
    them ahead of the question's numeric part, and `finalise_question` reuses them when its part
    holds the same answers in the same order and the same ground truth (group ids follow first
    appearance, so anything else is grouped again)."""

    ground_truth: str
    finals: list
    probe_answers: list
    summary: GroupSummary
    final_group: np.ndarray
    probe_group: np.ndarray

    def fits(self, ground_truth: str, finals: list, probe_answers: list) -> bool:
        return (
            self.ground_truth == ground_truth
            and self.finals == finals
            and self.probe_answers == probe_answers
        )


def grouped(gt: str, finals: list, probe_answers: list) -> WarmedGroups:
    """Group one question's final answers, then its probe answers, under ground truth `gt`."""
    grouper = _question_grouper(gt, finals, probe_answers)
    final_group = grouper.add_many(finals)
    probe_group = grouper.add_many(probe_answers)
    return WarmedGroups(
        gt, finals, probe_answers, GroupSummary.of(grouper), final_group, probe_group
    )


def warm_grouping(finals: list, probe_answers: list, gts: list) -> WarmedGroups:
    """Group one question's answers before its numeric batch arrives. This fills the
    per-string caches of `analysis.mars.answers` (parse, solve, verify: pure functions of the
    strings), and `finalise_question` reuses the groups themselves when they fit its part.
    The ingest's parent does this while its workers' first questions are still being
    computed, and the fact helper (`analysis.mars.fact_feed`) to learn math-verify's facts."""
    return grouped(majority_ground_truth([g for g in gts if g is not None]), finals, probe_answers)


def trace_order(tix: np.ndarray) -> np.ndarray:
    """The rows of one question to keep, in the order its answers are grouped: by trace_idx,
    the first row of a duplicated trace_idx kept."""
    order = np.argsort(tix, kind="stable")
    st = tix[order]
    keep = np.ones(order.shape[0], dtype=bool)
    keep[1:] = st[1:] != st[:-1]
    return order if keep.all() else order[keep]
