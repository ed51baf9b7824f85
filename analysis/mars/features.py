"""The MARS per-trace feature store: one streaming pass over a MARS parquet file.

Why: a file holds ~1.5 billion float16 confidences. The view and the stopping playground only
need a few numbers per trace (stopping.md, "What a feature store must keep"), so we read the file
once, by row-group batches with column projection, never holding more than one batch of `confs`
plus the compact results of unfinished questions, and write three small tables:

features (one row per trace, sorted by qid, trace_idx):
  qid int64, trace_idx int64, length int64,
  final_answer str (null if none; cut to FINAL_ANSWER_MAX chars), final_group int32 (-1 none),
  final_correct bool, mean_conf/tail_conf/min_group/bottom_10/end_conf float32,
  n_nonfinite int64, n_negative int64, flags int32 (FLAG_* bits),
  ckpt_pos list<int64>   every multiple of PROBE_STEP below the length,
  ckpt_conf list<float32> conf_at_pos there, ckpt_group list<int32> probe answer group there
  (-1: no probe at that position), ckpt_correct list<bool>,
  probe_pos list<int64>, probe_group list<int32>, probe_correct list<bool>,
  probe_avg_conf list<float32>   all probes of the trace (sorted, within the trace),
  low_window list<int32>, low_value list<float32>   record lows of the group confidences
  (int32 halves the biggest column: a trace has a few dozen to a few hundred lows),
  curve list<float32>   CURVE_POINTS windowed means for plotting (empty for an empty trace).
groups (one row per answer group): qid, group_id int32, label, is_correct, n_final, n_probe,
  ground_truth.
notes (data problems, never exceptions): qid (-1: whole file), trace_idx (-1: whole question),
  kind, message.

Group ids come from `analysis.mars.answers.AnswerGrouper`, fed final answers in trace_idx order and
then probe answers (trace_idx, then position), so they are deterministic.

Resumable: each finished question is written to `work_dir/q<qid>.*.parquet`; a rerun skips the
row groups whose questions are all done.

Speed: each trace is processed whole while it sits in the CPU cache (`batch_features`), a thread
decodes the next batch meanwhile, and files over PARALLEL_MIN_BYTES whose questions do not
straddle row groups are split by question over two processes (same code per question, so the
same output). Full-size figures: bench/mars_ingest.py.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analysis.mars.answers import LONG_ANSWER_CHARS, AnswerGrouper
from analysis.mars.confidence import WINDOW, batch_features
from analysis.mars.pool import QuestionPool
from cache.errors import CorruptFile, SchemaError
from cache.progress import ProgressFn

FEATURES_VERSION = 6
PROBE_STEP = 2048  # probes were taken every 2048 tokens (a property of the data, not of W)
CURVE_POINTS = 96
FINAL_ANSWER_MAX = 400
BATCH_ROWS = 512

FLAG_EMPTY = 1
FLAG_NONFINITE = 2
FLAG_NEGATIVE = 4
FLAG_PROBES_UNSORTED = 8
FLAG_PROBE_BEYOND_END = 16
FLAG_LONG_ANSWER = 32
FLAG_NO_PROBES = 64

REQUIRED = ("qid", "trace_idx", "confs")
OPTIONAL = ("ground_truth", "extracted_answer", "probes")

FEATURE_SCHEMA = pa.schema(
    [
        ("qid", pa.int64()),
        ("trace_idx", pa.int64()),
        ("length", pa.int64()),
        ("final_answer", pa.string()),
        ("final_group", pa.int32()),
        ("final_correct", pa.bool_()),
        ("mean_conf", pa.float32()),
        ("tail_conf", pa.float32()),
        ("min_group", pa.float32()),
        ("bottom_10", pa.float32()),
        ("end_conf", pa.float32()),
        ("n_nonfinite", pa.int64()),
        ("n_negative", pa.int64()),
        ("flags", pa.int32()),
        ("ckpt_pos", pa.list_(pa.int64())),
        ("ckpt_conf", pa.list_(pa.float32())),
        ("ckpt_group", pa.list_(pa.int32())),
        ("ckpt_correct", pa.list_(pa.bool_())),
        ("probe_pos", pa.list_(pa.int64())),
        ("probe_group", pa.list_(pa.int32())),
        ("probe_correct", pa.list_(pa.bool_())),
        ("probe_avg_conf", pa.list_(pa.float32())),
        ("low_window", pa.list_(pa.int32())),
        ("low_value", pa.list_(pa.float32())),
        ("curve", pa.list_(pa.float32())),
    ]
)
GROUP_SCHEMA = pa.schema(
    [
        ("qid", pa.int64()),
        ("group_id", pa.int32()),
        ("label", pa.string()),
        ("is_correct", pa.bool_()),
        ("n_final", pa.int64()),
        ("n_probe", pa.int64()),
        ("ground_truth", pa.string()),
    ]
)
NOTE_SCHEMA = pa.schema(
    [
        ("qid", pa.int64()),
        ("trace_idx", pa.int64()),
        ("kind", pa.string()),
        ("message", pa.string()),
    ]
)


@dataclass
class MarsTables:
    """The three derived tables of one MARS file."""

    features: pa.Table
    groups: pa.Table
    notes: pa.Table
    window: int = WINDOW


# ---------------------------------------------------------------------------------------------
# per-batch numeric pass (no answer grouping yet: that needs the whole question)


@dataclass
class _Partial:
    """Compact results of the rows of one question seen so far (lists of per-batch pieces)."""

    rows: int = 0
    pieces: list[dict] = field(default_factory=list)


def _list_values(arr: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """(offsets int64 [n+1], values) of a list column, values left in their stored dtype
    (float16 stays float16: `analysis.mars.confidence.batch_features` widens per trace through
    `cache.floats.to_f32`, which keeps the working set in the CPU cache). Null lists are empty."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.null_count:
        arr = arr.fill_null(pa.scalar([], type=arr.type))
    offsets = np.asarray(arr.offsets, dtype=np.int64)
    start, stop = int(offsets[0]), int(offsets[-1])
    values = arr.values.slice(start, stop - start)
    if values.null_count:
        values = pc.fill_null(values, float("nan"))
    return offsets - start, values.to_numpy(zero_copy_only=False)


