"""The casebook in the MARS view: what a question, trace or probe case records (item keys, a
suggested title, the snapshot of key figures), the capture controls, the cases already on an item,
and which questions of the open file have cases (the overview grid's rings).

Why a module of its own: the header, the Curves tab and the Single trace tab all capture, and a
tab module does not import another. Every item carries `file` (the MARS relpath), so the rings
count the cases of the open file only. Snapshot texts are plain and bounded; every renderer of a
snapshot escapes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from cache.datasets import MARS_FILES
from cache.sources import SourceConfig
from components.common.casebook import capture, cases_here, qid_counts

DATASET = "mars"
VIEW = "mars"
SNAPSHOT_CHARS = 200  # an answer or ground truth kept in a snapshot
TITLE_CHARS = 40  # an answer inside a suggested title


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


def question_snapshot(ov_row: Mapping[str, Any], median_length: float | None) -> dict[str, Any]:
    """pass@1, the majority answer and whether it is right, traces, distinct answers, lengths."""
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


def trace_snapshot(f: Mapping[str, Any]) -> dict[str, Any]:
    """The final answer and its correctness, the length, mean/tail/lowest-group confidence."""
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


def probe_snapshot(r: Mapping[str, Any]) -> dict[str, Any]:
    """The probed answer, its correctness (ours and the stored flag), position, avg_conf."""
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
    capture(
        DATASET,
        VIEW,
        question_item(rel, qid),
        title=question_title(rel, qid, ov_row),
        snapshot=question_snapshot(ov_row, median),
        source=src,
        file=rel,
        key=f"mars_q_{rel}_{qid}",
        label="Add question",
    )


def question_cases_here(rel: str, qid: int) -> None:
    """Cases on the open question (its own and its traces' and probes')."""
    cases_here(DATASET, question_item(rel, qid), key="mars_q")


def capture_trace(ref: TraceRef, f: Mapping[str, Any], *, where: str) -> None:
    """The trace's "Add trace" control; `where` keeps the keys of two tabs apart."""
    capture(
        DATASET,
        VIEW,
        trace_item(ref.rel, ref.qid, ref.trace),
        title=trace_title(ref.rel, ref.qid, f),
        snapshot=trace_snapshot(f),
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
    capture(
        DATASET,
        VIEW,
        probe_item(ref.rel, ref.qid, ref.trace, pos),
        title=probe_title(ref.rel, ref.qid, ref.trace, r),
        snapshot=probe_snapshot(r),
        source=ref.src,
        file=ref.rel,
        key=f"mars_probe_{ref.rel}_{ref.qid}_{ref.trace}_{pos}",
        label="Add probe",
    )
