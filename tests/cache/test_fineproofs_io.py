"""The trace-shard reader: unpaired surrogates replaced one unit for one (with a note), a shard
that is not gzip, hints that name the file, and what the manifest says about a missing trace."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from analysis.fineproofs.utf16 import Utf16Index
from cache.errors import CorruptFile, SourceNotFound
from cache.fineproofs_io import (
    REPLACEMENT,
    ShardMissing,
    load_shard,
    manifest_says,
    read_json,
    scrub_surrogates,
)


def test_scrub_keeps_length_and_names_offsets() -> None:
    raw = "a𝑥\ud835b\udc00"
    clean, where = scrub_surrogates(raw)
    assert clean == f"a𝑥{REPLACEMENT}b{REPLACEMENT}"
    assert len(clean) == len(raw) and Utf16Index(clean).n_units == Utf16Index(raw).n_units
    assert where == [3, 5]  # UTF-16 offsets: 'a' 1 unit, '𝑥' 2 units
    assert scrub_surrogates("plain 𝑥") == ("plain 𝑥", [])


def test_lone_surrogate_in_a_shard_is_replaced_and_noted(tmp_path: Path) -> None:
    text = "Step one 𝑥.\r\nStep \ud835two."
    trace = {
        "problem_id": "ab" + "0" * 14,
        "sample_index": 0,
        "problem": "Show \udc65.",
        "text": text,
        "steps": [{"step_idx": 1, "utf16_start": 0, "utf16_end": 12},
                  {"step_idx": 2, "utf16_start": 14, "utf16_end": 24}],
    }  # fmt: skip
    path = tmp_path / "ab.json.gz"
    raw = json.dumps({"traces": [trace]})
    assert "\\ud835" in raw  # the JSON holds the escape, as an export would write it
    path.write_bytes(gzip.compress(raw.encode("ascii")))
    rec = load_shard(path)[("ab" + "0" * 14, 0)]
    assert "\ud835" not in rec.text and rec.text == text.replace("\ud835", REPLACEMENT)
    rec.text.encode("utf-8")  # what Streamlit, polars and CSV need
    assert rec.meta["problem"] == f"Show {REPLACEMENT}."
    idx = Utf16Index(rec.text)
    assert idx.slice(14, 24) == f"Step {REPLACEMENT}two."  # offsets after it are unchanged
    assert idx.slice(0, 12) == "Step one 𝑥."
    assert "1 unpaired UTF-16 surrogate (UTF-16 offset 19)" in rec.notes[0]
    assert "offset stays exact" in rec.notes[0]
    assert "problem statement" in rec.notes[1]


def test_a_shard_that_is_not_gzip_says_so(tmp_path: Path) -> None:
    d = tmp_path / "data/traces"
    d.mkdir(parents=True)
    # plain JSON under a .json.gz name: readable, but not what the export writes
    (d / "ab.json.gz").write_text(json.dumps({"traces": []}))
    with pytest.raises(CorruptFile, match=r"ab\.json\.gz is not gzip") as err:
        load_shard(d / "ab.json.gz")
    assert "gzip -c" in err.value.hint and "ab.json.gz" in err.value.hint
    (d / "cd.json.gz").write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(CorruptFile, match=r"cd\.json\.gz is not gzip"):
        load_shard(d / "cd.json.gz")


def test_hints_name_the_file_and_what_to_do(tmp_path: Path) -> None:
    d = tmp_path / "data/traces"
    d.mkdir(parents=True)
    with pytest.raises(ShardMissing) as err:
        load_shard(d / "ab.json.gz")
    assert "copy it from the export" in err.value.hint and "ab.json.gz" in err.value.hint
    (d / "cd.json.gz").write_bytes(b"\x1f\x8b\x08\x00broken")
    with pytest.raises(CorruptFile) as err2:
        load_shard(d / "cd.json.gz")
    assert err2.value.hint.startswith("cd.json.gz looks truncated or corrupt: re-download")
    with pytest.raises(SourceNotFound) as err3:
        read_json(tmp_path / "data/summary.json")
    assert "folder layout" not in err3.value.hint and "summary.json" in err3.value.hint


def test_manifest_says_which_case() -> None:
    pid = "ab" + "0" * 14
    manifest = {
        "n_traces_expected": 10,
        "n_traces_written": 9,
        "missing_traces": [{"problem_id": pid.upper(), "sample_index": 3}, "cd00/1"],
    }
    assert "lists it among the traces missing" in manifest_says(manifest, pid, 3)
    assert manifest_says(manifest, pid, 4) == "trace_manifest.json reports 9 of 10 traces written"
    assert "lists it among" in manifest_says(manifest, "cd00", 1)
    assert manifest_says(None, pid, 3) == "" and manifest_says({}, pid, 3) == ""
