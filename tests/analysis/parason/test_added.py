"""Added branches per 1x/8x pair: the count the 1x vs 8x tab outlines, for every pair at once,
from texts built by hand and from two SFT files through the derived-table store."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.parason.added import added_counts, added_table, only_changed, with_added

ONE = (
    "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines>"
    "<Thread>1: alpha</Thread><Thread>2: beta</Thread></Parallel>"
)
PLUS_ONE = ONE.replace("</Outlines>", "<Trial>3: c</Trial></Outlines>").replace(
    "</Thread></Parallel>", "</Thread><Thread>3: gamma</Thread></Parallel>"
)
PLUS_TWO = PLUS_ONE.replace("</Outlines>", "<Trial>4: d</Trial></Outlines>").replace(
    "</Thread></Parallel>", "</Thread><Thread>4: delta</Thread></Parallel>"
)


def test_counts_each_pair_and_skips_unpaired_uuids() -> None:
    got = added_counts(
        {"u1": ONE, "u2": ONE, "u3": ONE, "only-1x": ONE},
        {"u3": ONE, "u1": PLUS_ONE, "u2": PLUS_TWO, "only-8x": PLUS_TWO},
    )
    assert got.to_dicts() == [
        {"uuid": "u3", "added": 0},
        {"uuid": "u1", "added": 1},
        {"uuid": "u2", "added": 2},
    ]


def test_browse_join_keeps_rows_and_marks_the_unpaired_null() -> None:
    table = pl.DataFrame({"uuid": ["u1", "x", "u3"], "T": [1, 2, 3]})
    added = pl.DataFrame({"uuid": ["u3", "u1"], "added": [0, 4]})
    joined = with_added(table, added)
    assert joined["uuid"].to_list() == ["u1", "x", "u3"]
    assert joined["added"].to_list() == [4, None, 0]
    assert only_changed(joined)["uuid"].to_list() == ["u1"]


def test_a_table_without_uuids_gets_an_empty_column() -> None:
    joined = with_added(pl.DataFrame({"T": [1]}), pl.DataFrame({"uuid": ["u"], "added": [1]}))
    assert joined["added"].to_list() == [None]


def test_two_files_through_the_store(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    p1, p8 = tmp_path / "sft-1x.parquet", tmp_path / "sft-8x.parquet"
    rows = {"question": ["q1", "q2"], "correctness": [True, False]}
    pl.DataFrame({"uuid": ["u1", "u2"], "reasoning": [ONE, ONE], **rows}).write_parquet(p1)
    pl.DataFrame({"uuid": ["u1", "u2"], "reasoning": [PLUS_TWO, ONE], **rows}).write_parquet(p8)
    first = added_table(p1, p8)
    assert first.to_dicts() == [{"uuid": "u1", "added": 2}, {"uuid": "u2", "added": 0}]
    assert added_table(p1, p8).equals(first)
