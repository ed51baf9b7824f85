"""The streaming ingest of a MARS parquet file: one pass, by row-group batches, into `MarsTables`.

Why this shape: never more than one batch of `confs` in memory plus the compact results of the
unfinished questions (`analysis.mars.features` computes both). Each trace is processed whole while
it sits in the CPU cache, a thread decodes the next batch meanwhile, and, on a machine with
PARALLEL_MIN_CORES cores or more, files over PARALLEL_MIN_BYTES are split by question over two
worker processes by row groups, when no question straddles them (`workers=2` also splits a file
of one big row group: each worker decodes it all and keeps its own run of questions; by default
such a file is streamed by one process, since the decode is then done twice). The workers do
the numeric pass only and hand each whole question's numeric
batch to the parent, which does the answer grouping and the tables (the same `finalise_question`
on the same batch, so the same output): grouping is mostly per distinct string and the strings
repeat across questions, so done once in one process it costs about half what two workers each
repeating it did, and it runs beside the workers' numeric pass. Any other file (from
OVERLAP_MIN_BYTES) whose answers the persistent memo does not know yet is streamed here while a
helper process groups its answers with math-verify and sends the facts it learnt
(`analysis.mars.fact_feed`): this process then groups from those facts without math-verify, and
the cold build is about the longer of the two halves, not their sum. Figures:
bench/mars_ingest.py.

Resumable: each finished question is written to `work_dir/q<qid>.*.arrow` (Arrow IPC, through a temp file
unique to its writer, then renamed, so two sessions building the same file cannot mix their
bytes); a rerun skips the row groups whose questions are all done.

Workers are plain `python -m analysis.mars.ingest` processes, not `multiprocessing` ones: spawn
and forkserver children re-import the parent's `__main__` script, which under Streamlit (and
AppTest) is the app page. They share out the shards by claiming them (an exclusive create of one
claim file each), largest first, so one long question cannot leave a core idle at the end.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analysis.mars import answers, fact_feed, verdict_memo
from analysis.mars.confidence import WINDOW, release_scratch
from analysis.mars.fact_feed import FactFeed, worker_env
from analysis.mars.feature_sink import FeatureSink
from analysis.mars.features import (
    BATCH_ROWS,
    FEATURE_SCHEMA,
    GROUP_SCHEMA,
    NOTE_SCHEMA,
    OPTIONAL,
    REQUIRED,
    MarsTables,
    concat_parts,
    finalise_question,
    notes_table,
    numeric_batch,
    split_by_question,
)
from analysis.mars.question_groups import WarmedGroups, trace_order, warm_grouping
from cache import errors, list_pages
from cache.arrow_numpy import list_parts, primitive
from cache.errors import CorruptFile, DataError, SchemaError
from cache.process_memory import peak_rss_bytes
from cache.progress import ProgressFn
from cache.store import atomic_write, atomic_write_bytes

# below this, one process: on the realistic 30 x 512 pool (186 MiB) two workers cost more CPU
# time (their start-up, a second decode set-up, the parent's warm-up read) and were not
# faster in wall time on a shared 2-core machine (bench/mars_ingest.py --workers 2)
PARALLEL_MIN_BYTES = 200 << 20
# and below this many cores, one process for every size: it keeps two cores busy by itself (the
# decode threads, the compiled pass), and on 2 cores two workers were slower on the full-size
# file with the answers known (more wall and CPU time) and twice as slow on the same file written
# as one row group (each worker decodes all of it); four cores give each worker two
# (bench/mars_ingest.py, docs/PERFORMANCE.md)
PARALLEL_MIN_CORES = 4
# from OVERLAP_MIN_BYTES (`fact_feed`) up, a file whose answers the memo does not know yet gets a
# helper process for the math-verify facts while this one streams the numbers (the two halves
# of a cold build; a numeric worker instead, with this process grouping, cost more CPU
# on the realistic pool: its start-up, decode set-up and hand-over); with the answers known, one
# process is faster (the helper's start-up costs more than the grouping left)
# peak RSS (bytes) of each other process of the last build: its numeric workers, or its fact helper
LAST_WORKER_PEAK_RSS: list[int] = []

QuestionResult = tuple[pa.Table, pa.Table, list[tuple]]
_log = logging.getLogger(__name__)
_MEMO_LOCK = threading.Lock()
_MEMO_USERS = 0  # builds of this process using the attached memo (Streamlit runs several)


@contextmanager
def _answer_memo(path: Path | None) -> Iterator[None]:
    """Group answers with the persistent memo at `path` (`analysis.mars.verdict_memo`), and
    save what this build learnt when it ends. Builds running at once in one process share the
    memo attached first. A memo that cannot be saved (read-only or full cache, a lock held too
    long) costs only speed next time, so it is logged, not raised."""
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


def _check_schema(pf: pq.ParquetFile, path: Path) -> list[str]:
    names = pf.schema_arrow.names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise SchemaError(
            f"column `{missing[0]}` missing in {path.name}",
            "is this a MARS file? expected columns qid, trace_idx, confs (+ ground_truth, "
            "extracted_answer, probes)",
        )
    columns = [c for c in (*REQUIRED, *OPTIONAL) if c in names and c != "probes"]
    return columns + _probe_columns(pf, ("position", "answer", "avg_conf"))


def _probe_columns(pf: pq.ParquetFile, fields: tuple[str, ...]) -> list[str]:
    """What to read of the `probes` column for these fields of its items: just their leaf
    columns (`probes.list.element.answer`), not the probe texts, which are most of its bytes
    (the whole column when none of them is there, so a malformed one is read as before; []
    without probes)."""
    if "probes" not in pf.schema_arrow.names:
        return []
    leaves = [pf.schema.column(i).path for i in range(len(pf.schema))]
    picked = [
        leaf for leaf in leaves if leaf.startswith("probes.") and leaf.rsplit(".", 1)[1] in fields
    ]
    return picked or ["probes"]


# how much the decode thread of a build with a fact helper yields (its nice value, Linux)
DECODE_NICE = 10


def _yield_cpu(nice: int) -> None:
    """Raise this thread's nice value (Linux only: elsewhere a thread id is not a process id).

    Why: in a cold build with a fact helper, three threads share two cores: the decode, the
    numeric pass and the helper, whose facts every question's finalisation waits for. At equal
    priority the helper got two thirds of a core and its facts came last, well after the
    numbers of a realistic pool; the decode yielding to it lets both end together (the numeric
    pass waits on the decode only when the helper is busy)."""
    if nice <= 0 or not sys.platform.startswith("linux"):
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except OSError as exc:  # a sandbox that forbids it: the same build, only less balanced
        _log.debug("decode thread priority not lowered: %s", exc)


def _prefetch(
    it: Iterator[pa.RecordBatch], path: Path, depth: int = 2, nice: int = 0
) -> Iterator[pa.RecordBatch]:
    """Read the next batches on a thread while this one is computed (arrow releases the GIL);
    `nice`: `_yield_cpu` on that thread.
    A read failure part-way (truncated or corrupt row group) becomes a `CorruptFile`; the
    questions finished before it stay in the work folder, so a rerun resumes after them."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    sentinel = object()

    def run() -> None:
        _yield_cpu(nice)
        try:
            for b in it:
                if stop.is_set():
                    return
                q.put(b)
            q.put(sentinel)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the consumer side
            q.put(exc)

    t = threading.Thread(target=run, daemon=True, name="mars-prefetch")
    t.start()
    try:
        while True:
            item = q.get()
            if item is sentinel:
                return
            if isinstance(item, OSError | pa.ArrowException):
                raise CorruptFile(
                    f"reading {path.name} failed part-way ({str(item)[:160]})",
                    "the file may be truncated or corrupt: re-download it or regenerate the "
                    "sample; questions finished so far are kept and a rerun resumes after them",
                ) from None
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while t.is_alive():
            try:
                q.get_nowait()
            except queue.Empty:
                t.join(0.05)


