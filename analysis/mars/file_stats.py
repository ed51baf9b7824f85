"""File-level figures of a MARS file: pass@1, majority@k and how well each confidence signal
separates right from wrong traces (AUROC).

Why here: these are the numbers the papers report for a pool (DeepConf's offline filtering rests
on the signals' separation; MARS's baseline is the majority vote), computed from the feature
table alone. Conventions: a trace without a final answer counts as wrong (pass@1 with nulls
wrong); in a vote, traces without an answer do not vote, and a tie for first place is broken at
random (a question scores the share of tied answers that are right). Intervals: 95 % percentile
bootstrap over questions (the unit the benchmark samples), seeded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

SIGNALS = ("min_group", "bottom_10", "tail_conf", "mean_conf")
BOOT = 2000
SEED = 0
MC_DRAWS = 200  # random k-subsets per question for majority@k with k below the pool size


@dataclass(frozen=True)
class Estimate:
    """A mean over questions with its 95 % bootstrap interval (over questions) and n."""

    value: float
    lo: float
    hi: float
    n: int  # questions


def bootstrap_mean(values: np.ndarray, boot: int = BOOT, seed: int = SEED) -> Estimate:
    """Mean of per-question values and the 2.5th-97.5th percentiles (numpy linear) of the means
    of `boot` resamples of the questions with replacement. NaN values are left out."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, v.size, size=(boot, v.size))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return Estimate(float(v.mean()), float(lo), float(hi), int(v.size))


def per_question_pass(features: pl.DataFrame) -> np.ndarray:
    """pass@1 of each question (share of its traces whose final answer is right; nulls wrong)."""
    q = features.group_by("qid").agg(pl.col("final_correct").fill_null(False).mean()).sort("qid")
    return q["final_correct"].to_numpy().astype(np.float64)


def vote_score(final_group: np.ndarray, correct_group: np.ndarray) -> float:
    """Expected correctness of the majority vote of these traces' final answers: the share of the
    answers tied for first place that are right (0 when no trace has an answer)."""
    g = np.asarray(final_group, dtype=np.int64)
    ok = np.asarray(correct_group, dtype=bool)
    g = g[g >= 0]
    if g.size == 0:
        return 0.0
    labels, counts = np.unique(g, return_counts=True)
    top = labels[counts == counts.max()]
    return float(np.mean([bool(ok[t]) if t < ok.size else False for t in top]))


def majority_at_k(
    final_group: np.ndarray,
    final_correct: np.ndarray,
    k: int | None = None,
    draws: int = MC_DRAWS,
    seed: int = SEED,
) -> float:
    """majority@k of one question: the vote over all traces (k None or >= the pool), else the
    mean vote score over `draws` random k-subsets drawn without replacement (seeded)."""
    g = np.asarray(final_group, dtype=np.int64)
    ok = np.asarray(final_correct, dtype=bool)
    n = g.size
    if n == 0:
        return float("nan")
    # a group is right when any of its traces is marked right (one answer group, one verdict)
    n_groups = int(g.max()) + 1 if (g >= 0).any() else 0
    correct_group = np.zeros(n_groups, dtype=bool)
    if n_groups:
        correct_group[g[(g >= 0) & ok]] = True
    if k is None or k >= n:
        return vote_score(g, correct_group)
    rng = np.random.default_rng(seed)
    scores = [vote_score(g[rng.permutation(n)[:k]], correct_group) for _ in range(draws)]
    return float(np.mean(scores))


def file_majority(features: pl.DataFrame, k: int | None = None) -> Estimate:
    """majority@k over the questions of a file, with its bootstrap interval."""
    vals = [
        majority_at_k(
            part["final_group"].to_numpy(), part["final_correct"].fill_null(False).to_numpy(), k
        )
        for part in features.sort("qid", "trace_idx").partition_by("qid", maintain_order=True)
    ]
    return bootstrap_mean(np.asarray(vals, dtype=np.float64))


def auroc(right: np.ndarray, wrong: np.ndarray) -> float:
    """P(a right trace's score > a wrong trace's score), ties counting 1/2 (the Mann-Whitney U
    over n_right * n_wrong, from midranks). NaN when a class is empty; non-finite scores dropped."""
    r = np.asarray(right, dtype=np.float64)
    w = np.asarray(wrong, dtype=np.float64)
    r, w = r[np.isfinite(r)], w[np.isfinite(w)]
    if r.size == 0 or w.size == 0:
        return float("nan")
    allv = np.concatenate([r, w])
    order = np.argsort(allv, kind="mergesort")
    ranks = np.empty(allv.size)
    sorted_v = allv[order]
    # midranks: every run of equal values gets the mean of its 1-based ranks
    starts = np.flatnonzero(np.concatenate([[True], sorted_v[1:] != sorted_v[:-1]]))
    ends = np.concatenate([starts[1:], [allv.size]])
    for s, e in zip(starts, ends, strict=True):
        ranks[order[s:e]] = (s + 1 + e) / 2
    u = ranks[: r.size].sum() - r.size * (r.size + 1) / 2
    return float(u / (r.size * w.size))


@dataclass(frozen=True)
class SignalSeparation:
    """One signal's AUROC (right vs wrong traces): pooled over the file, and the median (with
    quartiles) over the questions that have both classes."""

    signal: str
    pooled: float
    n_right: int
    n_wrong: int
    median_q: float
    q25: float
    q75: float
    n_questions: int


def signal_separation(
    features: pl.DataFrame, signals: tuple[str, ...] = SIGNALS
) -> list[SignalSeparation]:
    """AUROC of each signal: higher score = predicted right; wrong includes no final answer."""
    ok = features["final_correct"].fill_null(False).to_numpy().astype(bool)
    parts = features.partition_by("qid", maintain_order=True)
    out = []
    for s in signals:
        v = features[s].to_numpy().astype(np.float64)
        per_q = []
        for part in parts:
            pv = part[s].to_numpy().astype(np.float64)
            pok = part["final_correct"].fill_null(False).to_numpy().astype(bool)
            a = auroc(pv[pok], pv[~pok])
            if np.isfinite(a):
                per_q.append(a)
        arr = np.asarray(per_q, dtype=np.float64)
        med, q25, q75 = (
            (float(np.median(arr)), *(float(x) for x in np.percentile(arr, [25, 75])))
            if arr.size
            else (float("nan"),) * 3
        )
        out.append(
            SignalSeparation(
                s,
                auroc(v[ok], v[~ok]),
                int(ok.sum()),
                int((~ok).sum()),
                med,
                q25,
                q75,
                int(arr.size),
            )
        )
    return out


@dataclass(frozen=True)
class FileSummary:
    """The file-level figures of the Distributions tab."""

    pass_at_1: Estimate
    majority_all: Estimate
    majority_k: Estimate
    k: int
    separation: list[SignalSeparation]


def file_summary(features: pl.DataFrame, k: int) -> FileSummary:
    """pass@1, majority@all, majority@k (each with its bootstrap interval) and the signals'
    separation of one file's feature table."""
    return FileSummary(
        bootstrap_mean(per_question_pass(features)),
        file_majority(features),
        file_majority(features, k),
        int(k),
        signal_separation(features),
    )
