"""FineProofs step labels rejoin the bundled sample's prefix table: every label, in every file
format, lands on its own row of data/prefix_values.parquet by (problem_id, sample_index,
step_idx), and its prefix_ordinal is the app's own prefix number for that row."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analysis.fineproofs.values import normalise
from cache.casebook import Case, make_case
from cache.casebook.io import FORMATS, labels_bytes, step_labels

KEYS = ["problem_id", "sample_index", "step_idx"]
READ = {
    "csv": lambda b: pl.read_csv(b, schema_overrides={"problem_id": pl.String}),
    "jsonl": pl.read_ndjson,
    "parquet": pl.read_parquet,
}


def _step_case(r: dict[str, Any], new_style: bool) -> Case:
    """A step case as the FineProofs view captures it: item problem/sample/prefix (the ordinal),
    snapshot `step` (the step_idx) and `prefix`; newer captures also put `step` in the item."""
    item = {
        "problem": r["problem_id"],
        "sample": str(r["sample_index"]),
        "prefix": str(r["ordinal"]),
    }
    if new_style:
        item["step"] = str(r["step"])
    snapshot = {
        "prefix": r["ordinal"],
        "step": None if new_style else r["step"],
        "value": r["value"],
    }
    return make_case(
        "fineproofs", "fineproofs", item=item, verdict="wrong step", note="n", snapshot=snapshot
    )


@pytest.fixture(scope="module")
def tables(sample_root: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the raw prefix table, the app's canonical one with its `ordinal`)."""
    raw = pl.read_parquet(sample_root / "fineproofs" / "data" / "prefix_values.parquet")
    return raw, normalise(raw).frame


@pytest.mark.parametrize("fmt", FORMATS)
def test_labels_join_back_to_their_rows(
    tables: tuple[pl.DataFrame, pl.DataFrame], fmt: str
) -> None:
    raw, canon = tables
    picks = canon.gather_every(23)  # rows of many traces, at every depth
    assert picks.height >= 10 and (picks["step"] != picks["ordinal"]).any()
    cases = [_step_case(r, i % 2 == 1) for i, r in enumerate(picks.iter_rows(named=True))]
    labels = step_labels(cases)
    assert labels.no_step_index == 0 and labels.frame.height == len(cases)
    back = READ[fmt](io.BytesIO(labels_bytes(labels.frame, fmt)))  # type: ignore[arg-type]
    keyed = raw.with_row_index("source_row").with_columns(
        pl.col("sample_index").cast(pl.Int64), pl.col("step_idx").cast(pl.Int64)
    )
    joined = back.join(keyed, on=KEYS, how="inner")
    assert joined.height == back.height == len(cases)  # 100 % land, each on one row
    want = sorted(picks.select("row").to_series().to_list())
    assert sorted(joined["source_row"].to_list()) == want  # ...on exactly the picked rows
    ordinals = back.join(
        canon.select("problem_id", "sample_index", pl.col("step").alias("step_idx"), "ordinal"),
        on=KEYS,
    )
    assert (ordinals["prefix_ordinal"] == ordinals["ordinal"]).all()
    # the old export (the ordinal as the step) would not have landed on these rows
    as_before = back.with_columns(pl.col("prefix_ordinal").alias("step_idx")).join(
        keyed, on=KEYS, how="inner"
    )
    assert sorted(as_before["source_row"].to_list()) != want


def test_a_step_case_without_a_step_index_is_counted(
    tables: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    _, canon = tables
    r = canon.row(5, named=True)
    case = _step_case(r, new_style=False)
    blind = make_case(
        "fineproofs", "fineproofs", item=case.item, verdict="unclear", snapshot={"prefix": 3}
    )
    labels = step_labels([case, blind])
    assert labels.frame.height == 1 and labels.no_step_index == 1
