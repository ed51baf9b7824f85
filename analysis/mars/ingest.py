"""The streaming ingest of a MARS parquet file: one pass, by row-group batches, into `MarsTables`.

Why this shape: never more than one batch of `confs` in memory plus the compact results of the
unfinished questions (`analysis.mars.features` computes both). Each trace is processed whole while
it sits in the CPU cache.

One concurrency model: this process does the numeric pass and finalises each question (answer
grouping, tables) as soon as all its rows are in, with two threads beside it: the decode thread
reading the next batches (`ingest_read.prefetch`) and the writer of the feature table
(`analysis.mars.feature_sink`). A file from OVERLAP_MIN_BYTES (`fact_feed`) up whose answers the
persistent memo does not know yet also gets a helper process that groups its answers with
math-verify and sends the facts it learnt (`analysis.mars.fact_feed`): this process then groups
from those facts without math-verify, and the cold build is about the longer of the two halves,
not their sum. With the answers known, one process is faster (the helper's start-up costs more
than the grouping left). Numeric worker processes sharing out the row groups were dropped: on the
2-core machines this targets they cost more CPU than one process and took longer (the
measurement: bench/mars_ingest.py).

Resumable: each finished question is written to the work folder (`analysis.mars.ingest_chunks`);
a rerun skips the row groups whose questions are all done.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.mars import answers, fact_feed, verdict_memo
from analysis.mars.confidence import WINDOW, release_scratch
from analysis.mars.fact_feed import FactFeed
from analysis.mars.feature_sink import FeatureSink
from analysis.mars.features import (
    BATCH_ROWS,
    FEATURE_SCHEMA,
    GROUP_SCHEMA,
    MarsTables,
    concat_parts,
    finalise_question,
    notes_table,
    split_by_question,
)
from analysis.mars.ingest_chunks import ChunkTables, chunk_done, read_done, write_chunk
from analysis.mars.ingest_read import (
    DECODE_NICE,
    answers_to_warm,
    answers_unknown,
    check_schema,
    computed,
    open_file,
    prefetch,
    question_layout,
)
from cache import list_pages
from cache.progress import ProgressFn

# peak RSS (bytes) of the other process of the last build: its fact helper, if it had one
LAST_WORKER_PEAK_RSS: list[int] = []

QuestionResult = tuple[pa.Table, pa.Table, list[tuple]]
_log = logging.getLogger(__name__)
_MEMO_LOCK = threading.Lock()
_MEMO_USERS = 0  # builds of this process using the attached memo (Streamlit runs several)


@contextmanager
def _answer_memo(path: Path | None) -> Iterator[None]:
    """Group answers with the persistent memo at `path` (`analysis.mars.verdict_memo`), and
    save what this build learnt when it ends. Builds running at once in one process share the
    memo attached first. A memo that cannot be saved (read-only or full cache, another writer
    too long) costs only speed next time, so it is logged, not raised."""
    global _MEMO_USERS
    if path is None:
        yield
        return
    with _MEMO_LOCK:
        memo = answers.current_memo()
        if memo is None:
            memo = verdict_memo.load(path)
            answers.use_memo(memo)
        _MEMO_USERS += 1
    try:
        yield
    finally:
        with _MEMO_LOCK:
            _MEMO_USERS -= 1
            try:
                verdict_memo.save(memo, path)
            except verdict_memo.SAVE_ERRORS as exc:
                _log.warning(
                    "answer memo not saved to %s (%s): the next build recomputes", path, exc
                )
            if _MEMO_USERS == 0:
                answers.use_memo(None)


@dataclass
class _Partial:
    """Compact results of the rows of one question seen so far (lists of per-batch pieces)."""

    rows: int = 0
    pieces: list[dict] = field(default_factory=list)


def _no_progress(fraction: float, message: str = "") -> None:
    return None


@dataclass
class _Pass:
    """The state of one streaming pass: what it is to compute and what it has finished."""

    path: Path
    expected: dict[int, int]  # rows of each question
    done: set[int]  # questions finished (by an earlier run or this one)
    work_dir: Path | None
    hook: ProgressFn
    stop_after: int | None = None
    feed: FactFeed | None = None
    sink: FeatureSink | None = None
    results: dict[int, QuestionResult] = field(default_factory=dict)
    partials: dict[int, _Partial] = field(default_factory=dict)
    deferred: dict[int, dict] = field(default_factory=dict)  # computed, waiting for their facts
    finished_now: int = 0

    def stopped(self) -> bool:
        return self.stop_after is not None and self.finished_now >= self.stop_after

    def finalise(self, q: int, part: dict, *, with_feed: bool = True) -> None:
        """Finalise question q (`finalise_question`, with the groups the fact helper made, if it
        sent them), write its chunk in the work folder (a rerun resumes after it), keep its
        tables, hand its features to the sink."""
        warmed = self.feed.take_groups(q) if self.feed is not None and with_feed else None
        f, g, notes = finalise_question(q, part, warmed)
        if self.work_dir is not None:
            write_chunk(self.work_dir, q, f, g, notes_table(notes))
        self.results[q] = (f, g, notes)
        if self.sink is not None:
            self.sink.offer(q, f)
        self.done.add(q)
        self.finished_now += 1


def _stream(
    pf: pq.ParquetFile,
    columns: list[str],
    row_groups: list[int],
    window: int,
    batch_rows: int,
    run: _Pass,
) -> dict[int, QuestionResult]:
    """The streaming pass over `row_groups`: numeric features per batch, then each question is
    finalised (grouped, tabled, written to the work folder) as soon as all its rows were seen,
    and, with a fact feed, its answer facts have arrived (`analysis.mars.fact_feed`)."""
    total_rows = sum(pf.metadata.row_group(i).num_rows for i in row_groups) or 1
    if not row_groups:
        return run.results
    it = list_pages.iter_batches(pf, run.path, row_groups, columns, batch_rows, "confs")
    nice = DECODE_NICE if run.feed is not None else 0
    _consume(computed(prefetch(it, run.path, nice=nice), window), run, total_rows)
    if run.stopped():
        return run.results
    for q, part in run.deferred.items():  # computed before their facts came: wait for them now
        if run.feed is not None:
            run.feed.wait(q)
        run.finalise(q, part)
    for q, acc in run.partials.items():  # fewer rows than the qid column said (should not happen)
        run.finalise(q, concat_parts(acc.pieces), with_feed=False)
    return run.results


def _consume(parts: Iterator[tuple[int, dict]], run: _Pass, total_rows: int) -> None:
    """Group numeric batches by question; finalise each question once all its rows are in (a
    question whose answer facts have not arrived yet waits in `run.deferred` while the next
    batches are computed)."""
    seen_rows = 0
    for n_rows, part in parts:
        seen_rows += n_rows
        for q, sub in split_by_question(part).items():
            if q in run.done or q < 0 or q in run.deferred:
                continue
            acc = run.partials.setdefault(q, _Partial())
            acc.rows += sub["qid"].shape[0]
            acc.pieces.append(sub)
            if acc.rows < run.expected.get(q, 0):
                continue
            whole = concat_parts(acc.pieces)
            del run.partials[q]
            if run.feed is not None and not run.feed.ready(q):
                run.deferred[q] = whole
                continue
            run.finalise(q, whole)
            if run.stopped():
                return
        if run.feed is not None and run.deferred:
            for q in [q for q in run.deferred if run.feed.ready(q)]:
                run.finalise(q, run.deferred.pop(q))
        run.hook(
            seen_rows / total_rows,
            f"{run.path.name}: {len(run.done)}/{len(run.expected)} questions",
        )


def build_features(
    path: Path,
    *,
    window: int = WINDOW,
    work_dir: Path | None = None,
    progress: ProgressFn | None = None,
    batch_rows: int = BATCH_ROWS,
    stop_after: int | None = None,
    helper: bool | None = None,
    memo: Path | None = None,
    features_out: str | None = None,
) -> MarsTables:
    """One streaming pass over a MARS parquet file -> `MarsTables` (schemas in the module doc).

    `work_dir` makes it resumable (finished questions are skipped on a rerun); `stop_after`
    stops after that many newly finished questions (tests use it to simulate a crash).
    `helper`: whether a fact helper process groups the answers (None: the build's choice, see
    the module doc; False: never); every question is computed by exactly the same code either
    way, so the output does not change.
    `memo` is the persistent answer memo to group with (`analysis.mars.verdict_memo`; the
    feature store passes one in its cache folder), None for none.
    `features_out`: also write the feature table there as parquet, question by question while
    the build goes on (`analysis.mars.feature_sink`; the feature store's temp file).
    Raises `SchemaError`/`CorruptFile` only for a file that is not a readable MARS file; every
    data problem inside a readable file becomes a row of `notes`.
    """
    try:
        with _answer_memo(memo):
            return _build(
                Path(path), window, work_dir, progress, batch_rows, stop_after, helper, features_out
            )
    finally:
        release_scratch()


def _wants_helper(pf: pq.ParquetFile, path: Path, todo_rg: list[int]) -> bool:
    """A fact helper only where it pays: a second core, a file from OVERLAP_MIN_BYTES up with
    row groups left to build, and an answer the memo does not know."""
    return (
        (os.cpu_count() or 1) >= 2
        and path.stat().st_size >= fact_feed.OVERLAP_MIN_BYTES
        and bool(todo_rg)
        and answers_unknown(pf)
    )


def _build(
    path: Path,
    window: int,
    work_dir: Path | None,
    progress: ProgressFn | None,
    batch_rows: int,
    stop_after: int | None,
    helper: bool | None,
    features_out: str | None = None,
) -> MarsTables:
    pf = open_file(path)
    columns = check_schema(pf, path)
    if work_dir is not None:
        Path(work_dir).mkdir(parents=True, exist_ok=True)
    file_notes: list[tuple] = []
    qids_all, rg_q = question_layout(pf, path)
    if (qids_all < 0).any():
        file_notes.append((-1, -1, "null_qid", f"{int((qids_all < 0).sum())} rows without qid"))
    uq, counts = np.unique(qids_all, return_counts=True)
    expected = dict(zip(uq.tolist(), counts.tolist(), strict=True))
    done = {q for q in expected if chunk_done(work_dir, q)}
    todo_rg = [i for i, qs in enumerate(rg_q) if not qs <= done]
    hook = progress or _no_progress
    hook(0.0, f"{path.name}: {len(done)}/{len(expected)} questions cached")
    LAST_WORKER_PEAK_RSS.clear()
    if helper is None:
        helper = _wants_helper(pf, path, todo_rg)
    earlier = {q: read_done(work_dir, q) for q in sorted(done)} if work_dir is not None else {}
    sink = FeatureSink(features_out, expected) if features_out is not None else None
    run = _Pass(path, expected, done, work_dir, hook, stop_after, sink=sink)
    try:
        if sink is not None:  # what an earlier run finished goes out in its turn
            for q, (f, _, _) in earlier.items():
                sink.offer(q, f)
        results = _run(pf, columns, window, batch_rows, todo_rg, helper, run)
        if sink is not None:
            sink.finish()
    except BaseException:
        if sink is not None:
            sink.abort()
        raise
    if stop_after is None or len(results) < stop_after:
        hook(1.0, f"{path.name}: done")
    return _assemble(results, earlier, expected, file_notes, window)


def _run(
    pf: pq.ParquetFile,
    columns: list[str],
    window: int,
    batch_rows: int,
    todo_rg: list[int],
    helper: bool,
    run: _Pass,
) -> dict[int, QuestionResult]:
    """The streaming pass, with the fact helper when `helper` (and a memo to learn into)."""
    memo = answers.current_memo()
    if helper and run.stop_after is None and memo is not None:
        todo = (x for x in answers_to_warm(run.path, [(todo_rg, None)]) if x[0] not in run.done)
        try:
            run.feed = FactFeed(todo, memo)
        except OSError as exc:  # no process to spare: this one groups, only slower
            _log.warning("answer facts helper not started (%s): grouping here", exc)
    feed = run.feed
    try:
        results = _stream(pf, columns, todo_rg, window, batch_rows, run)
    except BaseException:
        if feed is not None:
            feed.close()
        raise
    if feed is not None:
        feed.finish()
        if feed.peak_rss is not None:
            LAST_WORKER_PEAK_RSS[:] = [feed.peak_rss]
    return results


def _assemble(
    results: dict, earlier: dict[int, ChunkTables], expected: dict, file_notes: list, window: int
) -> MarsTables:
    """The build's tables, in qid order: the questions finalised now (`results`) and those an
    earlier run finished (`earlier`, `read_done`)."""
    fs, gs, ns = [], [], [notes_table(file_notes)]
    for q in sorted(expected):
        if q < 0:
            continue
        if q in results:
            f, g, notes = results[q]
            n = notes_table(notes)
        elif q in earlier:
            f, g, n = earlier[q]
        else:
            continue
        fs.append(f)
        gs.append(g)
        ns.append(n)
    features = pa.concat_tables(fs) if fs else FEATURE_SCHEMA.empty_table()
    groups = pa.concat_tables(gs) if gs else GROUP_SCHEMA.empty_table()
    notes = pa.concat_tables(ns)
    return MarsTables(features=features, groups=groups, notes=notes, window=window)
