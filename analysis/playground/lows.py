"""The record lows of a question's pool traces, and the DeepConf truncation looked up in them.

A trace's record lows are the windows where the running minimum of its group confidence drops
(`QuestionPool.low_window` / `low_value`, strictly decreasing values per trace). The first window
whose group confidence is `< thr` is the first record low below `thr`. `first_below` finds it for
all queries of a bootstrap sample at once with one int64 `searchsorted` in a key index of the
lows (row, then value rank), built once per pool: on the realistic 512 x 64 pools this made
a DeepConf run markedly faster than a vectorised binary search over [I, B] arrays, which
cost six steps of seven array operations each. Building the index costs more than a search or
two, though (over half of a warm `simulate --method dco` on the realistic pool), so a pool's
first `BISECT_SEARCHES` searches bisect instead; both give the same answer.

Why apart from `prepare`: a full pool holds millions of lows and only DeepConf-filtered methods
read them. When every low of the source pool is finite and each trace's lows decrease (every
table the feature builder writes), the search reads them where they lie in the `QuestionPool`,
through the pool-row -> source-row map: no copy, no index. Otherwise (`flat`) they are
restricted to the pool, non-finite ones dropped, with the NONFINITE_LOWS / UNSORTED_LOWS notes;
lows that still do not decrease are found in key order (the order the note announces).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from analysis.mars.for_playground import QuestionPool, sorted_distinct
from analysis.playground.notes import Note, NoteCode

# the first searches of a pool bisect its rows; from the next one on, the key index (built once
# per pool) answers: a one-shot `simulate` process (one or two
# searches a question) never builds it, the playground (a sweep searches a pool dozens of
# times) builds it on its third search
BISECT_SEARCHES = 2


def strictly_decreasing(offsets: np.ndarray, values: np.ndarray) -> bool:
    """Whether values[offsets[r]:offsets[r+1]] strictly decreases for every row r."""
    lo, hi = int(offsets[0]), int(offsets[-1])
    vals = values[lo:hi]
    if vals.shape[0] < 2:
        return True
    rising = vals[1:] >= vals[:-1]  # pair (i, i+1); NaN compares False, checked apart
    starts = offsets[1:-1] - lo
    starts = starts[(starts >= 1) & (starts < vals.shape[0])]
    rising[starts - 1] = False  # a pair across two rows does not count
    return not bool(rising.any())


def _ragged_take(arr: np.ndarray, offsets: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The elements of rows `keep` (in that order) of a ragged column `arr` cut by `offsets`."""
    counts = offsets[keep + 1] - offsets[keep]
    starts = offsets[keep]
    take = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return arr[take + np.arange(counts.sum())]