def _computed(batches: Iterator[pa.RecordBatch], window: int) -> Iterator[tuple[int, dict]]:
    """`numeric_batch` of each batch, in order, with its row count. (Threads do not help here:
    the per-trace loop holds the GIL between numpy calls; files big enough to matter use
    processes instead.)"""
    for b in batches:
        yield b.num_rows, numeric_batch(b, window)


def _chunk_paths(work_dir: Path, q: int) -> tuple[Path, Path, Path]:
    return (
        work_dir / f"q{q:06d}.features.arrow",
        work_dir / f"q{q:06d}.groups.arrow",
        work_dir / f"q{q:06d}.notes.arrow",
    )


def _write_atomic(table: pa.Table, dest: Path) -> None:
    """An Arrow IPC file, streamed into a temp file unique to this writer, then renamed over
    `dest`: concurrent writers of the same chunk each rename a complete file, so one wins and
    (same input, same code) its bytes are the same as the other's. Why IPC, not parquet: a chunk
    is scratch, read once by this build or its rerun, and a parquet chunk cost far more to
    encode than an IPC one. Why streamed: an in-memory copy
    first cost a fresh buffer (page faults) and a bytes copy per question."""

    def fill(tmp: str) -> None:
        with pa.OSFile(tmp, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)

    atomic_write(dest, fill)


def _read_chunk(path: Path) -> pa.Table:
    with pa.OSFile(str(path)) as fh:
        return pa.ipc.open_file(fh).read_all()


