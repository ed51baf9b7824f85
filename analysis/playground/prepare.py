"""A QuestionPool restricted to the simulator's pool, with the per-pool derived arrays.

The pool (spec: "The question's pool") is the traces whose *final* answer has a group id, in
`trace_idx` order. Everything here depends on the pool only, never on a bootstrap sample, so it
is computed once per question and reused by every policy and every sweep point.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from analysis.mars.for_playground import QuestionPool
from analysis.playground.lows import RecordLows
from analysis.playground.notes import Note, NoteCode, pool_note


@dataclass
class PreparedQuestion:
    """Pool-restricted arrays of one question (row r = r-th pool trace in trace_idx order)."""

    source: QuestionPool
    qid: int
    ground_truth: str
    window: int
    n: int  # pool size
    n_groups: int  # compact groups: the ones the pool uses, renumbered in id order
    group_ids: np.ndarray  # int64 [g] original QuestionPool group id of each compact group
    group_labels: list[str]
    group_correct: np.ndarray  # bool [g]
    grid: np.ndarray  # int64 [K]
    lengths: np.ndarray  # int64 [n]
    final: np.ndarray  # int32 [n] (all >= 0)
    groups: np.ndarray  # int32 [n, K] answer group at each checkpoint, -1 none
    conf: np.ndarray  # float32 [n, K] conf_at_pos
    conf_cummin: np.ndarray  # float32 [n, K] running minimum of conf along the grid
    mean_conf: np.ndarray  # float64 [n]
    tail_conf: np.ndarray  # float64 [n]
    min_group: np.ndarray  # float64 [n]
    bottom_10: np.ndarray  # float64 [n]
    lows: RecordLows  # record lows of the pool traces (finite ones), for DeepConf truncation
    gidx: np.ndarray = field(
        default_factory=lambda: np.zeros((0, 0), np.int32)
    )  # int32 [n, K] k*(G+1) + group (G = none)
    notes: list[Note] = field(default_factory=list)
    cache: dict = field(default_factory=dict)  # q-model, calibrated gamma, ... keyed by params

    @property
    def n_checkpoints(self) -> int:
        return int(self.grid.shape[0])

    def label(self, group: int) -> str:
        return self.group_labels[group] if 0 <= group < len(self.group_labels) else ""

    @property
    def low_offsets(self) -> np.ndarray:
        """int64 [n+1]: pool trace r owns low_window/low_value[low_offsets[r]:low_offsets[r+1]]."""
        return self.lows.flat().offsets

    @property
    def low_window(self) -> np.ndarray:
        """int64 [m] the window of each record low of the pool traces."""
        return self.lows.flat().window

    @property
    def low_value(self) -> np.ndarray:
        """float64 [m] its group confidence (finite)."""
        return self.lows.flat().value

    def truncation(self, rows: np.ndarray, thr: np.ndarray) -> np.ndarray:
        """DeepConf truncation position of pool rows `rows` [..., B] under per-row-set threshold
        `thr` [...]: first window whose group confidence is `< thr`, plus W, else the length.
        A non-finite threshold truncates nothing (`RecordLows.first_below`)."""
        rows = np.asarray(rows, dtype=np.int64)
        thr = np.asarray(thr, dtype=np.float64)
        if rows.ndim == 2 and rows.shape[1] > self.n > 0:
            # fewer pool traces than draws: look up every pool trace once and gather
            every = np.broadcast_to(np.arange(self.n, dtype=np.int64), (rows.shape[0], self.n))
            return np.take_along_axis(self.truncation(every, thr), rows, axis=1)
        hit, win = self.lows.first_below(rows, thr)
        return np.where(hit, win + self.window, self.lengths[rows]).astype(np.int64)


def _first_appearance_order(pool: QuestionPool) -> np.ndarray:
    return np.argsort(np.asarray(pool.trace_idx), kind="stable")


def prepare(pool: QuestionPool) -> PreparedQuestion:
    """Restrict a QuestionPool to the simulator pool and derive what every policy needs.

    Never raises on odd data: problems become `notes` (shown by the UI)."""
    notes: list[Note] = [pool_note(n) for n in pool.notes]
    order = _first_appearance_order(pool)
    final_all = np.asarray(pool.final_group, dtype=np.int32)[order]
    keep = order[final_all >= 0]
    n = int(keep.shape[0])
    n_all = int(order.shape[0])
    grid = np.asarray(pool.grid, dtype=np.int64).reshape(-1)
    k = int(grid.shape[0])

    groups = np.asarray(pool.ckpt_group, dtype=np.int32).reshape(n_all, k)[keep]
    conf = np.asarray(pool.ckpt_conf, dtype=np.float32).reshape(n_all, k)[keep]
    lengths = np.asarray(pool.lengths, dtype=np.int64)[keep]
    final = np.asarray(pool.final_group, dtype=np.int32)[keep]
    f64 = {
        name: np.asarray(getattr(pool, name), dtype=np.float32)[keep].astype(np.float64)
        for name in ("mean_conf", "tail_conf", "min_group", "bottom_10")
    }
    conf_cummin = np.minimum.accumulate(conf, axis=1) if k else conf.copy()

    n_groups = len(pool.group_labels)
    max_id = max(int(final.max(initial=-1)), int(groups.max(initial=-1)))
    if max_id >= n_groups:
        notes.append(
            Note(
                NoteCode.MISSING_LABELS,
                f"answer group ids go up to {max_id} but only {n_groups} labels exist; "
                "the missing groups are shown unlabelled and count as wrong",
            )
        )
    # compact ids: only groups the pool uses, in id order (so "lowest id wins ties" is kept)
    # (a presence mask over 0..max_id, not np.unique: its first call imports numpy.ma, which
    # a warm run needs nowhere else; the ids are small: at most one per distinct answer of the pool)
    present = np.zeros(max(max_id, -1) + 1, dtype=bool)
    present[final] = True
    present[groups[groups >= 0]] = True
    used = np.flatnonzero(present).astype(np.int64)
    remap = np.full(max(max_id, 0) + 2, -1, dtype=np.int32)
    remap[used] = np.arange(used.shape[0], dtype=np.int32)
    final = remap[final]
    groups = np.where(groups >= 0, remap[np.maximum(groups, 0)], -1).astype(np.int32)
    gc = np.asarray(pool.group_correct, dtype=bool)
    correct = np.array([bool(gc[g]) if g < gc.shape[0] else False for g in used], dtype=bool)
    labels = [str(pool.group_labels[g]) if g < n_groups else "" for g in used]
    n_groups_eff = max(int(used.shape[0]), 1)
    if correct.shape[0] < n_groups_eff:
        correct = np.zeros(n_groups_eff, dtype=bool)
        labels = [""]

    # record lows of the pool rows: in place when all finite and decreasing, else restricted
    # (with their notes); the truncation reads them on first use
    lows = RecordLows.of_pool(pool, keep, notes)

    bad = {
        name: int((~np.isfinite(arr)).sum())
        for name, arr in (("conf_at_pos", conf), *f64.items())
        if arr.size and not np.isfinite(arr).all()
    }
    if bad:
        desc = ", ".join(f"{v} {k}" for k, v in bad.items())
        notes.append(
            Note(
                NoteCode.NONFINITE_FEATURES,
                f"non-finite confidence features in the pool ({desc}): kept as the published "
                "simulator would (NaN never passes a DeepConf threshold and blocks MARS stops)",
            )
        )
    if n == 0:
        notes.append(
            Note(
                NoteCode.NO_ANSWER,
                f"no trace has a final answer ({n_all} traces): nothing to sample; every "
                "iteration answers nothing at zero tokens",
            )
        )
    if k == 0 and n:
        notes.append(
            Note(
                NoteCode.EMPTY_GRID,
                "empty checkpoint grid (no probe at a multiple of the window): no rule can stop "
                "early; every iteration votes on final answers",
            )
        )
    g1 = n_groups_eff + 1
    gidx = (
        np.arange(k, dtype=np.int32)[None, :] * g1 + np.where(groups >= 0, groups, n_groups_eff)
    ).astype(np.int32)
    return PreparedQuestion(
        source=pool,
        qid=int(pool.qid),
        ground_truth=str(pool.ground_truth),
        window=int(pool.window),
        n=n,
        n_groups=n_groups_eff,
        group_ids=used,
        group_labels=labels,
        group_correct=correct,
        grid=grid,
        lengths=lengths,
        final=final,
        groups=np.ascontiguousarray(groups),
        conf=np.ascontiguousarray(conf),
        conf_cummin=np.ascontiguousarray(conf_cummin),
        mean_conf=f64["mean_conf"],
        tail_conf=f64["tail_conf"],
        min_group=f64["min_group"],
        bottom_10=f64["bottom_10"],
        lows=lows,
        gidx=np.ascontiguousarray(gidx),
        notes=notes,
    )
