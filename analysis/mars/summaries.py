"""Per-question summaries of the MARS derived tables: the pool of a question, the overview of a
file, vote shares along the checkpoints, the trace sample and the probe table the view shows.

Why here: these are pure functions of the feature/group tables (no Streamlit), so the view, the
stopping simulator and the tests share one computation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from analysis.mars.confidence import WINDOW
from analysis.mars.pool import QuestionPool, checkpoint_answers, probe_grid
from analysis.mars.windows import probe_agreement


def _as_polars(t: pa.Table | pl.DataFrame) -> pl.DataFrame:
    if isinstance(t, pl.DataFrame):
        return t
    df = pl.from_arrow(t)
    if not isinstance(df, pl.DataFrame):  # a Table always gives a frame; mypy cannot know
        raise TypeError(f"expected a table, got {type(t).__name__}")
    return df


def _flat(col: pl.Series, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(offsets [n+1], flat values) of a polars list column (nulls as empty lists)."""
    lens = col.list.len().fill_null(0).to_numpy().astype(np.int64)
    off = np.zeros(lens.shape[0] + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    vals = col.explode().drop_nulls().to_numpy() if off[-1] else np.zeros(0)
    return off, np.asarray(vals, dtype=dtype)


def pool_from_features(
    features: pa.Table | pl.DataFrame,
    groups: pa.Table | pl.DataFrame,
    qid: int,
    *,
    notes: pa.Table | pl.DataFrame | None = None,
    window: int = WINDOW,
) -> QuestionPool:
    """The `QuestionPool` of one question from the feature and group tables (no raw confs).

    grid = sorted multiples of PROBE_STEP (> 0) seen among the question's probe positions;
    a(t, p) = final group if p >= len(t), else the probe group at p (-1 when missing);
    ckpt_conf = conf_at_pos(p), i.e. `end_conf` (the whole-trace mean) when p >= len(t).
    """
    f = _as_polars(features).filter(pl.col("qid") == qid).sort("trace_idx")
    g = _as_polars(groups).filter(pl.col("qid") == qid).sort("group_id")
    n = f.height
    gt = g["ground_truth"][0] if g.height else ""
    note_list: list[str] = []
    if notes is not None:
        nt = _as_polars(notes).filter(pl.col("qid").is_in([qid, -1]))
        note_list = [f"{k}: {m}" for k, m in zip(nt["kind"], nt["message"], strict=True)]
    lengths = f["length"].to_numpy().astype(np.int64) if n else np.zeros(0, dtype=np.int64)
    final_group = f["final_group"].to_numpy().astype(np.int32) if n else np.zeros(0, np.int32)

    p_off, p_pos = _flat(f["probe_pos"], np.int64) if n else (np.zeros(1, np.int64), np.zeros(0))
    grid = probe_grid(p_pos)
    if n and grid.shape[0]:
        c_off, c_pos = _flat(f["ckpt_pos"], np.int64)
        ckpt = (
            c_off,
            c_pos,
            _flat(f["ckpt_conf"], np.float32)[1],
            _flat(f["ckpt_group"], np.int32)[1],
        )
    else:
        ckpt = (np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    end_conf = f["end_conf"].to_numpy() if n else np.zeros(0, np.float32)
    ckpt_group, ckpt_conf = checkpoint_answers(grid, lengths, final_group, end_conf, ckpt)
    if n and "low_window" in f.columns:
        l_off, l_win = _flat(f["low_window"], np.int64)
        _, l_val = _flat(f["low_value"], np.float32)
    else:  # a store loaded without the record lows (the MARS page): no DCO truncation data
        l_off = np.zeros(n + 1, np.int64)
        l_win, l_val = np.zeros(0, np.int64), np.zeros(0, np.float32)

    def col32(name: str) -> np.ndarray:
        return f[name].to_numpy().astype(np.float32) if n else np.zeros(0, np.float32)

    return QuestionPool(
        qid=int(qid),
        ground_truth=str(gt),
        window=int(window),
        trace_idx=f["trace_idx"].to_numpy().astype(np.int64) if n else np.zeros(0, np.int64),
        lengths=lengths,
        final_group=final_group,
        group_labels=[str(x) for x in g["label"].to_list()],
        group_correct=g["is_correct"].to_numpy().astype(bool) if g.height else np.zeros(0, bool),
        grid=grid,
        ckpt_group=ckpt_group,
        ckpt_conf=ckpt_conf,
        mean_conf=col32("mean_conf"),
        tail_conf=col32("tail_conf"),
        min_group=col32("min_group"),
        bottom_10=col32("bottom_10"),
        low_offsets=l_off.astype(np.int64),
        low_window=l_win.astype(np.int64),
        low_value=l_val.astype(np.float32),
        notes=note_list,
    )


# ---------------------------------------------------------------------------------------------
# summaries for the view (pure functions of the derived tables)


def question_overview(
    features: pa.Table | pl.DataFrame, groups: pa.Table | pl.DataFrame
) -> pl.DataFrame:
    """One row per question: traces, pass@1, majority-vote answer (lowest group id on ties) and
    whether it is right, distinct final answers, null answers, median lengths right vs wrong.

    `majority_tie` is how many answers share the top vote count (1: a clear majority, 0: no
    final answer at all); with two or more the vote is an exact tie, so `majority_correct` is
    null (the lowest-id pick is arbitrary) and `majority_tied` lists the tied answers' labels
    (lowest id first) and `tie_has_truth` says whether the ground truth is among them."""
    f = _as_polars(features)
    g = _as_polars(groups)
    top = _top_answers(f, g)
    votes = (
        f.filter(pl.col("final_group") >= 0)
        .group_by("qid", "final_group")
        .len()
        .sort(["qid", "len", "final_group"], descending=[False, True, False])
        .group_by("qid", maintain_order=True)
        .agg(
            pl.col("final_group").first().alias("majority_group"),
            pl.col("len").first().alias("majority_votes"),
            pl.len().alias("n_answers"),
        )
    )
    base = f.group_by("qid").agg(
        pl.len().alias("n_traces"),
        pl.col("final_correct").mean().alias("pass_at_1"),
        (pl.col("final_group") < 0).sum().alias("n_null"),
        pl.col("length").filter(pl.col("final_correct")).median().alias("median_len_correct"),
        pl.col("length").filter(~pl.col("final_correct")).median().alias("median_len_wrong"),
    )
    labels = g.select(
        "qid",
        pl.col("group_id").alias("majority_group"),
        pl.col("label").alias("majority_answer"),
        pl.col("is_correct").alias("majority_correct"),
    )
    gt = g.group_by("qid").agg(pl.col("ground_truth").first())
    out = (
        base.join(votes, on="qid", how="left")
        .join(labels, on=["qid", "majority_group"], how="left")
        .join(gt, on="qid", how="left")
        .join(top, on="qid", how="left")
        .with_columns(
            pl.col("majority_correct").fill_null(False),
            pl.col("n_answers").fill_null(0),
            pl.col("majority_tie").fill_null(0).cast(pl.Int64),
            pl.col("majority_tied").fill_null([]),
            pl.col("tie_has_truth").fill_null(False),
        )
        .with_columns(
            pl.when(pl.col("majority_tie") > 1)
            .then(None)
            .otherwise(pl.col("majority_correct"))
            .alias("majority_correct")
        )
        .sort("qid")
    )
    return out.select(*_OVERVIEW_COLUMNS)


_OVERVIEW_COLUMNS = (
    "qid",
    "n_traces",
    "pass_at_1",
    "majority_answer",
    "majority_correct",
    "majority_votes",
    "majority_tie",
    "majority_tied",
    "tie_has_truth",
    "n_answers",
    "n_null",
    "median_len_correct",
    "median_len_wrong",
    "ground_truth",
)


def _top_answers(f: pl.DataFrame, g: pl.DataFrame) -> pl.DataFrame:
    """Per question: how many answers share the top vote count, their labels (lowest id
    first) and whether the ground truth is among them."""
    counted = f.filter(pl.col("final_group") >= 0).group_by("qid", "final_group").len()
    return (
        counted.filter(pl.col("len") == pl.col("len").max().over("qid"))
        .join(
            g.select("qid", pl.col("group_id").alias("final_group"), "label", "is_correct"),
            on=["qid", "final_group"],
            how="left",
        )
        .sort("qid", "final_group")
        .group_by("qid", maintain_order=True)
        .agg(
            pl.len().alias("majority_tie"),
            pl.col("label").fill_null("").alias("majority_tied"),
            pl.col("is_correct").fill_null(False).any().alias("tie_has_truth"),
        )
    )


@dataclass(frozen=True)
class VoteShares:
    """Share of every answer group among all traces of a question at each checkpoint."""

    positions: np.ndarray  # int64 [K] grid positions
    labels: list[str]  # [m] shown groups (top groups, then "other", then "no answer")
    correct: list[bool]  # [m]
    shares: np.ndarray  # float32 [m, K], columns sum to 1


def vote_shares(pool: QuestionPool, top_k: int = 8) -> VoteShares:
    """a(t, p) over every trace (final answer once p >= len), as shares per checkpoint; the
    `top_k` groups with most final votes are shown (the correct group always), the rest pooled."""
    n, k = pool.ckpt_group.shape
    ng = len(pool.group_labels)
    if n == 0 or k == 0:
        return VoteShares(np.zeros(0, np.int64), [], [], np.zeros((0, 0), np.float32))
    counts = np.zeros((ng + 1, k), dtype=np.float64)  # last row: no answer
    g = np.where(pool.ckpt_group < 0, ng, pool.ckpt_group)
    for col in range(k):
        counts[:, col] = np.bincount(g[:, col], minlength=ng + 1)
    finals = np.bincount(pool.final_group[pool.final_group >= 0], minlength=ng)[:ng]
    order = sorted(range(ng), key=lambda i: (-finals[i], i))
    shown = order[:top_k]
    for i in np.flatnonzero(pool.group_correct).tolist():
        if i not in shown:
            shown.append(i)
    shown.sort(key=lambda i: (-finals[i], i))
    rest = [i for i in range(ng) if i not in shown]
    rows = [counts[i] for i in shown]
    labels = [pool.group_labels[i] for i in shown]
    correct = [bool(pool.group_correct[i]) for i in shown]
    if rest:
        rows.append(counts[rest].sum(axis=0))
        labels.append(f"other ({len(rest)} answers)")
        correct.append(False)
    rows.append(counts[ng])
    labels.append("no answer")
    correct.append(False)
    shares = (np.vstack(rows) / n).astype(np.float32)
    return VoteShares(pool.grid.copy(), labels, correct, shares)


def sample_traces(feats: pl.DataFrame, n: int, seed: int) -> pl.DataFrame:
    """A stable random sample of `n` rows, in their order: growing n keeps the traces already
    shown (a prefix of one fixed permutation)."""
    order = np.random.default_rng(seed).permutation(feats.height)[:n]
    return feats[np.sort(order).tolist()] if feats.height else feats


@dataclass(frozen=True)
class QuestionStats:
    """The headline numbers of one question."""

    n_traces: int
    pass_at_1: float
    n_distinct: int  # distinct final answers (groups with at least one final vote)
    median_length: float
    n_no_answer: int


def question_stats(feats: pl.DataFrame, groups: pl.DataFrame) -> QuestionStats:
    """Traces, pass@1, distinct final answers, median length and traces without a final answer
    of one question (`feats`/`groups` already filtered to it); empty tables give zeros."""
    return QuestionStats(
        n_traces=feats.height,
        pass_at_1=float(feats.select(pl.col("final_correct").mean()).item() or 0),
        n_distinct=int((groups["n_final"] > 0).sum()),
        median_length=float(feats.select(pl.col("length").median()).item() or 0),
        n_no_answer=int((feats["final_group"] < 0).sum()),
    )


PROBE_TABLE_SCHEMA: dict[str, Any] = {
    "position": pl.Int64,
    "answer": pl.String,
    "group": pl.String,
    "vs final": pl.String,
    "is_correct_group": pl.Boolean,
    "is_correct (stored)": pl.Boolean,
    "avg_conf": pl.Float64,
    "conf_at_pos": pl.Float64,
    "raw_text": pl.String,
}


def probe_table(raw_probes: list[dict], f: dict, groups: pl.DataFrame) -> pl.DataFrame:
    """The probes of one trace as read from the file (`raw_probes`), beside what the feature
    row `f` made of them: answer group label, agreement with the trace's final answer
    (`analysis.mars.windows.probe_agreement`), correctness, conf_at_pos at that position."""
    labels = dict(zip(groups["group_id"].to_list(), groups["label"].to_list(), strict=True))
    ours = dict(
        zip(
            f["probe_pos"] or [],
            zip(f["probe_group"] or [], f["probe_correct"] or [], strict=True),
            strict=True,
        )
    )
    ck = dict(zip(f["ckpt_pos"] or [], f["ckpt_conf"] or [], strict=True))
    final = int(f.get("final_group", -1) if f.get("final_group") is not None else -1)
    rows = []
    for p in raw_probes:
        pos = p.get("position")
        g, okg = ours.get(pos, (-1, False))
        g = -1 if g is None else int(g)
        rows.append(
            {
                "position": pos,
                "answer": p.get("answer"),
                "group": labels.get(g, "—") if g >= 0 else "—",
                "vs final": str(probe_agreement(np.array([g]), final)[0]),
                "is_correct_group": bool(okg),
                "is_correct (stored)": p.get("is_correct"),
                "avg_conf": p.get("avg_conf"),
                "conf_at_pos": ck.get(pos),
                "raw_text": p.get("raw_text"),
            }
        )
    return pl.DataFrame(rows, schema=PROBE_TABLE_SCHEMA)
