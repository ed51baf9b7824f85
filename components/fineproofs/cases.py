"""The casebook in the FineProofs view: capture a trace or one prefix step, show the cases already
on them, and count cases per trace for the overview's marks.

Why a module of its own: the Overview (marks) and the Trace tab (controls) both need it, and a
tab module does not import another. Step cases carry `prefix` (the prefix ordinal) and `step`
(the step index, to join labels back on it) in their item and a STEP_VERDICTS verdict, so they
become rows of the process-reward-model label export; a lookup by problem, sample and prefix
still finds them (items match on a subset of their keys).

Each snapshot carries the evidence of the value curve (`cache.casebook.evidence`): the mean grade
per prefix with significant drops, recoveries and the first-error candidate marked, the step of
a step case highlighted.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import polars as pl
import streamlit as st

from analysis.fineproofs.values import trace_series
from cache.casebook.evidence import MAX_MARKS, line_evidence, with_evidence
from cache.errors import DataError
from cache.fineproofs_io import PREFIX_FILE
from cache.sources import SourceConfig
from components.common.casebook import STEP_VERDICTS, capture, case_counts, cases_here, store
from components.common.safe_text import md_text
from components.fineproofs import cached as fc
from components.fineproofs.shared import DATASET

VIEW = "fineproofs"
TraceKey = tuple[str, int]


def trace_item(problem_id: str, sample_index: int) -> dict[str, str]:
    return {"problem": str(problem_id), "sample": str(int(sample_index))}


def step_item(
    problem_id: str, sample_index: int, ordinal: int, step: object = None
) -> dict[str, str]:
    """A step's item: the trace, the prefix ordinal and, when known, the step index (`step`)."""
    item = {**trace_item(problem_id, sample_index), "prefix": str(int(ordinal))}
    if isinstance(step, int | float | np.integer | np.floating) and math.isfinite(step):
        item["step"] = str(int(step))
    return item


# the marks of the value curve: (series column, label), as its figure draws them
_MARKS = (("sig_drop", "▼ drop"), ("recovery", "▲ recovery"), ("first_error", "× first error"))


def value_evidence(
    series: pl.DataFrame, title: str, selected: int | None = None
) -> dict[str, Any] | None:
    """The Trace tab's value curve: mean grade per prefix ordinal, drops, recoveries and the
    first-error candidate marked, and the `selected` prefix highlighted."""
    if not series.height or "ordinal" not in series.columns or "value" not in series.columns:
        return None
    x = series["ordinal"].cast(pl.Float64).to_numpy()
    y = series["value"].cast(pl.Float64).fill_nan(None).fill_null(np.nan).to_numpy()
    marks: list[tuple[float, str]] = []
    for col, label in _MARKS:
        if col in series.columns:
            hit = series[col].fill_null(False).cast(pl.Boolean).to_numpy()
            marks += [(o, label) for o in x[hit].tolist()]
    highlight = None
    if selected is not None and selected in series["ordinal"].to_list():
        i = series["ordinal"].to_list().index(selected)
        step = series["step"][i] if "step" in series.columns else None
        v = y[i]
        highlight = (selected, None if v != v else float(v), f"prefix {selected} · step {step}")
    return line_evidence(
        title=title,
        x_label="prefix ordinal",
        y_label="value (mean grade of the continuations)",
        series=[("mean grade", x, y)],
        marks=sorted(marks)[:MAX_MARKS],
        highlight=highlight,
        y_range=(0.0, 1.0),
    )


def trace_snapshot(
    info: dict[str, Any], n_prefixes: int, series: pl.DataFrame | None = None
) -> dict[str, Any]:
    """Key figures of a trace at capture time (from its per-trace summary row; `capture` turns
    NaN into None); with its prefix `series`, the value-curve evidence."""
    ev = value_evidence(series, "Value per prefix") if series is not None else None
    return with_evidence(_trace_figures(info, n_prefixes), ev)