def _probe_arrays(col: pa.Array | None, n: int) -> dict[str, object]:
    """Flat probe fields of a batch: offsets [n+1], position, answer (list), avg_conf."""
    if col is None:
        return {
            "off": np.zeros(n + 1, dtype=np.int64),
            "pos": np.zeros(0, dtype=np.int64),
            "ans": [],
            "avg": np.zeros(0, dtype=np.float32),
        }
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if col.null_count:
        col = col.fill_null(pa.scalar([], type=col.type))
    off = np.asarray(col.offsets, dtype=np.int64)
    start, stop = int(off[0]), int(off[-1])
    values = col.values.slice(start, stop - start)
    off = off - start
    names = [values.type.field(i).name for i in range(values.type.num_fields)]

    def fld(name: str) -> pa.Array | None:
        return values.field(name) if name in names else None

    pos_a = fld("position")
    pos = (
        np.asarray(pc.fill_null(pos_a, -1).to_numpy(zero_copy_only=False), dtype=np.int64)
        if pos_a is not None
        else np.full(stop - start, -1, dtype=np.int64)
    )
    ans_a = fld("answer")
    ans = ans_a.to_pylist() if ans_a is not None else [None] * (stop - start)
    avg_a = fld("avg_conf")
    avg = (
        np.asarray(pc.fill_null(avg_a, np.nan).to_numpy(zero_copy_only=False), dtype=np.float32)
        if avg_a is not None
        else np.full(stop - start, np.nan, dtype=np.float32)
    )
    return {"off": off, "pos": pos, "ans": ans, "avg": avg}


def _numeric_batch(batch: pa.RecordBatch, window: int) -> dict:
    """Everything that needs `confs`, for every row of a batch (then `confs` can go)."""
    n = batch.num_rows
    names = batch.schema.names
    qid = np.asarray(pc.fill_null(batch.column("qid"), -1).to_numpy(), dtype=np.int64)
    tix = np.asarray(pc.fill_null(batch.column("trace_idx"), -1).to_numpy(), dtype=np.int64)
    offsets, values = _list_values(batch.column("confs"))
    bf = batch_features(offsets, values, window, ck_step=PROBE_STEP, n_points=CURVE_POINTS)
    m = bf.metrics
    lengths = m.lengths

    pr = _probe_arrays(batch.column("probes") if "probes" in names else None, n)
    poff: np.ndarray = pr["off"]  # type: ignore[assignment]
    ppos: np.ndarray = pr["pos"]  # type: ignore[assignment]
    pans: list = pr["ans"]  # type: ignore[assignment]
    pavg: np.ndarray = pr["avg"]  # type: ignore[assignment]

    flags = np.zeros(n, dtype=np.int32)
    flags[lengths == 0] |= FLAG_EMPTY
    flags[m.n_nonfinite > 0] |= FLAG_NONFINITE
    flags[m.n_negative > 0] |= FLAG_NEGATIVE
    flags[np.diff(poff) == 0] |= FLAG_NO_PROBES

    # probes: sort within trace when out of order, drop those beyond the end (or invalid)
    owner = np.repeat(np.arange(n), np.diff(poff))
    if ppos.size:
        unsorted = np.zeros(n, dtype=bool)
        same = owner[1:] == owner[:-1]
        dec = same & (ppos[1:] < ppos[:-1])
        if dec.any():
            unsorted[owner[1:][dec]] = True
            flags[unsorted] |= FLAG_PROBES_UNSORTED
            order = np.lexsort((ppos, owner))
            ppos, pavg, owner = ppos[order], pavg[order], owner[order]
            pans = [pans[i] for i in order.tolist()]
        beyond = (ppos > lengths[owner]) | (ppos < 0)
        if beyond.any():
            flags[np.unique(owner[beyond])] |= FLAG_PROBE_BEYOND_END
            keep = ~beyond
            ppos, pavg, owner = ppos[keep], pavg[keep], owner[keep]
            pans = [a for a, k in zip(pans, keep.tolist(), strict=True) if k]
        poff = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=n), out=poff[1:])

    ck_off, ck_pos, ck_conf, end_conf, curve = (
        bf.ck_offsets,
        bf.ck_pos,
        bf.ck_conf,
        bf.end_conf,
        bf.curve,
    )
    return {
        "qid": qid,
        "trace_idx": tix,
        "length": lengths,
        "mean_conf": m.mean_conf,
        "tail_conf": m.tail_conf,
        "min_group": m.min_group,
        "bottom_10": m.bottom_10,
        "end_conf": end_conf.astype(np.float32),
        "n_nonfinite": m.n_nonfinite,
        "n_negative": m.n_negative,
        "flags": flags,
        "low_off": m.low_offsets,
        "low_window": m.low_window,
        "low_value": m.low_value,
        "ck_off": ck_off,
        "ck_pos": ck_pos,
        "ck_conf": ck_conf,
        "p_off": poff,
        "p_pos": ppos,
        "p_ans": pans,
        "p_avg": pavg,
        "curve": curve,
        "final": batch.column("extracted_answer").to_pylist()
        if "extracted_answer" in names
        else [None] * n,
        "gt": batch.column("ground_truth").to_pylist() if "ground_truth" in names else [""] * n,
    }


