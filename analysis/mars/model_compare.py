"""Comparing models on the same MARS benchmark: per-question figures of every model's file side
by side, questions ranked by how much the models disagree, and one question's answers, votes and
confidence curves per model.

Why these functions: the files of one benchmark share their questions under the same `qid`
(docs/formats/datasets.md: "0-based question id within the benchmark"); the files hold no problem
text, so `qid` is the only key, and the ground truth is checked beside it (a question whose
files disagree on the ground truth is flagged, never silently merged). Everything here reads the
derived tables (`mars-features`, `mars-groups`), never the raw files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import polars as pl

from analysis.mars.answer_text import answer_key, normalize
from analysis.mars.pool import QuestionPool
from analysis.mars.summaries import question_overview
from cache.datasets import MARS_FILES

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile
CURVE_BIN = 1024  # tokens per bin of the pooled confidence curves
MIN_TRACES = 3  # a curve point needs at least this many traces


def benchmarks() -> tuple[str, ...]:
    """The benchmark keys of the MARS files, in their declaration order."""
    return tuple(dict.fromkeys(b for _, b, _ in MARS_FILES.values()))


def benchmark_files(benchmark: str) -> list[tuple[str, str, str]]:
    """(relpath, model key, label) of every declared file of a benchmark."""
    return [(rel, m, lab) for rel, (m, b, lab) in MARS_FILES.items() if b == benchmark]


def benchmark_of(rel: str) -> str:
    return MARS_FILES[rel][1] if rel in MARS_FILES else benchmarks()[0]


# ---------------------------------------------------------------------------------------------
# per question, per model

ROW_COLUMNS = (
    "qid",
    "model",
    "n_traces",
    "n_correct",
    "pass_at_1",
    "majority_answer",
    "majority_correct",
    "majority_tie",
    "n_answers",
    "n_null",
    "median_len",
    "ground_truth",
)


def question_rows(model: str, features: pl.DataFrame, groups: pl.DataFrame) -> pl.DataFrame:
    """One row per question of one model's file: traces, right traces, pass@1, the majority
    answer and whether it is right (null on an exact tie, as in `question_overview`), distinct
    final answers, traces without one, median length of all traces, the ground truth."""
    ov = question_overview(features, groups)
    extra = features.group_by("qid").agg(
        pl.col("final_correct").sum().cast(pl.Int64).alias("n_correct"),
        pl.col("length").median().alias("median_len"),
    )
    return (
        ov.join(extra, on="qid", how="left")
        .with_columns(pl.lit(model).alias("model"))
        .select(*ROW_COLUMNS)
        .sort("qid")
    )


def side_by_side(rows: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """The models' question rows in one long table (qid, model), every qid that any model has,
    with a row marked `missing` for a model whose file lacks the question, and `truth_agrees`:
    whether all files holding the question name the same ground truth."""
    models = list(rows)
    if not models:
        return pl.DataFrame(schema={c: pl.Null for c in (*ROW_COLUMNS, "missing")})
    long = pl.concat([rows[m].with_columns(pl.lit(False).alias("missing")) for m in models])
    grid = pl.DataFrame({"qid": sorted(set(long["qid"].to_list()))}).join(
        pl.DataFrame({"model": models}), how="cross"
    )
    out = grid.join(long, on=["qid", "model"], how="left").with_columns(
        pl.col("missing").fill_null(True)
    )
    agree = out.group_by("qid").agg(
        (pl.col("ground_truth").drop_nulls().str.strip_chars().n_unique() <= 1).alias(
            "truth_agrees"
        )
    )
    order = {m: i for i, m in enumerate(models)}
    return (
        out.join(agree, on="qid", how="left")
        .with_columns(pl.col("model").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort("qid", "_o")
        .drop("_o")
    )


def _majority_text() -> pl.Expr:
    """The majority answer after ✓ / ✗ (right / wrong; first, so a long answer cut short in a
    narrow column keeps it); the answer alone on an exact tie (no majority to grade)."""
    mark = (
        pl.when(pl.col("majority_correct"))
        .then(pl.lit("✓ "))
        .when(pl.col("majority_correct").not_())
        .then(pl.lit("✗ "))
        .otherwise(pl.lit(""))
    )
    return mark + pl.col("majority_answer")


# the figures a model's block of the side-by-side table can show: (column suffix, expression)
FIGURES: dict[str, tuple[str, Callable[[], pl.Expr]]] = {
    "pass@1": ("pass@1", lambda: pl.col("pass_at_1")),
    "majority": ("majority", _majority_text),
    "distinct answers": ("distinct", lambda: pl.col("n_answers")),
    "median tokens": ("median tokens", lambda: pl.col("median_len")),
    "traces": ("traces", lambda: pl.col("n_traces")),
}
SHOWN_FIGURES = ("pass@1", "majority")  # what fits three models' blocks on a 1024 px screen


def wide(
    table: pl.DataFrame, models: list[str], figures: Sequence[str] = tuple(FIGURES)
) -> pl.DataFrame:
    """One row per question, a block of columns per model (`<model> pass@1` ...), of the
    `figures` asked for (`FIGURES`), in their order there."""
    asked = [f for f in FIGURES if f in figures]
    out = table.select("qid", "truth_agrees").unique("qid").sort("qid")
    for m in models:
        part = table.filter(pl.col("model") == m).select(
            "qid", *(FIGURES[f][1]().alias(f"{m} {FIGURES[f][0]}") for f in asked)
        )
        out = out.join(part, on="qid", how="left")
    return out


# ---------------------------------------------------------------------------------------------
# disagreement


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n ((0, 1) when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """95 % interval of p1 − p2 for two independent proportions: Newcombe's hybrid score
    interval (his method 10, from the two Wilson intervals). Why not Wald: pass@1 is often 0 or
    1, where Wald's interval has zero width."""
    p1, p2 = (k1 / n1 if n1 else 0.0), (k2 / n2 if n2 else 0.0)
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    return (
        d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
        d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
    )


