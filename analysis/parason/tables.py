"""The Parason page's tables as pure functions: filters, the browsing and RL frames, the stage
rows, the 8x expansion's added branches, warnings, and the DAG bookkeeping the tabs share (the
1x vs 8x comparison itself is `pairs.py`).

Why here and not in the view: they are computation on the metrics table, a parsed trajectory
or its DAG, so they are tested without Streamlit and the tab modules only lay them out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import polars as pl

from analysis.parason.metrics import Metrics, StageStats, added_branches
from analysis.parason.parse import WARNING_CODES, Trajectory

SPEEDUP_CAP = 1000.0
UUID_PREFIX_MIN = 6  # shortest uuid prefix a deep link may use


# ---------------------------------------------------------------- filters
def speedup_top(speedup: pl.Series) -> float:
    """Upper bound of the speedup slider: the largest finite speedup rounded up to 0.5, in
    [2, SPEEDUP_CAP]. Why: a row with C = 0 gives an infinite (or NaN) T/C, and `math.ceil(inf)`
    raises; such rows stay visible while the slider spans its whole range."""
    values = speedup.cast(pl.Float64, strict=False)
    mx = values.filter(values.is_finite()).max()
    hi = min(SPEEDUP_CAP, max(2.0, float(mx) if isinstance(mx, int | float) else 2.0))
    return float(math.ceil(hi * 2) / 2)


def speedup_range(lo: float, hi: float, top: float) -> tuple[float, float] | None:
    """The slider's range as a filter, None when it spans everything (1 .. top). Why None: the
    full range must keep rows whose speedup is infinite or NaN."""
    return (float(lo), float(hi)) if lo > 1.0 or hi < top else None


def resolve_uuid(table: pl.DataFrame, uid: str | None) -> str | None:
    """The full uuid for `uid`: itself, or the one uuid it is a prefix of (>= 6 characters).
    Why shared: every tab takes the same deep links, `?uuid=b8c7711c` included."""
    if not uid:
        return None
    uuids = table["uuid"]
    if (uuids == uid).any():
        return uid
    if len(uid) >= UUID_PREFIX_MIN:
        hits = uuids.filter(uuids.str.starts_with(uid))
        if hits.len() == 1:
            return str(hits[0])
    return None


def plain_question(text: object, limit: int = 70) -> str:
    """A question as one plain-text line for tables and pickers: whitespace folded and the `$`
    maths delimiters dropped (`$3600$` reads as 3600). Elsewhere text stays escaped as written."""
    s = " ".join(str(text or "").split()).replace("$", "")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def browse_frame(view: pl.DataFrame, question_chars: int = 90) -> pl.DataFrame:
    """The browsing table as shown: key columns first and narrow (short uuid, plain question
    start), lists joined, so it fits at 1400 px; downloads keep the full rows."""
    return view.select(
        pl.col("uuid").str.slice(0, 8).alias("uuid"),
        *(["added"] if "added" in view.columns else []),  # Browse: the pair's added branches
        pl.col("question")
        .map_elements(lambda q: plain_question(q, question_chars), return_dtype=pl.String)
        .alias("question"),
        "correctness",
        "speedup",
        "T",
        "C",
        "stages",
        pl.col("branches").cast(pl.List(pl.String)).list.join(", ").alias("branches"),
        "kind_mix",
        "n_warnings",
        pl.col("warning_codes").list.join(", ").alias("warnings"),
        *(
            [pl.col("note_codes").list.join(", ").alias("notes")]
            if "note_codes" in view.columns
            else []
        ),
        *(
            [(pl.col("counted_total") - pl.col("stored_total")).alias("vs_stored")]
            if {"counted_total", "stored_total"} <= set(view.columns)
            else []
        ),
    )


def drop_duplicates(table: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """The metrics table without exact duplicate rows (every column of the file equal), and how
    many were dropped. Why: a row stored twice would count twice in the browse count, the charts
    and the picker."""
    if "duplicate" not in table.columns:
        return table, 0
    dup = table["duplicate"].fill_null(False)
    n = int(dup.sum())
    return (table.filter(~dup), n) if n else (table, 0)


def token_difference(counted: object, stored: object) -> float | None:
    """Counted total (whole text, prompt included) minus the stored num_qwen_tokens, or None.
    Why a difference and no verdict: the stored figure counts the whole chat template, which
    the row's text may not reproduce exactly."""
    if not isinstance(counted, int | float) or not isinstance(stored, int | float):
        return None
    if isinstance(counted, bool) or isinstance(stored, bool) or stored != stored:
        return None
    return float(counted) - float(stored)