def _take_ragged(off: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and flat indices selecting `rows` of a ragged array, in that order."""
    counts = off[rows + 1] - off[rows]
    new_off = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=new_off[1:])
    idx = np.repeat(off[rows] - new_off[:-1], counts) + np.arange(new_off[-1])
    return new_off, idx


def _split_by_question(part: dict) -> dict[int, dict]:
    """Split a numeric batch into per-question sub-batches (usually one)."""
    qid = part["qid"]
    out: dict[int, dict] = {}
    uniq = np.unique(qid)
    for q in uniq.tolist():
        rows = np.flatnonzero(qid == q)
        if uniq.shape[0] == 1:
            out[q] = part
            break
        out[q] = _subset(part, rows)
    return out


_PER_ROW = (
    "qid",
    "trace_idx",
    "length",
    "mean_conf",
    "tail_conf",
    "min_group",
    "bottom_10",
    "end_conf",
    "n_nonfinite",
    "n_negative",
    "flags",
    "curve",
)
_RAGGED = {
    "low": ("low_off", ("low_window", "low_value")),
    "ck": ("ck_off", ("ck_pos", "ck_conf")),
    "p": ("p_off", ("p_pos", "p_avg")),
}


def _subset(part: dict, rows: np.ndarray) -> dict:
    sub: dict = {k: part[k][rows] for k in _PER_ROW}
    rl = rows.tolist()
    sub["final"] = [part["final"][i] for i in rl]
    sub["gt"] = [part["gt"][i] for i in rl]
    for _, (okey, fields) in _RAGGED.items():
        new_off, idx = _take_ragged(part[okey], rows)
        sub[okey] = new_off
        for f in fields:
            sub[f] = part[f][idx]
        if okey == "p_off":
            sub["p_ans"] = [part["p_ans"][i] for i in idx.tolist()]
    return sub


def _concat_parts(parts: list[dict]) -> dict:
    if len(parts) == 1:
        return parts[0]
    out: dict = {k: np.concatenate([p[k] for p in parts]) for k in _PER_ROW}
    out["final"] = [a for p in parts for a in p["final"]]
    out["gt"] = [a for p in parts for a in p["gt"]]
    for _, (okey, fields) in _RAGGED.items():
        offs = [p[okey] for p in parts]
        total = 0
        pieces = []
        for o in offs:
            pieces.append(o[:-1] + total)
            total += int(o[-1])
        out[okey] = np.concatenate([*pieces, np.array([total], dtype=np.int64)])
        for f in fields:
            out[f] = np.concatenate([p[f] for p in parts])
    out["p_ans"] = [a for p in parts for a in p["p_ans"]]
    return out


# ---------------------------------------------------------------------------------------------
# per-question finalisation: sort, dedupe, group answers, notes


def _list_array(off: np.ndarray, values: np.ndarray, typ: pa.DataType) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(off.astype(np.int32)), pa.array(values, type=typ))


def _finalise_question(q: int, part: dict) -> tuple[pa.Table, pa.Table, list[tuple]]:
    notes: list[tuple] = []
    tix = part["trace_idx"]
    order = np.argsort(tix, kind="stable")
    dup = np.zeros(order.shape[0], dtype=bool)
    st = tix[order]
    dup[1:] = st[1:] == st[:-1]
    if dup.any():
        notes.append(
            (
                q,
                -1,
                "duplicate_rows",
                f"{int(dup.sum())} duplicate trace_idx rows; the first is kept",
            )
        )
        order = order[~dup]
    if not np.array_equal(order, np.arange(order.shape[0])):
        part = _subset(part, order)
    n = part["trace_idx"].shape[0]
    tix = part["trace_idx"]
    expected = int(tix.max()) + 1 if n else 0
    if n < max(expected, 4096) and n:
        missing = np.setdiff1d(np.arange(expected), tix)
        if missing.size:
            shown = ", ".join(str(x) for x in missing[:5].tolist())
            more = "…" if missing.size > 5 else ""
            notes.append((q, -1, "missing_rows", f"{n} traces; missing trace_idx {shown}{more}"))

    gts = [g for g in part["gt"] if g is not None]
    gt = max(set(gts), key=gts.count) if gts else ""
    if len(set(gts)) > 1:
        notes.append(
            (q, -1, "ground_truth", f"{len(set(gts))} different ground truths; using {gt!r}")
        )

    grouper = AnswerGrouper(gt)
    finals = part["final"]
    final_group = grouper.add_many(finals)
    if (final_group < 0).all():
        notes.append((q, -1, "no_answers", "no trace has a final answer; nothing can vote"))
    p_group = grouper.add_many(part["p_ans"])
    flags = part["flags"].copy()
    long_mask = np.array(
        [a is not None and len(str(a)) > LONG_ANSWER_CHARS for a in finals], dtype=bool
    )
    flags[long_mask] |= FLAG_LONG_ANSWER
    if long_mask.any():
        k = int(long_mask.sum())
        what = (
            "1 final answer is a long text span (kept as its own wrong group)"
            if k == 1
            else f"{k} final answers are long text spans (kept as their own wrong groups)"
        )
        notes.append((q, -1, "long_answer", what))
    for bit, kind, msg in (
        (FLAG_EMPTY, "empty_confs", "with empty confs"),
        (
            FLAG_NONFINITE,
            "nonfinite_confs",
            "with NaN/inf confidences (those tokens are ignored)",
        ),
        (FLAG_NEGATIVE, "negative_confs", "with negative confidences (kept as they are)"),
        (FLAG_PROBES_UNSORTED, "probes_unsorted", "with probes out of order (re-sorted)"),
        (
            FLAG_PROBE_BEYOND_END,
            "probe_beyond_end",
            "with probes beyond the trace end (dropped)",
        ),
        (FLAG_NO_PROBES, "no_probes", "without any probe (no intermediate answers)"),
    ):
        hit = np.flatnonzero(flags & bit)
        if hit.size:
            ex = ", ".join(str(t) for t in tix[hit[:5]].tolist())
            traces = "trace" if hit.size == 1 else "traces"
            notes.append((q, -1, kind, f"{hit.size} {traces} {msg}; e.g. trace_idx {ex}"))

    correct = grouper.correct_of
    # checkpoint answer group: the probe at exactly that position, else -1
    ck_off, ck_pos = part["ck_off"], part["ck_pos"]
    p_off, p_pos = part["p_off"], part["p_pos"]
    ck_owner = np.repeat(np.arange(n), np.diff(ck_off))
    p_owner = np.repeat(np.arange(n), np.diff(p_off))
    big = np.int64(1) << 40
    p_key = p_owner * big + p_pos
    c_key = ck_owner * big + ck_pos
    if p_key.size and not np.all(p_key[1:] > p_key[:-1]):
        # duplicate positions within a trace: keep the first probe at each position
        uk, first = np.unique(p_key, return_index=True)
        p_key_u, p_grp_u = uk, p_group[first]
    else:
        p_key_u, p_grp_u = p_key, p_group
    loc = np.searchsorted(p_key_u, c_key)
    loc_c = np.minimum(loc, max(p_key_u.shape[0] - 1, 0))
    hit = (
        (loc < p_key_u.shape[0]) & (p_key_u[loc_c] == c_key)
        if p_key_u.size
        else np.zeros(c_key.shape[0], dtype=bool)
    )
    ck_group = np.where(hit, p_grp_u[loc_c] if p_key_u.size else -1, -1).astype(np.int32)

    final_answer = [
        None
        if a is None
        else (a if len(a) <= FINAL_ANSWER_MAX else a[: FINAL_ANSWER_MAX - 1] + "…")
        for a in (None if f is None else str(f) for f in finals)
    ]
    curve = part["curve"]
    curve_off = np.where(part["length"] > 0, curve.shape[1], 0)
    cvo = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(curve_off, out=cvo[1:])
    curve_flat = curve[part["length"] > 0].ravel()
    cols = {
        "qid": pa.array(np.full(n, q, dtype=np.int64)),
        "trace_idx": pa.array(tix),
        "length": pa.array(part["length"]),
        "final_answer": pa.array(final_answer, type=pa.string()),
        "final_group": pa.array(final_group.astype(np.int32)),
        "final_correct": pa.array(correct(final_group)),
        "mean_conf": pa.array(part["mean_conf"].astype(np.float32)),
        "tail_conf": pa.array(part["tail_conf"].astype(np.float32)),
        "min_group": pa.array(part["min_group"].astype(np.float32)),
        "bottom_10": pa.array(part["bottom_10"].astype(np.float32)),
        "end_conf": pa.array(part["end_conf"].astype(np.float32)),
        "n_nonfinite": pa.array(part["n_nonfinite"]),
        "n_negative": pa.array(part["n_negative"]),
        "flags": pa.array(flags.astype(np.int32)),
        "ckpt_pos": _list_array(ck_off, ck_pos, pa.int64()),
        "ckpt_conf": _list_array(ck_off, part["ck_conf"].astype(np.float32), pa.float32()),
        "ckpt_group": _list_array(ck_off, ck_group, pa.int32()),
        "ckpt_correct": _list_array(ck_off, correct(ck_group), pa.bool_()),
        "probe_pos": _list_array(p_off, p_pos, pa.int64()),
        "probe_group": _list_array(p_off, p_group.astype(np.int32), pa.int32()),
        "probe_correct": _list_array(p_off, correct(p_group), pa.bool_()),
        "probe_avg_conf": _list_array(p_off, part["p_avg"].astype(np.float32), pa.float32()),
        "low_window": _list_array(part["low_off"], part["low_window"].astype(np.int32), pa.int32()),
        "low_value": _list_array(
            part["low_off"], part["low_value"].astype(np.float32), pa.float32()
        ),
        "curve": _list_array(cvo, curve_flat.astype(np.float32), pa.float32()),
    }
    features = pa.Table.from_pydict(cols, schema=FEATURE_SCHEMA)

    ng = grouper.n_groups
    n_final = np.bincount(final_group[final_group >= 0], minlength=ng)[:ng] if ng else np.zeros(0)
    n_probe = np.bincount(p_group[p_group >= 0], minlength=ng)[:ng] if ng else np.zeros(0)
    groups = pa.Table.from_pydict(
        {
            "qid": pa.array(np.full(ng, q, dtype=np.int64)),
            "group_id": pa.array(np.arange(ng, dtype=np.int32)),
            "label": pa.array(grouper.labels, type=pa.string()),
            "is_correct": pa.array(grouper.group_correct),
            "n_final": pa.array(np.asarray(n_final, dtype=np.int64)),
            "n_probe": pa.array(np.asarray(n_probe, dtype=np.int64)),
            "ground_truth": pa.array([gt] * ng, type=pa.string()),
        },
        schema=GROUP_SCHEMA,
    )
    return features, groups, notes


def _notes_table(notes: list[tuple]) -> pa.Table:
    return pa.Table.from_pylist(
        [{"qid": q, "trace_idx": t, "kind": k, "message": m} for q, t, k, m in notes],
        schema=NOTE_SCHEMA,
    )


# ---------------------------------------------------------------------------------------------
# the streaming pass


def _check_schema(pf: pq.ParquetFile, path: Path) -> list[str]:
    names = pf.schema_arrow.names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise SchemaError(
            f"column `{missing[0]}` missing in {path.name}",
            "is this a MARS file? expected columns qid, trace_idx, confs (+ ground_truth, "
            "extracted_answer, probes)",
        )
    return [c for c in (*REQUIRED, *OPTIONAL) if c in names]


def _prefetch(it: Iterator[pa.RecordBatch], path: Path, depth: int = 2) -> Iterator[pa.RecordBatch]:
    """Read the next batches on a thread while this one is computed (arrow releases the GIL).
    A read failure part-way (truncated or corrupt row group) becomes a `CorruptFile`; the
    questions finished before it stay in the work folder, so a rerun resumes after them."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    sentinel = object()

    def run() -> None:
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
    """`_numeric_batch` of each batch, in order. (Threads do not help here: the per-trace loop
    holds the GIL between numpy calls; files big enough to matter use processes instead.)"""
    for b in batches:
        yield b.num_rows, _numeric_batch(b, window)


def _chunk_paths(work_dir: Path, q: int) -> tuple[Path, Path, Path]:
    return (
        work_dir / f"q{q:06d}.features.parquet",
        work_dir / f"q{q:06d}.groups.parquet",
        work_dir / f"q{q:06d}.notes.parquet",
    )


def _write_chunk(work_dir: Path, q: int, f: pa.Table, g: pa.Table, n: pa.Table) -> None:
    fp, gp, np_ = _chunk_paths(work_dir, q)
    for table, dest in ((g, gp), (n, np_), (f, fp)):  # features last: it marks "done"
        tmp = dest.with_suffix(".tmp")
        pq.write_table(table, tmp, compression="zstd")
        tmp.replace(dest)


def _chunk_done(work_dir: Path | None, q: int) -> bool:
    return work_dir is not None and all(p.exists() for p in _chunk_paths(work_dir, q))


PARALLEL_MIN_BYTES = 200 << 20  # below this, spawning processes costs more than it saves


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
    qids_all = np.asarray(pc.fill_null(ids, -1).to_numpy(zero_copy_only=False), dtype=np.int64)
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
    keep: bool = True,
) -> dict[int, tuple[pa.Table, pa.Table, list[tuple]]]:
    """The streaming pass over `row_groups`: numeric features per batch, then each question is
    finalised (grouped, tabled, written to `work_dir`) as soon as all its rows were seen."""
    results: dict[int, tuple[pa.Table, pa.Table, list[tuple]]] = {}
    partials: dict[int, _Partial] = {}
    total_rows = sum(pf.metadata.row_group(i).num_rows for i in row_groups) or 1
    if not row_groups:
        return results
    it = pf.iter_batches(batch_size=batch_rows, row_groups=row_groups, columns=columns)
    _consume(
        _computed(_prefetch(it, path), window),
        expected,
        done,
        work_dir,
        results,
        partials,
        path,
        hook,
        total_rows,
        stop_after,
        keep,
    )
    if stop_after is not None and len(results) >= stop_after:
        return results
    for q, acc in partials.items():  # fewer rows than the qid column said (should not happen)
        f, g, notes = _finalise_question(q, _concat_parts(acc.pieces))
        if work_dir is not None:
            _write_chunk(work_dir, q, f, g, _notes_table(notes))
        results[q] = (f, g, notes)
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
    keep: bool,
) -> None:
    """Group numeric batches by question; finalise each question once all its rows are in."""
    seen_rows = 0
    finished_now = 0
    for n_rows, part in parts:
        seen_rows += n_rows
        for q, sub in _split_by_question(part).items():
            if q in done or q < 0:
                continue
            acc = partials.setdefault(q, _Partial())
            acc.rows += sub["qid"].shape[0]
            acc.pieces.append(sub)
            if acc.rows >= expected.get(q, 0):
                f, g, notes = _finalise_question(q, _concat_parts(acc.pieces))
                del partials[q]
                if work_dir is not None:
                    _write_chunk(work_dir, q, f, g, _notes_table(notes))
                results[q] = (f, g, notes) if keep else (None, None, [])  # type: ignore[assignment]
                done.add(q)
                finished_now += 1
                if stop_after is not None and finished_now >= stop_after:
                    return
        hook(seen_rows / total_rows, f"{path.name}: {len(done)}/{len(expected)} questions")


