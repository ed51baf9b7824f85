"""Consensus tau (`sc-consensus`, `dco-consensus`): stop once the leader holds tau of the vote."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from analysis.playground.policy_base import (
    DCO_PERCENTILE,
    SC,
    MainParam,
    Option,
    ParamSpec,
    PolicyDecl,
    PolicyRules,
    RefRule,
    Voting,
    voting_for,
)
from analysis.playground.rules import Block, RuleSetup, RuleState


@dataclass(frozen=True)
class Consensus(PolicyRules):
    """Consensus tau (our addition; `mars/voting.py::ConsensusStopping`, not used in published
    runs): stop at the first checkpoint where the leader holds `>= tau` of the snapshot vote
    weight (and there are votes). Label `consensus`."""

    voting: Voting = SC
    tau: float = 0.95
    stop_label = "consensus"
    main = MainParam("tau", "consensus tau", tuple(round(0.5 + 0.05 * i, 2) for i in range(11)))
    widgets = (ParamSpec("tau", "tau", "tau (leader share)", 0.95, 0.5, 1.0, 0.01),)
    voting_widget = True

    @property
    def method(self) -> str:
        return f"{self.voting.name}-consensus"

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        return blk.share(), blk.has

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        return ok & (score >= self.tau)

    def share_threshold(self) -> float | None:
        return self.tau


class _Ref(RefRule):
    def __init__(self, tau: float) -> None:
        self.tau = tau

    def fires(
        self, p: int, a: np.ndarray, e: np.ndarray, w: np.ndarray, v: np.ndarray, lead: int
    ) -> bool:
        return bool(v.sum() > 0 and v[lead] / v.sum() >= self.tau)


def _build(method: str, o: Mapping[str, Any]) -> Consensus:
    return Consensus(voting=voting_for(method, o), tau=float(o["tau"]))


DECL = PolicyDecl(
    name="consensus",
    policy_type=Consensus,
    family="checkpoint",
    methods=(
        ("sc-consensus", "Consensus tau on SC (ours)"),
        ("dco-consensus", "Consensus tau on DeepConf (ours)"),
    ),
    build=_build,
    options=(
        DCO_PERCENTILE,
        Option(
            "tau",
            float,
            0.95,
            "sc-consensus / dco-consensus: stop when the leader holds >= tau of the snapshot "
            "vote weight (Consensus.tau; default 0.95)",
            published=False,
        ),
    ),
    reference=lambda pol, prep, settings: _Ref(pol.tau),
    source="`mars/voting.py::ConsensusStopping` (not in the published runs)",
)