RANK_COLUMNS = (
    "rank",
    "qid",
    "majority_split",
    "right_models",
    "wrong_models",
    "best_model",
    "worst_model",
    "gap",
    "gap_lo",
    "gap_hi",
    "n_models",
    "missing_models",
    "truth_agrees",
)


def disagreement(table: pl.DataFrame) -> pl.DataFrame:
    """Questions ranked by disagreement: first those where one model's majority answer is right
    and another's wrong (`majority_split`; exact ties count as neither), then by the largest
    pass@1 gap between two models (best − worst), then by qid. `gap_lo`/`gap_hi`: the 95 %
    Newcombe interval of that difference (traces taken as independent draws)."""
    rows = []
    for (qid,), part in table.sort("qid").group_by("qid", maintain_order=True):
        have = part.filter(~pl.col("missing"))
        right = have.filter(pl.col("majority_correct").fill_null(False))["model"].to_list()
        wrong = have.filter(pl.col("majority_correct").not_().fill_null(False))["model"].to_list()
        rec: dict[str, object] = {
            "qid": int(qid),
            "majority_split": bool(right and wrong),
            "right_models": ", ".join(right),
            "wrong_models": ", ".join(wrong),
            "n_models": have.height,
            "missing_models": ", ".join(part.filter(pl.col("missing"))["model"].to_list()),
            "truth_agrees": bool(part["truth_agrees"][0]),
            "best_model": None,
            "worst_model": None,
            "gap": None,
            "gap_lo": None,
            "gap_hi": None,
        }
        if have.height >= 2:
            s = have.sort(["pass_at_1", "model"], descending=[True, False], nulls_last=True)
            b, w = s.row(0, named=True), s.row(s.height - 1, named=True)
            lo, hi = newcombe(b["n_correct"], b["n_traces"], w["n_correct"], w["n_traces"])
            rec |= {
                "best_model": b["model"],
                "worst_model": w["model"],
                "gap": float(b["pass_at_1"] - w["pass_at_1"]),
                "gap_lo": lo,
                "gap_hi": hi,
            }
        rows.append(rec)
    schema = {
        "qid": pl.Int64,
        "majority_split": pl.Boolean,
        "right_models": pl.String,
        "wrong_models": pl.String,
        "n_models": pl.Int64,
        "missing_models": pl.String,
        "truth_agrees": pl.Boolean,
        "best_model": pl.String,
        "worst_model": pl.String,
        "gap": pl.Float64,
        "gap_lo": pl.Float64,
        "gap_hi": pl.Float64,
    }
    out = pl.DataFrame(rows, schema=schema).sort(
        ["majority_split", "gap", "qid"], descending=[True, True, False], nulls_last=True
    )
    return (
        out.with_row_index("rank", offset=1)
        .with_columns(pl.col("rank").cast(pl.Int64))
        .select(*RANK_COLUMNS)
    )