def _write_chunk(work_dir: Path, q: int, f: pa.Table, g: pa.Table, n: pa.Table) -> None:
    fp, gp, np_ = _chunk_paths(work_dir, q)
    for table, dest in ((g, gp), (n, np_), (f, fp)):  # features last: it marks "done"
        _write_atomic(table, dest)


def _part_path(part_dir: Path, q: int) -> Path:
    return part_dir / f"q{q:06d}.part.pkl"


def _write_part(part_dir: Path, q: int, part: dict) -> None:
    """A worker's numeric batch of one whole question, for the parent to finalise. Why not
    finalise here: answer grouping is mostly per distinct string (parse, solve, verify, all
    cached per process), and the strings repeat across questions, so each worker would repeat
    the whole file's grouping work; the parent does it once while the workers compute. Pickle:
    a private scratch folder, written by our own worker, read once by its parent."""
    atomic_write_bytes(
        pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL), _part_path(part_dir, q)
    )


def _chunk_done(work_dir: Path | None, q: int) -> bool:
    return work_dir is not None and all(p.exists() for p in _chunk_paths(work_dir, q))


ChunkTables = tuple[pa.Table, pa.Table, pa.Table]  # a question's features, groups and notes


def _read_done(work_dir: Path, q: int) -> ChunkTables:
    """The tables of a question an earlier run finished (its chunk in `work_dir`), in this
    build's schemas."""
    tables = (_read_chunk(p) for p in _chunk_paths(work_dir, q))
    schemas = (FEATURE_SCHEMA, GROUP_SCHEMA, NOTE_SCHEMA)
    f, g, n = (t if t.schema.equals(s) else t.cast(s) for t, s in zip(tables, schemas, strict=True))
    return f, g, n


def _open(path: Path) -> pq.ParquetFile:
    try:
        # no pre-buffering: it holds whole column chunks (~GBs for a MARS file) in memory
        return pq.ParquetFile(path, pre_buffer=False, buffer_size=4 << 20)
    except (OSError, pa.ArrowInvalid) as exc:
        raise CorruptFile(f"cannot read {path.name}: {exc}", "is the file complete?") from exc


def _question_layout(pf: pq.ParquetFile, path: Path) -> tuple[np.ndarray, list[set[int]]]:
    """qid of every row (nulls -> -1) and the set of questions in each row group."""
    try:
        ids = pf.read(columns=["qid"]).column("qid")
    except (OSError, pa.ArrowInvalid) as exc:
        raise CorruptFile(f"cannot read {path.name}: {exc}", "is the file complete?") from exc
    qids_all = np.asarray(primitive(ids, -1), dtype=np.int64)
    rg_q: list[set[int]] = []
    start = 0
    for i in range(pf.num_row_groups):
        nr = pf.metadata.row_group(i).num_rows
        rg_q.append(set(np.unique(qids_all[start : start + nr]).tolist()))
        start += nr
    return qids_all, rg_q


def _stream(
    pf: pq.ParquetFile,
    path: Path,
    columns: list[str],
    row_groups: list[int],
    expected: dict[int, int],
    done: set[int],
    work_dir: Path | None,
    window: int,
    batch_rows: int,
    hook: ProgressFn,
    stop_after: int | None = None,
    feed: FactFeed | None = None,
    sink: FeatureSink | None = None,
) -> dict[int, tuple[pa.Table, pa.Table, list[tuple]]]:
    """The streaming pass over `row_groups` in this process: numeric features per batch, then
    each question is finalised (grouped, tabled, written to `work_dir`) as soon as all its rows
    were seen, and, with `feed`, its answer facts have arrived (`analysis.mars.fact_feed`)."""
    results: dict[int, tuple[pa.Table, pa.Table, list[tuple]]] = {}
    partials: dict[int, _Partial] = {}
    deferred: dict[int, dict] = {}
    total_rows = sum(pf.metadata.row_group(i).num_rows for i in row_groups) or 1
    if not row_groups:
        return results
    it = list_pages.iter_batches(pf, path, row_groups, columns, batch_rows, "confs")
    _consume(
        _computed(_prefetch(it, path, nice=DECODE_NICE if feed is not None else 0), window),
        expected,
        done,
        work_dir,
        results,
        partials,
        path,
        hook,
        total_rows,
        stop_after,
        feed=feed,
        deferred=deferred,
        sink=sink,
    )
    if stop_after is not None and len(results) >= stop_after:
        return results
    for q, part in deferred.items():  # computed before their facts came: wait for them now
        if feed is not None:
            feed.wait(q)
        _finalise_into(q, part, work_dir, results, feed, sink)
    for q, acc in partials.items():  # fewer rows than the qid column said (should not happen)
        _finalise_into(q, concat_parts(acc.pieces), work_dir, results, sink=sink)
    return results


