"""The in-memory pool of one MARS question: the contract between the feature store
(`analysis.mars.summaries.pool_from_features` builds it) and the stopping simulator
(`analysis.playground` reads it).

All per-trace arrays are in `trace_idx` order and cover *every* trace of the question, including
traces whose final answer is null (`final_group == -1`); the simulator derives its pool from them.
No raw `confs` are needed once a pool exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from analysis.mars.table_names import PROBE_STEP


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


# ---------------------------------------------------------------------------------------------
# the arithmetic both pool builders share (the feature store's polars reader and the warm CLI's
# flat copy), in numpy only


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of an already sorted array, as `np.unique` gives them. Why not
    `np.unique`: its first call imports numpy.ma (a warm run needs it nowhere else), and its hash table
    costs more than one comparison pass over sorted input."""
    if values.shape[0] == 0:
        return values.copy()
    keep = np.empty(values.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def probe_grid(probe_pos: np.ndarray) -> np.ndarray:
    """The checkpoint grid: the distinct positive probe positions at a multiple of PROBE_STEP,
    ascending (int64). Positions are token offsets, so one bincount of the step indices is
    short (the longest trace / PROBE_STEP); implausibly far positions are sorted instead."""
    steps = probe_pos[(probe_pos > 0) & (probe_pos % PROBE_STEP == 0)] // PROBE_STEP
    if steps.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if int(steps.max()) > 4 * steps.shape[0] + 65536:
        return sorted_distinct(np.sort(steps)).astype(np.int64) * PROBE_STEP
    return np.flatnonzero(np.bincount(steps)).astype(np.int64) * PROBE_STEP


def checkpoint_answers(
    grid: np.ndarray,
    lengths: np.ndarray,
    final_group: np.ndarray,
    end_conf: np.ndarray,
    ckpt: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """(ckpt_group [n, k] int32, ckpt_conf [n, k] float32) on the grid from the traces' ragged
    checkpoints `ckpt` = (offsets [n+1], positions, confidences, groups): a(t, p) is the final
    group and conf the whole-trace `end_conf` once p >= len(t), else the checkpoint there (-1
    and NaN when the trace has none at p)."""
    n, k = lengths.shape[0], grid.shape[0]
    ckpt_group = np.full((n, k), -1, dtype=np.int32)
    ckpt_conf = np.full((n, k), np.nan, dtype=np.float32)
    if not (n and k):
        return ckpt_group, ckpt_conf
    c_off, c_pos, c_conf, c_grp = ckpt
    owner = np.repeat(np.arange(n), np.diff(c_off))
    col = np.searchsorted(grid, c_pos)
    ok = (col < k) & (grid[np.minimum(col, k - 1)] == c_pos)
    ckpt_group[owner[ok], col[ok]] = c_grp[ok]
    ckpt_conf[owner[ok], col[ok]] = c_conf[ok]
    after = grid[None, :] >= lengths[:, None]
    ckpt_group = np.where(after, final_group[:, None], ckpt_group).astype(np.int32)
    ckpt_conf = np.where(after, end_conf.astype(np.float32)[:, None], ckpt_conf)
    return ckpt_group, ckpt_conf.astype(np.float32)
