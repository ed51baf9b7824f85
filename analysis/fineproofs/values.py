"""Prefix values of FineProofs proof attempts: role mapping, per-trace series and summaries.

Why: `mean_grade` is a Monte-Carlo value of the completing policy (32 graded continuations),
not a verdict on a step, so every number here comes with its uncertainty (SE = std/sqrt(n),
not a Bernoulli formula: grades are k/7). A change between consecutive prefixes is called a
*significant drop* only when `d / sqrt(SE_k^2 + SE_(k-1)^2) < -2` and `|d| >= min_drop`
(0.15 by default: with 32 samples smaller drops are usually noise), or, with the
Benjamini-Hochberg option, when its test survives BH over the trace's tests; a later
significant rise is a *recovery*. The first-error candidate is the first significant drop or the first prefix whose
best continuation scores 0. (docs/formats/prefix-values.md.)

Everything is pure (no Streamlit, no file access) and vectorised over the whole table with
polars, so the same code serves one trace, the CLI and the 86k-row collection summaries.

Canonical columns produced by `normalise` (the stored names are not published; roles are mapped
with `cache.schemas.FINEPROOFS_ROLES`): `problem_id`, `sample_index`, `step`, `num_steps`,
`ordinal` (1-based prefix number within its trace), `n_prefixes`, `rel_depth`, `value`, `std`,
`n`, `hist` (list of 20 counts, null when unusable), `min_grade`, `max_grade`, `endpoint`,
`source`, `utf16_start`, `utf16_end`, plus every unknown column under its own name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from analysis.fineproofs.multitest import bh_reject_expr, p_value_expr
from cache.errors import SchemaError
from cache.schemas import FINEPROOFS_ROLES, RoleMap, map_roles

N_BINS = 20
N_CONTINUATIONS = 32
KEYS = ("problem_id", "sample_index")
# bins that grades k/7 fall in: 0, 2, 5, 8, 11, 14, 17, 19
GRADE_LEVELS = np.arange(8) / 7.0


def grade_bin(x: object) -> np.ndarray:
    """Binning (docs/formats/prefix-values.md) `min(19, floor(x*20 + 1e-9))`; NaN gives -1.

    `floor(x / 0.05)` would put 0.15 in bin 2 (0.15/0.05 == 2.9999999999999996).
    """
    a = np.asarray(x, dtype=np.float64)
    out = np.minimum(19, np.floor(np.clip(a, 0.0, 1.0) * 20 + 1e-9))
    return np.where(np.isnan(a), -1, out).astype(np.int64)


def grade_bin_expr(expr: pl.Expr) -> pl.Expr:
    """The same binning as a polars expression (null/NaN stay null)."""
    e = expr.fill_nan(None).clip(0.0, 1.0)
    return (e * 20 + 1e-9).floor().clip(0, 19).cast(pl.Int64)


def _bin_levels() -> np.ndarray:
    """The grade a bin stands for: k/7 when the bin holds one (always, for real data), else its centre."""
    levels = (np.arange(N_BINS) + 0.5) / N_BINS
    for k, g in enumerate(GRADE_LEVELS):
        levels[grade_bin(g)] = k / 7.0
    return levels


BIN_LEVELS = _bin_levels()
GRADE_BINS = grade_bin(GRADE_LEVELS)


def hist_stats(hist: np.ndarray) -> dict[str, np.ndarray]:
    """Mean, std, count, min and max grade from 20-bin count histograms (rows x 20).

    Uses the grade levels k/7 the bins hold (exact for rubric grades), not the bin centres.
    The std is the population std (ddof=0), the definition of a stored std, so a file that
    stores only histograms gives the same SE, z and flags as one that also stores the std.
    """
    h = np.asarray(hist, dtype=np.float64)
    if h.ndim == 1:
        h = h[None, :]
    n = h.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (h * BIN_LEVELS).sum(1) / n
        ss = (h * BIN_LEVELS**2).sum(1) - n * mean**2
        std = np.sqrt(np.clip(ss, 0, None) / np.where(n > 0, n, np.nan))
    present = h > 0
    lo = np.where(present.any(1), BIN_LEVELS[np.argmax(present, 1)], np.nan)
    hi = np.where(present.any(1), BIN_LEVELS[N_BINS - 1 - np.argmax(present[:, ::-1], 1)], np.nan)
    return {"mean": mean, "std": std, "n": n, "min": lo, "max": hi}


# ------------------------------------------------------------------------------ role mapping
def map_prefix_roles(columns: list[str], where: str = "data/prefix_values.parquet") -> RoleMap:
    """Map the prefix table's columns to roles (aliases: docs/formats/datasets.md, "FineProofs"); raises SchemaError."""
    roles = map_roles(columns, FINEPROOFS_ROLES, where, "FineProofs prefix-value")
    if not roles.has("value") and not roles.has("hist"):
        raise SchemaError(
            f"{where}: neither a mean-grade column nor a grade histogram was found",
            "expected `mean_grade` or a 20-count histogram (`grade_hist`, `histogram`); "
            f"found columns: {', '.join(columns)}",
        )
    return roles