def _consume(
    parts: Iterator[tuple[int, dict]],
    expected: dict[int, int],
    done: set[int],
    work_dir: Path | None,
    results: dict,
    partials: dict[int, _Partial],
    path: Path,
    hook: ProgressFn,
    total_rows: int,
    stop_after: int | None,
    part_dir: Path | None = None,
    feed: FactFeed | None = None,
    deferred: dict[int, dict] | None = None,
    sink: FeatureSink | None = None,
) -> None:
    """Group numeric batches by question; finalise each question once all its rows are in
    (with `part_dir`, hand in its numeric part instead; with `feed`, a question whose answer
    facts have not arrived yet waits in `deferred` while the next batches are computed)."""
    seen_rows = 0
    finished_now = 0
    for n_rows, part in parts:
        seen_rows += n_rows
        for q, sub in split_by_question(part).items():
            if q in done or q < 0 or (deferred is not None and q in deferred):
                continue
            acc = partials.setdefault(q, _Partial())
            acc.rows += sub["qid"].shape[0]
            acc.pieces.append(sub)
            if acc.rows < expected.get(q, 0):
                continue
            whole = concat_parts(acc.pieces)
            del partials[q]
            if part_dir is not None:
                _write_part(part_dir, q, whole)
                results[q] = (None, None, [])
                done.add(q)
                continue
            if feed is not None and deferred is not None and not feed.ready(q):
                deferred[q] = whole
                continue
            _finalise_into(q, whole, work_dir, results, feed, sink)
            done.add(q)
            finished_now += 1
            if stop_after is not None and finished_now >= stop_after:
                return
        if feed is not None and deferred:
            for q in [q for q in deferred if feed.ready(q)]:
                _finalise_into(q, deferred.pop(q), work_dir, results, feed, sink)
                done.add(q)
        hook(seen_rows / total_rows, f"{path.name}: {len(done)}/{len(expected)} questions")


def _finalise_into(
    q: int,
    part: dict,
    work_dir: Path | None,
    results: dict,
    feed: FactFeed | None = None,
    sink: FeatureSink | None = None,
) -> None:
    """Finalise question q (`finalise_question`, with the groups `feed`'s helper made, if it
    sent them), write its chunk, keep its tables, hand its features to `sink`."""
    f, g, notes = finalise_question(q, part, feed.take_groups(q) if feed is not None else None)
    _keep(q, f, g, notes, work_dir, results, sink)


def _keep(
    q: int,
    f: pa.Table,
    g: pa.Table,
    notes: list[tuple],
    work_dir: Path | None,
    results: dict,
    sink: FeatureSink | None,
) -> None:
    """A finalised question: its chunk in `work_dir` (a rerun resumes after it), its tables in
    `results`, its features to `sink`."""
    if work_dir is not None:
        _write_chunk(work_dir, q, f, g, notes_table(notes))
    results[q] = (f, g, notes)
    if sink is not None:
        sink.offer(q, f)


