"""Parason parallel trajectories: one import point for the parser, metrics and DAG.

The code lives in `parallel_parse` (tolerant parser), `parallel_metrics` (T, C, speedup ...),
`parallel_dag` (networkx DAG, critical path, layout, collapse) and `tokens` (counters).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx

from analysis.parason.dag import build_dag, collapse_dag, critical_path, layout, node_spans
from analysis.parason.metrics import (
    Metrics,
    StageStats,
    added_branches,
    compute_metrics,
    kind_mix,
    metrics_for_text,
    trajectory_text,
)
from analysis.parason.parse import (
    WARNING_CODES,
    Block,
    Item,
    ParseWarning,
    Segment,
    Thread,
    Trajectory,
    last_boxed,
    parse,
)
from analysis.parason.tokens import best_counter, estimate_total_tokens, get_counter, node_tokens


@dataclass(slots=True)
class Analysed:
    """Everything the page shows for one trajectory, computed from the same per-part counts."""

    traj: Trajectory
    metrics: Metrics
    dag: nx.DiGraph
    counts: list[float]


def analyse_row(row: Mapping[str, object], counter: str = "estimate") -> Analysed:
    """Parse one SFT row (tolerating missing columns), count, measure and build its DAG."""
    text, total = trajectory_text(row)
    traj = parse(text)
    cnt = get_counter(counter)
    counts = cnt.count_parts(traj, total if cnt.key == "estimate" else None)
    return Analysed(
        traj, compute_metrics(traj, cnt, counts=counts), build_dag(traj, cnt, counts=counts), counts
    )


__all__ = [
    "WARNING_CODES",
    "Analysed",
    "analyse_row",
    "Block",
    "Item",
    "Metrics",
    "ParseWarning",
    "Segment",
    "StageStats",
    "Thread",
    "Trajectory",
    "added_branches",
    "best_counter",
    "build_dag",
    "collapse_dag",
    "compute_metrics",
    "critical_path",
    "estimate_total_tokens",
    "get_counter",
    "kind_mix",
    "last_boxed",
    "layout",
    "metrics_for_text",
    "node_spans",
    "node_tokens",
    "parse",
    "trajectory_text",
]