@dataclass
class RecordLows:
    """Record lows of pool rows: row r owns window/value[offsets[m]:offsets[m+1]] with
    m = rows[r] (m = r when `rows` is None)."""

    offsets: np.ndarray  # int64
    window: np.ndarray  # integer windows
    value: np.ndarray  # float32 (in place) or float64 (flat)
    rows: np.ndarray | None
    decreasing: bool  # values strictly decrease within every row (else: UNSORTED_LOWS)
    _index: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _flat: RecordLows | None = field(default=None, repr=False)
    _searches: int = field(default=0, repr=False)

    @classmethod
    def of_pool(cls, pool: QuestionPool, keep: np.ndarray, notes: list[Note]) -> RecordLows:
        """The lows of source rows `keep` (the pool traces, in pool order); notes appended."""
        off = np.asarray(pool.low_offsets, dtype=np.int64)
        win = np.asarray(pool.low_window)
        val = np.asarray(pool.low_value, dtype=np.float32)
        used = val[int(off[0]) : int(off[-1])] if off.shape[0] else val[:0]
        if bool(np.isfinite(used).all()) and strictly_decreasing(off, val):
            return cls(off, win, val, np.asarray(keep, dtype=np.int64), True)
        return cls.flat_of(off, win.astype(np.int64), val, keep, notes)

    @classmethod
    def flat_of(
        cls,
        off: np.ndarray,
        win: np.ndarray,
        val: np.ndarray,
        keep: np.ndarray,
        notes: list[Note] | None = None,
    ) -> RecordLows:
        """Restricted to rows `keep`, non-finite lows dropped (with their notes)."""
        n = int(keep.shape[0])
        counts = off[keep + 1] - off[keep]
        low_w = _ragged_take(win, off, keep).astype(np.int64) if n else np.zeros(0, np.int64)
        low_v = _ragged_take(val, off, keep).astype(np.float64) if n else np.zeros(0)
        finite = np.isfinite(low_v)
        if not finite.all():
            if notes is not None:
                notes.append(
                    Note(
                        NoteCode.NONFINITE_LOWS,
                        f"{int((~finite).sum())} non-finite record lows ignored for DeepConf "
                        "truncation",
                    )
                )
            row_of = np.repeat(np.arange(n, dtype=np.int64), counts)[finite]
            low_w, low_v = low_w[finite], low_v[finite]
            counts = np.bincount(row_of, minlength=n)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        decreasing = strictly_decreasing(offsets, low_v)
        if not decreasing and notes is not None:
            notes.append(
                Note(
                    NoteCode.UNSORTED_LOWS,
                    "record lows are not strictly decreasing in some traces; truncation uses "
                    "them sorted",
                )
            )
        return cls(offsets, low_w, low_v, None, decreasing)

    def flat(self) -> RecordLows:
        """The same lows restricted to the pool rows (offsets [n+1], int64, float64)."""
        if self.rows is None:
            return self
        if self._flat is None:
            win = self.window.astype(np.int64)
            self._flat = RecordLows.flat_of(self.offsets, win, self.value, self.rows)
        return self._flat

    def first_below(self, rows: np.ndarray, thr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hit, window) for pool rows `rows` [..., B] and thresholds `thr` [...]: whether the
        row has a record low `< thr` (thr finite) and the window of the first one."""
        src = rows if self.rows is None else self.rows[rows]
        stop = self.offsets[src + 1]
        t = np.broadcast_to(thr[..., None], rows.shape)
        self._searches += 1
        if self._index is None and self.decreasing and self._searches <= BISECT_SEARCHES:
            return self._bisect(src, stop, t)
        keys, windows, uniq = self._key_index()
        m_u = uniq.shape[0]
        # r = number of distinct record-low values < thr, once per threshold (not per trace);
        # in row m the lows below thr are those with key > m*(M+1) + (M - r), and the first of
        # them in key order is the first below thr (in window order when the lows decrease)
        r = np.searchsorted(uniq, thr, side="left").astype(np.int64)
        pos = np.searchsorted(keys, src * (m_u + 1) + (m_u - r)[..., None], side="right")
        hit = (pos < stop) & np.isfinite(t)
        if windows.size:
            win = windows[np.minimum(pos, windows.shape[0] - 1)].astype(np.int64)
        else:
            win = np.zeros(pos.shape, np.int64)
        return hit, win

    def _bisect(
        self, src: np.ndarray, stop: np.ndarray, t: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """`first_below` without the key index: a binary search in every queried row at once
        (its lows strictly decrease, so those below `t` are a suffix of the row). Same answer
        as the index: `value < t` compared in float64, as the index's ranks compare."""
        lo, hi = self.offsets[src], stop  # never written in place: np.where makes new arrays
        n_vals = self.value.shape[0]
        longest = int((hi - lo).max()) if lo.size else 0
        for _ in range(longest.bit_length()):
            open_ = lo < hi
            if not open_.any():
                break
            mid = (lo + hi) >> 1
            below = self.value[np.minimum(mid, max(n_vals - 1, 0))] < t
            hi = np.where(open_ & below, mid, hi)
            lo = np.where(open_ & ~below, mid + 1, lo)
        hit = (lo < stop) & np.isfinite(t)
        if self.window.size:
            win = self.window[np.minimum(lo, self.window.shape[0] - 1)].astype(np.int64)
        else:
            win = np.zeros(lo.shape, np.int64)
        return hit, win

    def _key_index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(keys, windows in key order, sorted distinct values) of the lows: key = r*(M+1) +
        (M - rank(value)), so one int64 searchsorted finds, in row r, the first low (in
        decreasing value order, which is window order when the lows decrease) below a
        threshold. Built on first use."""
        if self._index is None:
            n = self.offsets.shape[0] - 1
            lo, hi = int(self.offsets[0]), int(self.offsets[-1])
            vals = self.value[lo:hi]
            row_of = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.offsets))
            # the distinct values, in float64 (thresholds are float64: ranks must compare as
            # `value < thr` does); not np.unique, whose first call imports numpy.ma
            uniq = sorted_distinct(np.sort(vals.astype(np.float64)))
            m_u = uniq.shape[0]
            keys = row_of * (m_u + 1) + (m_u - np.searchsorted(uniq, vals))
            win = self.window[lo:hi]
            if keys.size > 1 and not np.all(np.diff(keys) > 0):
                o = np.argsort(keys, kind="stable")
                keys, win = keys[o], win[o]
            # positions count from the array's start, as the offsets do
            keys = np.concatenate((np.full(lo, -1, dtype=np.int64), keys.astype(np.int64)))
            win = np.concatenate((np.zeros(lo, dtype=win.dtype), win))
            self._index = (keys, win, uniq)
        return self._index