def _claim(claim_dir: Path, i: int) -> bool:
    """Take task `i` for this process (exactly one process succeeds per task)."""
    try:
        os.close(os.open(claim_dir / f"task{i:05d}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


class _Shards:
    """The tasks of a parallel build as one process works through them, a batch at a time
    (`step`). The workers loop on it; the parent steps whenever it has nothing else to do (its
    answers all grouped, no part waiting), so it does not sit idle while a worker finishes the
    file alone.

    Why one stream over all the tasks this process claims: a task is often one row group, one
    batch. Streamed task by task, each decode waited for the previous compute and each compute
    for its decode (the worker of a realistic pool took about twice as long as one stream).
    Here the decode thread claims the next unclaimed task (in task order) as soon as it
    has decoded the last one, at most `CLAIM_AHEAD` batches ahead of the compute, so a task
    claimed ahead is little work left to the other process at the end."""

    CLAIM_AHEAD = 1

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.path = Path(spec["path"])
        self._parts: Iterator[tuple[int, dict]] | None = None
        self._expected: dict[int, int] = {}
        self._partials: dict[int, _Partial] = {}
        self._handed: dict[int, QuestionResult] = {}
        self._done: set[int] = set()
        self.finished = False

    @property
    def busy(self) -> bool:
        """Has it claimed a task it has not finished yet?"""
        return self._parts is not None and not self.finished

    def _claimed_batches(self, pf: pq.ParquetFile, columns: list[str]) -> Iterator[pa.RecordBatch]:
        """The batches of each task this process claims, just the rows of the task's own
        questions (a task's `only`); runs on the decode thread."""
        claim_dir = Path(self.spec["claim_dir"])
        for i, (row_groups, only) in enumerate(self.spec["tasks"]):
            if not _claim(claim_dir, i):
                continue
            keep = pa.array(only, type=pa.int64()) if only is not None else None
            it = list_pages.iter_batches(
                pf, self.path, row_groups, columns, self.spec["batch_rows"], "confs"
            )
            for b in it:
                if keep is not None:
                    b = b.filter(pc.is_in(b.column("qid"), value_set=keep))
                if b.num_rows:
                    yield b

    def step(self) -> list[int] | None:
        """Compute the next batch (claiming tasks as needed) and hand in the numeric part of
        each question it completes (`_write_part`): their qids; None when no task is left."""
        part_dir = Path(self.spec["part_dir"])
        if self._parts is None:
            pf = _open(self.path)
            columns = _check_schema(pf, self.path)
            qids_all, _ = _question_layout(pf, self.path)
            uq, counts = np.unique(qids_all, return_counts=True)
            # a task holds whole questions (`_units`, `_question_tasks`): all of a qid's rows
            self._expected = dict(zip(uq.tolist(), counts.tolist(), strict=True))
            batches = _prefetch(self._claimed_batches(pf, columns), self.path, self.CLAIM_AHEAD)
            self._parts = _computed(batches, self.spec["window"])
        if self.finished:
            return None
        before = set(self._handed)
        item = next(self._parts, None)
        if item is None:
            self.finished = True
            for q, acc in self._partials.items():  # fewer rows than the qid column said
                _write_part(part_dir, q, concat_parts(acc.pieces))
                self._handed[q] = (None, None, [])
            self._partials.clear()
            left = sorted(set(self._handed) - before)
            return left or None
        _consume(
            iter([item]),
            self._expected,
            self._done,
            None,
            self._handed,
            self._partials,
            self.path,
            _no_progress,
            1,
            None,
            part_dir,
        )
        return sorted(set(self._handed) - before)

    def close(self) -> None:
        """Stop the decode thread (a build that ends early)."""
        if isinstance(self._parts, Generator):
            self._parts.close()


def _worker_main(spec_json: str) -> dict[str, Any]:
    """One worker process: claim the shards in order until none is left. Returns its qids, its
    peak RSS in bytes and its pid, or the DataError that stopped it."""
    spec = json.loads(spec_json)
    try:
        shards = _Shards(spec)
        done: list[int] = []
        while (qids := shards.step()) is not None:
            done += qids
    except DataError as exc:
        return {"error": type(exc).__name__, "message": exc.message, "hint": exc.hint}
    rss = peak_rss_bytes()
    return {"qids": done, "rss": rss, "pid": os.getpid()}


def _worker_result(proc: subprocess.Popen, out: Path, err: Path) -> dict[str, Any]:
    """The JSON report of a finished worker; a DataError it hit is raised again here. A worker
    stopped by a signal (the kernel's OOM killer, a kill -9) is a `BuildFailed` the user can act
    on (its finished questions are on disk); anything else (a crash) is a RuntimeError carrying
    the end of its stderr."""
    if proc.returncode is not None and proc.returncode < 0:
        raise errors.BuildFailed(
            f"a MARS ingest worker was stopped by signal {-proc.returncode}",
            "reload to resume (finished questions are kept); if it recurs, the server may be "
            "short of memory",
        )
    lines = out.read_text().strip().splitlines()
    report = json.loads(lines[-1]) if proc.returncode == 0 and lines else None
    if report is None:
        tail = err.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"MARS ingest worker failed (exit {proc.returncode}): {tail}")
    if "error" in report:
        cls = getattr(errors, report["error"], DataError)
        raise cls(report["message"], report["hint"])
    return report


Task = tuple[list[int], list[int] | None]  # row groups, and the only qids to keep of them


def _unit_tasks(pf: pq.ParquetFile, units: list[list[int]]) -> list[Task]:
    """One task per unit, largest first: the workers claim them in this order, so one long
    question cannot leave a core idle at the end."""
    sizes = [sum(pf.metadata.row_group(i).total_byte_size for i in u) for u in units]
    order = sorted(zip(units, sizes, strict=True), key=lambda x: -x[1])
    return [(u, None) for u, _ in order]


def _question_tasks(
    todo_rg: list[int], expected: dict[int, int], done: set[int], workers: int
) -> list[Task] | None:
    """When the row groups cannot be shared out (one big row group, or questions spread over
    several): one task per worker, each streaming all of them and keeping its own run of
    questions, about equal in rows. Decoding is repeated per worker, so only an explicit
    `workers` comes here (`_default_workers` streams such a file in one process: on 2 cores two
    workers took twice as long). None if fewer than 2 questions."""
    todo = sorted(q for q in expected if q >= 0 and q not in done)
    if len(todo) < 2:
        return None
    rows = np.cumsum([expected[q] for q in todo])
    cut = np.searchsorted(rows, rows[-1] * np.arange(1, workers) / workers, side="left")
    bounds = [0, *sorted({int(min(max(c + 1, 1), len(todo) - 1)) for c in cut}), len(todo)]
    tasks: list[Task] = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if b > a:
            tasks.append((todo_rg, todo[a:b]))
    return tasks if len(tasks) >= 2 else None


def _parallel(
    path: Path,
    tasks: list[Task],
    workers: int,
    window: int,
    work_dir: Path | None,
    batch_rows: int,
    expected: dict[int, int],
    hook: ProgressFn,
    sink: FeatureSink | None = None,
) -> dict[int, QuestionResult]:
    """Run `workers` worker processes over the tasks (claimed in order) for the numeric work;
    this process finalises each question (answer grouping, tables, its chunk in `work_dir`) as
    its numeric part arrives, so the grouping runs once, beside the workers. With nothing left
    to group, no part waiting and a core to spare, it claims a task itself (`_Shards`)."""
    scratch = Path(tempfile.mkdtemp(prefix="mars-features-"))
    claim_dir = scratch / "claims"
    part_dir = scratch / "parts"
    claim_dir.mkdir()
    part_dir.mkdir()
    spec_dict = {
        "path": str(path),
        "tasks": tasks,
        "window": window,
        "claim_dir": str(claim_dir),
        "part_dir": str(part_dir),
        "batch_rows": batch_rows,
    }
    spec = json.dumps(spec_dict)
    # the parent computes too only with a core to spare: on 2 cores beside 2 workers it slowed
    # the full-size build by ~10 % (a third process, and parts left waiting while it computes)
    own_share = _Shards(spec_dict) if workers < (os.cpu_count() or 1) else None
    procs: list[tuple[subprocess.Popen, Path, Path]] = []
    try:
        env = worker_env()
        for w in range(workers):
            out, err = scratch / f"worker{w}.out", scratch / f"worker{w}.err"
            with out.open("wb") as fo, err.open("wb") as fe:
                cmd = [sys.executable, "-m", "analysis.mars.ingest", spec]
                proc = subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe, env=env
                )
            procs.append((proc, out, err))
        total = len(expected)
        results: dict[int, QuestionResult] = {}
        warm = _answers_to_warm(path, tasks)
        warmed: dict[int, WarmedGroups] = {}
        while True:
            running = any(p.poll() is None for p, _, _ in procs)
            found = sorted(part_dir.glob("q*.part.pkl"))
            for fp in found:
                q = int(fp.name[1:7])
                with fp.open("rb") as fh:
                    part = pickle.load(fh)  # noqa: S301 - our own worker's file (see _write_part)
                fp.unlink()
                f, g, notes = finalise_question(q, part, warmed.pop(q, None))
                _keep(q, f, g, notes, work_dir, results, sink)
                hook(len(results) / max(total, 1), f"{path.name}: {len(results)}/{total} questions")
            if not running and not found and not (own_share is not None and own_share.busy):
                break
            if (
                not found
                and not _warm_next(warm, results, warmed)
                and (own_share is None or own_share.step() is None)
            ):
                time.sleep(0.02)
        reports = [_worker_result(p, out, err) for p, out, err in procs]
        LAST_WORKER_PEAK_RSS[:] = [int(r["rss"]) for r in reports]
        return results
    finally:
        if own_share is not None:
            own_share.close()
        for p, _, _ in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def _answers_to_warm(path: Path, tasks: list[Task]) -> Iterator[tuple[int, list, list, list]]:
    """(qid, final answers, probe answers, ground truths) of each question, in the order the
    workers will hand them in (tasks in claim order), read lazily: just the answer columns,
    no `confs`. A question's rows come as `finalise_question` groups them (`trace_order`).
    Empty for a file without answers."""
    pf = _open(path)
    names = pf.schema_arrow.names
    if "extracted_answer" not in names and "probes" not in names:
        return
    cols = [c for c in ("qid", "trace_idx", "extracted_answer", "ground_truth") if c in names]
    cols += _probe_columns(pf, ("answer",))
    seen: set[int] = set()
    for row_groups, only in tasks:
        try:
            t = pf.read_row_groups(row_groups, columns=cols)
        except (OSError, pa.ArrowException):
            return  # the workers report a corrupt file; warming is only a head start
        qid = np.asarray(primitive(t.column("qid"), -1), dtype=np.int64)
        tix = np.asarray(primitive(t.column("trace_idx"), -1), dtype=np.int64)
        finals = t.column("extracted_answer").to_pylist() if "extracted_answer" in cols else []
        gts = t.column("ground_truth").to_pylist() if "ground_truth" in cols else []
        has_probes = "probes" in t.schema.names
        off, answers_flat = _probe_answers(t.column("probes")) if has_probes else (None, [])
        for q in np.unique(qid).tolist():
            if q < 0 or q in seen or (only is not None and q not in only):
                continue
            seen.add(q)
            at = np.flatnonzero(qid == q)
            rows = at[trace_order(tix[at])].tolist()
            p_ans = (
                [a for i in rows for a in answers_flat[off[i] : off[i + 1]]]
                if off is not None
                else []
            )
            yield (
                q,
                [finals[i] for i in rows] if finals else [],
                p_ans,
                [gts[i] for i in rows] if gts else [],
            )


