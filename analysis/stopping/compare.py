"""Comparisons shown by the playground: per-question policy vs self-consistency, the Pareto
front of (savings, accuracy) points, and ours vs the published reference summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.stopping.results import RunResult, question_summary
from cache.errors import SchemaError


def per_question_comparison(run: RunResult, sc: RunResult) -> pd.DataFrame:
    """One row per question: the policy's accuracy, savings, stop position and reasons next to
    self-consistency at full budget; `lost` flags questions where the policy is less accurate."""
    sc_acc = {r.qid: float(r.correct.mean()) * 100 if r.correct.size else 0.0 for r in sc.questions}
    rows = []
    for r in sorted(run.questions, key=lambda r: r.qid):
        s = question_summary(r)
        reasons = pd.Series(r.stopped_by.astype(str)).value_counts()
        early = int(sum(v for k, v in reasons.items() if k != "budget"))
        rows.append(
            {
                "qid": r.qid,
                "accuracy_pct": s["accuracy_pct"],
                "sc_accuracy_pct": sc_acc.get(r.qid, np.nan),
                "delta_pct": s["accuracy_pct"] - sc_acc.get(r.qid, np.nan),
                "savings_pct": s["token_savings_pct"],
                "mean_position": s["mean_position"],
                "stopped_early": early,
                "stopped_by_budget": int(reasons.get("budget", 0)),
                "stop_reasons": ", ".join(f"{k} {v}" for k, v in reasons.items()),
                "gamma": r.gamma if r.gamma is not None else np.nan,
                "ground_truth": r.ground_truth,
                "n_pool": r.n_pool,
                "notes": len(r.notes),
            }
        )
    df = pd.DataFrame(rows)
    if not df.empty:
        df["lost"] = df["delta_pct"] < -1e-9
    return df


def pareto_front(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mask of points not dominated (higher or equal x and y, one strictly) by another point."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = x.shape[0]
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        dom = (x >= x[i]) & (y >= y[i]) & ((x > x[i]) | (y > y[i]))
        keep[i] = not dom.any()
    return keep


REFERENCE_METRICS = ("accuracy_pct", "token_savings_pct", "mean_position")


def _check_reference(ref: pd.DataFrame, source: str) -> tuple[pd.DataFrame, list[str]]:
    """The reference frame with an integer `question_id`, and the metric columns it holds.
    A CSV from a user's folder can lack columns or hold text: that is bad data (SchemaError
    naming the file and the columns), not a bug."""
    hint = (
        "A repro_reference summary_per_question.csv needs an integer `question_id` column and "
        f"numeric metric columns ({', '.join(REFERENCE_METRICS)}); fix or remove the file."
    )
    if "question_id" not in ref.columns:
        raise SchemaError(f"{source} has no `question_id` column.", hint)
    qid = ref["question_id"]
    if not pd.api.types.is_integer_dtype(qid) or pd.api.types.is_bool_dtype(qid):
        num = pd.to_numeric(qid, errors="coerce") if not pd.api.types.is_bool_dtype(qid) else None
        if num is None or num.isna().any() or (num % 1 != 0).any():
            raise SchemaError(f"{source}: `question_id` is not an integer column.", hint)
        ref = ref.assign(question_id=num.astype("int64"))
    cols = [c for c in REFERENCE_METRICS if c in ref.columns]
    if not cols:
        raise SchemaError(
            f"{source} has none of the metric columns {', '.join(REFERENCE_METRICS)}.", hint
        )
    bad = [
        c
        for c in cols
        if not pd.api.types.is_numeric_dtype(ref[c]) or pd.api.types.is_bool_dtype(ref[c])
    ]
    if bad:
        raise SchemaError(f"{source}: non-numeric column(s) {', '.join(bad)}.", hint)
    return ref, cols


def reference_comparison(
    ours: pd.DataFrame, ref: pd.DataFrame, source: str = "the reference CSV"
) -> pd.DataFrame:
    """Ours vs a repro_reference summary_per_question.csv (`source` names it in errors), per
    question. Raises SchemaError on a reference without `question_id` or with non-numeric
    metrics."""
    ref, cols = _check_reference(ref, source)
    m = ours[["question_id", *cols]].merge(
        ref[["question_id", *cols]], on="question_id", how="outer", suffixes=("", "_ref")
    )
    for c in cols:
        m[f"d_{c}"] = m[c] - m[f"{c}_ref"]
    return m.sort_values("question_id").reset_index(drop=True)