def _shard_worker(path: str, row_groups: list[int], window: int, chunk_dir: str, batch_rows: int):
    """Child process: stream some row groups, write one chunk per question (returns its qids,
    the process's peak RSS in bytes and its pid)."""
    import os
    import resource

    p = Path(path)
    pf = _open(p)
    columns = _check_schema(pf, p)
    qids_all, rg_q = _question_layout(pf, p)
    keep = np.zeros(qids_all.shape[0], dtype=bool)
    starts = np.cumsum([0] + [pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)])
    for i in row_groups:
        keep[starts[i] : starts[i + 1]] = True
    uq, counts = np.unique(qids_all[keep], return_counts=True)
    expected = dict(zip(uq.tolist(), counts.tolist(), strict=True))
    res = _stream(
        pf,
        p,
        columns,
        row_groups,
        expected,
        set(),
        Path(chunk_dir),
        window,
        batch_rows,
        lambda f, m="": None,
        keep=False,
    )
    return sorted(res), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, os.getpid()


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
) -> MarsTables:
    """One streaming pass over a MARS parquet file -> `MarsTables` (schemas in the module doc).

    `work_dir` makes it resumable (finished questions are skipped on a rerun); `stop_after`
    stops after that many newly finished questions (tests use it to simulate a crash).
    `workers` (default: 2 processes for files over PARALLEL_MIN_BYTES, else 1) splits the row
    groups into shards that no question straddles, one streaming pass per process; every
    question is still computed by exactly the same code, so the output does not change.
    Raises `SchemaError`/`CorruptFile` only for a file that is not a readable MARS file; every
    data problem inside a readable file becomes a row of `notes`.
    """
    import os

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
    hook = progress or (lambda f, m="": None)
    hook(0.0, f"{path.name}: {len(done)}/{len(expected)} questions cached")
    if workers is None:
        big = path.stat().st_size >= PARALLEL_MIN_BYTES
        workers = min(2, os.cpu_count() or 1) if big else 1
    units = _units(rg_q, todo_rg) if workers > 1 and stop_after is None else None
    if units is not None and len(units) >= 2:
        results = _parallel(path, units, workers, window, work_dir, batch_rows, expected, hook)
    else:
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
        )
        if stop_after is not None and len(results) >= stop_after:
            return _assemble(results, work_dir, expected, file_notes, window)
    hook(1.0, f"{path.name}: done")
    return _assemble(results, work_dir, expected, file_notes, window)