def _probe_answers(col: pa.ChunkedArray) -> tuple[np.ndarray | None, list]:
    """(row offsets, answers) of a `probes` column: the answer field alone, never the probe
    texts (a whole-struct `to_pylist` is slow on a realistic pool). (None, []) when the probes
    hold no answer field."""
    if "answer" not in [f.name for f in col.type.value_type]:
        return None, []
    off, values = list_parts(col)
    return off, pc.struct_field(values, "answer").to_pylist()


def _warm_next(
    warm: Iterator[tuple[int, list, list, list]], results: dict, warmed: dict[int, WarmedGroups]
) -> bool:
    """Group the next question not yet finalised ahead of its part (into `warmed`); False
    when none is left."""
    for q, finals, p_ans, gts in warm:
        if q not in results:
            warmed[q] = warm_grouping(finals, p_ans, gts)
            return True
    return False


def _units(rg_q: list[set[int]], todo_rg: list[int]) -> list[list[int]] | None:
    """Runs of consecutive row groups that no question straddles; None if a question's rows
    are not contiguous (then only the single streaming pass is safe)."""
    units: list[list[int]] = []
    seen: set[int] = set()
    for i in todo_rg:
        qs = rg_q[i] - {-1}
        if units and units[-1][-1] == i - 1 and qs & rg_q[i - 1]:
            units[-1].append(i)
        else:
            if qs & seen:
                return None
            units.append([i])
        seen |= qs
    return units