@dataclass
class Normalised:
    """The canonical prefix table plus what was found wrong with the data (shown in the UI)."""

    frame: pl.DataFrame
    roles: RoleMap
    notes: list[str] = field(default_factory=list)
    extra_columns: tuple[str, ...] = ()


def _hist_matrix(col: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """(valid mask, counts matrix of valid rows) for a list column of 20 counts."""
    s = col.cast(pl.List(pl.Float64), strict=False)
    lens = s.list.len().fill_null(-1).to_numpy()
    ok = lens == N_BINS
    if not ok.any():
        return ok, np.zeros((0, N_BINS))
    mat = s.filter(pl.Series(ok)).explode().to_numpy().astype(np.float64).reshape(-1, N_BINS)
    bad = ~np.isfinite(mat).all(1) | (mat < 0).any(1) | (mat.sum(1) <= 0)
    if bad.any():
        idx = np.flatnonzero(ok)
        ok[idx[bad]] = False
        mat = mat[~bad]
    return ok, mat


def normalise(df: pl.DataFrame, where: str = "data/prefix_values.parquet") -> Normalised:
    """Canonical prefix table (see module doc) with notes about degraded or bad rows.

    Mean, std and count come from the stored columns; where they are missing or NaN they are
    derived from the 20-bin histogram (grade levels k/7). Histograms of the wrong length or
    with negative/NaN counts are ignored (null) and reported.
    """
    roles = map_prefix_roles(df.columns, where)
    notes: list[str] = []
    n_rows = df.height
    rename = {c: role for role, c in roles.columns.items() if c is not None}
    base = df.select([pl.col(c).alias(r) for c, r in rename.items()])
    extra = [c for c in df.columns if c not in rename]
    canonical = {
        "problem_id", "sample_index", "step", "num_steps", "ordinal", "n_prefixes", "rel_depth",
        "value", "std", "n", "se", "hist", "min_grade", "max_grade", "endpoint", "source",
        "utf16_start", "utf16_end", "row",
    }  # fmt: skip
    extra_frame = df.select(
        [pl.col(c).alias(f"{c} (extra)" if c in canonical else c) for c in extra]
    )
    out = pl.DataFrame(
        {
            "problem_id": base["problem"].cast(pl.String),
            "sample_index": base["sample"].cast(pl.Int64, strict=False),
            "step": base["step"].cast(pl.Int64, strict=False),
            "row": pl.Series(np.arange(n_rows, dtype=np.int64)),
        }
    )

    def num(role: str) -> pl.Series:
        if roles.has(role):
            return base[role].cast(pl.Float64, strict=False).fill_nan(None)
        return pl.Series(role, [None] * n_rows, dtype=pl.Float64)

    value, std, count = num("value"), num("std"), num("count")
    vmin, vmax = num("min"), num("max")
    hist_col = pl.Series("hist", [None] * n_rows, dtype=pl.List(pl.Int64))
    if roles.has("hist"):
        ok, mat = _hist_matrix(base["hist"])
        n_bad = int((~ok & base["hist"].is_not_null().to_numpy()).sum())
        if n_bad:
            notes.append(
                f"{n_bad} prefix rows have a histogram that is not {N_BINS} non-negative counts "
                f"(column `{roles['hist']}`); those histograms are ignored."
            )
        if ok.any():
            st = hist_stats(mat)
            full = {k: np.full(n_rows, np.nan) for k in st}
            for k, v in st.items():
                full[k][ok] = v
            hist_vals = np.zeros((n_rows, N_BINS), dtype=np.int64)
            hist_vals[ok] = np.rint(mat).astype(np.int64)
            hist_col = (
                pl.DataFrame({"h": pl.Series(hist_vals).cast(pl.List(pl.Int64)), "ok": ok})
                .select(pl.when(pl.col("ok")).then(pl.col("h")).alias("hist"))
                .to_series()
            )
            derived = {k: pl.Series(k, v).fill_nan(None) for k, v in full.items()}
            n_fill = int((value.is_null() & derived["mean"].is_not_null()).sum())
            if not roles.has("value"):
                notes.append("No mean-grade column: values are derived from the 20-bin histogram.")
            elif n_fill:
                notes.append(
                    f"{n_fill} prefix rows have a missing/NaN mean grade; derived from their histogram."
                )
            value = value.fill_null(derived["mean"])
            if not roles.has("std"):
                notes.append(
                    "No std column: spreads are derived from the histogram (grade levels k/7)."
                )
            std = std.fill_null(derived["std"])
            count = count.fill_null(derived["n"])
            vmin = vmin.fill_null(derived["min"])
            vmax = vmax.fill_null(derived["max"])
    n_nan = int(value.is_null().sum())
    if n_nan:
        notes.append(
            f"{n_nan} prefix rows have no usable grade (NaN/missing mean and no valid histogram); "
            "they appear as gaps."
        )
    if not roles.has("count") and not roles.has("hist"):
        notes.append(
            f"No count of graded continuations: assuming {N_CONTINUATIONS} for standard errors."
        )
        count = count.fill_null(float(N_CONTINUATIONS))
    if not roles.has("std") and not roles.has("hist"):
        notes.append("No std column and no histogram: standard errors are unavailable.")
    out = out.with_columns(
        value=value,
        std=std,
        n=count,
        hist=hist_col,
        min_grade=vmin,
        max_grade=vmax,
        endpoint=num("endpoint"),
        source=(base["source"].cast(pl.String) if roles.has("source") else pl.lit(None, pl.String)),
        num_steps=(
            base["num_steps"].cast(pl.Int64, strict=False)
            if roles.has("num_steps")
            else pl.lit(None, pl.Int64)
        ),
        utf16_start=(
            base["start"].cast(pl.Int64, strict=False)
            if roles.has("start")
            else pl.lit(None, pl.Int64)
        ),
        utf16_end=(
            base["end"].cast(pl.Int64, strict=False) if roles.has("end") else pl.lit(None, pl.Int64)
        ),
        depth_raw=num("depth"),
    )
    bad_ids = out["problem_id"].null_count() + out["sample_index"].null_count()
    if bad_ids:
        notes.append(f"{bad_ids} prefix rows lack a problem id or sample index; they are dropped.")
        out = out.filter(pl.col("problem_id").is_not_null() & pl.col("sample_index").is_not_null())
        extra_frame = extra_frame[out["row"].to_numpy()] if extra else extra_frame
    # order within a trace; the ordinal is the prefix number (1-based)
    out = out.with_columns(pl.col("step").fill_null(pl.col("row")))
    out = out.sort([*KEYS, "step", "row"])
    out = out.with_columns(
        ordinal=pl.int_range(1, pl.len() + 1).over(KEYS).cast(pl.Int64),
        n_prefixes=pl.len().over(KEYS).cast(pl.Int64),
    )
    dups = out.select(pl.struct([*KEYS, "step"]).is_duplicated().sum()).item()
    if dups:
        notes.append(f"{dups} prefix rows repeat a (problem, sample, step); all are kept in order.")
    # relative depth: stored depth in [0,1], else depth or step over num_steps, else the ordinal
    depth = pl.col("depth_raw")
    step_rel = pl.col("step").cast(pl.Float64) / pl.col("num_steps").cast(pl.Float64)
    ord_rel = pl.col("ordinal").cast(pl.Float64) / pl.col("n_prefixes").cast(pl.Float64)
    if roles.has("depth") and out["depth_raw"].drop_nulls().max() is not None:
        if float(out["depth_raw"].drop_nulls().max()) <= 1.0:  # type: ignore[arg-type]  # polars types a column max loosely
            rel = depth
        else:
            rel = depth / pl.col("num_steps").cast(pl.Float64)
    else:
        rel = step_rel
    out = out.with_columns(rel_depth=rel.fill_nan(None).fill_null(ord_rel).clip(0.0, 1.0))
    if out["num_steps"].is_null().all() and not roles.has("depth"):
        notes.append("No num_steps/depth column: relative depth is the prefix ordinal / prefixes.")
    out = out.drop("depth_raw")
    if extra:
        out = out.hstack(extra_frame[out["row"].to_numpy()])
    return Normalised(out, roles, notes, tuple(extra_frame.columns))


# ------------------------------------------------------------------------------ per-prefix series
@dataclass(frozen=True)
class SeriesParams:
    """Thresholds of the drop rule (docs/formats/prefix-values.md): |z| > z and |d| >= min_drop; bimodality fractions."""

    z: float = 2.0
    min_drop: float = 0.15
    bimodal_frac: float = 0.25  # mass needed at *each* end of the histogram
    one_step_share: float = 0.6  # largest drop / total decline above this: "one-step" failure
    # "none": each change is tested alone at |z| > z; "bh": Benjamini-Hochberg over the z-tests
    # of each trace at false discovery rate fdr_q (analysis/fineproofs/multitest.py)
    correction: str = "none"
    fdr_q: float = 0.05


def annotate(frame: pl.DataFrame, params: SeriesParams = SeriesParams()) -> pl.DataFrame:
    """Add per-prefix series columns to a canonical table (all traces at once).

    se, prev_value, change (from the previous prefix with a value), z, p_value (two-sided),
    sig_drop, sig_rise (per-test |z| rule, or Benjamini-Hochberg per trace: `params.correction`),
    recovery, best_zero, bimodal, low_frac, high_frac, first_error (bool on that prefix),
    flags (short text).
    """
    g = KEYS
    v = pl.col("value")
    se = pl.when(pl.col("n") > 0).then(pl.col("std") / pl.col("n").sqrt())
    out = frame.with_columns(se=se.cast(pl.Float64))
    # carry the previous *valid* prefix: NaN (not null) marks "valid value, unknown SE"
    se_mark = pl.when(v.is_not_null()).then(pl.col("se").fill_null(float("nan")))
    out = out.with_columns(
        prev_value=v.shift(1).forward_fill().over(g),
        prev_se=se_mark.shift(1).forward_fill().over(g),
    )
    change = v - pl.col("prev_value")
    denom = (pl.col("se") ** 2 + pl.col("prev_se") ** 2).sqrt()
    out = out.with_columns(change=change)
    out = out.with_columns(
        z=pl.when(denom > 0)
        .then(pl.col("change") / denom)
        .when(pl.col("change") > 0)
        .then(float("inf"))
        .when(pl.col("change") < 0)
        .then(float("-inf"))
        .when(pl.col("change") == 0)
        .then(0.0)
    )
    z = pl.col("z").fill_nan(None)
    out = out.with_columns(p_value=p_value_expr(z))
    if params.correction == "bh":
        sig = bh_reject_expr(pl.col("p_value"), g, params.fdr_q)
        down, up = sig & (z < 0), sig & (z > 0)
    else:
        down, up = z < -params.z, z > params.z
    out = out.with_columns(
        sig_drop=(down & (pl.col("change") <= -params.min_drop)).fill_null(False),
        sig_rise=(up & (pl.col("change") >= params.min_drop)).fill_null(False),
    )
    earlier_drop = (pl.col("sig_drop").cast(pl.Int32).cum_sum().over(g) - pl.col("sig_drop")) > 0
    out = out.with_columns(recovery=pl.col("sig_rise") & earlier_drop)
    # best continuation scored 0: max grade 0, or all histogram mass in bin 0
    hist_zero = pl.col("hist").list.first() == pl.col("hist").list.sum()
    best_zero = pl.coalesce(pl.col("max_grade") <= 1e-12, hist_zero, v <= 1e-12)
    low = pl.col("hist").list.slice(0, 5).list.sum()  # grades < 0.25: 0 and 1/7
    high = pl.col("hist").list.slice(15, 5).list.sum()  # grades >= 0.75: 6/7 and 1
    tot = pl.col("hist").list.sum()
    out = out.with_columns(
        best_zero=best_zero.fill_null(False),
        low_frac=(low / tot).cast(pl.Float64),
        high_frac=(high / tot).cast(pl.Float64),
    )
    out = out.with_columns(
        bimodal=(
            (pl.col("low_frac") >= params.bimodal_frac)
            & (pl.col("high_frac") >= params.bimodal_frac)
        ).fill_null(False)
    )
    cand = pl.col("sig_drop") | pl.col("best_zero")
    first_ord = pl.when(cand).then(pl.col("ordinal")).min().over(g)
    out = out.with_columns(first_error=(pl.col("ordinal") == first_ord).fill_null(False))
    flags = pl.concat_str(
        [
            pl.when(pl.col("value").is_null()).then(pl.lit("no-grade ")),
            pl.when(pl.col("sig_drop")).then(pl.lit("DROP ")),
            pl.when(pl.col("recovery"))
            .then(pl.lit("RECOVERY "))
            .when(pl.col("sig_rise"))
            .then(pl.lit("rise ")),
            pl.when(pl.col("first_error")).then(pl.lit("first-error ")),
            pl.when(pl.col("best_zero")).then(pl.lit("best=0 ")),
            pl.when(pl.col("bimodal")).then(pl.lit("bimodal ")),
        ],
        ignore_nulls=True,
    ).str.strip_chars()
    return out.with_columns(flags=flags)


def series_from_values(
    values: list[float],
    ses: list[float] | None = None,
    hists: list[list[int]] | None = None,
    params: SeriesParams = SeriesParams(),
) -> pl.DataFrame:
    """Annotated series of one hand-made trace (values with their SEs): for tests and docs.

    `std` is set so that std/sqrt(32) equals the given SE.
    """
    k = len(values)
    ses = ses if ses is not None else [0.03] * k
    frame = pl.DataFrame(
        {
            "problem_id": ["0" * 16] * k,
            "sample_index": [0] * k,
            "step": list(range(1, k + 1)),
            "ordinal": list(range(1, k + 1)),
            "n_prefixes": [k] * k,
            "rel_depth": [(i + 1) / k for i in range(k)],
            "value": pl.Series(
                [None if x is None or x != x else x for x in values], dtype=pl.Float64
            ),
            "std": [s * math.sqrt(N_CONTINUATIONS) for s in ses],
            "n": [float(N_CONTINUATIONS)] * k,
            "hist": pl.Series(hists if hists is not None else [None] * k, dtype=pl.List(pl.Int64)),
            "min_grade": pl.Series([None] * k, dtype=pl.Float64),
            "max_grade": pl.Series([None] * k, dtype=pl.Float64),
            "endpoint": pl.Series([None] * k, dtype=pl.Float64),
            "source": pl.Series([None] * k, dtype=pl.String),
            "num_steps": pl.Series([None] * k, dtype=pl.Int64),
        }
    )
    return annotate(frame, params)


def trace_series(annotated: pl.DataFrame, problem_id: str, sample_index: int) -> pl.DataFrame:
    """The annotated prefixes of one trace, in order."""
    return annotated.filter(
        (pl.col("problem_id") == str(problem_id)) & (pl.col("sample_index") == int(sample_index))
    ).sort("ordinal")


def trace_row(summary: pl.DataFrame, problem_id: str, sample_index: int) -> dict[str, Any]:
    """The per-trace summary row of one trace as a dict ({} when the summary lacks it)."""
    row = summary.filter(
        (pl.col("problem_id") == problem_id) & (pl.col("sample_index") == sample_index)
    )
    return row.row(0, named=True) if row.height else {}


# ------------------------------------------------------------------------------ summaries
Shape = Literal[
    "steady", "low throughout", "one-step", "gradual", "drop then recovery", "rising", "no grades"
]


def trace_summary(annotated: pl.DataFrame, params: SeriesParams = SeriesParams()) -> pl.DataFrame:
    """One row per trace: endpoint grade, prefixes, first/last value, largest drop and its depth,
    total decline, the drop's share of it (one-step vs gradual; not clamped: above 1 when the
    value also rose, before or after the drop), first-error depth, counts of
    significant drops/recoveries/bimodal prefixes, and a shape label.

    Shape: "drop then recovery" if any recovery; else a significant total decline (>= min_drop,
    z > 2 between first and last prefix) is "one-step" when the largest single drop is
    significant and >= 60% of it, "gradual" otherwise; a significant rise is "rising"; a trace
    that never reaches 0.3 is "low throughout"; the rest "steady".
    """
    a = annotated
    valid = pl.col("value").is_not_null()
    drop_mag = (-pl.col("change")).fill_null(float("-inf"))
    per = a.group_by(KEYS, maintain_order=True).agg(
        source=pl.col("source").drop_nulls().first(),
        n_prefixes=pl.len().cast(pl.Int64),
        n_valid=valid.sum().cast(pl.Int64),
        num_steps=pl.col("num_steps").max(),
        endpoint=pl.col("endpoint").drop_nulls().first(),
        first_value=pl.col("value").drop_nulls().first(),
        last_value=pl.col("value").drop_nulls().last(),
        first_se=pl.col("se").filter(valid).first(),
        last_se=pl.col("se").filter(valid).last(),
        mean_value=pl.col("value").mean(),
        max_value=pl.col("value").max(),
        largest_drop=(-pl.col("change")).max(),
        largest_drop_ordinal=pl.col("ordinal").sort_by(drop_mag, descending=True).first(),
        largest_drop_step=pl.col("step").sort_by(drop_mag, descending=True).first(),
        largest_drop_depth=pl.col("rel_depth").sort_by(drop_mag, descending=True).first(),
        largest_drop_sig=pl.col("sig_drop").sort_by(drop_mag, descending=True).first(),
        first_error_ordinal=pl.col("ordinal").filter(pl.col("first_error")).first(),
        first_error_step=pl.col("step").filter(pl.col("first_error")).first(),
        first_error_depth=pl.col("rel_depth").filter(pl.col("first_error")).first(),
        n_sig_drops=pl.col("sig_drop").sum().cast(pl.Int64),
        n_recoveries=pl.col("recovery").sum().cast(pl.Int64),
        n_bimodal=pl.col("bimodal").sum().cast(pl.Int64),
    )
    per = per.with_columns(
        largest_drop=pl.when(pl.col("largest_drop") > 0)
        .then(pl.col("largest_drop"))
        .otherwise(0.0),
        total_decline=(pl.col("first_value") - pl.col("last_value")),
    )
    tz = pl.col("total_decline") / (pl.col("first_se") ** 2 + pl.col("last_se") ** 2).sqrt()
    per = per.with_columns(
        decline_z=pl.when(pl.col("n_valid") > 1).then(tz.fill_nan(None)),
        largest_drop_ordinal=pl.when(pl.col("largest_drop") > 0).then(
            pl.col("largest_drop_ordinal")
        ),
        largest_drop_step=pl.when(pl.col("largest_drop") > 0).then(pl.col("largest_drop_step")),
        largest_drop_depth=pl.when(pl.col("largest_drop") > 0).then(pl.col("largest_drop_depth")),
        drop_share=pl.when(pl.col("total_decline") >= params.min_drop).then(
            pl.col("largest_drop") / pl.col("total_decline")
        ),
    )
    shape = (
        pl.when(pl.col("n_valid") == 0)
        .then(pl.lit("no grades"))
        .when(pl.col("n_recoveries") > 0)
        .then(pl.lit("drop then recovery"))
        .when((pl.col("total_decline") >= params.min_drop) & (pl.col("decline_z") > params.z))
        .then(
            pl.when((pl.col("drop_share") >= params.one_step_share) & pl.col("largest_drop_sig"))
            .then(pl.lit("one-step"))
            .otherwise(pl.lit("gradual"))
        )
        .when((pl.col("total_decline") <= -params.min_drop) & (pl.col("decline_z") < -params.z))
        .then(pl.lit("rising"))
        .when(pl.col("max_value") < 0.3)
        .then(pl.lit("low throughout"))
        .otherwise(pl.lit("steady"))
    )
    return per.with_columns(shape=shape)


def depth_distribution(annotated: pl.DataFrame, n_bins: int = 10) -> pl.DataFrame:
    """Value distribution per source x relative-depth bin: count, mean and quantiles."""
    a = annotated.filter(pl.col("value").is_not_null()).with_columns(
        source=pl.col("source").fill_null("(none)"),
        depth_bin=pl.min_horizontal(
            pl.lit(n_bins - 1), (pl.col("rel_depth") * n_bins + 1e-9).floor()
        ).cast(pl.Int64),
    )
    v = pl.col("value")
    return (
        a.group_by("source", "depth_bin")
        .agg(
            count=pl.len().cast(pl.Int64),
            mean=v.mean(),
            std=v.std(ddof=0),  # population, like every std of the slice
            q10=v.quantile(0.1, "linear"),
            q25=v.quantile(0.25, "linear"),
            median=v.median(),
            q75=v.quantile(0.75, "linear"),
            q90=v.quantile(0.9, "linear"),
            sig_drop_rate=pl.col("sig_drop").mean(),
        )
        .with_columns(
            depth_lo=pl.col("depth_bin") / n_bins, depth_hi=(pl.col("depth_bin") + 1) / n_bins
        )
        .sort("source", "depth_bin")
    )


def shard_coverage(traces: pl.DataFrame, present: set[str]) -> pl.DataFrame:
    """Per trace shard (first two hex chars of the problem id): traces the prefix table refers
    to and whether the shard file is present; answers "which prefix rows have no trace file"."""
    return (
        traces.group_by(shard=pl.col("problem_id").str.slice(0, 2).str.to_lowercase())
        .agg(traces=pl.len().cast(pl.Int64), prefixes=pl.col("n_prefixes").sum())
        .with_columns(present=pl.col("shard").is_in(sorted(present)))
        .sort("shard")
    )
