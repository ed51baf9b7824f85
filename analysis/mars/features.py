"""MARS per-trace features: the numbers the view and the stopping playground keep of each trace.

Why: a file holds ~1.5 billion float16 confidences. The view and the stopping playground only
need a few numbers per trace (stopping.md, "What a feature store must keep"), so the ingest
(`analysis.mars.ingest`) reads the file once by batches, computes `numeric_batch` of each batch
(everything that needs `confs`), and `finalise_question` turns the rows of one question into
three small tables:

features (one row per trace, sorted by qid, trace_idx):
  qid int64, trace_idx int64, length int64,
  final_answer str (null if none; cut to FINAL_ANSWER_MAX chars), final_group int32 (-1 none),
  final_correct bool, mean_conf/tail_conf/min_group/bottom_10/end_conf float32,
  n_nonfinite int64, n_negative int64, flags int32 (`analysis.mars.flags` bits),
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
then probe answers (trace_idx, then position), so they are deterministic. Whether a question's
non-numeric answers are compared pairwise (the published simulator's cap) is decided from all of
its answers first (`compares_symbolic`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from analysis.mars.answers import LONG_ANSWER_CHARS
from analysis.mars.confidence import WINDOW, batch_features
from analysis.mars.flags import (
    FLAG_EMPTY,
    FLAG_LONG_ANSWER,
    FLAG_NEGATIVE,
    FLAG_NO_PROBES,
    FLAG_NONFINITE,
    FLAG_PROBE_BEYOND_END,
    FLAG_PROBES_UNSORTED,
    FLAGS,
)
from analysis.mars.question_groups import (
    WarmedGroups,
    grouped,
    majority_ground_truth,
    trace_order,
)
from analysis.mars.table_names import PROBE_STEP
from cache import arrow_numpy as an

CURVE_POINTS = 96
FINAL_ANSWER_MAX = 400
BATCH_ROWS = 512
_KIND = {f.bit: f.kind for f in FLAGS}

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


def _list_values(arr: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """(offsets int64 [n+1], values) of a list column, values left in their stored dtype
    (float16 stays float16: `analysis.mars.confidence.batch_features` widens per trace through
    `cache.floats.to_f32`, which keeps the working set in the CPU cache). Null lists are empty."""
    offsets, values = an.list_parts(arr)
    return offsets, an.primitive(values, float("nan"))


def _probe_arrays(col: pa.Array | None, n: int) -> tuple[np.ndarray, np.ndarray, list, np.ndarray]:
    """Flat probe fields of a batch: offsets [n+1], position, answer (list), avg_conf."""
    if col is None:
        return (
            np.zeros(n + 1, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
            [],
            np.zeros(0, dtype=np.float32),
        )
    off, values = an.list_parts(col)
    start, stop = 0, int(off[-1])
    names = [values.type.field(i).name for i in range(values.type.num_fields)]

    def fld(name: str) -> pa.Array | None:
        return values.field(name) if name in names else None

    pos_a = fld("position")
    pos = (
        np.asarray(an.primitive(pos_a, -1), dtype=np.int64)
        if pos_a is not None
        else np.full(stop - start, -1, dtype=np.int64)
    )
    ans_a = fld("answer")
    ans = ans_a.to_pylist() if ans_a is not None else [None] * (stop - start)
    avg_a = fld("avg_conf")
    avg = (
        np.asarray(an.primitive(avg_a, np.nan), dtype=np.float32)
        if avg_a is not None
        else np.full(stop - start, np.nan, dtype=np.float32)
    )
    return off, pos, ans, avg


def numeric_batch(batch: pa.RecordBatch, window: int) -> dict:
    """Everything that needs `confs`, for every row of a batch (then `confs` can go)."""
    n = batch.num_rows
    names = batch.schema.names
    qid = np.asarray(an.primitive(batch.column("qid"), -1), dtype=np.int64)
    tix = np.asarray(an.primitive(batch.column("trace_idx"), -1), dtype=np.int64)
    offsets, values = _list_values(batch.column("confs"))
    bf = batch_features(offsets, values, window, ck_step=PROBE_STEP, n_points=CURVE_POINTS)
    m = bf.metrics
    lengths = m.lengths

    poff, ppos, pans, pavg = _probe_arrays(batch.column("probes") if "probes" in names else None, n)

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


def split_by_question(part: dict) -> dict[int, dict]:
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
    """The numeric batch of just `rows` (in that order), ragged fields included."""
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


def concat_parts(parts: list[dict]) -> dict:
    """One numeric batch from the pieces of a question seen in successive batches."""
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
    return an.list_array(off, values, typ)


def finalise_question(
    q: int, part: dict, warmed: WarmedGroups | None = None
) -> tuple[pa.Table, pa.Table, list[tuple]]:
    """All rows of question `q` -> its feature rows, answer groups and notes. Needs the whole
    question: answer group ids follow first appearance in trace_idx order. `warmed`: the
    question's answers grouped ahead (`warm_grouping`), used only if they are the part's."""
    notes: list[tuple] = []
    part = _in_trace_order(q, part, notes)
    gts = [g for g in part["gt"] if g is not None]
    gt = majority_ground_truth(gts)
    if len(set(gts)) > 1:
        notes.append(
            (q, -1, "ground_truth", f"{len(set(gts))} different ground truths; using {gt!r}")
        )
    finals = part["final"]
    if warmed is None or not warmed.fits(gt, finals, part["p_ans"]):
        warmed = grouped(gt, finals, part["p_ans"])
    if (warmed.final_group < 0).all():
        notes.append((q, -1, "no_answers", "no trace has a final answer; nothing can vote"))
    flags = _flagged(q, part, notes)
    features = _feature_rows(q, part, warmed, flags)
    return features, _group_rows(q, gt, warmed), notes


def _in_trace_order(q: int, part: dict, notes: list[tuple]) -> dict:
    """The question's rows in trace_idx order, the first of a duplicate kept; notes for the
    duplicate and the missing rows."""
    tix = part["trace_idx"]
    order = trace_order(tix)
    if order.shape[0] < tix.shape[0]:
        n_dup = tix.shape[0] - order.shape[0]
        notes.append(
            (q, -1, "duplicate_rows", f"{n_dup} duplicate trace_idx rows; the first is kept")
        )
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
    return part


def _flagged(q: int, part: dict, notes: list[tuple]) -> np.ndarray:
    """The rows' flags with FLAG_LONG_ANSWER set, and a note per flag raised."""
    finals, tix = part["final"], part["trace_idx"]
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
        notes.append((q, -1, _KIND[FLAG_LONG_ANSWER], what))
    for flag in FLAGS:
        if flag.note is None:
            continue
        hit = np.flatnonzero(flags & flag.bit)
        if hit.size:
            ex = ", ".join(str(t) for t in tix[hit[:5]].tolist())
            traces = "trace" if hit.size == 1 else "traces"
            notes.append(
                (q, -1, flag.kind, f"{hit.size} {traces} {flag.note}; e.g. trace_idx {ex}")
            )
    return flags


