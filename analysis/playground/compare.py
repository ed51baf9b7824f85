"""Comparisons shown by the playground: per-question policy vs self-consistency, the Pareto
front of (savings, accuracy) points, and ours vs the published reference summaries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis.playground.results import RunResult, question_summary
from analysis.playground.ties import TieCheck
from cache.errors import SchemaError


def per_question_comparison(run: RunResult, sc: RunResult) -> pd.DataFrame:
    """One row per question: the policy's accuracy, savings, stop position and reasons next to
    self-consistency at full budget; `lost` flags questions where the policy is less accurate."""
    sc_acc = {r.qid: float(r.correct.mean()) * 100 if r.correct.size else 0.0 for r in sc.questions}
    rows = []
    for r in sorted(run.questions, key=lambda r: r.qid):
        s = question_summary(r)
        # most common first, ties in order of first appearance (as pandas' value_counts)
        reasons = dict(Counter(r.stopped_by.astype(str).tolist()).most_common())
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


DIFF_TOLERANCE = 1e-6
# a per-question gamma column a reference may carry (the published CSVs do not; its runner
# only prints "warmup_gamma=..." per question)
REFERENCE_GAMMA_COLUMNS = ("gamma", "warmup_gamma", "mean_gamma")
TIE_WHY = (
    "tie for first place in {n} of {i} iterations: the published simulator breaks ties by "
    "Python set order, ours by the lowest group id"
)


def _reference_gamma(ref: pd.DataFrame | None) -> dict[int, float]:
    if ref is None:
        return {}
    for col in REFERENCE_GAMMA_COLUMNS:
        if col in ref.columns and pd.api.types.is_numeric_dtype(ref[col]):
            qids = pd.to_numeric(ref["question_id"], errors="coerce")
            return {
                int(q): float(v)
                for q, v in zip(qids, ref[col], strict=True)
                if pd.notna(q) and pd.notna(v)
            }
    return {}


def explain_reference(
    diff: pd.DataFrame,
    checks: Mapping[int, TieCheck],
    ref: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The reference diff with, per question, whether it differs, how many iterations a tie
    for first place decided, whether breaking ties the other way reproduces the reference, the
    calibrated gamma beside the reference's (when known) and a short `why`.

    `status` is "same", "tie" (every difference is explained by a tie: expected) or "differs".
    The reference's gamma is its own column when it has one, else the gamma of our run with
    ties broken the other way when that run reproduces the reference, else unknown (NaN)."""
    out = diff.copy()
    cols = [c[2:] for c in out.columns if c.startswith("d_")]
    ref_gamma = _reference_gamma(ref)
    differs, n_tied, explains, why, status = [], [], [], [], []
    gam, gam_ref = [], []
    for _, row in out.iterrows():
        q = int(row["question_id"])
        d = [row[f"d_{c}"] for c in cols]
        one_sided = any(pd.isna(v) for v in d)
        diff_here = one_sided or any(abs(float(v)) > DIFF_TOLERANCE for v in d if pd.notna(v))
        chk = checks.get(q)
        alt_ok = False
        if chk is not None and not one_sided:
            alt_ok = all(
                abs(float(chk.alt_summary.get(c, np.nan)) - float(row[f"{c}_ref"]))
                <= DIFF_TOLERANCE
                for c in cols
            )
        g_ours = chk.gamma if chk is not None else None
        g_ref = ref_gamma.get(q)
        if g_ref is None and chk is not None and alt_ok and chk.alt_gamma is not None:
            g_ref = chk.alt_gamma
        reasons = []
        if one_sided:
            reasons.append("the question is missing on one side")
        elif diff_here and chk is not None and chk.n_tied:
            reasons.append(TIE_WHY.format(n=chk.n_tied, i=chk.tied.shape[0]))
            reasons.append(
                "with ties broken the other way our numbers equal the reference"
                if alt_ok
                else "breaking them the other way does not reproduce the reference (ties "
                "broken both ways within the question, or another cause)"
            )
        elif diff_here:
            reasons.append("not explained by a tie")
        if (
            chk is not None
            and g_ours is not None
            and chk.alt_gamma is not None
            and abs(chk.alt_gamma - g_ours) > 1e-9
        ):
            reasons.append(
                "the gamma calibration's warmup vote has a tie: with ties broken the other "
                f"way gamma = {chk.alt_gamma:.2f} (ours {g_ours:.2f})"
            )
        differs.append(diff_here)
        n_tied.append(chk.n_tied if chk is not None else np.nan)
        explains.append(alt_ok and diff_here)
        status.append("same" if not diff_here else ("tie" if alt_ok else "differs"))
        why.append("; ".join(reasons))
        gam.append(np.nan if g_ours is None else g_ours)
        gam_ref.append(np.nan if g_ref is None else g_ref)
    out["status"] = status
    out["differs"] = differs
    out["tied_iterations"] = n_tied
    out["tie_explains"] = explains
    if any(pd.notna(v) for v in gam) or any(pd.notna(v) for v in gam_ref):
        out["gamma"] = gam
        out["gamma_ref"] = gam_ref
    out["why"] = why
    return out


OVERALL_SHOWN = {
    "accuracy_pct": "accuracy (%)",
    "accuracy_se_pp": "SE of accuracy (pp)",
    "accuracy_ci_lo": "95 % CI low (%)",
    "accuracy_ci_hi": "95 % CI high (%)",
    "n_questions": "questions",
    "total_tokens_mean": "mean tokens per iteration",
    "mean_token_savings_pct": "mean token savings (%)",
    "stopped_by_margin": "stops: margin",
    "stopped_by_consensus": "stops: consensus",
    "stopped_by_budget": "stops: budget",
}


def overall_with_se(row: Mapping[str, object]) -> dict[str, float]:
    """An overall summary row (published columns) with the standard error a reader needs in
    place of `accuracy_std`: that column is the std of the per-question accuracies (0..1), not
    the uncertainty of their mean. SE = std / sqrt(n questions), in percentage points; the 95 %
    interval is accuracy +- 1.96 SE (normal approximation). Missing columns give NaN."""

    def num(key: str) -> float:
        v = row.get(key)
        try:
            return float(v)  # type: ignore[arg-type]  # numeric cells of a CSV row
        except (TypeError, ValueError):
            return float("nan")

    n = num("n_questions")
    acc = num("accuracy_pct")
    se = num("accuracy_std") * 100 / np.sqrt(n) if n > 0 else float("nan")
    out = {k: num(k) for k in OVERALL_SHOWN}
    out.update(
        accuracy_se_pp=float(se), accuracy_ci_lo=acc - 1.96 * se, accuracy_ci_hi=acc + 1.96 * se
    )
    return out


def overall_comparison(ours: Mapping[str, object], ref: pd.DataFrame) -> pd.DataFrame:
    """Ours and the reference's overall rows, each with its SE, under readable column names
    (a `source` column says which is which)."""
    rows = [dict(overall_with_se(ours), source="ours")]
    records: list[dict[str, Any]] = [
        {str(k): v for k, v in r.items()} for r in ref.to_dict("records")
    ]
    rows += [dict(overall_with_se(r), source="reference") for r in records]
    frame = pd.DataFrame(rows, columns=["source", *OVERALL_SHOWN])
    return frame.rename(columns=OVERALL_SHOWN)
