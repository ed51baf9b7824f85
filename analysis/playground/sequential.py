"""Sequential-arrival rules (our additions): ESC and Adaptive-Consistency.

These rules were made for traces sampled one after another, each generated to the end. We
simulate them that way on the same bootstrap sample: the sample's traces arrive in sample
order, whole; the rule decides after each arrival (ESC: after each window;
`policy.sequential_fires`, arithmetic in `rules.py`); the cost is the sum of the lengths of the
traces generated; the answer is the majority of the final answers so far (lowest id on ties).
`position` and `stop_index` hold the number of traces generated.
Sources: Li et al. 2024 (ESC); Aggarwal et al. 2023 (Adaptive-Consistency, its
`stopping_criterias.py` for the Beta / Dirichlet / entropy / majority criteria).
"""

from __future__ import annotations

import numpy as np

from analysis.playground.notes import Note
from analysis.playground.params import Policy
from analysis.playground.prepare import PreparedQuestion
from analysis.playground.result import QuestionResult
from analysis.playground.rules import Prefixes
from analysis.playground.sharing import shared


def simulate_sequential(
    prep: PreparedQuestion,
    policy: Policy,
    rows: np.ndarray,
    iters: np.ndarray,
    notes: list[Note],
    share_key: object = None,
) -> QuestionResult:
    """A sequential rule on the bootstrap sample `rows` [I, B] (see the module docstring).
    `share_key` names the sample when the runs of a sweep may share its prefix summaries."""
    n_i, b = rows.shape
    final = prep.final[rows]
    lens = prep.lengths[rows]
    used = np.unique(prep.final)
    remap = np.full(prep.n_groups, -1, dtype=np.int64)
    remap[used] = np.arange(used.shape[0])
    fc = remap[final]
    n_f = used.shape[0]
    if share_key is None:
        prefixes = Prefixes(fc, n_f)
    else:
        prefixes = shared(("prefixes", share_key), lambda: Prefixes(fc, n_f))
    fires = policy.sequential_fires(fc, prefixes)
    first = np.where(fires.any(axis=1), np.argmax(fires, axis=1), -1)
    stopped = first >= 0
    n_gen = np.where(stopped, first + 1, b).astype(np.int64)
    # the counts of the answers generated (the prefix counts at n_gen - 1)
    seen = np.arange(b)[None, :] < n_gen[:, None]
    flat = (np.arange(n_i, dtype=np.int64)[:, None] * n_f + fc)[seen & (fc >= 0)]
    at = np.bincount(flat, minlength=n_i * n_f).reshape(n_i, n_f)  # [I, Gf]
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
        stopped_by=np.where(stopped, policy.stop_label, "budget").astype(object),
        labels=prep.group_labels,
        n_pool=prep.n,
        notes=notes,
        group_correct=prep.group_correct,
    )
