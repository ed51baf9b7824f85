"""The casebook in the MARS view: what a question, trace or probe case records (item keys, a
suggested title, the snapshot of key figures), the capture controls, the cases already on an item,
and which questions of the open file have cases (the overview grid's rings).

Each snapshot carries the evidence of the chart the case points at (`cache.casebook.evidence`),
drawn in the HTML report: a question's vote shares over the checkpoints (the Vote evolution tab),
a trace's confidence curve (the Curves tab's 96 stored slices, or the Single trace tab's group
confidence at full resolution) with its probes marked, a probe on its trace's curve.

Why a module of its own: the header, the Curves tab and the Single trace tab all capture, and a
tab module does not import another. Every item carries `file` (the MARS relpath), so the rings
count the cases of the open file only. Snapshot texts are plain and bounded; every renderer of a
snapshot escapes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from analysis.mars.confidence import WINDOW, group_confidences
from analysis.mars.summaries import VoteShares, vote_shares
from cache.casebook.evidence import line_evidence, with_evidence
from cache.datasets import MARS_FILES
from cache.sources import SourceConfig
from components.common.casebook import capture, cases_here, qid_counts
from components.mars import cached as mc
from components.mars import trace_reads
from components.mars.figures import Y_TITLE, curve_matrix

DATASET = "mars"
VIEW = "mars"
SNAPSHOT_CHARS = 200  # an answer or ground truth kept in a snapshot
TITLE_CHARS = 40  # an answer inside a suggested title
EVIDENCE_ANSWERS = 6  # answer groups drawn in a question's vote-share evidence
LEGEND_CHARS = 30  # an answer inside a legend


@dataclass(frozen=True, slots=True)
class TraceRef:
    """One trace of one question of one file, with the source it was read from."""

    rel: str
    src: SourceConfig
    qid: int
    trace: int


def _short(text: object, limit: int) -> str | None:
    if text is None:
        return None
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[:limit] + "…"


def _round(v: object, digits: int = 4) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)  # type: ignore[arg-type]  # numbers and numpy scalars
    except (TypeError, ValueError):
        return None
    return round(f, digits) if f == f else None


def file_label(rel: str) -> str:
    """`DeepSeek-R1-0528-Qwen3-8B · AIME 2025` for a known relpath, else the relpath."""
    info = MARS_FILES.get(rel)
    return info[2] if info else rel


# ---------------------------------------------------------------- items
def question_item(rel: str, qid: int) -> dict[str, str]:
    return {"file": rel, "qid": str(int(qid))}


def trace_item(rel: str, qid: int, trace: int) -> dict[str, str]:
    return {**question_item(rel, qid), "trace": str(int(trace))}


def probe_item(rel: str, qid: int, trace: int, position: int) -> dict[str, str]:
    return {**trace_item(rel, qid, trace), "probe": str(int(position))}


# ---------------------------------------------------------------- titles and snapshots
def question_title(rel: str, qid: int, ov_row: Mapping[str, Any]) -> str:
    tie = int(ov_row.get("majority_tie") or 0)
    if tie > 1:
        return f"{file_label(rel)} · Q{qid} · majority tie ({tie} answers)"
    mark = "right" if ov_row.get("majority_correct") else "wrong"
    answer = _short(ov_row.get("majority_answer"), TITLE_CHARS) or "(none)"
    return f"{file_label(rel)} · Q{qid} · majority {answer} ({mark})"


def vote_evidence(vs: VoteShares, qid: object = None) -> dict[str, Any] | None:
    """The Vote evolution tab's picture: each answer's share of all traces at every checkpoint
    (the ground truth marked ✓, at most EVIDENCE_ANSWERS answers), and the checkpoint from which
    the ground truth leads the vote."""
    if not vs.positions.size or not vs.labels:
        return None
    order = sorted(range(len(vs.labels)), key=lambda i: (not vs.correct[i], i))
    rows = sorted(order[:EVIDENCE_ANSWERS])
    x = vs.positions.astype(np.float64)
    series = [
        (
            (_short(vs.labels[i], LEGEND_CHARS) or "(empty)") + (" ✓" if vs.correct[i] else ""),
            x,
            vs.shares[i].astype(np.float64),
        )
        for i in rows
    ]
    highlight = None
    answers = [i for i, label in enumerate(vs.labels) if label != "no answer"]
    truth = [i for i in answers if vs.correct[i]]
    if truth and answers:
        best = vs.shares[answers].max(axis=0)
        leads = np.flatnonzero(vs.shares[truth[0]] >= best - 1e-9)
        if leads.size:
            k = int(leads[0])
            highlight = (x[k], float(vs.shares[truth[0], k]), "ground truth leads from here")
    where = f"Q{qid} · " if qid is not None else ""
    return line_evidence(
        title=f"{where}share of each answer among all traces at each checkpoint",
        x_label="checkpoint (tokens generated)",
        y_label="share of all traces",
        series=series,
        highlight=highlight,
        y_range=(0.0, 1.0),
    )


def question_snapshot(
    ov_row: Mapping[str, Any], median_length: float | None, votes: VoteShares | None = None
) -> dict[str, Any]:
    """pass@1, the majority answer and whether it is right, traces, distinct answers, lengths;
    with `votes`, the vote-share evidence."""
    ev = vote_evidence(votes, ov_row.get("qid")) if votes is not None else None
    return with_evidence(_question_figures(ov_row, median_length), ev)


def _question_figures(ov_row: Mapping[str, Any], median_length: float | None) -> dict[str, Any]:
    return {
        "n_traces": ov_row.get("n_traces"),
        "pass_at_1": _round(ov_row.get("pass_at_1")),
        "majority_answer": _short(ov_row.get("majority_answer"), SNAPSHOT_CHARS),
        "majority_correct": bool(ov_row.get("majority_correct") or False),
        "majority_votes": ov_row.get("majority_votes"),
        "majority_tie": int(ov_row.get("majority_tie") or 0) > 1,
        "n_distinct_answers": ov_row.get("n_answers"),
        "n_no_answer": ov_row.get("n_null"),
        "median_length": _round(median_length, 1),
        "median_length_right": _round(ov_row.get("median_len_correct"), 1),
        "median_length_wrong": _round(ov_row.get("median_len_wrong"), 1),
        "ground_truth": _short(ov_row.get("ground_truth"), SNAPSHOT_CHARS),
    }


def trace_verdict(f: Mapping[str, Any]) -> str:
    """right / wrong / no answer, as the Single trace tab says it."""
    if f.get("final_correct"):
        return "right"
    group = f.get("final_group")
    return "no answer" if group is not None and group < 0 else "wrong"


def trace_title(rel: str, qid: int, f: Mapping[str, Any]) -> str:
    length = f.get("length") or 0
    return (
        f"{file_label(rel)} · Q{qid} · trace {f.get('trace_idx')} "
        f"({trace_verdict(f)}, {length / 1000:.1f}k tokens)"
    )


def _probe_marks(f: Mapping[str, Any]) -> list[tuple[object, str]]:
    pos = f.get("probe_pos") or []
    ok = list(f.get("probe_correct") or [])
    ok += [None] * (len(pos) - len(ok))
    return [(p, "✓" if o else "✗" if o is not None else "") for p, o in zip(pos, ok, strict=False)]


def _lowest(x: np.ndarray, y: np.ndarray, what: str) -> tuple[float, float, str] | None:
    finite = np.isfinite(y)
    if not finite.any():
        return None
    i = int(np.flatnonzero(finite)[np.argmin(y[finite])])
    return float(x[i]), float(y[i]), f"{what} {y[i]:.2f}"


def curve_evidence(f: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Curves tab's picture of a trace: its stored curve (mean confidence in 96 equal slices
    of its length, `figures.curve_matrix`), the probes marked ✓/✗, the lowest slice."""
    curve, length = f.get("curve"), f.get("length")
    if curve is None or len(curve) == 0 or not length:
        return None
    one = pl.DataFrame(
        {"length": [int(length)], "curve": [[float(v) for v in curve]]},
        schema={"length": pl.Int64, "curve": pl.List(pl.Float32)},
    )
    xs, ys = curve_matrix(one)
    x, y = xs[0].astype(np.float64), ys[0].astype(np.float64)
    return line_evidence(
        title=f"Trace {f.get('trace_idx')} ({trace_verdict(f)}): confidence over its length",
        x_label="token position",
        y_label=Y_TITLE,
        series=[("confidence (96 slices)", x, y)],
        marks=_probe_marks(f),
        highlight=_lowest(x, y, "lowest slice"),
    )


