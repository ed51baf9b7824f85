"""The feature table of a cold build, written question by question while the build goes on.

Why: written whole at the end, the table (most of it the record lows: ~6 M of them on a
realistic pool) was encoded after everything else was done, on one core. Here
each finished question's rows go to a writer thread (parquet encoding releases the GIL) as one
row group, so the encoding runs beside the rest of the build and only the footer is left at
its end.

Rows keep qid order, as `ingest._assemble` concatenates them: a question finished ahead of a
lower qid waits in memory until that one is written. The build offers the questions an earlier,
interrupted run finished too (their chunks, read back), so every question comes through here.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable

import pyarrow as pa

from analysis.mars.features import FEATURE_SCHEMA
from cache.store import parquet_writer

_END = None


class FeatureSink:
    """Writes the feature rows of each question offered, in qid order, to a parquet file."""

    def __init__(self, path: str, qids: Iterable[int]) -> None:
        self._order = sorted(q for q in qids if q >= 0)
        self._next = 0
        self._pending: dict[int, pa.Table] = {}
        self._queue: queue.Queue[pa.Table | None] = queue.Queue()
        self._error: BaseException | None = None
        self._writer = parquet_writer(path, FEATURE_SCHEMA)
        self._stopped = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="mars-features-out")
        self._thread.start()

    def _run(self) -> None:
        while (table := self._queue.get()) is not _END:
            if self._error is None:
                try:
                    self._writer.write_table(table)
                except BaseException as exc:  # noqa: BLE001 - re-raised by `finish`
                    self._error = exc

    def _advance(self, *, to_end: bool = False) -> None:
        """Send the questions that are next in qid order; `to_end`: skip those that never
        came (they have no rows, as in `_assemble`)."""
        while self._next < len(self._order):
            table = self._pending.pop(self._order[self._next], None)
            if table is None and not to_end:
                return
            if table is not None:
                self._queue.put(table)
            self._next += 1

    def offer(self, q: int, features: pa.Table) -> None:
        """Question q is finished: its rows go out as soon as every lower qid's have."""
        self._pending[q] = features
        self._advance()

    def finish(self) -> None:
        """Write what is left in qid order and close the file; a write that failed raises
        here."""
        self._advance(to_end=True)
        self._stop()
        if self._error is not None:
            raise self._error

    def abort(self) -> None:
        """The build failed: stop writing (the caller removes the file)."""
        self._pending.clear()
        self._stop()

    def _stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._queue.put(_END)
        self._thread.join()
        self._writer.close()
