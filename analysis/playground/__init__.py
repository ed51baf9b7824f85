"""Early-stopping simulator for parallel sampling over MARS pools (pure numpy/scipy).

Faithful to the published MARS simulator (github Wenbo11/MARS) for `offline`, `dco`, `sc-mars`,
`dco-mars`, `sc-mars-cal`, `dco-mars-cal` and `sc-pp`; plus our additions (consensus tau, probe
stability, ESC, Adaptive-Consistency). Semantics: `docs/formats/stopping.md`.

Public API:
- `prepare(pool)` -> PreparedQuestion (cache it per pool);
- `simulate(preps, policy, settings, progress)` -> RunResult (`.write(dir)` writes the CSVs);
- `sweep(preps, policy, values, settings)` -> frontier points;
- `replay(prep, policy, settings, iteration)` -> (QuestionResult, Diagnostics);
- `policy_for_method(method, ...)` maps the published CLI's `--method`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from analysis.playground.engine import simulate_question
from analysis.playground.notes import Note, NoteCode
from analysis.playground.params import (
    ALL_METHODS,
    DCO,
    DCO_UNIFORM,
    DEFAULT_SETTINGS,
    EXTRA_METHODS,
    PUBLISHED_METHODS,
    SC,
    AdaptiveConsistency,
    Consensus,
    DeepConfOnline,
    EarlyStoppingSC,
    Mars,
    ParallelProbe,
    Policy,
    ProbeStability,
    SelfConsistency,
    SimSettings,
    Voting,
    main_param,
    policy_for_method,
    with_main_param,
)
from analysis.playground.prepare import PreparedQuestion, prepare
from analysis.playground.result import Diagnostics, QuestionResult
from analysis.playground.results import RunResult
from analysis.playground.sharing import sharing

ProgressFn = Callable[[float, str], None]

__all__ = [
    "ALL_METHODS",
    "DCO",
    "DCO_UNIFORM",
    "EXTRA_METHODS",
    "PUBLISHED_METHODS",
    "SC",
    "AdaptiveConsistency",
    "Consensus",
    "DeepConfOnline",
    "Diagnostics",
    "EarlyStoppingSC",
    "FrontierPoint",
    "Mars",
    "Note",
    "NoteCode",
    "ParallelProbe",
    "Policy",
    "PreparedQuestion",
    "ProbeStability",
    "QuestionResult",
    "RunResult",
    "SelfConsistency",
    "SimSettings",
    "Voting",
    "main_param",
    "point_of",
    "policy_for_method",
    "prepare",
    "replay",
    "simulate",
    "simulate_question",
    "sweep",
    "with_main_param",
]


def simulate(
    preps: Sequence[PreparedQuestion],
    policy: Policy,
    settings: SimSettings = DEFAULT_SETTINGS,
    progress: ProgressFn | None = None,
) -> RunResult:
    """Run `policy` on every question; never raises on bad data (notes per question)."""
    out = []
    total = max(len(preps), 1)
    for i, prep in enumerate(preps):
        out.append(simulate_question(prep, policy, settings))
        if progress is not None:
            progress((i + 1) / total, f"question {prep.qid}")
    return RunResult(policy, settings, out, {r.qid: r.notes for r in out if r.notes})


@dataclass(frozen=True)
class FrontierPoint:
    """One policy's (savings, accuracy) point with the 95 % intervals of both (NaN: unknown)."""

    value: float | None
    method: str
    accuracy_pct: float
    savings_pct: float
    policy: Policy
    accuracy_ci: tuple[float, float] = (float("nan"), float("nan"))
    savings_ci: tuple[float, float] = (float("nan"), float("nan"))


def point_of(run: RunResult, value: float | None = None) -> FrontierPoint:
    """The run's frontier point: means over questions of per-question means, with their
    two-level bootstrap 95 % intervals (`uncertainty`)."""
    accs = [float(r.correct.mean()) * 100 for r in run.questions if r.correct.size]
    savs = [float(r.savings.mean()) * 100 for r in run.questions if r.correct.size]
    a, s = run.accuracy_interval, run.savings_interval
    return FrontierPoint(
        value,
        run.policy.method,
        float(np.mean(accs)) if accs else 0.0,
        float(np.mean(savs)) if savs else 0.0,
        run.policy,
        (a.lo, a.hi),
        (s.lo, s.hi),
    )


def sweep(
    preps: Sequence[PreparedQuestion],
    policy: Policy,
    values: Sequence[float] | None = None,
    settings: SimSettings = DEFAULT_SETTINGS,
    progress: ProgressFn | None = None,
    run: Callable[[Policy], RunResult] | None = None,
) -> list[FrontierPoint]:
    """Accuracy vs savings of `policy` with its main parameter set to each value (default: the
    policy's own sweep values). `run` simulates one policy on `preps` (default `simulate`); the
    playground passes its cached runs, so the app and bench/playground.py share this path.
    The runs share what does not depend on the value (`sharing`: the same results, once)."""
    simulate_one = run if run is not None else (lambda pol: simulate(preps, pol, settings))
    vals = list(policy.main.values if values is None else values)
    if not vals:
        return [point_of(simulate_one(policy))]
    pts = []
    with sharing():
        for i, v in enumerate(vals):
            pts.append(point_of(simulate_one(policy.with_main(v)), v))
            if progress is not None:
                progress((i + 1) / len(vals), f"{v}")
    return pts


def replay(
    prep: PreparedQuestion, policy: Policy, settings: SimSettings, iteration: int
) -> tuple[QuestionResult, Diagnostics | None]:
    """One bootstrap iteration with its per-checkpoint internals (votes, margin, tokens)."""
    res, diag = simulate_question(
        prep, policy, settings, iterations=np.array([iteration]), diagnostics=True
    )
    return res, diag
