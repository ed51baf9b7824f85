"""Is a case's data still there? Real sample files, a missing item, a missing local folder."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cache.casebook.locate import missing

SAMPLE = {"kind": "sample"}


def test_present_items_are_found(sample_root: Path) -> None:
    uuid = pl.read_parquet(sample_root / "parason/sft-1x/train.parquet", columns=["uuid"])[0, 0]
    src = {**SAMPLE, "file": "sft-1x/train.parquet"}
    assert missing("parason", src, {"subset": "sft-1x", "uuid": uuid}) == ""
    mars = {**SAMPLE, "file": "DeepSeek-8B/aime25_deepseek.parquet"}
    assert missing("mars", mars, {"file": mars["file"], "qid": "3"}) == ""
    assert missing("playground", mars, {"file": mars["file"], "qid": "3"}) == ""
    pid, sample = pl.read_parquet(
        sample_root / "fineproofs/data/prefix_values.parquet",
        columns=["problem_id", "sample_index"],
    ).row(0)
    assert missing("fineproofs", SAMPLE, {"problem": pid, "sample": str(sample)}) == ""


def test_a_gone_item_or_source_is_named(sample_root: Path, tmp_path: Path) -> None:
    src = {**SAMPLE, "file": "sft-1x/train.parquet"}
    assert "no longer in sft-1x/train.parquet" in missing("parason", src, {"uuid": "nope"})
    mars = {**SAMPLE, "file": "DeepSeek-8B/aime25_deepseek.parquet"}
    assert "question 99999" in missing("mars", mars, {"qid": "99999"})
    assert "no longer there" in missing("fineproofs", SAMPLE, {"problem": "nope", "sample": "0"})
    gone = {"kind": "local", "local_path": str(tmp_path / "moved-away"), "file": mars["file"]}
    assert missing("mars", gone, {"qid": "3"}).startswith("its data is not available")
