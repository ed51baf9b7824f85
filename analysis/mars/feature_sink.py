"""The feature table of a cold build, written question by question while the build goes on.

Why: written whole at the end, the table (most of it the record lows: ~6 M of them on a
realistic pool) cost 0.2-0.3 s of encoding after everything else was done, on one core. Here
each finished question's rows go to a writer thread (parquet encoding releases the GIL) as one
row group, so the encoding runs beside the rest of the build and only the footer is left at
its end.

Rows keep qid order, as `ingest._assemble` concatenates them: a question finished ahead of a
lower qid waits in memory until that one is written, and a question finished by an earlier,
interrupted run (its chunk in the work folder) is read back when its turn comes.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable

import pyarrow as pa

from analysis.mars.features import FEATURE_SCHEMA
from cache.store import parquet_writer

_END = None


class FeatureSink:
    """Writes the feature rows of each question offered, in qid order, to a parquet file."""

    def __init__(
        self,
        path: str,
        qids: Iterable[int],
        done_before: set[int],
        chunk_of: Callable[[int], pa.Table],
    ) -> None:
        self._order = sorted(q for q in qids if q >= 0)
        self._next = 0
        self._pending: dict[int, pa.Table] = {}
        self._done_before = done_before
        self._chunk_of = chunk_of
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

    def _send(self, table: pa.Table) -> None:
        self._queue.put(
            table if table.schema.equals(FEATURE_SCHEMA) else table.cast(FEATURE_SCHEMA)
        )

    def _advance(self) -> None:
        while self._next < len(self._order):
            q = self._order[self._next]
            if q in self._pending:
                self._send(self._pending.pop(q))
            elif q in self._done_before:
                self._send(self._chunk_of(q))
            else:
                return
            self._next += 1

    def offer(self, q: int, features: pa.Table) -> None:
        """Question q is finished: its rows go out as soon as every lower qid's have."""
        self._pending[q] = features
        self._advance()

    def finish(self) -> None:
        """Write what is left in qid order (a question never offered and not done before has
        no rows, as in `_assemble`), close the file; a write that failed raises here."""
        for q in self._order[self._next :]:
            if q in self._pending:
                self._send(self._pending.pop(q))
            elif q in self._done_before:
                self._send(self._chunk_of(q))
        self._next = len(self._order)
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
