"""Vectorised weighted votes: one `np.bincount` over (row, group) for many rows at once.

Accumulation order per bin is the input's memory order (trace order), the same sequential
order as the published `np.add.at`, so float sums are bit-identical.
"""

from __future__ import annotations

import numpy as np


def group_votes(
    answers: np.ndarray, eligible: np.ndarray, weights: np.ndarray | None, n_groups: int, axis: int
) -> np.ndarray:
    """Votes per group, reducing over `axis` (the trace axis) of `answers` [..].

    Returns float64 [..without axis.., n_groups]. Traces vote iff eligible and answer >= 0.
    """
    a = np.moveaxis(answers, axis, -1)
    e = np.moveaxis(eligible, axis, -1)
    lead_shape = a.shape[:-1]
    rows = int(np.prod(lead_shape)) if lead_shape else 1
    b = a.shape[-1]
    a2 = a.reshape(rows, b)
    valid = e.reshape(rows, b) & (a2 >= 0)
    idx = (np.arange(rows, dtype=np.int64)[:, None] * n_groups + a2)[valid]
    out: np.ndarray
    if weights is None:
        out = np.bincount(idx, minlength=rows * n_groups).astype(np.float64)
    else:
        w = np.moveaxis(weights, axis, -1).reshape(rows, b)[valid].astype(np.float64)
        out = np.bincount(idx, weights=w, minlength=rows * n_groups)
    return out.reshape(*lead_shape, n_groups)


def leaders(votes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(leader id with lowest id on ties, leader vote, has-votes) along the last axis.
    `has` mirrors the published `vote_weights.sum() > 0`."""
    lead = np.argmax(votes, axis=-1)
    v_l = np.take_along_axis(votes, lead[..., None], axis=-1)[..., 0]
    has = votes.sum(axis=-1) > 0
    return lead, v_l, has


def checkpoint_votes(
    gidx: np.ndarray,
    mask: np.ndarray | None,
    weights: np.ndarray | None,
    n_groups: int,
    n_checkpoints: int | None = None,
    *,
    k0: int | None = None,
) -> np.ndarray:
    """Snapshot votes of every checkpoint of every iteration: [I, K, G+1] float64.

    `gidx` [I, B, K] holds `k * (G+1) + group` (group G = no answer, the last "dummy" bin);
    traces outside `mask` also go to the dummy bin, so `[..., :G]` are the votes and the
    dummy bin only collects what never votes. One bincount; per bin the traces are added in
    sample order (the published `np.add.at` order).

    `gidx` may be a block of kb checkpoints (its k absolute): with `k0` (the block's first
    checkpoint) the result is the block's [I, kb, G+1] alone, the same sums (the same traces
    in the same order land in each bin) over kb instead of K columns of bins; else the
    [I, n_checkpoints, G+1] grid of which only the block's columns are filled."""
    n_i, _b, kb = gidx.shape
    g1 = n_groups + 1
    if k0 is not None:
        k = kb
        gidx = gidx - np.int32(k0 * g1) if k0 else gidx
    else:
        k = kb if n_checkpoints is None else n_checkpoints
    if mask is not None:
        dummy = ((gidx // g1) * g1 + n_groups).astype(gidx.dtype)
        gidx = np.where(mask, gidx, dummy)
    idx = gidx + (np.arange(n_i, dtype=np.int64) * (k * g1))[:, None, None]
    flat = idx.ravel()
    out: np.ndarray
    if weights is None:
        out = np.bincount(flat, minlength=n_i * k * g1).astype(np.float64)
    else:
        out = np.bincount(
            flat, weights=np.asarray(weights, dtype=np.float64).ravel(), minlength=n_i * k * g1
        )
    return out.reshape(n_i, k, g1)
