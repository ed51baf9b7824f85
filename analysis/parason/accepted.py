"""The accepted Trial of each OR stage, and a counterfactual critical path that waits only for it.

Why: the runtime (and the published count) joins an OR stage only when every Trial has closed, so C
takes the longest Trial even when a shorter one was the accepted attempt. Threads mark their
verdict in their text: the sample and the released data end a Trial with "Accepted." or
"Rejected."; the last such word (case-insensitive, a whole word) is the Trial's verdict. The two
counterfactuals are what C would be if each top-level OR stage had waited only for its accepted
Trial (stages without exactly one accepted Trial keep the longest), or only for the Trial that
finishes first (fewest critical tokens). Neither is what the runtime does; they bound what an
early-stopping join could save.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.parason.metrics import block_cost
from analysis.parason.parse import Trajectory
from analysis.parason.tokens import node_tokens

VERDICT_RE = re.compile(r"\b(accepted|rejected)\b", re.IGNORECASE)


def trial_verdict(body: str) -> str | None:
    """ "accepted", "rejected" or None: the last verdict word of a thread's text."""
    hits = VERDICT_RE.findall(body or "")
    return hits[-1].lower() if hits else None


@dataclass(frozen=True, slots=True)
class TrialRow:
    """One Trial of an OR stage: its node, 1-based position, critical tokens and verdict."""

    node: str
    position: int
    tokens: float
    verdict: str | None


@dataclass(frozen=True, slots=True)
class OrStage:
    """One top-level OR stage (0-based `stage`): s_b, its Trials, which one was accepted (None
    when no Trial, or more than one, says "Accepted"), which finishes first, and the stage's cost
    waiting for all / for the accepted one / for the first one (s_b + that Trial's tokens)."""

    stage: int
    s: float
    trials: list[TrialRow]
    accepted: str | None
    first: str | None
    cost_all: float
    cost_accepted: float
    cost_first: float


@dataclass(frozen=True, slots=True)
class AcceptedView:
    """C as counted (waits for every Trial) and both counterfactuals, with the OR stages."""

    C: float
    C_accepted: float
    C_first: float
    stages: list[OrStage]

    @property
    def marked(self) -> int:
        """OR stages with exactly one accepted Trial."""
        return sum(s.accepted is not None for s in self.stages)


def accepted_view(traj: Trajectory, counts: list[float], C: float) -> AcceptedView:
    """The OR stages of `traj` with their verdicts, and C if only the accepted (or the first
    finishing) Trial had been waited for. `counts` are the per-part counts the metrics used."""
    nt = node_tokens(traj, counts)
    stages: list[OrStage] = []
    saved_acc = saved_first = 0.0
    for b in traj.blocks:
        if b.join_type != "OR" or not b.threads:
            continue
        s, _, crits, cost = block_cost(b, nt)
        trials = [
            TrialRow(
                th.node,
                th.index + 1,
                cp,
                trial_verdict(traj.text[th.body_start : th.body_end]),
            )
            for th, cp in zip(b.threads, crits, strict=True)
        ]
        accepted = [t for t in trials if t.verdict == "accepted"]
        acc = accepted[0] if len(accepted) == 1 else None
        first = min(trials, key=lambda t: (t.tokens, t.position))
        cost_acc = s + acc.tokens if acc else cost
        cost_first = s + first.tokens
        saved_acc += cost - cost_acc
        saved_first += cost - cost_first
        stages.append(
            OrStage(
                b.stage,
                s,
                trials,
                acc.node if acc else None,
                first.node,
                cost,
                cost_acc,
                cost_first,
            )
        )
    return AcceptedView(C, C - saved_acc, C - saved_first, stages)