def _checkpoint_groups(part: dict, p_group: np.ndarray) -> np.ndarray:
    """Each checkpoint's answer group: the probe at exactly that position, else -1."""
    n = part["trace_idx"].shape[0]
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
    return np.where(hit, p_grp_u[loc_c] if p_key_u.size else -1, -1).astype(np.int32)


def _feature_rows(q: int, part: dict, warmed: WarmedGroups, flags: np.ndarray) -> pa.Table:
    """The question's FEATURE_SCHEMA rows."""
    n = part["trace_idx"].shape[0]
    correct = warmed.summary.correct_of
    final_group, p_group = warmed.final_group, warmed.probe_group
    ck_group = _checkpoint_groups(part, p_group)
    ck_off, p_off, low_off = part["ck_off"], part["p_off"], part["low_off"]
    final_answer = [
        None
        if a is None
        else (a if len(a) <= FINAL_ANSWER_MAX else a[: FINAL_ANSWER_MAX - 1] + "…")
        for a in (None if f is None else str(f) for f in part["final"])
    ]
    curve = part["curve"]
    curve_off = np.where(part["length"] > 0, curve.shape[1], 0)
    cvo = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(curve_off, out=cvo[1:])
    curve_flat = curve[part["length"] > 0].ravel()
    cols = {
        "qid": an.array(np.full(n, q, dtype=np.int64), pa.int64()),
        "trace_idx": an.array(part["trace_idx"], pa.int64()),
        "length": an.array(part["length"], pa.int64()),
        "final_answer": an.strings(final_answer),
        "final_group": an.array(final_group, pa.int32()),
        "final_correct": an.array(correct(final_group), pa.bool_()),
        **{
            name: an.array(part[name], pa.float32())
            for name in ("mean_conf", "tail_conf", "min_group", "bottom_10", "end_conf")
        },
        "n_nonfinite": an.array(part["n_nonfinite"], pa.int64()),
        "n_negative": an.array(part["n_negative"], pa.int64()),
        "flags": an.array(flags, pa.int32()),
        "ckpt_pos": _list_array(ck_off, part["ck_pos"], pa.int64()),
        "ckpt_conf": _list_array(ck_off, part["ck_conf"].astype(np.float32), pa.float32()),
        "ckpt_group": _list_array(ck_off, ck_group, pa.int32()),
        "ckpt_correct": _list_array(ck_off, correct(ck_group), pa.bool_()),
        "probe_pos": _list_array(p_off, part["p_pos"], pa.int64()),
        "probe_group": _list_array(p_off, p_group.astype(np.int32), pa.int32()),
        "probe_correct": _list_array(p_off, correct(p_group), pa.bool_()),
        "probe_avg_conf": _list_array(p_off, part["p_avg"].astype(np.float32), pa.float32()),
        "low_window": _list_array(low_off, part["low_window"].astype(np.int32), pa.int32()),
        "low_value": _list_array(low_off, part["low_value"].astype(np.float32), pa.float32()),
        "curve": _list_array(cvo, curve_flat.astype(np.float32), pa.float32()),
    }
    return pa.Table.from_pydict(cols, schema=FEATURE_SCHEMA)