def group_evidence(
    f: Mapping[str, Any],
    confs: np.ndarray,
    window: int = WINDOW,
    probe: tuple[object, object, str] | None = None,
) -> dict[str, Any] | None:
    """The Single trace tab's picture: the W-token group confidence at each window's last token
    (`confidence.group_confidences`, as the tab draws it), the probes marked ✓/✗, and `probe`
    (x, y, label) highlighted, else the lowest group."""
    c = np.asarray(confs, dtype=np.float32)
    if not c.size:
        return None
    g = group_confidences(c, window).astype(np.float64)
    x = np.arange(g.size, dtype=np.float64) + (min(window, max(c.size, 1)) - 1)
    return line_evidence(
        title=f"Trace {f.get('trace_idx')} ({trace_verdict(f)}): group confidence",
        x_label="token position",
        y_label=Y_TITLE,
        series=[(f"group confidence (W = {window})", x, g)],
        marks=_probe_marks(f),
        highlight=probe if probe is not None else _lowest(x, g, "lowest group"),
    )


def trace_snapshot(
    f: Mapping[str, Any], confs: np.ndarray | None = None, window: int = WINDOW
) -> dict[str, Any]:
    """The final answer and its correctness, the length, mean/tail/lowest-group confidence; the
    evidence is the group confidence when the trace's `confs` are given, else the stored curve."""
    ev = group_evidence(f, confs, window) if confs is not None else curve_evidence(f)
    return with_evidence(_trace_figures(f), ev)