# ---------------------------------------------------------------- one trajectory
@dataclass(frozen=True, slots=True)
class WarningCount:
    """One parser warning code of a trajectory, for a badge."""

    code: str
    count: int
    severity: str  # "warning" | "info"
    description: str


def warning_counts(traj: Trajectory) -> list[WarningCount]:
    """The trajectory's warning codes with their counts, by code."""
    counts: dict[str, int] = {}
    for w in traj.warnings:
        counts[w.code] = counts.get(w.code, 0) + 1
    return [
        WarningCount(
            code,
            n,
            WARNING_CODES.get(code, ("warning", ""))[0],
            WARNING_CODES.get(code, ("", code))[1],
        )
        for code, n in sorted(counts.items())
    ]


def warnings_frame(traj: Trajectory, context: int = 30) -> pl.DataFrame:
    """Every parser warning with its position and the text around it (whitespace folded)."""
    text = traj.text
    return pl.DataFrame(
        {
            "code": [w.code for w in traj.warnings],
            "severity": [w.severity for w in traj.warnings],
            "position": [w.pos for w in traj.warnings],
            "message": [w.message for w in traj.warnings],
            "context": [
                " ".join(text[max(0, w.pos - context) : w.pos + context].split())
                for w in traj.warnings
            ],
        },
        schema={
            "code": pl.String,
            "severity": pl.String,
            "position": pl.Int64,
            "message": pl.String,
            "context": pl.String,
        },
    )


def items_summary(kinds: Sequence[str]) -> str:
    """A stage's item kinds as counts ("45×S", "3×T 2×S"), first-seen order. Why: one letter per
    item made a 45-branch stage a 45-character cell that pushed the table off-screen."""
    counts: dict[str, int] = {}
    for k in kinds:
        letter = (k or "?")[0].upper()
        counts[letter] = counts.get(letter, 0) + 1
    return " ".join(f"{n}×{k}" for k, n in counts.items())


def stage_figures(s: StageStats) -> dict[str, Any]:
    """One stage's figures: number (1-based, as shown), kind, join, branches, item kinds, token
    sums, critical cost, block speedup, imbalance. The stage table and case snapshots use it."""
    return {
        "stage_number": s.stage + 1,
        "kind": s.kind,
        "join": s.join_type,
        "branches": s.branches,
        "items": items_summary(s.item_kinds),
        "s_b": round(s.s, 1),
        "max_thread": round(max(s.thread_tokens, default=0.0), 1),
        "sum_threads": round(sum(s.thread_tokens), 1),
        "critical": round(s.critical, 1),
        "block_speedup": round(s.block_speedup, 3),
        "imbalance": None if s.imbalance is None else round(s.imbalance, 3),
    }


# stage table column <- figure key (the critical cost is in the snapshot, not the table)
_STAGE_COLUMNS = {
    "stage": "stage_number",
    "kind": "kind",
    "join": "join",
    "branches": "branches",
    "items": "items",
    "s_b (non-thread tokens)": "s_b",
    "max thread (tokens)": "max_thread",
    "sum threads (tokens)": "sum_threads",
    "block speedup": "block_speedup",
    "imbalance": "imbalance",
}


def stage_frame(m: Metrics) -> pl.DataFrame:
    """One row per stage: kind, join, branches, item kinds, token sums, block speedup, imbalance."""
    rows = [
        {col: f[key] for col, key in _STAGE_COLUMNS.items()}
        for f in (stage_figures(s) for s in m.stage_stats)
    ]
    return pl.DataFrame(rows) if rows else pl.DataFrame()