# ---------------------------------------------------------------------------------------------
# one question


def answer_distribution(
    groups: Mapping[str, pl.DataFrame], n_null: Mapping[str, int]
) -> pl.DataFrame:
    """Each model's final answers of one question (`groups[model]`: that question's group
    rows) on shared keys: equal answers of different files (same `answer_key` of the normalised
    label) share a key; "no final answer" is its own row. Columns: key, answer (the first
    model's label), correct_in (models whose grouper judged it the ground truth), and per model
    `<model>` = traces and `<model> %` = share of that model's traces."""
    parts = []
    for m, g in groups.items():
        part = g.filter(pl.col("n_final") > 0).select("label", "is_correct", "n_final")
        keys = [answer_key(normalize(lab)) or f"raw:{lab}" for lab in part["label"].to_list()]
        parts.append(
            part.with_columns(pl.Series("key", keys, dtype=pl.String), pl.lit(m).alias("model"))
        )
        if n_null.get(m, 0):
            parts.append(
                pl.DataFrame(
                    {
                        "label": ["(no final answer)"],
                        "is_correct": [False],
                        "n_final": [int(n_null[m])],
                        "key": ["∅"],
                        "model": [m],
                    },
                    schema_overrides={"n_final": part.schema["n_final"]},
                )
            )
    models = list(groups)
    if not parts:
        return pl.DataFrame(schema={"key": pl.String, "answer": pl.String, "correct_in": pl.String})
    long = pl.concat(parts).with_columns(pl.col("n_final").cast(pl.Int64))
    long = long.group_by("key", "model", maintain_order=True).agg(
        pl.col("label").first(), pl.col("is_correct").any(), pl.col("n_final").sum()
    )
    totals = long.group_by("model").agg(pl.col("n_final").sum().alias("_tot"))
    long = long.join(totals, on="model").with_columns(
        (pl.col("n_final") / pl.col("_tot")).alias("share")
    )
    meta = long.group_by("key", maintain_order=True).agg(
        pl.col("label").first().alias("answer"),
        pl.col("model").filter(pl.col("is_correct")).str.join(", ").alias("correct_in"),
        pl.col("share").sum().alias("_sum"),
    )
    out = meta
    for m in models:
        sub = long.filter(pl.col("model") == m).select(
            "key", pl.col("n_final").alias(m), pl.col("share").alias(f"{m} %")
        )
        out = out.join(sub, on="key", how="left")
    out = out.with_columns(
        [pl.col(m).fill_null(0) for m in models] + [pl.col(f"{m} %").fill_null(0.0) for m in models]
    )
    return out.sort([pl.col("key") == "∅", "_sum", "key"], descending=[False, True, False]).drop(
        "_sum"
    )


