"""`policy_for_method`: published defaults unchanged, our additions' parameters reach their
policy fields (the CLI flags and the playground build policies through it)."""

from __future__ import annotations

import pytest

from analysis.playground import (
    ALL_METHODS,
    DCO,
    DCO_UNIFORM,
    AdaptiveConsistency,
    Consensus,
    DeepConfOnline,
    EarlyStoppingSC,
    Mars,
    ProbeStability,
    Voting,
    policy_for_method,
)


def test_defaults_are_the_published_policies() -> None:
    assert policy_for_method("dco") == DeepConfOnline()
    assert policy_for_method("dco-mars").voting == DCO_UNIFORM
    assert policy_for_method("dco-mars-cal").voting == DCO
    assert policy_for_method("dco-consensus") == Consensus(voting=DCO)
    assert policy_for_method("sc-stability") == ProbeStability()
    assert policy_for_method("esc") == EarlyStoppingSC()
    assert policy_for_method("ac-entropy") == AdaptiveConsistency("entropy", 0.75)
    assert policy_for_method("ac-majority").threshold == 0.8


def test_added_parameters_reach_their_fields() -> None:
    assert policy_for_method("sc-consensus", tau=0.7).tau == 0.7
    assert policy_for_method("dco-stability", stability_k=5).k == 5
    assert policy_for_method("esc", esc_window=8).window == 8
    ac = policy_for_method("ac-dirichlet", ac_threshold=0.9, ac_top_k=3)
    assert (ac.threshold, ac.top_k) == (0.9, 3)
    assert policy_for_method("dco", dco_percentile=50).percentile == 50.0
    m = policy_for_method("dco-mars-cal", dco_percentile=70)
    assert isinstance(m, Mars) and m.voting == Voting(True, True, 70.0)
    assert policy_for_method("dco-consensus", dco_percentile=70).voting.percentile == 70.0


@pytest.mark.parametrize("method", ALL_METHODS)
def test_unrelated_parameters_leave_a_policy_alone(method: str) -> None:
    """A flag for another rule does not change this one (the CLI passes every flag)."""
    base = policy_for_method(method)
    other = policy_for_method(
        method,
        tau=base.tau if isinstance(base, Consensus) else 0.6,
        stability_k=base.k if isinstance(base, ProbeStability) else 7,
        esc_window=base.window if isinstance(base, EarlyStoppingSC) else 9,
        ac_threshold=base.threshold if isinstance(base, AdaptiveConsistency) else 0.55,
    )
    assert other == base
