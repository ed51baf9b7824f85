"""Synthetic QuestionPools shaped like MARS (for tests and the benchmark, not for results).

Heavy-tailed lengths (median ~10k tokens, cap 64k), a few answer groups with one correct,
probe answers that are often none or garbage early and converge to the final answer later,
confidences around 12 with a per-trace offset, and consistent record lows.
"""

from __future__ import annotations

import numpy as np

from analysis.pool import QuestionPool


def synthetic_pool(
    qid: int = 0,
    n: int = 512,
    seed: int = 0,
    window: int = 2048,
    n_groups: int = 6,
    null_share: float = 0.05,
    max_len: int = 65536,
    median_len: float = 10000.0,
) -> QuestionPool:
    rng = np.random.default_rng(seed * 1000 + qid)
    lengths = np.minimum(rng.lognormal(np.log(median_len), 0.6, n).astype(np.int64) + 50, max_len)
    p_correct = rng.uniform(0.3, 0.9)
    probs = np.array([p_correct] + list(rng.dirichlet(np.ones(n_groups - 1)) * (1 - p_correct)))
    final = rng.choice(n_groups, size=n, p=probs).astype(np.int32)
    final[rng.random(n) < null_share] = -1
    final[lengths >= max_len] = -1
    grid = np.arange(window, int(lengths.max()), window, dtype=np.int64)
    k = grid.shape[0]
    offset = rng.normal(0, 1.0, n).astype(np.float32)
    base = 12.0 + offset[:, None] + rng.normal(0, 0.7, (n, k)).astype(np.float32)
    ckpt_conf = base.astype(np.float32)
    frac = grid[None, :] / np.maximum(lengths[:, None], 1)
    settled = rng.random((n, k)) < np.clip(frac * 1.2, 0, 1)
    garbage = rng.integers(n_groups, n_groups + 3, size=(n, k)).astype(np.int32)
    none = rng.random((n, k)) < 0.3 * (1 - frac)
    ckpt_group = np.where(settled, final[:, None], np.where(none, -1, garbage)).astype(np.int32)
    ckpt_group = np.where(ckpt_group == -1, -1, ckpt_group)
    past = grid[None, :] >= lengths[:, None]
    mean_conf = (12.0 + offset).astype(np.float32)
    ckpt_group[past] = np.broadcast_to(final[:, None], (n, k))[past]
    ckpt_conf[past] = np.broadcast_to(mean_conf[:, None], (n, k))[past]
    tail_conf = (mean_conf + rng.normal(0, 0.5, n)).astype(np.float32)
    # record lows: window starts increasing from 0, values strictly decreasing
    wins_l, vals_l, offs = [], [], [0]
    for j in range(n):
        n_win = max(int(lengths[j]) - window + 1, 1)
        c = int(min(rng.integers(1, 6), n_win))
        wins = (
            np.sort(rng.choice(np.arange(1, n_win), size=c - 1, replace=False))
            if c > 1
            else np.zeros(0, np.int64)
        )
        wins = np.concatenate(([0], wins)).astype(np.int64)
        drops = np.cumsum(rng.exponential(0.6, size=c) + 1e-3)
        vals = (mean_conf[j] - 0.5 - drops).astype(np.float32)
        keep = np.concatenate(([True], np.diff(vals) < 0))
        wins_l.append(wins[keep])
        vals_l.append(vals[keep])
        offs.append(offs[-1] + int(keep.sum()))
    low_window = np.concatenate(wins_l).astype(np.int64)
    low_value = np.concatenate(vals_l).astype(np.float32)
    low_offsets = np.array(offs, dtype=np.int64)
    min_group = low_value[low_offsets[1:] - 1].astype(np.float32)
    bottom_10 = (min_group + np.abs(rng.normal(0, 0.3, n))).astype(np.float32)
    labels = [str(100 + g) for g in range(n_groups + 3)]
    correct = np.zeros(n_groups + 3, dtype=bool)
    correct[0] = True
    return QuestionPool(
        qid=qid,
        ground_truth="100",
        window=window,
        trace_idx=np.arange(n, dtype=np.int64),
        lengths=lengths,
        final_group=final,
        group_labels=labels,
        group_correct=correct,
        grid=grid,
        ckpt_group=ckpt_group,
        ckpt_conf=ckpt_conf,
        mean_conf=mean_conf,
        tail_conf=tail_conf,
        min_group=min_group,
        bottom_10=bottom_10,
        low_offsets=low_offsets,
        low_window=low_window,
        low_value=low_value,
    )
