"""The Overview's rows and cells: which traces to show in which order, and one cell per prefix
(or relative-depth bin) with its value, change and flags.

Why its own module: paging and sorting ~10k traces is a cheap polars call on the per-trace
summary; the cells are built only for the shown page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from analysis.fineproofs.values import KEYS

SortKey = Literal["endpoint", "largest_drop", "first_error", "last_value", "trace"]
SORT_COLUMNS: dict[str, str] = {
    "endpoint": "endpoint",
    "largest_drop": "largest_drop",
    "first_error": "first_error_depth",
    "last_value": "last_value",
    "trace": "problem_id",
}


def select_traces(
    summary: pl.DataFrame,
    sort: str = "largest_drop",
    descending: bool = True,
    sources: list[str] | None = None,
    grade_range: tuple[float, float] = (0.0, 1.0),
    grade_of: Literal["endpoint", "last_value", "mean_value"] = "endpoint",
) -> pl.DataFrame:
    """Filter traces by source and grade range, then sort (nulls last; ties by id)."""
    s = summary
    if sources:
        s = s.filter(pl.col("source").fill_null("(none)").is_in(sources))
    lo, hi = grade_range
    if (lo, hi) != (0.0, 1.0):
        g = pl.col(grade_of)
        s = s.filter(g.is_not_null() & (g >= lo - 1e-9) & (g <= hi + 1e-9))
    col = SORT_COLUMNS.get(sort, "largest_drop")
    return s.sort([col, *KEYS], descending=[descending, False, False], nulls_last=True)


def overview_cells(
    annotated: pl.DataFrame,
    traces: pl.DataFrame,
    axis: Literal["ordinal", "depth"] = "ordinal",
    metric: Literal["value", "change"] = "value",
    n_depth_bins: int = 10,
) -> pl.DataFrame:
    """Cells of the overview grid for the given (ordered) traces: row, col, val and hover facts.

    axis "ordinal": one column per prefix number. axis "depth": columns are relative-depth bins;
    several prefixes in one bin are averaged (value) or summed (change). `sig_drop` is true on a
    cell holding a significant drop (any of its prefixes), so the grid can mark it.
    """
    order = traces.select(*KEYS).with_row_index("grid_row")
    a = annotated.join(order, on=list(KEYS), how="inner")
    if axis == "ordinal":
        cells = a.select(
            "grid_row",
            *KEYS,
            grid_col=pl.col("ordinal"),
            val=pl.col(metric),
            step=pl.col("step"),
            rel_depth=pl.col("rel_depth"),
            se=pl.col("se"),
            flags=pl.col("flags"),
            ordinal=pl.col("ordinal"),
            sig_drop=pl.col("sig_drop"),
        )
    else:
        a = a.with_columns(
            grid_col=pl.min_horizontal(
                pl.lit(n_depth_bins - 1), (pl.col("rel_depth") * n_depth_bins + 1e-9).floor()
            ).cast(pl.Int64)
        )
        agg = pl.col(metric).mean() if metric == "value" else pl.col(metric).sum()
        cells = a.group_by("grid_row", *KEYS, "grid_col").agg(
            val=agg if metric == "value" else pl.when(pl.col(metric).is_not_null().any()).then(agg),
            step=pl.col("step").last(),
            rel_depth=pl.col("rel_depth").last(),
            se=pl.col("se").last(),
            flags=pl.col("flags").str.join(" "),
            ordinal=pl.col("ordinal").last(),
            sig_drop=pl.col("sig_drop").any(),
        )
    return cells.sort("grid_row", "grid_col")


_TRACE_REF = re.compile(r"\s*([0-9A-Za-z_-]+?)\s*(?:(?:·|:|,|\s)\s*s?(\d+))?\s*")


def resolve_trace(text: str, traces: Iterable[tuple[str, int]]) -> tuple[str, int] | str:
    """The trace a typed reference names, among `traces` (problem id, sample index): a problem
    id, or its start when only one id starts so (the grid shows ten characters), then
    optionally a sample (`73c49ae5d8 3`, `73c49ae5d8·s3`; default: the problem's first).
    Anything else gives the sentence saying what is wrong."""
    m = _TRACE_REF.fullmatch(text)
    if m is None:
        return "Enter a problem id (its start is enough), then a sample number: 73c49ae5d8 3."
    start, sample = m.group(1), m.group(2)
    keys = list(traces)
    pids = sorted({p for p, _ in keys if p.startswith(start)})
    if not pids:
        return f"No problem id starts with “{start}”."
    if start not in pids and len(pids) > 1:
        return f"{len(pids)} problem ids start with “{start}”: type more of it."
    pid = start if start in pids else pids[0]
    samples = sorted(s for p, s in keys if p == pid)
    if sample is None:
        return pid, samples[0]
    if int(sample) not in samples:
        have = ", ".join(str(s) for s in samples[:12]) + (" …" if len(samples) > 12 else "")
        return f"Problem {pid} has no sample {int(sample)} (its samples: {have})."
    return pid, int(sample)


@dataclass(frozen=True)
class StartingPoint:
    """A trace worth opening first, with why (its rule) and its figure under that rule."""

    why: str
    problem_id: str
    sample_index: int
    figure: str


# (why, column, keep rows where, its figure): the largest value of the column wins
_STARTS: tuple[tuple[str, str, pl.Expr, Callable[[Any], str]], ...] = (
    (
        "the sharpest significant drop",
        "largest_drop",
        pl.col("largest_drop_sig").fill_null(False) & pl.col("largest_drop").is_finite(),
        lambda v: f"a fall of {v:.3f}",
    ),
    (
        "the most recoveries",
        "n_recoveries",
        pl.col("n_recoveries") > 0,
        lambda n: "1 recovery" if n == 1 else f"{n} recoveries",
    ),
    (
        "the most bimodal prefixes",
        "n_bimodal",
        pl.col("n_bimodal") > 0,
        lambda n: "1 bimodal prefix" if n == 1 else f"{n} bimodal prefixes",
    ),
)


def starting_points(summary: pl.DataFrame) -> list[StartingPoint]:
    """For a Trace tab with no trace open: the trace with the sharpest significant drop, the
    most recoveries and the most bimodal prefixes (ties: the first by problem id and sample);
    a rule no trace meets is left out."""
    out = []
    for why, col, keep, figure in _STARTS:
        if col not in summary.columns:
            continue
        rows = summary.filter(keep).sort(
            [col, "problem_id", "sample_index"], descending=[True, False, False]
        )
        if rows.height:
            r = rows.row(0, named=True)
            out.append(
                StartingPoint(why, str(r["problem_id"]), int(r["sample_index"]), figure(r[col]))
            )
    return out
