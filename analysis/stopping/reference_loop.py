"""Plain per-iteration Python loop implementation of the simulator (test oracle + benchmark
baseline). Written for clarity, one iteration and one checkpoint at a time, the way the spec
reads; shares only the q-model fit (`mars.learned_q`) with the vectorised engine. DeepConf
truncation uses `QuestionPool.first_window_below` (binary search) instead of the engine's
rank-keyed searchsorted, and the MARS thresholds are direct per-challenger sums.

It asks a policy only for the facts every rule shares (voting, whether it never stops or is
sequential, its stop label); each rule's decision is written out again here, on purpose: an
oracle that called the policies' own `block_fires` would test the engine against itself.
Kept in `analysis/` (not tests/) because bench/playground.py times the engine against it.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence

import numpy as np

from analysis.stopping.mars import GAMMA_GRID, learned_q
from analysis.stopping.params import (
    DEFAULT_SETTINGS,
    AdaptiveConsistency,
    Consensus,
    EarlyStoppingSC,
    Mars,
    ParallelProbe,
    Policy,
    ProbeStability,
    SimSettings,
)
from analysis.stopping.prepare import PreparedQuestion
from analysis.stopping.result import QuestionResult
from analysis.stopping.results import RunResult
from analysis.stopping.rules import beta_prob, dirichlet_prob


def _votes(ans: np.ndarray, elig: np.ndarray, w: np.ndarray, g: int) -> np.ndarray:
    v = np.zeros(g, dtype=np.float64)
    ok = elig & (ans >= 0)
    np.add.at(v, ans[ok], w[ok])
    return v


def _ref_calibrate(groups, q, weights, elig, final, g, ucb_z, gamma_min) -> float:
    n_w, k = groups.shape
    w_all = np.ones((n_w, k)) if weights is None else weights
    vote_final = _votes(final, final >= 0, w_all[:, -1], g)
    budget_ref = int(np.argmax(vote_final))
    res = {}
    for gamma in GAMMA_GRID:
        gamma = float(gamma)
        out = (budget_ref, k - 1)
        for p in range(k):
            ans, e, w = groups[:, p], elig[:, p], w_all[:, p]
            if not ((ans >= 0) & e).any():
                continue
            v = _votes(ans, e, w, g)
            lead = int(np.argmax(v))
            if v[lead] <= 0:
                continue
            for_l = (ans == lead) & e
            thr = (q[:, p] * (gamma * np.where(for_l, 2.0 * w, w) * e)).sum()
            if v[lead] <= thr:
                continue
            safe = True
            for a in range(g):
                if a == lead or v[a] <= 0:
                    continue
                c = np.where(for_l, gamma * 2.0 * w, np.where((ans == a) & e, -w, gamma * w)) * e
                if v[lead] - v[a] <= (q[:, p] * c).sum():
                    safe = False
                    break
            if safe:
                out = (lead, p)
                break
        res[round(gamma, 2)] = out
    ref = res[1.0][0]
    band = 1.0
    for key in sorted(res, reverse=True):
        if res[key][0] != ref:
            break
        band = key
    if ucb_z > 0:
        n_elig = max(int(elig[:, res[1.0][1]].sum()), 1)
        band = min(1.0, band + ucb_z / np.sqrt(n_elig))
    return round(max(band, gamma_min), 2)


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
    q_all = None
    ref_answer = -1
    if isinstance(policy, Mars) and k:
        q_all = learned_q(prep, settings.warmup)[0]
        gamma = float(policy.gamma)
        n_w = min(settings.warmup, prep.n)
        if policy.calibrate:
            if n_w < 4:
                gamma = 1.0
            else:
                wg, wf = prep.groups[:n_w], prep.final[:n_w]
                q_cal = (
                    (wg != wf[:, None]).astype(np.float32)
                    if policy.calibration_q == "oracle"
                    else q_all[:n_w]
                )
                el = wg >= 0
                wts = None
                if voting.filter:
                    t = np.percentile(prep.min_group[:n_w], voting.percentile)
                    el = el & (np.minimum.accumulate(prep.conf[:n_w], axis=1) >= t)
                    wts = prep.conf[:n_w]
                gamma = _ref_calibrate(wg, q_cal, wts, el, wf, g, policy.ucb_z, policy.gamma_min)
        counts = Counter(prep.final[:n_w].tolist())
        ref_answer = min(counts, key=lambda a: (-counts[a], a)) if counts else -1

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
                if isinstance(policy, EarlyStoppingSC):
                    win = policy.window
                    fire = (j + 1) % win == 0 and len(set(seen[-win:])) == 1
                else:
                    assert isinstance(policy, AdaptiveConsistency)
                    fire = _ac_fire(policy, seen)
                if fire:
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
        pp_stable, pp_prev = 0, -1
        pp_pruned = np.zeros(len(rows), dtype=bool)
        pp_off = np.zeros(len(rows), dtype=np.int64)
        run_len, prev_lead = 0, -1
        never = policy.never_stops
        for p in range(0 if never else k):
            pos = int(grid[p])
            a = prep.groups[rows, p]
            e = a >= 0
            if voting.filter:
                e &= np.minimum.accumulate(prep.conf[rows, : p + 1], axis=1)[:, -1] >= thr
                e &= ~((trunc < lens) & (pos >= trunc))
            w = prep.conf[rows, p].astype(np.float64) if voting.weighted else np.ones(len(rows))
            v = _votes(a, e, w, g)
            lead = int(np.argmax(v))
            has = v.sum() > 0
            fire = False
            if isinstance(policy, Mars):
                assert q_all is not None and gamma is not None
                q = q_all[rows, p]
                for_l = a == lead
                fire = has and v[lead] > (q * (gamma * np.where(for_l, 2.0 * w, w) * e)).sum()
                if fire:
                    for b in range(g):
                        if b == lead or v[b] <= 0:
                            continue
                        c = np.where(for_l, gamma * 2.0 * w, np.where(a == b, -w, gamma * w)) * e
                        if not (v[lead] - v[b] > (q * c).sum()):
                            fire = False
                            break
                if fire and p == 0 and policy.first_checkpoint_guard and ref_answer >= 0:
                    fire = lead == ref_answer
            elif isinstance(policy, ParallelProbe):
                ep = e & ~pp_pruned
                cnt = _votes(a, ep, np.ones(len(rows)), g)
                has_p = cnt.sum() > 0
                win = int(np.argmax(cnt)) if has_p else -1
                pp_stable = pp_stable + 1 if (win == pp_prev and win >= 0) else 1
                pp_prev = win
                if p >= policy.warmup and policy.prune_patience > 0:
                    agrees = (a == win) | ~ep
                    pp_off = np.where(agrees, 0, pp_off + 1)
                    pp_pruned |= pp_off >= policy.prune_patience
                fire = p >= policy.warmup and pp_stable >= policy.conv and has_p
            elif isinstance(policy, Consensus):
                fire = has and v[lead] / v.sum() >= policy.tau
            elif isinstance(policy, ProbeStability):
                run_len = (run_len + 1 if run_len > 0 and lead == prev_lead else 1) if has else 0
                prev_lead = lead
                fire = run_len >= max(1, policy.k)
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
            v = _votes(fin, e, w, g)
            answers[it] = int(np.argmax(v)) if v.sum() > 0 else -1
            tokens[it] = baseline[it]
            position[it] = int(grid[-1]) if k else 0
    correct = (answers >= 0) & prep.group_correct[np.maximum(answers, 0)]
    extra = _ref_deepconf_votes(prep, settings) if policy.offline_votes else {}
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


def _ref_deepconf_votes(prep: PreparedQuestion, settings: SimSettings) -> dict[str, np.ndarray]:
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
                _votes(fin, e, w, g)
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
                _votes(fin, keep, w, g)
            )
    return out


def _ac_fire(policy: AdaptiveConsistency, seen: list[int]) -> bool:
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


def reference_simulate(
    preps: Sequence[PreparedQuestion], policy: Policy, settings: SimSettings = DEFAULT_SETTINGS
) -> RunResult:
    """`simulate` of the loop oracle (no notes: they are the engine's)."""
    out = [reference_question(p, policy, settings) for p in preps]
    return RunResult(policy, settings, out)
