"""`python -m analysis parason-stats` on the sample: text, JSON, folders, errors."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from analysis.__main__ import main
from cache.sample.parason import write_sample


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("parason-cli")
    write_sample(d)
    return d


def test_json_records(root, capsys):
    path = root / "sft-8x" / "train.parquet"
    assert main(["parason-stats", str(path), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == pl.scan_parquet(path).select(pl.len()).collect().item()
    first = json.loads(lines[0])
    assert set(first) >= {
        "uuid",
        "stages",
        "branches",
        "item_kinds",
        "block_kinds",
        "T",
        "C",
        "speedup",
        "warnings",
        "counter",
    }
    assert first["counter"] == "estimate"
    assert first["branches"] == [3] and first["item_kinds"] == [["subtask"] * 3]
    assert first["T"] >= first["C"] > 0 and first["speedup"] == pytest.approx(
        first["T"] / first["C"]
    )
    recs = [json.loads(x) for x in lines]
    assert any("unclosed_thread" in r["warnings"] for r in recs)
    assert max(max(r["branches"], default=0) for r in recs) == 45


def test_text_output_for_dataset_folder_and_words(root, capsys):
    assert main(["parason-stats", str(root), "--counter", "words", "--limit", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# token counter: words + tags")  # tags counted 1 each, truthfully
    assert len(out) == 4
    assert out[1].startswith("sft-1x\t") and "stages=1" in out[1] and "kinds=subtask[SSS]" in out[1]
    assert main(["parason-stats", str(root / "sft-1x"), "--limit", "1"]) == 0
    assert "speedup=" in capsys.readouterr().out


def test_errors_are_clear(root, capsys, tmp_path):
    assert main(["parason-stats", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["parason-stats", str(root / "rl")]) == 2
    err = capsys.readouterr().err
    assert "none of the trajectory columns" in err and "hint:" in err
    bad = tmp_path / "train.parquet"
    bad.write_bytes(b"not a parquet file")
    assert main(["parason-stats", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "is not a readable Parquet file" in err and "replace" in err


def test_missing_optional_columns(tmp_path, capsys):
    df = pl.DataFrame(
        {
            "response_reasoning": [
                "<Parallel><Thread>1: a b</Thread><Thread>2: c</Thread></Parallel>"
            ]
        }
    )
    df.write_parquet(tmp_path / "train.parquet")
    assert main(["parason-stats", str(tmp_path / "train.parquet"), "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert (
        rec["uuid"] == "row-0" and rec["branches"] == [2] and "missing_outlines" in rec["warnings"]
    )