def build_features(
    path: Path,
    *,
    window: int = WINDOW,
    work_dir: Path | None = None,
    progress: ProgressFn | None = None,
    batch_rows: int = BATCH_ROWS,
    stop_after: int | None = None,
    workers: int | None = None,
    memo: Path | None = None,
    features_out: str | None = None,
) -> MarsTables:
    """One streaming pass over a MARS parquet file -> `MarsTables` (schemas in the module doc).

    `work_dir` makes it resumable (finished questions are skipped on a rerun); `stop_after`
    stops after that many newly finished questions (tests use it to simulate a crash).
    `workers` (default: `_default_workers`) splits the row groups into shards that no question
    straddles, one streaming pass per process (or, when they cannot be split so, the questions
    into runs, each process keeping its own); every
    question is still computed by exactly the same code, so the output does not change.
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
                path, window, work_dir, progress, batch_rows, stop_after, workers, features_out
            )
    finally:
        release_scratch()


def _build(
    path: Path,
    window: int,
    work_dir: Path | None,
    progress: ProgressFn | None,
    batch_rows: int,
    stop_after: int | None,
    workers: int | None,
    features_out: str | None = None,
) -> MarsTables:
    path = Path(path)
    pf = _open(path)
    columns = _check_schema(pf, path)
    if work_dir is not None:
        Path(work_dir).mkdir(parents=True, exist_ok=True)
    file_notes: list[tuple] = []
    qids_all, rg_q = _question_layout(pf, path)
    if (qids_all < 0).any():
        file_notes.append((-1, -1, "null_qid", f"{int((qids_all < 0).sum())} rows without qid"))
    uq, counts = np.unique(qids_all, return_counts=True)
    expected = dict(zip(uq.tolist(), counts.tolist(), strict=True))
    done = {q for q in expected if _chunk_done(work_dir, q)}
    todo_rg = [i for i, qs in enumerate(rg_q) if not qs <= done]
    hook = progress or _no_progress
    hook(0.0, f"{path.name}: {len(done)}/{len(expected)} questions cached")
    overlap = False
    LAST_WORKER_PEAK_RSS.clear()
    units = _units(rg_q, todo_rg)
    if workers is None:
        size = path.stat().st_size
        cores = os.cpu_count() or 1
        workers = _default_workers(size, cores, units)
        overlap = (
            workers == 1
            and cores >= 2
            and size >= fact_feed.OVERLAP_MIN_BYTES
            and bool(todo_rg)
            and _answers_unknown(pf, path)
        )
    tasks: list[Task] | None = None
    if workers > 1 and stop_after is None:
        if units is not None and len(units) >= workers:
            tasks = _unit_tasks(pf, units)
        else:
            tasks = _question_tasks(todo_rg, expected, done, workers)
    earlier = {q: _read_done(work_dir, q) for q in sorted(done)} if work_dir is not None else {}
    sink = FeatureSink(features_out, expected) if features_out is not None else None
    try:
        if sink is not None:  # what an earlier run finished goes out in its turn
            for q, (f, _, _) in earlier.items():
                sink.offer(q, f)
        results = _run(
            pf, path, columns, window, work_dir, batch_rows, stop_after, workers, expected,
            done, todo_rg, tasks, overlap, hook, sink,
        )  # fmt: skip
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
    path: Path,
    columns: list[str],
    window: int,
    work_dir: Path | None,
    batch_rows: int,
    stop_after: int | None,
    workers: int,
    expected: dict[int, int],
    done: set[int],
    todo_rg: list[int],
    tasks: list[Task] | None,
    overlap: bool,
    hook: ProgressFn,
    sink: FeatureSink | None,
) -> dict[int, QuestionResult]:
    """The build's plan carried out: worker processes for `tasks`, else one streaming pass
    (with the fact helper when `overlap`); every finished question's features go to `sink`."""
    if tasks is not None:
        return _parallel(path, tasks, workers, window, work_dir, batch_rows, expected, hook, sink)
    memo = answers.current_memo()
    feed = None
    if overlap and stop_after is None and memo is not None:
        todo = (x for x in _answers_to_warm(path, [(todo_rg, None)]) if x[0] not in done)
        try:
            feed = FactFeed(todo, memo)
        except OSError as exc:  # no process to spare: this one groups, only slower
            _log.warning("answer facts helper not started (%s): grouping here", exc)
    try:
        results = _stream(
            pf,
            path,
            columns,
            todo_rg,
            expected,
            done,
            work_dir,
            window,
            batch_rows,
            hook,
            stop_after,
            feed,
            sink,
        )
    except BaseException:
        if feed is not None:
            feed.close()
        raise
    if feed is not None:
        feed.finish()
        if feed.peak_rss is not None:
            LAST_WORKER_PEAK_RSS[:] = [feed.peak_rss]
    return results


