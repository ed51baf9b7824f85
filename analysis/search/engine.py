"""Find the hits of a compiled query in a corpus: exactly `re.finditer` over each row's text,
rows in corpus order, hits in text order.

How it stays exact and fast: polars keeps the rows the filters allow and the rows that can
hold a hit (`query`: plain text exactly, a regex through a literal every hit contains), and
counts a plain query's hits itself (`row_counts`). Python's `re` then finds the hits. Plain text is scanned
over many rows joined by NUL at once (a literal without NUL never matches across one, so the
hits are the per-row hits); a regular expression row by row (`^`, `$`, lookarounds and `\\b`
see one row's text) in a worker process (`worker`), which is killed when one row outlasts the
time limit (a pattern such as `(a|aa)+$` can backtrack for ever on a long row, and `re` cannot
be stopped in the server's own process). A first page stops as soon as it has its hits; every
scan stops at a time limit and says so, and names the row it was killed on.
"""

from __future__ import annotations

import time
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np
import polars as pl
import pyarrow as pa

from analysis.search import worker
from analysis.search.corpus import Corpus
from analysis.search.query import Compiled

SEP = "\x00"
CHUNK = 2_000  # rows scanned by Python at once
WORKER_CHUNK = 50_000  # rows sent to the worker at once (each exchange waits on the scheduler)
NARROW_CHUNK = 20_000  # rows polars narrows at first; each next slice is twice as long
NARROW_MAX = 640_000
TIME_LIMIT = 20.0  # seconds a full count may scan
PAGE_TIME_LIMIT = 5.0  # seconds a page of hits may scan


@dataclass(frozen=True)
class Filters:
    datasets: tuple[str, ...] = ()  # none: every dataset
    groups: tuple[str, ...] = ()  # subset / file labels; none: all
    correct: bool | None = None  # True: correct items only; False: wrong ones

    def apply(self, frame: pl.DataFrame) -> pl.DataFrame:
        out = frame
        if self.datasets:
            out = out.filter(pl.col("dataset").is_in(list(self.datasets)))
        if self.groups:
            out = out.filter(pl.col("group").is_in(list(self.groups)))
        if self.correct is not None:
            out = out.filter(pl.col("correct") == self.correct)
        return out


NO_FILTERS = Filters()


@dataclass
class Scan:
    """Hits as three parallel lists (row, start, end), and whether the scan stopped early."""

    rows: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    stopped: bool = False  # a first page: more rows may hold hits
    timed_out: bool = False  # the scan hit its time limit
    stuck_row: int | None = None  # the row a regex was still running on at the limit
    scanned_rows: int = 0

    def __len__(self) -> int:
        return len(self.rows)

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(
            {"row": self.rows, "start": self.starts, "end": self.ends},
            schema={"row": pl.Int64, "start": pl.Int64, "end": pl.Int64},
        )


def narrow(frame: pl.DataFrame, compiled: Compiled) -> pl.DataFrame:
    """(row, text) of the rows of `frame` that may hold a hit, in order."""
    exact = compiled.exact
    if exact is not None:
        frame = frame.filter(pl.col("text").str.contains(exact.pattern, literal=exact.literal))
    elif compiled.literal is not None:
        frame = frame.filter(pl.col("text").str.contains(compiled.literal, literal=True))
    return frame.select("row", "text")


def row_counts(corpus: Corpus, compiled: Compiled, filters: Filters) -> pl.DataFrame | None:
    """(row, hits) of every row with a hit, counted by polars: plain text only (its pattern
    has exactly `re`'s matches, `query.exact_pattern`); None for a regex."""
    exact = compiled.exact
    if exact is None:
        return None
    hits = pl.col("text").str.count_matches(exact.pattern, literal=exact.literal)
    frame = filters.apply(corpus.frame.select("row", "text", "dataset", "group", "correct"))
    return (
        frame.select("row", hits.cast(pl.Int64).alias("hits"))
        .filter(pl.col("hits") > 0)
        .sort("row")
    )


