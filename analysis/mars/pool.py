"""The in-memory pool of one MARS question: the contract between the feature store
(`analysis.mars.summaries.pool_from_features` builds it) and the stopping simulator
(`analysis.stopping` reads it).

All per-trace arrays are in `trace_idx` order and cover *every* trace of the question, including
traces whose final answer is null (`final_group == -1`); the simulator derives its pool from them.
No raw `confs` are needed once a pool exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class QuestionPool:
    qid: int
    ground_truth: str
    window: int  # W the confidence features were computed with (2048 by default)
    trace_idx: np.ndarray  # int64 [n]
    lengths: np.ndarray  # int64 [n] number of tokens (len of confs)
    final_group: np.ndarray  # int32 [n] answer-group id of the final answer, -1 if none
    group_labels: list[str]  # [g] representative answer text of each group id
    group_correct: np.ndarray  # bool [g] group equivalent to the ground truth
    grid: np.ndarray  # int64 [K] checkpoint grid (multiples of 2048 seen in any probe)
    ckpt_group: (
        np.ndarray
    )  # int32 [n, K] a(t, p): final group if p >= len, else probe group, -1 none
    ckpt_conf: np.ndarray  # float32 [n, K] conf_at_pos(p) (whole-trace mean if p >= len)
    mean_conf: np.ndarray  # float32 [n]
    tail_conf: np.ndarray  # float32 [n]
    min_group: np.ndarray  # float32 [n] lowest sliding-window group confidence
    bottom_10: np.ndarray  # float32 [n]
    # Record lows of the group confidences, ragged: trace j owns low_window[low_offsets[j]:low_offsets[j+1]]
    low_offsets: np.ndarray  # int64 [n+1]
    low_window: np.ndarray  # int64 [m] window start index where the running minimum decreases
    low_value: np.ndarray  # float32 [m] group confidence there (strictly decreasing per trace)
    notes: list[str] = field(
        default_factory=list
    )  # data problems found while building (shown in UI)

    @property
    def n_traces(self) -> int:
        return int(self.lengths.shape[0])

    def first_window_below(self, j: int, thr: float) -> int:
        """Index of trace j's first window whose group confidence is < thr, or -1 if none."""
        lo, hi = int(self.low_offsets[j]), int(self.low_offsets[j + 1])
        vals = self.low_value[lo:hi]
        # values strictly decrease, so the first record low below thr is the first window below thr
        k = int(np.searchsorted(-vals, -thr, side="right"))
        return -1 if k >= hi - lo else int(self.low_window[lo + k])
