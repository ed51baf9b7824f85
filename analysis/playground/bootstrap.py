"""Bootstrap sampling, exactly as the published simulator (`mars/simulation.py::sample_bootstrap`).

Iteration i of question qid draws `budget` pool rows with replacement from
`numpy.random.default_rng(seed + qid * 10000 + i)` via `rng.choice(n_pool, size=budget)`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


@lru_cache(maxsize=4096)
def _iteration_rows(n_pool: int, budget: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = rng.choice(n_pool, size=budget, replace=True).astype(np.int64)
    out.setflags(write=False)
    return out


def bootstrap_rows(
    n_pool: int, budget: int, iterations: int | np.ndarray, seed: int, qid: int
) -> np.ndarray:
    """Pool rows [I, budget] (int64) of the given iterations (a count, or explicit indices)."""
    iters = (
        np.arange(int(iterations))
        if isinstance(iterations, int | np.integer)
        else np.asarray(iterations)
    )
    if n_pool <= 0 or budget <= 0:
        return np.zeros((iters.shape[0], max(budget, 0)), dtype=np.int64)
    base = int(seed) + int(qid) * 10000
    return (
        np.stack([_iteration_rows(int(n_pool), int(budget), base + int(i)) for i in iters])
        if iters.size
        else np.zeros((0, budget), np.int64)
    )
