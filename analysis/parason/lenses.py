"""The Parason lenses (/lenses): the most imbalanced stages of an SFT subset, and Trial stages
whose branches disagree with the final answer.

Why imbalance: a stage waits for its longest branch, so a stage whose longest branch is far
above the mean of its branches loses most of the parallel speed-up it could have had. The figure
is the metrics table's per-stage `imbalance` (`analysis.parason.metrics`: longest branch tokens
/ mean branch tokens, the stage table's figure), read from the derived table. Why split
Trials: a Trial stage where one branch reaches the final answer and another states a different
result is a disagreement the trajectory settled; the branches' results come from the
`parason-trials` table (`analysis.parason.trials`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from analysis.parason.store import metrics_table
from analysis.parason.tables import drop_duplicates
from analysis.parason.trials import trials_table
from cache.datasets import PARASON
from cache.lenses import DatasetLenses, Lens
from cache.progress import ProgressFn

VIEW = "parason"
SUBSET_FILES = ("sft-1x/train.parquet", "sft-8x/train.parquet")
IMBALANCED = 1.5  # longest branch / mean branch at or above this


@dataclass(frozen=True)
class ParasonLensTables:
    """One SFT subset's tables as its lenses read them."""

    subset: str  # "sft-1x" (the view's `subset` key)
    metrics: pl.DataFrame  # the metrics table, exact duplicate rows counted once
    trials: pl.DataFrame  # the Trial-branch table (`analysis.parason.trials.SCHEMA`)


def load(paths: Sequence[Path], part: str, progress: ProgressFn | None = None) -> ParasonLensTables:
    subset = part.split("/", 1)[0]
    table = drop_duplicates(metrics_table(paths[0], progress=progress))[0]
    return ParasonLensTables(
        subset, table.with_columns(subset=pl.lit(subset)), trials_table(paths[0], progress)
    )


def _stages(m: pl.DataFrame) -> pl.DataFrame:
    """One row per top-level stage: uuid, subset, stage (0-based), branches, kind, imbalance,
    its longest thread."""
    return (
        m.select(
            "uuid",
            "subset",
            "question",
            pl.col("branches"),
            pl.col("block_kinds").alias("kind"),
            pl.col("imbalance"),
            pl.col("longest"),
        )
        .with_columns(stage=pl.int_ranges(0, pl.col("branches").list.len()))
        .explode("branches", "kind", "imbalance", "longest", "stage")
        .filter(pl.col("stage").is_not_null())
    )


def imbalanced_stages(t: ParasonLensTables) -> pl.DataFrame:
    """Stages of two or more branches whose longest branch is at least 1.5 x the mean branch;
    most imbalanced first."""
    rows = (
        _stages(t.metrics)
        .filter((pl.col("branches") >= 2) & (pl.col("imbalance") >= IMBALANCED))
        .sort(["imbalance", "uuid", "stage"], descending=[True, False, False])
    )
    return rows.select(
        "subset",
        "uuid",
        pl.col("stage").cast(pl.Int64),
        # the longest branch: the one the stage waits for, which the "why" names
        node=pl.format("b{}t{}", "stage", pl.col("longest").fill_null(0)),
        label=pl.format(
            "{} {} · stage {}", "subset", pl.col("uuid").str.slice(0, 8), pl.col("stage") + 1
        ),
        why=pl.format(
            "longest branch {} × the mean of its {} branches ({} stage)",
            pl.col("imbalance").round(2),
            "branches",
            pl.col("kind").fill_null("untyped"),
        ),
    )


def _multi_branch_stages(t: ParasonLensTables) -> int:
    return int((_stages(t.metrics)["branches"] >= 2).sum())


