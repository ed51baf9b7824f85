"""The reading side of the MARS ingest (`analysis.mars.ingest`): opening and checking a file, its
question layout, the decode thread that reads the next batches while the build computes, and the
answer columns alone (for the fact helper, `analysis.mars.fact_feed`, and for deciding whether a
build needs one)."""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analysis.mars import answers
from analysis.mars.features import OPTIONAL, REQUIRED, numeric_batch
from analysis.mars.question_groups import trace_order
from cache.arrow_numpy import list_parts, primitive
from cache.errors import CorruptFile, SchemaError

# how much the decode thread of a build with a fact helper yields (its nice value, Linux)
DECODE_NICE = 10
Task = tuple[list[int], list[int] | None]  # row groups, and the only qids to keep of them
QuestionAnswers = tuple[int, list, list, list]  # qid, final answers, probe answers, truths
_log = logging.getLogger(__name__)


def open_file(path: Path) -> pq.ParquetFile:
    try:
        # no pre-buffering: it holds whole column chunks (~GBs for a MARS file) in memory
        return pq.ParquetFile(path, pre_buffer=False, buffer_size=4 << 20)
    except (OSError, pa.ArrowInvalid) as exc:
        raise CorruptFile(f"cannot read {path.name}: {exc}", "is the file complete?") from exc


def check_schema(pf: pq.ParquetFile, path: Path) -> list[str]:
    """The columns (and `probes` leaves) the build reads; `SchemaError` without the required."""
    names = pf.schema_arrow.names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise SchemaError(
            f"column `{missing[0]}` missing in {path.name}",
            "is this a MARS file? expected columns qid, trace_idx, confs (+ ground_truth, "
            "extracted_answer, probes)",
        )
    columns = [c for c in (*REQUIRED, *OPTIONAL) if c in names and c != "probes"]
    return columns + probe_columns(pf, ("position", "answer", "avg_conf"))


def probe_columns(pf: pq.ParquetFile, fields: tuple[str, ...]) -> list[str]:
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


def question_layout(pf: pq.ParquetFile, path: Path) -> tuple[np.ndarray, list[set[int]]]:
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


def yield_cpu(nice: int) -> None:
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


def _corrupt(path: Path, item: BaseException) -> CorruptFile:
    return CorruptFile(
        f"reading {path.name} failed part-way ({str(item)[:160]})",
        "the file may be truncated or corrupt: re-download it or regenerate the "
        "sample; questions finished so far are kept and a rerun resumes after them",
    )


def prefetch(
    it: Iterator[pa.RecordBatch], path: Path, depth: int = 2, nice: int = 0
) -> Iterator[pa.RecordBatch]:
    """Read the next batches on a thread while this one is computed (arrow releases the GIL);
    `nice`: `yield_cpu` on that thread.
    A read failure part-way (truncated or corrupt row group) becomes a `CorruptFile`; the
    questions finished before it stay in the work folder, so a rerun resumes after them."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    sentinel = object()

    def run() -> None:
        yield_cpu(nice)
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
                raise _corrupt(path, item) from None
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


def computed(batches: Iterator[pa.RecordBatch], window: int) -> Iterator[tuple[int, dict]]:
    """`numeric_batch` of each batch, in order, with its row count. (Threads do not help here:
    the per-trace loop holds the GIL between numpy calls.)"""
    for b in batches:
        yield b.num_rows, numeric_batch(b, window)


def answers_to_warm(path: Path, tasks: list[Task]) -> Iterator[QuestionAnswers]:
    """(qid, final answers, probe answers, ground truths) of each question, in task order, read
    lazily: just the answer columns, no `confs`. A question's rows come as `finalise_question`
    groups them (`trace_order`). Empty for a file without answers."""
    pf = open_file(path)
    names = pf.schema_arrow.names
    if "extracted_answer" not in names and "probes" not in names:
        return
    cols = [c for c in ("qid", "trace_idx", "extracted_answer", "ground_truth") if c in names]
    cols += probe_columns(pf, ("answer",))
    seen: set[int] = set()
    for row_groups, only in tasks:
        try:
            t = pf.read_row_groups(row_groups, columns=cols)
        except (OSError, pa.ArrowException):
            return  # the build reports a corrupt file; warming is only a head start
        for item in _table_answers(t, cols):
            if item[0] in seen or (only is not None and item[0] not in only):
                continue
            seen.add(item[0])
            yield item


def _table_answers(t: pa.Table, cols: list[str]) -> Iterator[QuestionAnswers]:
    """`answers_to_warm` of the questions of one table of answer columns, in qid order."""
    qid = np.asarray(primitive(t.column("qid"), -1), dtype=np.int64)
    tix = np.asarray(primitive(t.column("trace_idx"), -1), dtype=np.int64)
    finals = t.column("extracted_answer").to_pylist() if "extracted_answer" in cols else []
    gts = t.column("ground_truth").to_pylist() if "ground_truth" in cols else []
    has_probes = "probes" in t.schema.names
    off, answers_flat = _probe_answers(t.column("probes")) if has_probes else (None, [])
    for q in np.unique(qid).tolist():
        if q < 0:
            continue
        at = np.flatnonzero(qid == q)
        rows = at[trace_order(tix[at])].tolist()
        p_ans = (
            [a for i in rows for a in answers_flat[off[i] : off[i + 1]]] if off is not None else []
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


def answers_unknown(pf: pq.ParquetFile) -> bool:
    """Does the file hold an answer the attached memo knows nothing about, that grouping would
    ask math-verify about? (distinct strings only, read a row group at a time and stopping at
    the first such answer: a new pool has one in its first, so a cold build does not wait for
    a read of every answer before its fact helper starts). False without a memo: then nothing
    says the answers are cheap or dear, so the plain single pass runs."""
    memo = answers.current_memo()
    names = pf.schema_arrow.names
    if memo is None or not ({"extracted_answer", "probes"} & set(names)):
        return False
    cols = [c for c in ("extracted_answer",) if c in names] + probe_columns(pf, ("answer",))
    seen: set = set()
    try:
        for rg in range(pf.num_row_groups):
            t = pf.read_row_group(rg, columns=cols)
            new = {a for a in _distinct_answers(t, cols) if a is not None} - seen
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


def _distinct_answers(t: pa.Table, cols: list[str]) -> list:
    """The distinct final and probe answers of one table of answer columns (with None)."""
    found: list = []
    if "extracted_answer" in cols:
        found += pc.unique(t.column("extracted_answer")).to_pylist()
    if "probes" in t.schema.names:
        items = pc.list_flatten(t.column("probes"))
        if "answer" in [f.name for f in items.type]:
            found += pc.unique(pc.struct_field(items, "answer")).to_pylist()
    return found
