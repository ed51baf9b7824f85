"""The Single trace tab's reads of raw traces, with read-ahead: a file read of one trace decodes
its question's whole row group (seconds for a 4,096-trace pool stored as one row group), so the
traces a step is likely to open next (`analysis.mars.trace_filters.read_ahead`) are read in the
same pass and kept, and "Next wrong trace" then opens at once; stepping onto a kept trace reads
the next ones in a background thread."""

from __future__ import annotations

import threading
from pathlib import Path

import polars as pl

from analysis.mars.store import read_traces
from cache.kept import Kept
from cache.sources import SourceConfig
from components.common.cached import file_stamp
from components.mars import cached as mc

MAX_TRACES = 96  # traces kept (tens of kB each), over every file and session of the process
_KEPT: Kept[tuple[str, int, int, int], pl.DataFrame] = Kept(MAX_TRACES)
_LOCK = threading.Lock()  # guards _BUSY
THREAD = "rte-read-ahead"
_BUSY: set[tuple[str, int, int]] = set()  # questions with a background read running


def _read(path: Path, base: tuple[str, int, int], want: list[int]) -> pl.DataFrame:
    """Read `want` in one pass and keep each."""
    raw = read_traces(path, base[2], want)
    for t in want:
        _KEPT.put((*base, t), raw.filter(pl.col("trace_idx") == t))
    return raw


def _read_behind(path: Path, base: tuple[str, int, int], want: list[int]) -> None:
    """A read of `want` in a background thread, one at a time per question: the next steps are
    ready while the reader looks at this trace."""
    try:
        _read(path, base, want)
    except Exception:  # noqa: BLE001 - a read-ahead only saves time; the step reads again
        pass
    finally:
        with _LOCK:
            _BUSY.discard(base)


def raw_trace(
    rel: str, src: SourceConfig, qid: int, trace: int, ahead: tuple[int, ...] = ()
) -> pl.DataFrame:
    """One trace's raw row (trace_idx, ground_truth, extracted_answer, confs, probes), reading
    the `ahead` traces not kept yet in the same pass; on a kept trace, those are read in the
    background instead."""
    path = mc.file_path(rel, src)
    base = (str(path), file_stamp(path), int(qid))
    hit = _KEPT.get((*base, int(trace)))
    missing = [int(t) for t in ahead if (*base, int(t)) not in _KEPT]
    if hit is not None:
        with _LOCK:
            start = bool(missing) and base not in _BUSY
            if start:
                _BUSY.add(base)
        if start:
            args = (path, base, missing)
            threading.Thread(target=_read_behind, args=args, name=THREAD, daemon=True).start()
        return hit
    raw = _read(path, base, [int(trace), *missing])
    return raw.filter(pl.col("trace_idx") == int(trace))