def _trace_figures(f: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "final_answer": _short(f.get("final_answer"), SNAPSHOT_CHARS),
        "final_correct": bool(f.get("final_correct") or False),
        "verdict": trace_verdict(f),
        "length": f.get("length"),
        "mean_conf": _round(f.get("mean_conf")),
        "tail_conf": _round(f.get("tail_conf")),
        "lowest_group_conf": _round(f.get("min_group")),
        "bottom_10_conf": _round(f.get("bottom_10")),
        "n_probes": len(f.get("probe_pos") or []),
    }


def probe_title(rel: str, qid: int, trace: int, r: Mapping[str, Any]) -> str:
    answer = _short(r.get("answer"), TITLE_CHARS) or "(none)"
    mark = "right" if r.get("is_correct_group") else "wrong"
    return (
        f"{file_label(rel)} · Q{qid} · trace {trace} · probe at {r.get('position')}: "
        f"{answer} ({mark})"
    )


def probe_snapshot(
    r: Mapping[str, Any],
    trace: Mapping[str, Any] | None = None,
    confs: np.ndarray | None = None,
    window: int = WINDOW,
) -> dict[str, Any]:
    """The probed answer, its correctness (ours and the stored flag), position, avg_conf; with
    the trace's feature row and `confs`, the evidence: the probe on the trace's group confidence."""
    ev = None
    if trace is not None and confs is not None and r.get("position") is not None:
        mark = "right" if r.get("is_correct_group") else "wrong"
        answer = _short(r.get("answer"), TITLE_CHARS) or "(none)"
        label = f"probe {answer} ({mark})"
        ev = group_evidence(trace, confs, window, (r.get("position"), r.get("avg_conf"), label))
    return with_evidence(_probe_figures(r), ev)


def _probe_figures(r: Mapping[str, Any]) -> dict[str, Any]:
    stored = r.get("is_correct (stored)")
    return {
        "position": r.get("position"),
        "answer": _short(r.get("answer"), SNAPSHOT_CHARS),
        "answer_group": _short(r.get("group"), SNAPSHOT_CHARS),
        "correct": bool(r.get("is_correct_group") or False),
        "correct_stored": None if stored is None else bool(stored),
        "avg_conf": _round(r.get("avg_conf")),
        "conf_at_pos": _round(r.get("conf_at_pos")),
    }


