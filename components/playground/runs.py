"""The runs one playground screen needs: the current policy, the baselines, its frontier sweep
(`analysis.playground.sweep`, through the cached runs) and the other policies' points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from analysis.playground import FrontierPoint, Policy, RunResult, SimSettings, point_of
from cache.progress import scaled
from cache.sources import SourceConfig
from components.common.cached import st_progress
from components.playground import cached as pc
from components.playground.controls import FRONTIER_BASELINES, published_policy

BASELINES = FRONTIER_BASELINES


class RunSet(NamedTuple):
    cur: RunResult
    bases: dict[str, RunResult]
    sweep_pts: list[FrontierPoint]
    label: str
    others: list[tuple[str, FrontierPoint]]


def run_set(
    rel: str,
    src: SourceConfig,
    policy: Policy,
    settings: SimSettings,
    full: bool,
    others: Sequence[str] = (),
) -> RunSet:
    """The current run, the frontier sweep, baselines and other policies (cached runs and
    cached frontier points, keyed by plain values). A full run draws one progress bar."""
    base_pols = [published_policy(m) for m in BASELINES]
    other_pols = [published_policy(m) for m in others if m != policy.method]
    todo = [policy, *base_pols]
    if full:
        with st_progress("Full run at the published setting…") as bar:
            runs = pc.run_with_progress(
                rel, src, [*todo, *other_pols], settings, scaled(bar, 0, 0.5)
            )
            sweep_pts = pc.sweep_points(rel, src, policy, settings, scaled(bar, 0.5, 1.0))
        runs = runs[: len(todo)]
        other_pts = pc.points(rel, src, other_pols, settings)  # cached by the runs above
    else:
        # a bar while the preview runs, so the area never sits blank (cached runs: a flash)
        with st_progress("Simulating (quick preview)…") as bar:
            runs = pc.run_with_progress(rel, src, todo, settings, scaled(bar, 0, 0.4))
            sweep_pts = pc.sweep_points(rel, src, policy, settings, scaled(bar, 0.4, 0.9))
            bar(0.9, "other policies")
            other_pts = pc.points(rel, src, other_pols, settings)
    cur = runs[0]
    bases = dict(zip(BASELINES, runs[1:], strict=True))
    others_out = [
        (f"SC full budget ({bases['offline'].policy.method})", point_of(bases["offline"])),
        ("DeepConf online (dco)", point_of(bases["dco"])),
    ]
    others_out += [(pt.method, pt) for pt in other_pts]
    return RunSet(cur, bases, sweep_pts, policy.main.label, others_out)
