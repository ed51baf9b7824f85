"""One trajectory, analysed end to end: parse, count, measure and build its DAG.

Why one function: the page shows metrics and a DAG of the same trajectory, and both must be
computed from the same per-part token counts. The parts live in `parse` (tolerant parser),
`metrics` (T, C, speedup ...), `dag` (networkx DAG, critical path, layout, collapse) and `tokens`
(counters); import those names from their own modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx

from analysis.parason.dag import build_dag
from analysis.parason.metrics import Metrics, compute_metrics, trajectory_text
from analysis.parason.parse import Trajectory, parse
from analysis.parason.tokens import get_counter


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
