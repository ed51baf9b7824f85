"""Synthetic QuestionPools shaped like MARS (for tests and the benchmark, not for results).

Heavy-tailed lengths (median ~10k tokens, cap 64k), a few answer groups with one correct,
probe answers that are often none or garbage early and converge to the final answer later,
confidences around 12 with a per-trace offset, and consistent record lows.
"""

from __future__ import annotations

import numpy as np

from analysis.mars.for_playground import QuestionPool


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
        c = min(int(rng.integers(1, 6)), n_win)
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


def hand_pool(
    final: list[int],
    groups: list[list[int]] | None = None,
    *,
    lengths: list[int] | None = None,
    grid: list[int] | None = None,
    conf: list[list[float]] | None = None,
    lows: list[list[tuple[int, float]]] | None = None,
    trace_idx: list[int] | None = None,
    labels: list[str] | None = None,
    correct: list[bool] | None = None,
    mean_conf: list[float] | None = None,
    qid: int = 0,
    window: int = 2048,
) -> QuestionPool:
    """A small QuestionPool written by hand (tests): per-trace final group, per-checkpoint
    groups, lengths, conf_at_pos and record lows [(window, value), ...] (min_group = last)."""
    n = len(final)
    k = len(groups[0]) if groups else (len(grid) if grid is not None else 0)
    grid_a = np.asarray(
        grid if grid is not None else [window * (i + 1) for i in range(k)], dtype=np.int64
    )
    groups_a = (
        np.asarray(groups, dtype=np.int32).reshape(n, k)
        if groups
        else np.full((n, k), -1, np.int32)
    )
    lens = np.asarray(lengths if lengths is not None else [window * (k + 1)] * n, dtype=np.int64)
    conf_a = (
        np.asarray(conf, dtype=np.float32).reshape(n, k)
        if conf is not None
        else np.full((n, k), 10.0, np.float32)
    )
    lows = lows if lows is not None else [[(0, 10.0)] for _ in range(n)]
    offs = np.concatenate(([0], np.cumsum([len(x) for x in lows]))).astype(np.int64)
    lw = np.asarray([w for x in lows for w, _ in x], dtype=np.int64)
    lv = np.asarray([v for x in lows for _, v in x], dtype=np.float32)
    min_group = np.asarray([x[-1][1] if x else 0.0 for x in lows], dtype=np.float32)
    n_g = max(max(final, default=-1), int(groups_a.max(initial=-1))) + 1
    labels = labels if labels is not None else [f"a{g}" for g in range(n_g)]
    correct_a = np.asarray(
        correct if correct is not None else [g == 0 for g in range(len(labels))], dtype=bool
    )
    mc = np.asarray(mean_conf if mean_conf is not None else [10.0] * n, dtype=np.float32)
    return QuestionPool(
        qid=qid,
        ground_truth=labels[0] if labels else "",
        window=window,
        trace_idx=np.asarray(trace_idx if trace_idx is not None else range(n), dtype=np.int64),
        lengths=lens,
        final_group=np.asarray(final, dtype=np.int32),
        group_labels=list(labels),
        group_correct=correct_a,
        grid=grid_a,
        ckpt_group=groups_a,
        ckpt_conf=conf_a,
        mean_conf=mc,
        tail_conf=mc.copy(),
        min_group=min_group,
        bottom_10=min_group.copy(),
        low_offsets=offs,
        low_window=lw,
        low_value=lv,
    )
