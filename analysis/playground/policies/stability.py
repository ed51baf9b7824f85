"""Probe stability (`sc-stability`, `dco-stability`): stop once the leader held k checkpoints."""

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
from analysis.playground.rules import Block, RuleSetup, RuleState, stability_runs


@dataclass(frozen=True)
class ProbeStability(PolicyRules):
    """Probe stability (our addition, Dynasor-style: Fu et al. 2024 "Efficiently Serving LLM
    Reasoning Programs with Certaindex", probe-in-the-middle consistency): stop at the first
    checkpoint where the snapshot leader has been the same answer for `k` consecutive
    checkpoints (each with votes), counting the current one. Label `stability`."""

    voting: Voting = SC
    k: int = 3
    stop_label = "stability"
    main = MainParam("k", "stable checkpoints k", tuple(range(1, 12)))
    widgets = (ParamSpec("k", "k", "stable checkpoints k", 3, 1, 12),)
    voting_widget = True

    @property
    def method(self) -> str:
        return f"{self.voting.name}-stability"

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        runs = stability_runs(blk, st)
        return runs, np.ones(runs.shape, dtype=bool)

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        return ok & (score >= max(1, self.k))


class _Ref(RefRule):
    def __init__(self, k: int) -> None:
        self.k = k

    def start(self, rows: np.ndarray) -> None:
        self.run_len, self.prev_lead = 0, -1

    def fires(
        self, p: int, a: np.ndarray, e: np.ndarray, w: np.ndarray, v: np.ndarray, lead: int
    ) -> bool:
        has = v.sum() > 0
        same = self.run_len > 0 and lead == self.prev_lead
        self.run_len = (self.run_len + 1 if same else 1) if has else 0
        self.prev_lead = lead
        return self.run_len >= max(1, self.k)


def _build(method: str, o: Mapping[str, Any]) -> ProbeStability:
    return ProbeStability(voting=voting_for(method, o), k=int(o["stability_k"]))


DECL = PolicyDecl(
    name="stability",
    policy_type=ProbeStability,
    family="checkpoint",
    methods=(
        ("sc-stability", "Probe stability on SC (ours, Dynasor-style)"),
        ("dco-stability", "Probe stability on DeepConf (ours)"),
    ),
    build=_build,
    options=(
        DCO_PERCENTILE,
        Option(
            "stability_k",
            int,
            3,
            "sc-stability / dco-stability: stop when the leader has been the same for k "
            "consecutive checkpoints (ProbeStability.k; default 3)",
            published=False,
        ),
    ),
    reference=lambda pol, prep, settings: _Ref(pol.k),
    source="Fu et al. 2024 (Dynasor, Certaindex)",
)