def _trace_figures(info: dict[str, Any], n_prefixes: int) -> dict[str, Any]:
    return {
        "source": info.get("source"),
        "endpoint_grade": info.get("endpoint"),
        "num_steps": info.get("num_steps"),
        "n_prefixes": int(n_prefixes),
        "largest_drop": info.get("largest_drop"),
        "largest_drop_prefix": info.get("largest_drop_ordinal"),
        "largest_drop_step": info.get("largest_drop_step"),
        "first_error_prefix": info.get("first_error_ordinal"),
        "first_error_step": info.get("first_error_step"),
        "first_error_depth": info.get("first_error_depth"),
        "total_decline": info.get("total_decline"),
        "shape": info.get("shape"),
    }


def step_snapshot(r: dict[str, Any], series: pl.DataFrame | None = None) -> dict[str, Any]:
    """Key figures of one prefix step at capture time (its row of the annotated series); with
    the trace's prefix `series`, the value-curve evidence with this step highlighted."""
    ordinal = r.get("ordinal")
    ev = None
    if series is not None and ordinal is not None:
        ev = value_evidence(series, f"Value per prefix · prefix {ordinal}", int(ordinal))
    return with_evidence(_step_figures(r), ev)


def _step_figures(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "prefix": r.get("ordinal"),
        "step": r.get("step"),
        "num_steps": r.get("num_steps"),
        "value": r.get("value"),
        "change": r.get("change"),
        "z": r.get("z"),
        "se": r.get("se"),
        "n": r.get("n"),
        "sig_drop": bool(r.get("sig_drop") or False),
        "recovery": bool(r.get("recovery") or False),
        "first_error": bool(r.get("first_error") or False),
        "flags": str(r.get("flags") or ""),
    }


def capture_trace(
    src: SourceConfig, problem_id: str, sample_index: int, info: dict[str, Any], n_prefixes: int
) -> None:
    """The "Add to casebook" control of the open trace (the key names the trace, so the
    form's default title follows the trace that is open)."""
    series = trace_series(fc.prefixes(src)[0], problem_id, sample_index)
    capture(
        DATASET,
        VIEW,
        trace_item(problem_id, sample_index),
        title=f"Trace {problem_id} · sample {sample_index}",
        snapshot=trace_snapshot(info, n_prefixes, series),
        source=src,
        file=PREFIX_FILE,
        key=f"fp_trace_{problem_id}_{sample_index}",
    )


def capture_step(src: SourceConfig, problem_id: str, sample_index: int, r: dict[str, Any]) -> None:
    """The control of the selected prefix step; its verdict is the step's PRM label."""
    ordinal = int(r["ordinal"])
    series = trace_series(fc.prefixes(src)[0], problem_id, sample_index)
    capture(
        DATASET,
        VIEW,
        step_item(problem_id, sample_index, ordinal, r.get("step")),
        title=f"Trace {problem_id} · sample {sample_index} · prefix {ordinal} (step {r['step']})",
        snapshot=step_snapshot(r, series),
        source=src,
        file=PREFIX_FILE,
        key=f"fp_step_{problem_id}_{sample_index}_{ordinal}",
        label="Label this step",
        verdicts=STEP_VERDICTS,
    )


def trace_cases_here(problem_id: str, sample_index: int) -> None:
    """Cases on the open trace (its own and its steps')."""
    cases_here(DATASET, trace_item(problem_id, sample_index), key="fp_trace")


def step_cases_here(problem_id: str, sample_index: int, ordinal: int) -> None:
    cases_here(DATASET, step_item(problem_id, sample_index, ordinal), key="fp_step")


def trace_case_counts() -> dict[TraceKey, int]:
    """(problem_id, sample_index) -> number of live cases on that trace or one of its steps.

    `case_counts` first (cheap, and it says so in a caption when the casebook cannot be read);
    only when some problem has cases are the cases listed to split the counts by sample."""
    if not case_counts(DATASET, "problem"):
        return {}
    try:
        cases = store().list_cases(dataset=DATASET)
    except DataError as exc:
        st.caption(f"Casebook marks are hidden: {md_text(exc.message, 160)}")
        return {}
    counts: Counter[TraceKey] = Counter()
    for c in cases:
        pid, sample = c.item.get("problem"), c.item.get("sample")
        if pid is None or sample is None:
            continue
        try:
            counts[(pid, int(sample))] += 1
        except ValueError:
            continue
    return dict(counts)