LAST_WORKER_PEAK_RSS: list[int] = []  # peak RSS (bytes) of each worker of the last parallel build


@contextmanager
def _bare_main() -> Iterator[None]:
    """Spawned workers re-run the parent's `__main__` script; under Streamlit that is app.py (and
    under AppTest a test script). Show them an empty main module while the pool starts and runs."""
    import sys
    import types

    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _parallel(
    path: Path,
    units: list[list[int]],
    workers: int,
    window: int,
    work_dir: Path | None,
    batch_rows: int,
    expected: dict[int, int],
    hook: ProgressFn,
) -> dict[int, tuple[pa.Table, pa.Table, list[tuple]]]:
    """Run `_shard_worker` over `workers` balanced shards of units; read back their chunks."""
    import multiprocessing as mp
    import shutil
    import tempfile
    import time
    from concurrent.futures import ProcessPoolExecutor

    # one task per unit (a question's row groups), largest first: the pool balances the two
    # processes dynamically, so one long question cannot leave a core idle at the end
    pf_meta = pq.ParquetFile(path).metadata
    sizes = [sum(pf_meta.row_group(i).total_byte_size for i in u) for u in units]
    tasks = [u for u, _ in sorted(zip(units, sizes, strict=True), key=lambda x: -x[1])]
    tmp = None
    chunk_dir = work_dir
    if chunk_dir is None:
        tmp = tempfile.mkdtemp(prefix="mars-features-")
        chunk_dir = Path(tmp)
    try:
        ctx = mp.get_context("spawn")  # never fork a process that may run threads (Streamlit)
        with _bare_main(), ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as ex:
            futs = [
                ex.submit(_shard_worker, str(path), u, window, str(chunk_dir), batch_rows)
                for u in tasks
            ]
            total = len(expected)
            while not all(f.done() for f in futs):
                n_done = len(list(chunk_dir.glob("*.features.parquet")))
                hook(n_done / max(total, 1), f"{path.name}: {n_done}/{total} questions")
                time.sleep(0.2)
            peaks: dict[int, int] = {}
            for f in futs:
                _qids, rss, pid = f.result()
                peaks[pid] = max(peaks.get(pid, 0), rss)
            LAST_WORKER_PEAK_RSS[:] = list(peaks.values())
        results: dict[int, tuple[pa.Table, pa.Table, list[tuple]]] = {}
        for q in expected:
            if q >= 0 and _chunk_done(chunk_dir, q):
                fp, gp, np_ = _chunk_paths(chunk_dir, q)
                results[q] = (pq.read_table(fp), pq.read_table(gp), pq.read_table(np_).to_pylist())
        for q, (f, g, n) in results.items():
            results[q] = (f, g, [(r["qid"], r["trace_idx"], r["kind"], r["message"]) for r in n])
        return results
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _assemble(
    results: dict, work_dir: Path | None, expected: dict, file_notes: list, window: int
) -> MarsTables:
    fs, gs, ns = [], [], [_notes_table(file_notes)]
    for q in sorted(expected):
        if q < 0:
            continue
        if q in results:
            f, g, notes = results[q]
            n = _notes_table(notes)
        elif _chunk_done(work_dir, q):
            fp, gp, np_ = _chunk_paths(work_dir, q)  # type: ignore[arg-type]
            f, g, n = pq.read_table(fp), pq.read_table(gp), pq.read_table(np_)
        else:
            continue
        fs.append(f if f.schema.equals(FEATURE_SCHEMA) else f.cast(FEATURE_SCHEMA))
        gs.append(g if g.schema.equals(GROUP_SCHEMA) else g.cast(GROUP_SCHEMA))
        ns.append(n if n.schema.equals(NOTE_SCHEMA) else n.cast(NOTE_SCHEMA))
    features = pa.concat_tables(fs) if fs else FEATURE_SCHEMA.empty_table()
    groups = pa.concat_tables(gs) if gs else GROUP_SCHEMA.empty_table()
    notes = pa.concat_tables(ns)
    return MarsTables(features=features, groups=groups, notes=notes, window=window)


