"""Early-stopping self-consistency (`esc`): traces arrive one by one, stop on a unanimous window."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analysis.playground.policy_base import (
    MainParam,
    Option,
    ParamSpec,
    PolicyDecl,
    PolicyRules,
    RefRule,
)
from analysis.playground.rules import Prefixes, esc_fires


@dataclass(frozen=True)
class EarlyStoppingSC(PolicyRules):
    """ESC (our addition; Li et al. 2024, "Escape Sky-high Cost: Early-stopping Self-Consistency
    for Multi-step Reasoning"), sequential arrival: the bootstrap sample's traces are generated
    one after another, whole, in sample order, in windows of `window` traces; stop after the
    first full window whose `window` final answers are all the same. Cost = sum of the lengths
    of the traces generated; answer = majority of their final answers (lowest id on ties).
    A trailing partial window is never tested. `position` = number of traces generated."""

    window: int = 5
    sequential = True
    stop_label = "esc"
    main = MainParam("window", "ESC window", tuple(range(2, 13)))
    widgets = (ParamSpec("window", "win", "ESC window (traces)", 5, 2, 16),)

    @property
    def method(self) -> str:
        return "esc"

    def sequential_fires(self, final: np.ndarray, prefixes: Prefixes) -> np.ndarray:
        return esc_fires(final, self.window)


class _Ref(RefRule):
    def __init__(self, window: int) -> None:
        self.window = window

    def fires_seq(self, seen: list[int]) -> bool:
        win = self.window
        return len(seen) % win == 0 and len(set(seen[-win:])) == 1


DECL = PolicyDecl(
    name="esc",
    policy_type=EarlyStoppingSC,
    family="sequential",
    methods=(("esc", "ESC, sequential arrival (ours)"),),
    build=lambda method, o: EarlyStoppingSC(window=int(o["esc_window"])),
    options=(
        Option(
            "esc_window",
            int,
            5,
            "esc: window of traces (sequential arrival); stop after the first window whose "
            "final answers all agree (EarlyStoppingSC.window; default 5)",
            published=False,
        ),
    ),
    reference=lambda pol, prep, settings: _Ref(pol.window),
    source="Li et al. 2024 (ESC)",
)
