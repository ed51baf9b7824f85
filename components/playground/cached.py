"""Streamlit caching adapters for the stopping playground, keyed by plain values only.

Prepared pools (one per question) are built once per file through the MARS feature store and
held in memory (`st.cache_resource`); simulation runs are cached by (file, source, policy,
settings), all frozen dataclasses, so moving a slider back and forth is instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import streamlit as st

from analysis.mars.for_playground import feature_paths, load_features
from analysis.playground import (
    Diagnostics,
    FrontierPoint,
    Policy,
    PreparedQuestion,
    QuestionResult,
    RunResult,
    SimSettings,
    point_of,
    prepare,
    replay,
    simulate,
    sweep,
)
from analysis.playground.ties import TieCheck, tie_check
from cache.datasets import mars_reference_dir
from cache.errors import DataError
from cache.kept import Kept
from cache.progress import ProgressFn, scaled
from cache.sources import SourceConfig
from components.common.cached import file_stamp, resolve, st_progress


@st.cache_resource(show_spinner=False, max_entries=4)
def _prepared(path: str, mtime: int, window: int) -> list[PreparedQuestion]:
    store = load_features(Path(path), window=window)
    return [prepare(store.pool(q)) for q in store.qids]


@st.cache_resource(show_spinner=False, max_entries=16)
def _built(path: str, mtime: int, window: int) -> dict[str, bool]:
    return {"done": False}  # flips once the feature table exists (progress drawn outside caches)


def prepared(relpath: str, src: SourceConfig, window: int = 2048) -> list[PreparedQuestion]:
    """Prepared pools of every question of a MARS file (raises DataError on bad sources).
    The first use of a file builds its feature table with a progress bar."""
    path = resolve("mars", relpath, src)
    mtime = file_stamp(path)
    flag = _built(str(path), mtime, window)
    if not flag["done"]:
        # one bar until the pools are in memory: loading and preparing 30 pools after the
        # table is built takes a while too (a new window W left the area blank meanwhile)
        with st_progress(f"Building the MARS feature table (window {window})…") as bar:
            feature_paths(path, window=window, progress=scaled(bar, 0.0, 0.8))
            bar(0.85, "preparing the question pools…")
            preps = _prepared(str(path), mtime, window)
            bar(1.0, "done")
        flag["done"] = True
        return preps
    return _prepared(str(path), mtime, window)


@st.cache_resource(show_spinner=False, max_entries=256)
def _run(path: str, mtime: int, policy: Policy, settings: SimSettings) -> RunResult:
    preps = _prepared(path, mtime, settings.window)  # `run` callers called `prepared` first
    return simulate(preps, policy, settings)


def run(relpath: str, src: SourceConfig, policy: Policy, settings: SimSettings) -> RunResult:
    prepared(relpath, src, settings.window)
    path = resolve("mars", relpath, src)
    return _run(str(path), file_stamp(path), policy, settings)


@st.cache_resource(show_spinner=False, max_entries=64)
def _replayed(
    path: str, mtime: int, policy: Policy, settings: SimSettings, qid: int, iteration: int
) -> tuple[QuestionResult, Diagnostics | None]:
    prep = next(p for p in _prepared(path, mtime, settings.window) if p.qid == qid)
    res, diag = replay(prep, policy, settings, iteration)
    proxy = policy.replay_proxy()
    if proxy is not None:  # same sample, same votes per checkpoint; `res` stays the policy's own
        _res, diag = replay(prep, proxy, settings, iteration)
    return res, diag


def replayed(
    relpath: str, src: SourceConfig, policy: Policy, settings: SimSettings, qid: int, it: int
) -> tuple[QuestionResult, Diagnostics | None]:
    """One bootstrap iteration of one question with its per-checkpoint internals (a policy that
    never stops shows its proxy's votes), cached like the runs: stepping back and forth through
    iterations, or opening a shared replay link again, recomputes nothing. Never mutated."""
    prepared(relpath, src, settings.window)
    path = resolve("mars", relpath, src)
    return _replayed(str(path), file_stamp(path), policy, settings, int(qid), int(it))


@st.cache_data(show_spinner=False, max_entries=128)
def _points(
    path: str, mtime: int, policies: tuple[Policy, ...], settings: SimSettings
) -> list[FrontierPoint]:
    """Frontier points of several policies (small, picklable: cache_data)."""
    return [point_of(_run(path, mtime, pol, settings)) for pol in policies]


def points(
    relpath: str, src: SourceConfig, policies: Sequence[Policy], settings: SimSettings
) -> list[FrontierPoint]:
    """Accuracy/savings points of `policies` (the other policies at their defaults), cached by (file, stamp, policies, settings): a slider that leaves them unchanged
    redraws the frontier without re-simulating."""
    if not policies:
        return []
    prepared(relpath, src, settings.window)
    path = resolve("mars", relpath, src)
    return _points(str(path), file_stamp(path), tuple(policies), settings)


# Whole sweeps' points by (file, stamp, policy, settings), over every session of the process: a
# rerun that keeps a sweep reads one entry instead of a cached run and its point per value. Not
# a Streamlit cache: the sweep moves a progress bar, which a cached function may not touch.
_SWEEPS: Kept[tuple[object, ...], list[FrontierPoint]] = Kept(64)


def sweep_points(
    relpath: str,
    src: SourceConfig,
    policy: Policy,
    settings: SimSettings,
    progress: ProgressFn | None = None,
) -> list[FrontierPoint]:
    """The frontier points of `policy` swept over its main parameter ([] when it has none):
    `analysis.playground.sweep` (the path bench/playground.py times), each point's run through
    the cached `_run`, so a slider that leaves the sweep unchanged re-simulates nothing."""
    if not policy.main.values:
        return []
    preps = prepared(relpath, src, settings.window)
    path = resolve("mars", relpath, src)
    key = (str(path), file_stamp(path), policy, settings)
    pts = _SWEEPS.get(key)
    if pts is None:
        pts = sweep(
            preps,
            policy,
            settings=settings,
            progress=progress,
            run=lambda pol: _run(key[0], key[1], pol, settings),
        )
        _SWEEPS.put(key, pts)
    return pts


def run_with_progress(
    relpath: str, src: SourceConfig, policies: list[Policy], settings: SimSettings, hook: ProgressFn
) -> list[RunResult]:
    """Several runs (a full published-setting computation) driving one progress bar."""
    out = []
    for i, pol in enumerate(policies):
        hook(i / max(len(policies), 1), pol.method)
        out.append(run(relpath, src, pol, settings))
    hook(1.0, "done")
    return out


@st.cache_resource(show_spinner=False, max_entries=32)
def _tie_checks(
    path: str, mtime: int, policy: Policy, settings: SimSettings, qids: tuple[int, ...]
) -> dict[int, TieCheck]:
    preps = {p.qid: p for p in _prepared(path, mtime, settings.window)}
    ours = {r.qid: r for r in _run(path, mtime, policy, settings).questions}
    return {q: tie_check(preps[q], policy, settings, ours.get(q)) for q in qids if q in preps}


def tie_checks(
    relpath: str, src: SourceConfig, policy: Policy, settings: SimSettings, qids: Sequence[int]
) -> dict[int, TieCheck]:
    """Per question in `qids`: the run with ties broken the other way, compared iteration by
    iteration with ours (`analysis.playground.ties`), cached like the runs."""
    if not qids:
        return {}
    prepared(relpath, src, settings.window)
    path = resolve("mars", relpath, src)
    return _tie_checks(str(path), file_stamp(path), policy, settings, tuple(sorted(set(qids))))


@st.cache_data(show_spinner=False, max_entries=64)
def reference_csvs(
    relpath: str, src: SourceConfig, method: str
) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The source's repro_reference summaries for this file and method, or None if absent."""
    base = mars_reference_dir(relpath, method)
    try:
        per_q = pd.read_csv(resolve("mars", f"{base}/summary_per_question.csv", src))
    except (DataError, OSError, ValueError):
        return None
    try:
        overall = pd.read_csv(resolve("mars", f"{base}/summary_overall.csv", src))
    except (DataError, OSError, ValueError):
        overall = pd.DataFrame()
    return per_q, overall