def candidates(
    corpus: Corpus, compiled: Compiled, filters: Filters, grow_to: int | None = None
) -> Iterator[pl.DataFrame]:
    """(row, text) of the rows that may hold a hit, in corpus order, `CHUNK` rows at a time, or
    with `grow_to` twice as many each time up to it (a first page narrows only the slices it
    reads, and sends the worker only a little more than it needs)."""
    step = CHUNK
    frame = filters.apply(corpus.frame.select("row", "text", "dataset", "group", "correct"))
    start, size = 0, NARROW_CHUNK
    while start < frame.height:
        found = narrow(frame.slice(start, size), compiled)
        sub = 0
        while sub < found.height:
            yield found.slice(sub, step)
            sub += step
            if grow_to is not None:
                step = min(2 * step, grow_to)
        start, size = start + size, min(2 * size, NARROW_MAX)


def _joined(compiled: Compiled) -> bool:
    """Plain text without NUL: scanned over rows joined by NUL."""
    return not compiled.query.regex and SEP not in compiled.query.text


def _scan_joined(chunk: pl.DataFrame, compiled: Compiled, out: Scan, limit: int | None) -> bool:
    rows = chunk["row"].to_list()
    lengths = chunk["text"].str.len_chars().to_list()
    bounds = list(accumulate((n + 1 for n in lengths), initial=0))  # row i starts at bounds[i]
    text = SEP.join(chunk["text"].to_list())
    for m in compiled.pattern.finditer(text):
        i = bisect_right(bounds, m.start()) - 1
        out.rows.append(rows[i])
        out.starts.append(m.start() - bounds[i])
        out.ends.append(m.end() - bounds[i])
        if limit is not None and len(out) >= limit:
            return True
    return False


def _scan_rows(
    chunk: pl.DataFrame, compiled: Compiled, out: Scan, limit: int | None, deadline: float
) -> bool:
    rows = chunk["row"].to_list()
    left = None if limit is None else limit - len(out)
    found = worker.run(compiled.pattern, batch(chunk["text"]), left, deadline)
    out.rows.extend(rows[i] for i in found.index)
    out.starts.extend(found.starts)
    out.ends.extend(found.ends)
    if found.stuck is not None:
        out.stuck_row = rows[found.stuck]
    if found.timed_out:
        out.timed_out = True
        return True
    return limit is not None and len(out) >= limit


def batch(texts: pl.Series) -> worker.Batch:
    """A column of texts as the worker takes them: its UTF-8 bytes and their offsets, as arrow
    holds them (no Python string made)."""
    arr = texts.to_arrow()
    arr = (arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr).cast(
        pa.large_string()
    )
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = memoryview(data_buf)[lo:hi] if data_buf is not None else b""
    return worker.Batch(array("q", (offsets - lo).tobytes()), data)


def count_in(compiled: Compiled, texts: list[str], time_limit: float) -> list[int] | None:
    """The hits in each text (a regex in the worker), or None past the time limit."""
    if not compiled.query.regex:
        return [sum(1 for _ in compiled.pattern.finditer(t)) for t in texts]
    found = worker.run(compiled.pattern, texts, None, time.monotonic() + time_limit)
    if found.timed_out:
        return None
    out = [0] * len(texts)
    for i in found.index:
        out[i] += 1
    return out


def scan(
    corpus: Corpus,
    compiled: Compiled,
    filters: Filters = NO_FILTERS,
    limit: int | None = None,
    time_limit: float = TIME_LIMIT,
) -> Scan:
    """The hits in corpus order; with `limit`, the first `limit` of them (`stopped` set when
    the scan ended there)."""
    deadline = time.monotonic() + time_limit
    out = Scan()
    joined = _joined(compiled)
    for chunk in candidates(corpus, compiled, filters, None if joined else WORKER_CHUNK):
        full = (
            _scan_joined(chunk, compiled, out, limit)
            if joined
            else _scan_rows(chunk, compiled, out, limit, deadline)
        )
        out.scanned_rows += chunk.height
        if full:
            out.stopped = not out.timed_out
            return out
        if time.monotonic() > deadline:
            out.timed_out = True
            return out
    return out


def python_scan(texts: Sequence[str], compiled: Compiled) -> list[tuple[int, int, int]]:
    """The reference: (row, start, end) of `re.finditer` over each text in turn."""
    return [
        (i, m.start(), m.end()) for i, t in enumerate(texts) for m in compiled.pattern.finditer(t)
    ]
