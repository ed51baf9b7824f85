"""Plain per-iteration Python loop implementation of the simulator (test oracle + benchmark
baseline). Written for clarity, one iteration and one checkpoint at a time, the way the spec
reads; shares only the q-model fit (`mars.learned_q`) with the vectorised engine. DeepConf
truncation uses `QuestionPool.first_window_below` (binary search) instead of the engine's
rank-keyed searchsorted, and the MARS thresholds are direct per-challenger sums.

It asks a policy only for the facts every rule shares (voting, whether it never stops or is
sequential, its stop label); each rule's decision is written out again, on purpose, as the
`RefRule` its declaration names (`PolicyDecl.reference`, next to the policy): an oracle that
called the policies' own `block_fires` would test the engine against itself.
Kept in `analysis/` (not tests/) because bench/playground.py times the engine against it.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence

import numpy as np

from analysis.playground.policies import decl_for_policy
from analysis.playground.policy_base import DEFAULT_SETTINGS, Policy, SimSettings, ref_votes
from analysis.playground.prepare import PreparedQuestion
from analysis.playground.result import QuestionResult
from analysis.playground.results import RunResult


def reference_question(
    prep: PreparedQuestion, policy: Policy, settings: SimSettings
) -> QuestionResult:
    """Same contract as `engine.simulate_question` (no diagnostics), one iteration at a time."""
    n_it = settings.iterations
    answers = np.full(n_it, -1, dtype=np.int64)
    tokens = np.zeros(n_it, dtype=np.int64)
    baseline = np.zeros(n_it, dtype=np.int64)
    position = np.zeros(n_it, dtype=np.int64)
    stop_index = np.full(n_it, -1, dtype=np.int64)
    stopped_by = np.array(["budget"] * n_it, dtype=object)
    g = prep.n_groups
    k = prep.n_checkpoints
    grid = prep.grid
    gamma = None
    src = prep.source
    pool_rows = np.nonzero(
        np.asarray(src.final_group)[np.argsort(src.trace_idx, kind="stable")] >= 0
    )[0]
    src_order = np.argsort(src.trace_idx, kind="stable")[pool_rows]  # pool row -> source row
    if prep.n == 0 or settings.budget <= 0:
        return QuestionResult(
            prep.qid,
            prep.ground_truth,
            np.arange(n_it),
            answers,
            np.zeros(n_it, bool),
            tokens,
            baseline,
            position,
            stop_index,
            stopped_by,
            prep.group_labels,
            0,
            group_correct=prep.group_correct,
        )
    voting = policy.voting
    rule = decl_for_policy(policy).reference(policy, prep, settings)  # the rule, written out
    gamma = rule.gamma

    for it in range(n_it):
        rng = np.random.default_rng(settings.seed + prep.qid * 10000 + it)
        rows = rng.choice(prep.n, size=settings.budget, replace=True)
        lens = prep.lengths[rows]
        fin = prep.final[rows]
        if policy.sequential:
            seen: list[int] = []
            n_gen = len(rows)
            stopped = False
            for j in range(len(rows)):
                seen.append(int(fin[j]))
                if rule.fires_seq(seen):
                    n_gen, stopped = j + 1, True
                    break
            c = Counter(seen[:n_gen])
            answers[it] = min(c, key=lambda a: (-c[a], a))
            tokens[it] = int(lens[:n_gen].sum())
            baseline[it] = int(lens.sum())
            position[it] = n_gen
            if stopped:
                stop_index[it] = n_gen
                stopped_by[it] = policy.stop_label
            continue

        if voting.filter:
            thr = float(
                np.percentile(prep.min_group[rows[: max(1, settings.warmup)]], voting.percentile)
            )
            trunc = np.empty(len(rows), dtype=np.int64)
            for j, r in enumerate(rows):
                wdx = src.first_window_below(int(src_order[r]), thr) if np.isfinite(thr) else -1
                trunc[j] = wdx + prep.window if wdx >= 0 else lens[j]
        else:
            thr = None
            trunc = lens.copy()
        cap = np.minimum(lens, trunc)
        baseline[it] = int(cap.sum())
        stop_at = -1
        rule.start(rows)
        never = policy.never_stops
        for p in range(0 if never else k):
            pos = int(grid[p])
            a = prep.groups[rows, p]
            e = a >= 0
            if voting.filter:
                e &= np.minimum.accumulate(prep.conf[rows, : p + 1], axis=1)[:, -1] >= thr
                e &= ~((trunc < lens) & (pos >= trunc))
            w = prep.conf[rows, p].astype(np.float64) if voting.weighted else np.ones(len(rows))
            v = ref_votes(a, e, w, g)
            lead = int(np.argmax(v))
            has = v.sum() > 0
            fire = rule.fires(p, a, e, w, v, lead)
            if fire:
                stop_at = p
                answers[it] = lead if has else -1
                tokens[it] = int(np.minimum(cap, pos).sum())
                position[it] = pos
                stop_index[it] = p
                stopped_by[it] = policy.stop_label
                break
        if stop_at < 0:
            e = fin >= 0
            if voting.filter and k:
                e &= np.minimum.accumulate(prep.conf[rows], axis=1)[:, -1] >= thr
                e &= ~((trunc < lens) & (int(grid[-1]) >= trunc))
            if voting.weighted:
                w = prep.conf[rows, -1].astype(np.float64) if k else prep.mean_conf[rows]
            else:
                w = np.ones(len(rows))
            v = ref_votes(fin, e, w, g)
            answers[it] = int(np.argmax(v)) if v.sum() > 0 else -1
            tokens[it] = baseline[it]
            position[it] = int(grid[-1]) if k else 0
    correct = (answers >= 0) & prep.group_correct[np.maximum(answers, 0)]
    extra = _ref_deepconfref_votes(prep, settings) if policy.offline_votes else {}
    return QuestionResult(
        prep.qid,
        prep.ground_truth,
        np.arange(n_it),
        answers,
        correct,
        tokens,
        baseline,
        position,
        stop_index,
        stopped_by,
        prep.group_labels,
        prep.n,
        gamma=gamma,
        extra_votes=extra,
        group_correct=prep.group_correct,
    )


def _ref_deepconfref_votes(prep: PreparedQuestion, settings: SimSettings) -> dict[str, np.ndarray]:
    """The seven DeepConf offline votes, one iteration at a time."""
    out: dict[str, np.ndarray] = {}
    g = prep.n_groups
    for it in range(settings.iterations):
        rng = np.random.default_rng(settings.seed + prep.qid * 10000 + it)
        rows = rng.choice(prep.n, size=settings.budget, replace=True)
        fin = prep.final[rows]
        e = fin >= 0
        weighted = {
            "majority": np.ones(len(rows)),
            "mean_conf_weighted": prep.mean_conf[rows],
            "tail_conf_weighted": prep.tail_conf[rows],
            "bottom_window_weighted": prep.bottom_10[rows],
            "min_window_weighted": prep.min_group[rows],
        }
        for name, w in weighted.items():
            out.setdefault(name, np.zeros(settings.iterations, np.int64))[it] = np.argmax(
                ref_votes(fin, e, w, g)
            )
        for name, w in (
            ("top10_tail_filtered", prep.tail_conf[rows]),
            ("top10_bottom_window_filtered", prep.bottom_10[rows]),
        ):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                pct = np.nanpercentile(np.where(e, w, np.nan), 90)
            pct = -np.inf if np.isnan(pct) else pct
            keep = e & (np.where(e, w, -np.inf) >= pct)
            out.setdefault(name, np.zeros(settings.iterations, np.int64))[it] = np.argmax(
                ref_votes(fin, keep, w, g)
            )
    return out


def reference_simulate(
    preps: Sequence[PreparedQuestion], policy: Policy, settings: SimSettings = DEFAULT_SETTINGS
) -> RunResult:
    """`simulate` of the loop oracle (no notes: they are the engine's)."""
    out = [reference_question(p, policy, settings) for p in preps]
    return RunResult(policy, settings, out)