# ---------------------------------------------------------------------------------------------
# QuestionPool for the stopping simulator


def _as_polars(t: pa.Table | pl.DataFrame) -> pl.DataFrame:
    return t if isinstance(t, pl.DataFrame) else pl.from_arrow(t)  # type: ignore[return-value]


def _flat(col: pl.Series, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(offsets [n+1], flat values) of a polars list column (nulls as empty lists)."""
    lens = col.list.len().fill_null(0).to_numpy().astype(np.int64)
    off = np.zeros(lens.shape[0] + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    vals = col.explode().drop_nulls().to_numpy() if off[-1] else np.zeros(0)
    return off, np.asarray(vals, dtype=dtype)


def pool_from_features(
    features: pa.Table | pl.DataFrame,
    groups: pa.Table | pl.DataFrame,
    qid: int,
    *,
    notes: pa.Table | pl.DataFrame | None = None,
    window: int = WINDOW,
) -> QuestionPool:
    """The `QuestionPool` of one question from the feature and group tables (no raw confs).

    grid = sorted multiples of PROBE_STEP (> 0) seen among the question's probe positions;
    a(t, p) = final group if p >= len(t), else the probe group at p (-1 when missing);
    ckpt_conf = conf_at_pos(p), i.e. `end_conf` (the whole-trace mean) when p >= len(t).
    """
    f = _as_polars(features).filter(pl.col("qid") == qid).sort("trace_idx")
    g = _as_polars(groups).filter(pl.col("qid") == qid).sort("group_id")
    n = f.height
    gt = g["ground_truth"][0] if g.height else ""
    note_list: list[str] = []
    if notes is not None:
        nt = _as_polars(notes).filter(pl.col("qid").is_in([qid, -1]))
        note_list = [f"{k}: {m}" for k, m in zip(nt["kind"], nt["message"], strict=True)]
    lengths = f["length"].to_numpy().astype(np.int64) if n else np.zeros(0, dtype=np.int64)
    final_group = f["final_group"].to_numpy().astype(np.int32) if n else np.zeros(0, np.int32)

    p_off, p_pos = _flat(f["probe_pos"], np.int64) if n else (np.zeros(1, np.int64), np.zeros(0))
    grid_all = p_pos[(p_pos > 0) & (p_pos % PROBE_STEP == 0)]
    grid = np.unique(grid_all).astype(np.int64)
    k = grid.shape[0]
    ckpt_group = np.full((n, k), -1, dtype=np.int32)
    ckpt_conf = np.full((n, k), np.nan, dtype=np.float32)
    if n and k:
        c_off, c_pos = _flat(f["ckpt_pos"], np.int64)
        _, c_conf = _flat(f["ckpt_conf"], np.float32)
        _, c_grp = _flat(f["ckpt_group"], np.int32)
        owner = np.repeat(np.arange(n), np.diff(c_off))
        col = np.searchsorted(grid, c_pos)
        ok = (col < k) & (grid[np.minimum(col, k - 1)] == c_pos)
        ckpt_group[owner[ok], col[ok]] = c_grp[ok]
        ckpt_conf[owner[ok], col[ok]] = c_conf[ok]
        after = grid[None, :] >= lengths[:, None]
        end_conf = f["end_conf"].to_numpy().astype(np.float32)
        ckpt_group = np.where(after, final_group[:, None], ckpt_group).astype(np.int32)
        ckpt_conf = np.where(after, end_conf[:, None], ckpt_conf).astype(np.float32)
    if n and "low_window" in f.columns:
        l_off, l_win = _flat(f["low_window"], np.int64)
        _, l_val = _flat(f["low_value"], np.float32)
    else:  # a store loaded without the record lows (the MARS page): no DCO truncation data
        l_off = np.zeros(n + 1, np.int64)
        l_win, l_val = np.zeros(0, np.int64), np.zeros(0, np.float32)

    def col32(name: str) -> np.ndarray:
        return f[name].to_numpy().astype(np.float32) if n else np.zeros(0, np.float32)

    return QuestionPool(
        qid=int(qid),
        ground_truth=str(gt),
        window=int(window),
        trace_idx=f["trace_idx"].to_numpy().astype(np.int64) if n else np.zeros(0, np.int64),
        lengths=lengths,
        final_group=final_group,
        group_labels=[str(x) for x in g["label"].to_list()],
        group_correct=g["is_correct"].to_numpy().astype(bool) if g.height else np.zeros(0, bool),
        grid=grid,
        ckpt_group=ckpt_group,
        ckpt_conf=ckpt_conf,
        mean_conf=col32("mean_conf"),
        tail_conf=col32("tail_conf"),
        min_group=col32("min_group"),
        bottom_10=col32("bottom_10"),
        low_offsets=l_off.astype(np.int64),
        low_window=l_win.astype(np.int64),
        low_value=l_val.astype(np.float32),
        notes=note_list,
    )


# ---------------------------------------------------------------------------------------------
# summaries for the view (pure functions of the derived tables)


def question_overview(
    features: pa.Table | pl.DataFrame, groups: pa.Table | pl.DataFrame
) -> pl.DataFrame:
    """One row per question: traces, pass@1, majority-vote answer (lowest group id on ties) and
    whether it is right, distinct final answers, null answers, median lengths right vs wrong."""
    f = _as_polars(features)
    g = _as_polars(groups)
    votes = (
        f.filter(pl.col("final_group") >= 0)
        .group_by("qid", "final_group")
        .len()
        .sort(["qid", "len", "final_group"], descending=[False, True, False])
        .group_by("qid", maintain_order=True)
        .agg(
            pl.col("final_group").first().alias("majority_group"),
            pl.col("len").first().alias("majority_votes"),
            pl.len().alias("n_answers"),
        )
    )
    base = f.group_by("qid").agg(
        pl.len().alias("n_traces"),
        pl.col("final_correct").mean().alias("pass_at_1"),
        (pl.col("final_group") < 0).sum().alias("n_null"),
        pl.col("length").filter(pl.col("final_correct")).median().alias("median_len_correct"),
        pl.col("length").filter(~pl.col("final_correct")).median().alias("median_len_wrong"),
    )
    labels = g.select(
        "qid",
        pl.col("group_id").alias("majority_group"),
        pl.col("label").alias("majority_answer"),
        pl.col("is_correct").alias("majority_correct"),
    )
    gt = g.group_by("qid").agg(pl.col("ground_truth").first())
    out = (
        base.join(votes, on="qid", how="left")
        .join(labels, on=["qid", "majority_group"], how="left")
        .join(gt, on="qid", how="left")
        .with_columns(
            pl.col("majority_correct").fill_null(False),
            pl.col("n_answers").fill_null(0),
        )
        .sort("qid")
    )
    return out.select(
        "qid",
        "n_traces",
        "pass_at_1",
        "majority_answer",
        "majority_correct",
        "majority_votes",
        "n_answers",
        "n_null",
        "median_len_correct",
        "median_len_wrong",
        "ground_truth",
    )


@dataclass(frozen=True)
class VoteShares:
    """Share of every answer group among all traces of a question at each checkpoint."""

    positions: np.ndarray  # int64 [K] grid positions
    labels: list[str]  # [m] shown groups (top groups, then "other", then "no answer")
    correct: list[bool]  # [m]
    shares: np.ndarray  # float32 [m, K], columns sum to 1


def vote_shares(pool: QuestionPool, top_k: int = 8) -> VoteShares:
    """a(t, p) over every trace (final answer once p >= len), as shares per checkpoint; the
    `top_k` groups with most final votes are shown (the correct group always), the rest pooled."""
    n, k = pool.ckpt_group.shape
    ng = len(pool.group_labels)
    if n == 0 or k == 0:
        return VoteShares(np.zeros(0, np.int64), [], [], np.zeros((0, 0), np.float32))
    counts = np.zeros((ng + 1, k), dtype=np.float64)  # last row: no answer
    g = np.where(pool.ckpt_group < 0, ng, pool.ckpt_group)
    for col in range(k):
        counts[:, col] = np.bincount(g[:, col], minlength=ng + 1)
    finals = np.bincount(pool.final_group[pool.final_group >= 0], minlength=ng)[:ng]
    order = sorted(range(ng), key=lambda i: (-finals[i], i))
    shown = order[:top_k]
    for i in np.flatnonzero(pool.group_correct).tolist():
        if i not in shown:
            shown.append(i)
    shown.sort(key=lambda i: (-finals[i], i))
    rest = [i for i in range(ng) if i not in shown]
    rows = [counts[i] for i in shown]
    labels = [pool.group_labels[i] for i in shown]
    correct = [bool(pool.group_correct[i]) for i in shown]
    if rest:
        rows.append(counts[rest].sum(axis=0))
        labels.append(f"other ({len(rest)} answers)")
        correct.append(False)
    rows.append(counts[ng])
    labels.append("no answer")
    correct.append(False)
    shares = (np.vstack(rows) / n).astype(np.float32)
    return VoteShares(pool.grid.copy(), labels, correct, shares)
