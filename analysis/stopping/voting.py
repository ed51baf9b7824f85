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
