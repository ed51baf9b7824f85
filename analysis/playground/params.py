"""The names the simulator's users import: settings, voting, every registered policy class and
the method lists. Each policy lives in its own module under `analysis.playground.policies`
(declared once, `PolicyDecl`); the shared pieces in `policy_base`. Semantics:
`docs/formats/stopping.md`."""

from __future__ import annotations

from analysis.playground.policies import (
    all_methods,
    extra_methods,
    policy_for_method,
    published_methods,
)
from analysis.playground.policies.adaptive import (
    AC_DEFAULT_THRESHOLD,
    ACCriterion,
    AdaptiveConsistency,
)
from analysis.playground.policies.consensus import Consensus
from analysis.playground.policies.esc import EarlyStoppingSC
from analysis.playground.policies.mars import Calibration, Mars
from analysis.playground.policies.offline import DeepConfOnline, SelfConsistency
from analysis.playground.policies.parallel_probe import ParallelProbe
from analysis.playground.policies.stability import ProbeStability
from analysis.playground.policy_base import (
    DCO,
    DCO_UNIFORM,
    DEFAULT_SETTINGS,
    NO_PARAM,
    SC,
    MainParam,
    ParamSpec,
    Policy,
    PolicyRules,
    SimSettings,
    Voting,
)

# the built-in methods (a policy registered later is in `policies.all_methods()`)
PUBLISHED_METHODS = published_methods()
EXTRA_METHODS = extra_methods()
ALL_METHODS = all_methods()


def main_param(policy: Policy) -> tuple[str, str, tuple[float, ...]]:
    """(field, label, default sweep values) of the parameter the frontier sweeps."""
    m = policy.main
    return m.name, m.label, m.values


def with_main_param(policy: Policy, value: float) -> Policy:
    """The same policy with its main parameter set (a Mars with a fixed gamma stops calibrating)."""
    return policy.with_main(value)


__all__ = [
    "AC_DEFAULT_THRESHOLD",
    "ALL_METHODS",
    "DCO",
    "DCO_UNIFORM",
    "DEFAULT_SETTINGS",
    "EXTRA_METHODS",
    "NO_PARAM",
    "PUBLISHED_METHODS",
    "SC",
    "ACCriterion",
    "AdaptiveConsistency",
    "Calibration",
    "Consensus",
    "DeepConfOnline",
    "EarlyStoppingSC",
    "MainParam",
    "Mars",
    "ParallelProbe",
    "ParamSpec",
    "Policy",
    "PolicyRules",
    "ProbeStability",
    "SelfConsistency",
    "SimSettings",
    "Voting",
    "main_param",
    "policy_for_method",
    "with_main_param",
]
