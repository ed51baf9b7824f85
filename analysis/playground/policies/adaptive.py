"""Adaptive-Consistency (`ac-beta`, `ac-dirichlet`, `ac-entropy`, `ac-majority`): traces arrive
one by one; a posterior or share criterion decides after each arrival."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from analysis.playground.policy_base import (
    MainParam,
    Option,
    ParamSpec,
    PolicyDecl,
    PolicyRules,
    RefRule,
)
from analysis.playground.rules import Prefixes, ac_fires, beta_prob, dirichlet_prob

ACCriterion = Literal["beta", "dirichlet", "entropy", "majority"]
AC_DEFAULT_THRESHOLD = {"beta": 0.95, "dirichlet": 0.95, "entropy": 0.75, "majority": 0.8}


@dataclass(frozen=True)
class AdaptiveConsistency(PolicyRules):
    """Adaptive-Consistency (our addition; Aggarwal et al. 2023, "Let's Sample Step by Step"),
    sequential arrival as ESC, the rule decides after each arrival:
    - `beta`: top-two counts a, b: stop when P(p > 0.5 | Beta(a+1, b+1)) >= threshold (0.95);
    - `dirichlet`: with >= 3 distinct answers, P(leader has the largest share) under
      Dirichlet(counts+1) over the `top_k` (5) most common answers >= threshold, computed
      exactly (a one-dimensional integral over Gamma variables, fixed quadrature, error
      < 1e-12: `rules.dirichlet_prob`); with < 3 distinct answers it is the Beta rule;
    - `entropy`: after >= 2 arrivals, normalised base-2 entropy of the answer counts (a single
      answer gets a pseudo-count 1 of a second) <= threshold (source default 0.75);
    - `majority`: after >= 2 arrivals, leader share >= threshold (source default 0.8).
    `position` = number of traces generated."""

    criterion: ACCriterion = "beta"
    threshold: float = 0.95
    top_k: int = 5
    sequential = True
    stop_label = "adaptive"
    main = MainParam("threshold", "threshold", tuple(round(0.5 + 0.05 * i, 2) for i in range(11)))
    widgets = (ParamSpec("threshold", "thr", "threshold", 0.95, 0.5, 0.99, 0.01),)

    @property
    def method(self) -> str:
        return f"ac-{self.criterion}"

    def sequential_fires(self, final: np.ndarray, prefixes: Prefixes) -> np.ndarray:
        return ac_fires(prefixes, self.criterion, self.threshold, self.top_k)


class _Ref(RefRule):
    """The criterion recomputed from the answer counts after each arrival."""

    def __init__(self, policy: AdaptiveConsistency) -> None:
        self.policy = policy

    def fires_seq(self, seen: list[int]) -> bool:
        policy = self.policy
        c = Counter(seen)
        top = sorted(c.values(), reverse=True)
        a, b = top[0], (top[1] if len(top) > 1 else 0)
        n = len(seen)
        if policy.criterion == "beta":
            return bool(beta_prob(a, b) >= policy.threshold)
        if policy.criterion == "majority":
            return n >= 2 and a / n >= policy.threshold
        if policy.criterion == "entropy":
            vals = list(c.values()) + ([1] if len(c) < 2 else [])
            p = np.array(vals, dtype=np.float64) / sum(vals)
            h = float(-(p * np.log2(p)).sum()) / np.log2(len(vals))
            return n >= 2 and h <= policy.threshold
        if policy.criterion == "dirichlet":
            if len(c) < 3:
                return bool(beta_prob(a, b) >= policy.threshold)
            return dirichlet_prob(tuple(top[: max(2, policy.top_k)])) >= policy.threshold
        raise ValueError(policy.criterion)


def _build(method: str, o: Mapping[str, Any]) -> AdaptiveConsistency:
    crit = method[3:]
    thr = AC_DEFAULT_THRESHOLD[crit] if o["ac_threshold"] is None else float(o["ac_threshold"])
    return AdaptiveConsistency(criterion=crit, threshold=thr, top_k=int(o["ac_top_k"]))  # type: ignore[arg-type]  # crit is one of the declared methods' criteria


DECL = PolicyDecl(
    name="adaptive-consistency",
    policy_type=AdaptiveConsistency,
    family="sequential",
    methods=(
        ("ac-beta", "Adaptive-Consistency Beta, sequential (ours)"),
        ("ac-dirichlet", "Adaptive-Consistency Dirichlet, sequential (ours)"),
        ("ac-entropy", "Adaptive-Consistency entropy, sequential (ours)"),
        ("ac-majority", "Adaptive-Consistency majority, sequential (ours)"),
    ),
    build=_build,
    options=(
        Option(
            "ac_threshold",
            float,
            None,
            "ac-*: stopping threshold (AdaptiveConsistency.threshold; default per criterion: "
            "beta 0.95, dirichlet 0.95, entropy 0.75, majority 0.8)",
            published=False,
        ),
        Option(
            "ac_top_k",
            int,
            5,
            "ac-dirichlet: number of most common answers in the Dirichlet "
            "(AdaptiveConsistency.top_k; default 5)",
            published=False,
        ),
    ),
    reference=lambda pol, prep, settings: _Ref(pol),
    source="Aggarwal et al. 2023 (Adaptive-Consistency)",
)