# ---------------------------------------------------------------- 1x vs 8x
def added_nodes(traj1: Trajectory, traj8: Trajectory) -> set[str]:
    """Thread nodes of the 8x trajectory that the 1x one lacks."""
    return {n for n, f in added_branches(traj1, traj8).items() if f}


# ---------------------------------------------------------------- DAG bookkeeping
MORE = ":more"  # suffix of a collapsed stage's node


def widest_stage(g: nx.DiGraph) -> int:
    """Branches of the trajectory's widest stage (0 without a parallel block)."""
    return max(
        (d.get("branches", 0) for _, d in g.nodes(data=True) if d.get("kind") == "fork"), default=0
    )


def known_node(node: str | None, g: nx.DiGraph) -> str | None:
    """A node from the URL if the trajectory has it (or it names a collapsed stage), else None."""
    if node is not None and node not in g and not node.endswith(MORE):
        return None
    return node


def shown_node(node: str | None, g: nx.DiGraph, h: nx.DiGraph | None) -> str | None:
    """The stored node, if it is still on screen. Why: a `*:more` node from a collapsed stage (a
    click, or a deep link) stays in the URL after the stage is expanded or widened; it is then in
    neither the trajectory's graph `g` nor the drawn graph `h` (None if drawing failed)."""
    if node is None or node in g or (h is not None and node in h):
        return node
    return None


def collapse_notes(g: nx.DiGraph, h: nx.DiGraph) -> list[str]:
    """One line per collapsed stage: how many branches the drawing shows and how many it merged.
    Why: without it the shown branches look like the whole stage."""
    notes = []
    for n, d in h.nodes(data=True):
        if d.get("kind") != "collapsed":
            continue
        fork = n[: -len(MORE)] + ":fork"
        total = int(g.nodes[fork].get("branches", 0)) if fork in g else 0
        gone = int(d.get("count", 0))
        total = max(total, gone)
        stage = g.nodes[fork].get("stage") if fork in g else None
        where = f"stage {int(stage) + 1}" if isinstance(stage, int) else "a wide stage"
        notes.append(
            f"{where.capitalize()}: largest {total - gone} of {total} branches shown (the critical "
            f"one always); +{gone} collapsed into the grey hexagon. Click it to list them."
        )
    return notes


def node_facts(d: dict) -> list[str]:
    """What the node panel says about a DAG node: kind, tokens, critical, warnings."""
    facts = [f"kind: {d.get('thread_kind') or d.get('kind')}", f"{d.get('tokens', 0):,.1f} tokens"]
    if d.get("critical"):
        facts.append("on the critical path")
    if d.get("warnings"):
        facts.append("warnings: " + ", ".join(d["warnings"]))
    return facts


# ---------------------------------------------------------------- RL prompts
def rl_sources(rl: pl.DataFrame) -> list[str]:
    """The data sources of the RL prompts, sorted."""
    return sorted(rl["data_source"].drop_nulls().unique().to_list())


def filter_rl(rl: pl.DataFrame, query: str | None, sources: Sequence[str] | None) -> pl.DataFrame:
    """RL prompts of the chosen sources (all when none) whose prompt or ground truth contains
    `query` (case-insensitive, literal)."""
    view = rl
    if sources:
        view = view.filter(pl.col("data_source").is_in(list(sources)))
    needle = (query or "").strip().lower()
    if needle:
        view = view.filter(
            pl.col("prompt").str.to_lowercase().str.contains(needle, literal=True)
            | pl.col("ground_truth")
            .fill_null("")
            .str.to_lowercase()
            .str.contains(needle, literal=True)
        )
    return view


def rl_frame(view: pl.DataFrame, prompt_chars: int = 120) -> pl.DataFrame:
    """The RL table as shown: the prompt cut to its start."""
    return view.with_columns(
        pl.col("prompt").str.slice(0, prompt_chars).alias("prompt (start)")
    ).select("index", "data_source", "ability", "ground_truth", "prompt (start)")
