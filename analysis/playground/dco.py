"""DeepConf online filtering and truncation for a bootstrap sample (published `dco` pipeline).

Per iteration: `thr` = `percentile` (numpy linear) of `min_group` over the first `warmup` sampled
traces. Eligible at checkpoint k while the running minimum of `conf_at_pos` up to k is `>= thr`;
truncation = first window with group confidence `< thr`, + W (else the length); a truncated trace
cannot vote once `p >= trunc`. Source: Fu et al. 2025 (DeepConf); `mars/simulation.py`.
"""

from __future__ import annotations

import numpy as np

from analysis.playground.prepare import PreparedQuestion
from analysis.playground.quantiles import percentile_last_axis


def dco_thresholds(
    prep: PreparedQuestion, rows: np.ndarray, warmup: int, percentile: float
) -> np.ndarray:
    """[I] thresholds from the first `warmup` sampled traces of each iteration."""
    if rows.shape[1] == 0 or prep.n == 0:
        return np.full(rows.shape[0], np.nan)
    head = prep.min_group[rows[:, : max(1, warmup)]]
    return percentile_last_axis(head, percentile)