def split_trials(t: ParasonLensTables) -> pl.DataFrame:
    """Trial stages where at least one branch ends on the final answer and at least one ends on
    a different result (branches stating no result do not count); stages whose accepted branch
    is one of the different ones first, then most disagreeing branches."""
    b = t.trials
    per = b.group_by("uuid", "stage", maintain_order=True).agg(
        branches=pl.col("branches").first(),
        agree=(pl.col("agrees") == True).sum(),  # noqa: E712 - null (no result) is not counted
        differ=(pl.col("agrees") == False).sum(),  # noqa: E712
        first_other=pl.col("branch").filter(pl.col("agrees") == False).first(),  # noqa: E712
        other=pl.col("result").filter(pl.col("agrees") == False).first(),  # noqa: E712
        final=pl.col("final").first(),
        accepted_differs=(
            (pl.col("agrees") == False) & (pl.col("verdict") == "accepted")  # noqa: E712
        ).any(),
    )
    rows = per.filter((pl.col("agree") > 0) & (pl.col("differ") > 0)).sort(
        ["accepted_differs", "differ", "uuid", "stage"], descending=[True, True, False, False]
    )
    return rows.select(
        subset=pl.lit(t.subset),
        uuid="uuid",
        stage=pl.col("stage").cast(pl.Int64),
        node=pl.format("b{}t{}", "stage", "first_other"),
        label=pl.format(
            "{} {} · stage {}",
            pl.lit(t.subset),
            pl.col("uuid").str.slice(0, 8),
            pl.col("stage") + 1,
        ),
        why=pl.format(
            "{} of {} branches end elsewhere (branch {}: {}), {} on the final answer {}{}",
            "differ",
            "branches",
            pl.col("first_other") + 1,
            pl.col("other").str.slice(0, 30),
            "agree",
            pl.col("final").str.slice(0, 30),
            pl.when(pl.col("accepted_differs"))
            .then(pl.lit(" · the accepted branch differs"))
            .otherwise(pl.lit("")),
        ),
    )


def _trial_stages(t: ParasonLensTables) -> int:
    return t.trials.select(pl.struct("uuid", "stage").n_unique()).item() if t.trials.height else 0


_STAGE_LINK = (("subset", "subset"), ("uuid", "uuid"), ("node", "node"))
_STAGE_ITEM = (("subset", "subset"), ("uuid", "uuid"), ("stage", "stage"))


LENSES = DatasetLenses(
    parts=SUBSET_FILES,
    files=lambda part: (part,),
    load=load,
    part_label="subset",
    part_title=lambda rel: rel.split("/", 1)[0],
    lenses=(
        Lens(
            id="parason-imbalanced-stages",
            dataset=PARASON.name,
            title="Most imbalanced stages",
            rule=(
                "A stage of two or more branches whose longest branch is at least 1.5 × the "
                "mean of its branches (tokens; the stage table's imbalance). The stage waits "
                "for that branch. Most imbalanced first."
            ),
            view=VIEW,
            find=imbalanced_stages,
            count=_multi_branch_stages,
            of="stages with 2+ branches",
            query=_STAGE_LINK,
            item=_STAGE_ITEM,
            fixed=(("view", "Trajectory"),),
            empty="Every stage's branches are within 1.5 × their mean length of each other.",
        ),
        Lens(
            id="parason-split-trials",
            dataset=PARASON.name,
            title="Trials that disagree with the answer",
            rule=(
                "A Trial stage where at least one branch ends on the final answer and at least "
                "one ends on a different result. A branch's result is its last boxed answer, "
                "else the number after its last '='; branches stating neither are left out. "
                "Stages whose accepted branch differs first, then the most differing branches."
            ),
            view=VIEW,
            find=split_trials,
            count=_trial_stages,
            of="Trial stages",
            query=_STAGE_LINK,
            item=_STAGE_ITEM,
            fixed=(("view", "Trajectory"),),
            empty=(
                "No Trial stage has branches on both sides of the final answer: each Trial's "
                "branches all reach it, all end elsewhere (sub-results), or state no result."
            ),
        ),
    ),
)
