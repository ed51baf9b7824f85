"""DeepConf truncation from the record lows: the in-place binary search, the restricted copy and
the key index all give what a plain per-trace scan gives, with the same notes."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.mars.pool import QuestionPool
from analysis.playground import prepare
from analysis.playground.lows import BISECT_SEARCHES, RecordLows, strictly_decreasing
from analysis.playground.notes import NoteCode
from analysis.playground.synthetic import hand_pool

W = 2048


def _scan(lows: list[list[tuple[int, float]]], length: int, thr: float) -> int:
    """The truncation of one trace by a plain scan: finite lows only; lows that decrease are
    taken in order, otherwise the largest value below thr (earliest on ties) as the sorted
    index reads them."""
    if not np.isfinite(thr):
        return length
    fin = [(w, np.float64(np.float32(v))) for w, v in lows if np.isfinite(v)]
    vals = [v for _, v in fin]
    if all(b < a for a, b in zip(vals, vals[1:], strict=False)):
        return next((w + W for w, v in fin if v < thr), length)
    below = [(v, -i, w) for i, (w, v) in enumerate(fin) if v < thr]
    return max(below)[2] + W if below else length


def _random_lows(rng: np.random.Generator, n: int, kind: str) -> list[list[tuple[int, float]]]:
    out = []
    for _ in range(n):
        m = int(rng.integers(0, 12))
        vals = np.sort(rng.choice(np.arange(1.0, 30.0, 0.5), size=m, replace=False))[::-1]
        wins = np.sort(rng.choice(np.arange(0, 400), size=m, replace=False))
        lows = [(int(w), float(v)) for w, v in zip(wins, vals, strict=True)]
        if kind in ("nan", "both") and m and rng.random() < 0.3:
            lows[int(rng.integers(0, m))] = (int(wins[0]) + 1, float("nan"))
        if kind in ("unsorted", "both") and m > 2 and rng.random() < 0.3:
            i = int(rng.integers(1, m))
            lows[i] = (lows[i][0], lows[i - 1][1] + (0.0 if rng.random() < 0.5 else 1.5))
        out.append(lows)
    return out


@pytest.mark.parametrize("kind", ["decreasing", "nan", "unsorted", "both"])
def test_truncation_matches_a_plain_scan(kind: str) -> None:
    rng = np.random.default_rng({"decreasing": 1, "nan": 2, "unsorted": 3, "both": 4}[kind])
    for trial in range(20):
        n = int(rng.integers(1, 9))
        lows = _random_lows(rng, n, kind)
        final = [int(x) for x in rng.integers(-1, 2, size=n)]  # some traces leave the pool
        if all(f < 0 for f in final):
            final[0] = 0
        lengths = [int(x) for x in rng.integers(500, 9000, size=n)]
        trace_idx = [int(x) for x in rng.permutation(n)]  # a pool not in trace order
        pool = hand_pool(
            final=final, groups=[[max(f, 0)] for f in final], lengths=lengths, lows=lows,
            trace_idx=trace_idx,
        )  # fmt: skip
        prep = prepare(pool)
        order = np.argsort(np.asarray(trace_idx), kind="stable")
        kept = [int(j) for j in order if final[j] >= 0]
        rows = rng.integers(0, prep.n, size=(6, 5))
        thr = np.concatenate((rng.choice(np.arange(0.5, 31.0, 0.5), 4), [np.nan, np.inf]))
        want = [
            [_scan(lows[kept[r]], lengths[kept[r]], float(t)) for r in row]
            for row, t in zip(rows, thr, strict=True)
        ]
        # the first searches bisect the rows, the next ones read the key index: same answers
        for search in range(BISECT_SEARCHES + 2):
            got = prep.truncation(rows, thr)
            assert got.tolist() == want, (kind, trial, search)
        assert prep.lows._index is not None or prep.lows.flat()._index is not None


def test_notes_of_odd_lows_are_kept() -> None:
    nan_lows = [[(0, 9.0), (5, float("nan"))], [(0, 8.0)]]
    up_lows = [[(0, 9.0), (5, 9.5)], [(0, 8.0)]]
    codes = lambda lows: {n.code for n in prepare(hand_pool(final=[0, 0], lows=lows)).notes}  # noqa: E731
    assert NoteCode.NONFINITE_LOWS in codes(nan_lows)
    assert NoteCode.UNSORTED_LOWS not in codes(nan_lows)
    assert NoteCode.UNSORTED_LOWS in codes(up_lows)
    assert not codes([[(0, 9.0), (5, 8.0)], [(0, 8.0)]]) & {
        NoteCode.NONFINITE_LOWS,
        NoteCode.UNSORTED_LOWS,
    }
    # a NaN low of a trace outside the pool (no final answer) is no note
    assert NoteCode.NONFINITE_LOWS not in {
        n.code for n in prepare(hand_pool(final=[0, -1], lows=nan_lows[::-1])).notes
    }


def test_clean_lows_are_read_in_place() -> None:
    """The common case copies nothing: the search runs on the pool's own arrays."""
    pool = hand_pool(final=[0, -1, 0], lows=[[(0, 9.0), (3, 7.0)], [(0, 5.0)], [(1, 6.0)]])
    prep = prepare(pool)
    assert prep.lows.rows is not None and prep.lows.value is pool.low_value
    assert prep.low_offsets.tolist() == [0, 2, 3]  # the flat view restricts to the pool
    assert prep.low_window.tolist() == [0, 3, 1] and prep.low_value.dtype == np.float64
    assert prep.truncation(np.array([[0, 1]]), np.array([8.0])).tolist() == [[3 + W, 1 + W]]


def test_strictly_decreasing_ignores_row_boundaries() -> None:
    off = np.array([0, 2, 2, 4])
    assert strictly_decreasing(off, np.array([5.0, 4.0, 9.0, 1.0]))
    assert not strictly_decreasing(off, np.array([5.0, 5.0, 9.0, 1.0]))
    assert strictly_decreasing(np.array([3, 5]), np.array([0.0, 0.0, 0.0, 2.0, 1.0]))


def test_flat_of_an_empty_pool() -> None:
    pool = QuestionPool(
        qid=0, ground_truth="", window=W, trace_idx=np.zeros(0, np.int64),
        lengths=np.zeros(0, np.int64), final_group=np.zeros(0, np.int32), group_labels=[],
        group_correct=np.zeros(0, bool), grid=np.zeros(0, np.int64),
        ckpt_group=np.zeros((0, 0), np.int32), ckpt_conf=np.zeros((0, 0), np.float32),
        mean_conf=np.zeros(0, np.float32), tail_conf=np.zeros(0, np.float32),
        min_group=np.zeros(0, np.float32), bottom_10=np.zeros(0, np.float32),
        low_offsets=np.zeros(1, np.int64), low_window=np.zeros(0, np.int64),
        low_value=np.zeros(0, np.float32),
    )  # fmt: skip
    lows = RecordLows.of_pool(pool, np.zeros(0, np.int64), [])
    assert lows.flat().offsets.tolist() == [0] and lows.flat().value.size == 0