def _default_workers(size: int, cores: int, units: list[list[int]] | None) -> int:
    """Two processes only where they pay: a file from PARALLEL_MIN_BYTES up whose row groups
    can be shared out (`units`: no question straddles them, at least two), on PARALLEL_MIN_CORES
    cores or more. Otherwise one, which a file of unknown answers pairs with the fact helper."""
    shareable = units is not None and len(units) >= 2
    return 2 if size >= PARALLEL_MIN_BYTES and cores >= PARALLEL_MIN_CORES and shareable else 1


def _answers_unknown(pf: pq.ParquetFile, path: Path) -> bool:
    """Does the file hold an answer the attached memo knows nothing about, that grouping would
    ask math-verify about? (distinct strings only, read a row group at a time and stopping at
    the first such answer: a new pool has one in its first, so a cold build does not wait for
    a read of every answer before its fact helper starts). False without a memo: then nothing
    says the answers are cheap or dear, so the plain single pass runs."""
    memo = answers.current_memo()
    names = pf.schema_arrow.names
    if memo is None or not ({"extracted_answer", "probes"} & set(names)):
        return False
    cols = [c for c in ("extracted_answer",) if c in names] + _probe_columns(pf, ("answer",))
    seen: set = set()
    try:
        for rg in range(pf.num_row_groups):
            t = pf.read_row_group(rg, columns=cols)
            found: list = []
            if "extracted_answer" in cols:
                found += pc.unique(t.column("extracted_answer")).to_pylist()
            if "probes" in t.schema.names:
                items = pc.list_flatten(t.column("probes"))
                if "answer" in [f.name for f in items.type]:
                    found += pc.unique(pc.struct_field(items, "answer")).to_pylist()
            new = {a for a in found if a is not None} - seen
            seen |= new
            norms = {answers.normalize(a) for a in new}
            if any(
                n is not None and answers.asks_math_verify(n) and not answers.memo_knows(memo, n)
                for n in norms
            ):
                return True
    except (OSError, pa.ArrowException):
        return False  # the build itself reports what is wrong with the file
    return False


def _assemble(
    results: dict, earlier: dict[int, ChunkTables], expected: dict, file_notes: list, window: int
) -> MarsTables:
    """The build's tables, in qid order: the questions finalised now (`results`) and those an
    earlier run finished (`earlier`, `_read_done`)."""
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


if __name__ == "__main__":  # a worker process of `_parallel`
    print(json.dumps(_worker_main(sys.argv[1])))
