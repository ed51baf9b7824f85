"""Sequential-arrival rules (our additions): ESC and Adaptive-Consistency.

These rules were made for traces sampled one after another, each generated to the end. We
simulate them that way on the same bootstrap sample: the sample's traces arrive in sample
order, whole; the rule decides after each arrival (ESC: after each window); the cost is the sum
of the lengths of the traces generated; the answer is the majority of the final answers so far
(lowest id on ties). `position` and `stop_index` hold the number of traces generated.
Sources: Li et al. 2024 (ESC); Aggarwal et al. 2023 (Adaptive-Consistency, its
`stopping_criterias.py` for the Beta / Dirichlet / entropy / majority criteria).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import betainc

from analysis.stopping.params import AdaptiveConsistency, EarlyStoppingSC


def beta_prob(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P(p > 0.5) for p ~ Beta(a + 1, b + 1) (top-two counts a >= b)."""
    return betainc(
        np.asarray(b, dtype=np.float64) + 1.0, np.asarray(a, dtype=np.float64) + 1.0, 0.5
    )


@lru_cache(maxsize=100_000)
def dirichlet_prob(counts: tuple[int, ...], draws: int = 20_000) -> float:
    """P(the first class has the largest share) under Dirichlet(counts + 1), Monte Carlo with a
    seed fixed by the counts (deterministic)."""
    rng = np.random.default_rng(list(counts))
    x = rng.gamma(np.asarray(counts, dtype=np.float64) + 1.0, size=(draws, len(counts)))
    return float(np.mean(x[:, 0] > x[:, 1:].max(axis=1)))


def _prefix_counts(final: np.ndarray, n_groups: int) -> np.ndarray:
    """[I, B, G] counts of each final answer among the first j+1 arrivals."""
    n_i, b = final.shape
    onehot = np.zeros((n_i, b, n_groups), dtype=np.int32)
    ii, jj = np.nonzero(final >= 0)
    onehot[ii, jj, final[ii, jj]] = 1
    return np.cumsum(onehot, axis=1, dtype=np.int32)


def _ac_fires(policy: AdaptiveConsistency, counts: np.ndarray) -> np.ndarray:
    n_i, b, g = counts.shape
    srt = np.sort(counts, axis=-1)
    top = srt[..., -1]
    second = srt[..., -2] if g > 1 else np.zeros_like(top)
    n = np.arange(1, b + 1)[None, :]
    crit = policy.criterion
    if crit == "beta":
        return beta_prob(top, second) >= policy.threshold
    if crit == "majority":
        return (n >= 2) & (top / n >= policy.threshold)
    if crit == "entropy":
        distinct = (counts > 0).sum(axis=-1)
        c = counts.astype(np.float64)
        tot = c.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = c / tot
            h = -np.where(c > 0, p * np.log2(p), 0.0).sum(axis=-1)
            one = distinct <= 1
            pn = n / (n + 1.0)
            h_one = -(pn * np.log2(pn) + (1 - pn) * np.log2(1 - pn))
            h = np.where(one, h_one, h)
            norm = np.where(one, 1.0, np.log2(np.maximum(distinct, 2)))
        return (n >= 2) & (h / norm <= policy.threshold)
    if crit == "dirichlet":
        fires = beta_prob(top, second) >= policy.threshold
        distinct = (counts > 0).sum(axis=-1)
        multi = distinct >= 3
        out = np.where(multi, False, fires)
        k = max(2, policy.top_k)
        # P(top is the largest) <= P(top beats the runner-up) = the Beta criterion's value,
        # so only prefixes that pass the Beta test need the Monte Carlo estimate
        first_plain = np.where(out.any(axis=1), np.argmax(out, axis=1), b)
        for i in range(n_i):
            for j in np.nonzero(multi[i] & fires[i])[0]:
                if j >= first_plain[i]:
                    break
                tup = tuple(int(v) for v in srt[i, j, ::-1][:k] if v > 0)
                if dirichlet_prob(tup) >= policy.threshold:
                    out[i, j] = True
                    break
        return out
    raise ValueError(f"unknown Adaptive-Consistency criterion {crit!r}")


def simulate_sequential(prep, policy, rows: np.ndarray, iters: np.ndarray, notes: list[str]):
    from analysis.stopping.engine import QuestionResult

    n_i, b = rows.shape
    final = prep.final[rows]
    lens = prep.lengths[rows]
    used = np.unique(prep.final)
    remap = np.full(prep.n_groups, -1, dtype=np.int64)
    remap[used] = np.arange(used.shape[0])
    fc = remap[final]
    counts = _prefix_counts(fc, used.shape[0])  # [I, B, Gf]
    if isinstance(policy, EarlyStoppingSC):
        w = max(1, int(policy.window))
        n_win = b // w
        fires = np.zeros((n_i, b), dtype=bool)
        if n_win:
            fw = fc[:, : n_win * w].reshape(n_i, n_win, w)
            same = (fw == fw[:, :, :1]).all(axis=-1)
            fires[:, w - 1 : n_win * w : w] = same
        label = "esc"
    else:
        fires = _ac_fires(policy, counts)
        label = "adaptive"
    first = np.where(fires.any(axis=1), np.argmax(fires, axis=1), -1)
    stopped = first >= 0
    n_gen = np.where(stopped, first + 1, b).astype(np.int64)
    at = counts[np.arange(n_i), n_gen - 1]  # [I, Gf]
    ans = used[np.argmax(at, axis=1)].astype(np.int64)
    cum = np.cumsum(lens, axis=1)
    tokens = cum[np.arange(n_i), n_gen - 1].astype(np.int64)
    baseline = cum[:, -1].astype(np.int64)
    return QuestionResult(
        qid=prep.qid,
        ground_truth=prep.ground_truth,
        iterations=iters,
        answers=ans,
        correct=prep.group_correct[ans],
        tokens=tokens,
        baseline=baseline,
        position=n_gen,
        stop_index=np.where(stopped, n_gen, -1).astype(np.int64),
        stopped_by=np.where(stopped, label, "budget").astype(object),
        labels=prep.group_labels,
        n_pool=prep.n,
        notes=notes,
        group_correct=prep.group_correct,
    )
