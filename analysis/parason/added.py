"""How many branches the 8x expansion added to each trajectory present in both SFT subsets.

Why: most pairs of a subset are unchanged by the expansion, so finding one that changed by
opening pairs at random is slow. The count is the one the 1x vs 8x tab outlines in magenta
(`analysis.parason.metrics.added_branches`: a thread of the 8x row whose text does not occur in
the same stage of the 1x row), computed for every pair at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl

from analysis.parason.metrics import added_branches, trajectory_text
from analysis.parason.parse import parse
from analysis.parason.store import iter_rows
from cache.derived_tables import PARASON_ADDED
from cache.progress import ProgressFn, no_progress
from cache.store import read_derived

ADDED_SCHEMA = {"uuid": pl.String, "added": pl.Int64}
NAME = PARASON_ADDED.name
VERSION = PARASON_ADDED.version


def _texts(path: Path) -> dict[str, str]:
    """uuid -> the text parsed for it (first copy of a duplicated uuid; rows without a uuid
    cannot be paired and are left out)."""
    out: dict[str, str] = {}
    for _start, rows in iter_rows(path):
        for row in rows:
            uid = row.get("uuid")
            if uid is not None and str(uid) not in out:
                out[str(uid)] = trajectory_text(row)[0]
    return out


def added_counts(
    texts_1x: Mapping[str, str],
    texts_8x: Mapping[str, str],
    progress: ProgressFn | None = None,
) -> pl.DataFrame:
    """(uuid, added) for every uuid in both mappings, in the 8x mapping's order."""
    hook = progress or no_progress
    rows: list[tuple[str, int]] = []
    for i, (uid, text_8x) in enumerate(texts_8x.items()):
        text_1x = texts_1x.get(uid)
        if text_1x is not None:
            flags = added_branches(parse(text_1x), parse(text_8x))
            rows.append((uid, sum(flags.values())))
        if i % 50 == 0:
            hook(i / max(1, len(texts_8x)), f"compared {i} of {len(texts_8x)} pairs")
    return pl.DataFrame(rows, schema=ADDED_SCHEMA, orient="row")


def added_table(path_1x: Path, path_8x: Path, progress: ProgressFn | None = None) -> pl.DataFrame:
    """`added_counts` of two SFT files (sft-1x, sft-8x), built once per pair of files."""
    return read_derived(
        NAME,
        VERSION,
        [Path(path_1x), Path(path_8x)],
        lambda p: added_counts(_texts(Path(path_1x)), _texts(Path(path_8x)), p),
        progress=progress,
    )


def with_added(table: pl.DataFrame, added: pl.DataFrame) -> pl.DataFrame:
    """The Browse table with an `added` column: the pair's added branches, null for a
    trajectory that has no partner in the other subset."""
    if "uuid" not in table.columns:
        return table.with_columns(pl.lit(None, pl.Int64).alias("added"))
    return table.join(added, on="uuid", how="left", maintain_order="left")


def only_changed(table: pl.DataFrame) -> pl.DataFrame:
    """The rows whose pair the 8x expansion changed (at least one added branch)."""
    return table.filter(pl.col("added").fill_null(0) > 0)