# ---------------------------------------------------------------- rings
def qid_case_counts(rel: str) -> dict[int, int]:
    """The open file's questions with cases (see `casebook.qid_counts`)."""
    return qid_counts(DATASET, rel, "rings")


# ---------------------------------------------------------------- controls
def capture_question(
    rel: str, src: SourceConfig, qid: int, ov: pl.DataFrame, feats: pl.DataFrame
) -> None:
    """The question's "Add question" control (the key names file and question, so the default
    title follows the question that is open)."""
    rows = ov.filter(pl.col("qid") == qid)
    ov_row = rows.row(0, named=True) if rows.height else {"qid": qid}
    median = feats.select(pl.col("length").median()).item() if feats.height else None
    votes = vote_shares(mc.pool(rel, src, qid))
    capture(
        DATASET,
        VIEW,
        question_item(rel, qid),
        title=question_title(rel, qid, ov_row),
        snapshot=question_snapshot(ov_row, median, votes),
        source=src,
        file=rel,
        key=f"mars_q_{rel}_{qid}",
        label="Add question",
    )


def question_cases_here(rel: str, qid: int) -> None:
    """Cases on the open question (its own and its traces' and probes')."""
    cases_here(DATASET, question_item(rel, qid), key="mars_q")


def _confs(ref: TraceRef) -> tuple[np.ndarray | None, int]:
    """The trace's raw token confidences (the Single trace tab has just read them: kept by
    `trace_reads`) and the file's group window."""
    raw = trace_reads.raw_trace(ref.rel, ref.src, ref.qid, ref.trace)
    if not raw.height:
        return None, WINDOW
    confs = np.asarray(raw.row(0, named=True).get("confs") or [], dtype=np.float32)
    return confs, mc.store(ref.rel, ref.src).window


def capture_trace(ref: TraceRef, f: Mapping[str, Any], *, where: str) -> None:
    """The trace's "Add trace" control; `where` keeps the keys of two tabs apart. In the Single
    trace tab ("zoom") the evidence is the group confidence it draws; elsewhere the stored curve."""

    def snapshot() -> dict[str, Any]:  # made when the case is saved
        confs, window = _confs(ref) if where == "zoom" else (None, WINDOW)
        return trace_snapshot(f, confs, window)

    capture(
        DATASET,
        VIEW,
        trace_item(ref.rel, ref.qid, ref.trace),
        title=trace_title(ref.rel, ref.qid, f),
        snapshot=snapshot,
        source=ref.src,
        file=ref.rel,
        key=f"mars_{where}_trace_{ref.rel}_{ref.qid}_{ref.trace}",
        label=f"Add trace {ref.trace}",
    )


def trace_cases_here(ref: TraceRef, *, where: str) -> None:
    """Cases on the selected trace (its own and its probes')."""
    cases_here(DATASET, trace_item(ref.rel, ref.qid, ref.trace), key=f"mars_{where}_trace")


def capture_probe(ref: TraceRef, r: Mapping[str, Any]) -> None:
    """The selected probe row's "Add probe" control (none for a probe without a position)."""
    if r.get("position") is None:
        return
    pos = int(r["position"])

    def snapshot() -> dict[str, Any]:  # made when the case is saved
        confs, window = _confs(ref)
        store = mc.store(ref.rel, ref.src)
        feats = store.question(ref.qid).filter(pl.col("trace_idx") == ref.trace)
        trace = feats.row(0, named=True) if feats.height else {"trace_idx": ref.trace}
        return probe_snapshot(r, trace, confs, window)

    capture(
        DATASET,
        VIEW,
        probe_item(ref.rel, ref.qid, ref.trace, pos),
        title=probe_title(ref.rel, ref.qid, ref.trace, r),
        snapshot=snapshot,
        source=ref.src,
        file=ref.rel,
        key=f"mars_probe_{ref.rel}_{ref.qid}_{ref.trace}_{pos}",
        label="Add probe",
    )