def truth_share(pools: Mapping[str, QuestionPool]) -> pl.DataFrame:
    """At every checkpoint of each model's pool (tokens generated), the share of all its traces
    whose answer then is the ground truth, and of traces with no answer yet (a(t, p): the probe
    answer while running, the final answer once ended). Long: model, position, truth, none."""
    frames = []
    for m, pool in pools.items():
        n, k = pool.ckpt_group.shape
        if not (n and k):
            continue
        ok = np.zeros(len(pool.group_labels) + 1, dtype=bool)
        ok[: len(pool.group_labels)] = pool.group_correct
        g = np.where(pool.ckpt_group < 0, len(pool.group_labels), pool.ckpt_group)
        frames.append(
            pl.DataFrame(
                {
                    "model": [m] * k,
                    "position": pool.grid.astype(np.int64),
                    "truth": ok[g].mean(axis=0),
                    "none": (pool.ckpt_group < 0).mean(axis=0),
                }
            )
        )
    if not frames:
        return pl.DataFrame(
            schema={
                "model": pl.String,
                "position": pl.Int64,
                "truth": pl.Float64,
                "none": pl.Float64,
            }
        )
    return pl.concat(frames)


def pooled_curves(feats: Mapping[str, pl.DataFrame], bin_tokens: int = CURVE_BIN) -> pl.DataFrame:
    """Per model, the median confidence of right vs wrong-or-no-answer traces along the token
    axis: each trace's stored `curve` (the means over equal slices of it, placed at the
    slices' midpoints) is pooled into `bin_tokens`-token bins; a bin is kept while at least
    MIN_TRACES traces of the class reach it. Long: model, cls, x (bin centre), median, n."""
    frames = []
    for m, f in feats.items():
        if not f.height:
            continue
        pts = (
            f.select("trace_idx", "length", "final_correct", "curve")
            .filter(pl.col("curve").list.len() > 0)
            .with_columns(pl.int_ranges(0, pl.col("curve").list.len()).alias("i"))
            .explode("curve", "i")
            .with_columns(
                (
                    pl.col("length") * (pl.col("i") + 0.5) / pl.col("i").count().over("trace_idx")
                ).alias("x")
            )
            .filter(pl.col("curve").is_not_null() & pl.col("curve").is_not_nan())
        )
        if not pts.height:
            continue
        frames.append(
            pts.with_columns(
                (pl.col("x") // bin_tokens).cast(pl.Int64).alias("bin"),
                pl.when(pl.col("final_correct"))
                .then(pl.lit("right"))
                .otherwise(pl.lit("wrong"))
                .alias("cls"),
            )
            .group_by("cls", "bin")
            .agg(
                pl.col("curve").cast(pl.Float64).median().alias("median"),
                pl.col("trace_idx").n_unique().alias("n"),
            )
            .filter(pl.col("n") >= MIN_TRACES)
            .with_columns(
                pl.lit(m).alias("model"),
                ((pl.col("bin") + 0.5) * bin_tokens).alias("x"),
            )
            .select("model", "cls", "x", "median", pl.col("n").cast(pl.Int64))
            .sort("cls", "x")
        )
    if not frames:
        return pl.DataFrame(
            schema={
                "model": pl.String,
                "cls": pl.String,
                "x": pl.Float64,
                "median": pl.Float64,
                "n": pl.Int64,
            }
        )
    return pl.concat(frames)


def axis_end(ts: pl.DataFrame, pc: pl.DataFrame, bin_tokens: int = CURVE_BIN) -> float:
    """Where a token axis shared by the vote evolution (`truth_share`) and the pooled curves
    (`pooled_curves`) of every model ends: the last checkpoint or curve bin of any model."""
    ends = [0.0]
    if ts.height:
        ends.append(float(ts["position"].max()))  # type: ignore[arg-type]  # a number: ts is not empty
    if pc.height:
        ends.append(float(pc["x"].max()) + bin_tokens / 2)  # type: ignore[arg-type]  # pc is not empty
    return max(ends)
