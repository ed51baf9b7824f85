"""Parallel-Probe (`sc-pp`): stop once the winner is stable, pruning traces that keep disagreeing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from analysis.playground.policy_base import (
    DCO_PERCENTILE,
    DCO_UNIFORM,
    SC,
    MainParam,
    Option,
    ParamSpec,
    PolicyDecl,
    PolicyRules,
    PreparedQuestion,
    RefRule,
    SimSettings,
    Voting,
    ref_votes,
)
from analysis.playground.rules import Block, RuleSetup, RuleState, pp_scores


@dataclass(frozen=True)
class ParallelProbe(PolicyRules):
    """`sc-pp`: Parallel-Probe (Zheng et al. 2026, "Parallel-Probe: Towards Efficient Parallel
    Thinking via 2D Probing"; `mars/voting.py::ParallelProbeStopping`). At each checkpoint the
    unpruned traces vote (weight 1); the winner's stability count grows while it is unchanged
    (reset to 1 otherwise). From checkpoint index `warmup` on, a trace that disagrees with the
    winner `prune_patience` checkpoints in a row is pruned (no token saving: it still costs).
    Stops when the count reaches `conv` and at least `warmup` checkpoints have passed; the
    reported answer is the *unpruned* snapshot vote."""

    voting: Voting = SC
    conv: int = 3
    warmup: int = 4
    prune_patience: int = 2
    stop_label = "pp_consensus"
    main = MainParam("conv", "stable checkpoints (conv)", tuple(range(1, 12)))
    widgets = (
        ParamSpec("conv", "conv", "stable checkpoints to stop (conv)", 3, 1, 12),
        ParamSpec("warmup", "ppw", "warm-up checkpoints", 4, 0, 8),
        ParamSpec("prune_patience", "prune", "prune patience", 2, 0, 6),
    )

    @property
    def method(self) -> str:
        return "sc-pp" if not self.voting.filter else "dco-pp"

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        return pp_scores(blk, st, self.warmup, self.prune_patience)

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        return ok & (score >= self.conv)


class _Ref(RefRule):
    """The winner's stability count and the pruning, one checkpoint at a time."""

    def __init__(self, policy: ParallelProbe, g: int) -> None:
        self.policy, self.g = policy, g

    def start(self, rows: np.ndarray) -> None:
        self.stable, self.prev = 0, -1
        self.pruned = np.zeros(len(rows), dtype=bool)
        self.off = np.zeros(len(rows), dtype=np.int64)

    def fires(
        self, p: int, a: np.ndarray, e: np.ndarray, w: np.ndarray, v: np.ndarray, lead: int
    ) -> bool:
        pol = self.policy
        ep = e & ~self.pruned
        cnt = ref_votes(a, ep, np.ones(len(a)), self.g)
        has_p = cnt.sum() > 0
        win = int(np.argmax(cnt)) if has_p else -1
        self.stable = self.stable + 1 if (win == self.prev and win >= 0) else 1
        self.prev = win
        if p >= pol.warmup and pol.prune_patience > 0:
            agrees = (a == win) | ~ep
            self.off = np.where(agrees, 0, self.off + 1)
            self.pruned |= self.off >= pol.prune_patience
        return bool(p >= pol.warmup and self.stable >= pol.conv and has_p)


def _reference(pol: ParallelProbe, prep: PreparedQuestion, settings: SimSettings) -> RefRule:
    return _Ref(pol, prep.n_groups)


def _build(method: str, o: Mapping[str, Any]) -> ParallelProbe:
    dco_u = replace(DCO_UNIFORM, percentile=float(o["dco_percentile"]))
    return ParallelProbe(
        voting=SC if method == "sc-pp" else dco_u,
        conv=o["pp_conv"],
        warmup=o["pp_warmup"],
        prune_patience=o["pp_prune_patience"],
    )


DECL = PolicyDecl(
    name="parallel-probe",
    policy_type=ParallelProbe,
    family="published",
    methods=(("sc-pp", "Parallel-Probe (sc-pp)"),),
    hidden=("dco-pp",),
    build=_build,
    options=(
        Option("pp_conv", int, 3),
        Option("pp_warmup", int, 4),
        Option("pp_prune_patience", int, 2),
        DCO_PERCENTILE,
    ),
    reference=_reference,
    source="Zheng et al. 2026; `mars/voting.py::ParallelProbeStopping`",
)
