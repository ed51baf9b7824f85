"""The Parason lenses (/lenses): the most imbalanced stages of an SFT subset.

Why imbalance: a stage waits for its longest branch, so a stage whose longest branch is far
above the mean of its branches loses most of the parallel speed-up it could have had. The figure
is the metrics table's per-stage `imbalance` (`analysis.parason.metrics`: longest branch tokens
/ mean branch tokens, the stage table's figure), read from the derived table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from analysis.parason.store import metrics_table
from analysis.parason.tables import drop_duplicates
from cache.datasets import PARASON
from cache.lenses import DatasetLenses, Lens
from cache.progress import ProgressFn

VIEW = "parason"
SUBSET_FILES = ("sft-1x/train.parquet", "sft-8x/train.parquet")
IMBALANCED = 1.5  # longest branch / mean branch at or above this


def load(paths: Sequence[Path], part: str, progress: ProgressFn | None = None) -> pl.DataFrame:
    """The subset's metrics table (exact duplicate rows counted once, as the view does), with
    the subset's name in `subset`."""
    table = drop_duplicates(metrics_table(paths[0], progress=progress))[0]
    return table.with_columns(subset=pl.lit(part.split("/", 1)[0]))


def _stages(m: pl.DataFrame) -> pl.DataFrame:
    """One row per top-level stage: uuid, subset, stage (0-based), branches, kind, imbalance."""
    return (
        m.select(
            "uuid",
            "subset",
            "question",
            pl.col("branches"),
            pl.col("block_kinds").alias("kind"),
            pl.col("imbalance"),
        )
        .with_columns(stage=pl.int_ranges(0, pl.col("branches").list.len()))
        .explode("branches", "kind", "imbalance", "stage")
        .filter(pl.col("stage").is_not_null())
    )


def imbalanced_stages(m: pl.DataFrame) -> pl.DataFrame:
    """Stages of two or more branches whose longest branch is at least 1.5 x the mean branch;
    most imbalanced first."""
    rows = (
        _stages(m)
        .filter((pl.col("branches") >= 2) & (pl.col("imbalance") >= IMBALANCED))
        .sort(["imbalance", "uuid", "stage"], descending=[True, False, False])
    )
    return rows.select(
        "subset",
        "uuid",
        pl.col("stage").cast(pl.Int64),
        node=pl.format("b{}t0", "stage"),
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


def _multi_branch_stages(m: pl.DataFrame) -> int:
    return int((_stages(m)["branches"] >= 2).sum())


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
            query=(("subset", "subset"), ("uuid", "uuid"), ("node", "node")),
            item=(("subset", "subset"), ("uuid", "uuid"), ("stage", "stage")),
            fixed=(("view", "Trajectory"),),
            empty="Every stage's branches are within 1.5 × their mean length of each other.",
        ),
    ),
)
