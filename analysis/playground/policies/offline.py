"""Self-consistency at full budget (`offline`) and DeepConf online (`dco`): the baselines,
which never stop early."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from analysis.playground.policies.consensus import Consensus
from analysis.playground.policy_base import (
    DCO_PERCENTILE,
    SC,
    MainParam,
    ParamSpec,
    Policy,
    PolicyDecl,
    PolicyRules,
    Voting,
)


@dataclass(frozen=True)
class SelfConsistency(PolicyRules):
    """`offline`: majority vote of the sampled traces' final answers at full budget; never stops.
    Also reports the seven DeepConf offline votes (majority; weighted by mean/tail/bottom-10/min
    group confidence; top-10% filtered by tail conf resp. bottom-10, weighted by it).
    Source: Wang et al. 2023 (self-consistency); Fu et al. 2025 (DeepConf); `mars/simulation.py`."""

    kind: Literal["offline"] = "offline"
    never_stops = True
    offline_votes = True

    @property
    def method(self) -> str:
        return "offline"

    def replay_proxy(self) -> Policy | None:
        return Consensus(voting=SC, tau=2.0)


@dataclass(frozen=True)
class DeepConfOnline(PolicyRules):
    """`dco`: DeepConf online filtering and truncation (see `Voting`), confidence-weighted vote of
    final answers at full budget; never stops early (its savings come from truncation).
    Source: Fu et al. 2025 "Deep Think with Confidence"; `mars/simulation.py` (method `dco`)."""

    percentile: float = 90.0
    never_stops = True
    main = MainParam("percentile", "DeepConf threshold percentile", tuple(range(0, 101, 10)))
    widgets = (ParamSpec("percentile", "pct", "threshold percentile", 90, 0, 100, 5),)

    @property
    def method(self) -> str:
        return "dco"

    @property
    def voting(self) -> Voting:
        return Voting(filter=True, weighted=True, percentile=self.percentile)

    def replay_proxy(self) -> Policy | None:
        return Consensus(voting=self.voting, tau=2.0)


SELF_CONSISTENCY = PolicyDecl(
    name="self-consistency",
    policy_type=SelfConsistency,
    family="published",
    methods=(("offline", "Self-consistency, full budget (offline)"),),
    build=lambda method, o: SelfConsistency(),
    source="Wang et al. 2023; `mars/simulation.py`",
)

DEEPCONF_ONLINE = PolicyDecl(
    name="deepconf-online",
    policy_type=DeepConfOnline,
    family="published",
    methods=(("dco", "DeepConf online (dco)"),),
    build=lambda method, o: DeepConfOnline(percentile=float(o["dco_percentile"])),
    options=(DCO_PERCENTILE,),
    source="Fu et al. 2025; `mars/simulation.py`",
)
