"""The Single trace tab's reads of raw traces, with read-ahead: a file read of one trace decodes
its question's whole row group (seconds for a 4,096-trace pool stored as one row group), so the
traces a step is likely to open next (`analysis.mars.trace_filters.read_ahead`) are read in the
same pass and kept, and "Next wrong trace" then opens at once."""

from __future__ import annotations

import threading
from collections import OrderedDict

import polars as pl

from analysis.mars.store import read_traces
from cache.sources import SourceConfig
from components.common.cached import file_stamp
from components.mars import cached as mc

MAX_TRACES = 96  # traces kept (tens of kB each), over every file and session of the process
_LOCK = threading.Lock()
_KEPT: OrderedDict[tuple[str, int, int, int], pl.DataFrame] = OrderedDict()


def raw_trace(
    rel: str, src: SourceConfig, qid: int, trace: int, ahead: tuple[int, ...] = ()
) -> pl.DataFrame:
    """One trace's raw row (as `cached.raw_trace`), reading the `ahead` traces not kept yet in
    the same pass."""
    path = mc.file_path(rel, src)
    base = (str(path), file_stamp(path), int(qid))
    with _LOCK:
        hit = _KEPT.get((*base, int(trace)))
        if hit is not None:
            _KEPT.move_to_end((*base, int(trace)))
            return hit
        want = [int(trace), *(int(t) for t in ahead if (*base, int(t)) not in _KEPT)]
    raw = read_traces(path, int(qid), want)
    with _LOCK:
        for t in want:
            _KEPT[(*base, t)] = raw.filter(pl.col("trace_idx") == t)
            _KEPT.move_to_end((*base, t))
        while len(_KEPT) > MAX_TRACES:
            _KEPT.popitem(last=False)
    return raw.filter(pl.col("trace_idx") == int(trace))