def _group_rows(q: int, gt: str | None, warmed: WarmedGroups) -> pa.Table:
    """The question's GROUP_SCHEMA rows: each answer group's label, correctness and votes."""
    summary, final_group, p_group = warmed.summary, warmed.final_group, warmed.probe_group
    ng = summary.n_groups
    n_final = np.bincount(final_group[final_group >= 0], minlength=ng)[:ng] if ng else np.zeros(0)
    n_probe = np.bincount(p_group[p_group >= 0], minlength=ng)[:ng] if ng else np.zeros(0)
    return pa.Table.from_pydict(
        {
            "qid": an.array(np.full(ng, q, dtype=np.int64), pa.int64()),
            "group_id": an.array(np.arange(ng, dtype=np.int32), pa.int32()),
            "label": an.strings(list(summary.labels)),
            "is_correct": an.array(summary.group_correct, pa.bool_()),
            "n_final": an.array(np.asarray(n_final, dtype=np.int64), pa.int64()),
            "n_probe": an.array(np.asarray(n_probe, dtype=np.int64), pa.int64()),
            "ground_truth": an.strings([gt] * ng),
        },
        schema=GROUP_SCHEMA,
    )


def notes_table(notes: list[tuple]) -> pa.Table:
    """(qid, trace_idx, kind, message) tuples as a NOTE_SCHEMA table."""
    cols = [
        an.array(np.array([n[0] for n in notes], dtype=np.int64), pa.int64()),
        an.array(np.array([n[1] for n in notes], dtype=np.int64), pa.int64()),
        an.strings([n[2] for n in notes]),
        an.strings([n[3] for n in notes]),
    ]
    return pa.Table.from_arrays(cols, schema=NOTE_SCHEMA)
