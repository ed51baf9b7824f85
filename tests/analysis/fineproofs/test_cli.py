"""`python -m analysis fineproofs-trace`: table and JSON output, data errors as exit code 2."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from analysis.__main__ import main
from analysis.fineproofs.utf16 import Utf16Index
from analysis.fineproofs.values import annotate, normalise
from cache.fineproofs_io import load_trace
from cache.sample.fineproofs import write_sample
from tests.analysis.fineproofs.crafted import (
    LONE,
    REPLACEMENT,
    astral_trace,
    inject_lone_surrogate,
    push_end_past_text,
)


@pytest.fixture(scope="module")
def fp_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fp-cli")
    write_sample(root)
    return root


def _astral_trace(root: Path) -> tuple[str, int]:
    df = pl.read_parquet(root / "data/prefix_values.parquet")
    for pid, sample in df.select("problem_id", "sample_index").unique(maintain_order=True).rows():
        if not Utf16Index(load_trace(root, pid, sample).text).fast_path:
            return pid, sample
    raise AssertionError("sample has no astral trace")


def test_json_output_maps_offsets(fp_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pid, sample = _astral_trace(fp_root)
    assert (
        main(
            ["fineproofs-trace", str(fp_root), "--problem", pid, "--sample", str(sample), "--json"]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    rec = load_trace(fp_root, pid, sample)
    df = (
        pl.read_parquet(fp_root / "data/prefix_values.parquet")
        .filter((pl.col("problem_id") == pid) & (pl.col("sample_index") == sample))
        .sort("step_idx")
    )
    rows = doc["prefixes"]
    assert [r["step"] for r in rows] == df["step_idx"].to_list()
    assert [r["value"] for r in rows] == pytest.approx(df["mean_grade"].to_list())
    for r, s in zip(rows, rec.steps, strict=True):
        assert r["step_text"] == rec.text[r["py_start"] : r["py_end"]]
        assert r["py_end"] - r["py_start"] <= s.utf16_end - s.utf16_start
    # at least one step sits after an astral character: Python index < UTF-16 offset
    assert any(r["py_start"] < s.utf16_start for r, s in zip(rows, rec.steps, strict=True))
    ses = (df["std_grade"] / df["n_graded"].cast(pl.Float64).sqrt()).to_list()
    assert [r["se"] for r in rows] == pytest.approx(ses)
    assert rows[0]["change"] is None
    assert rows[1]["change"] == pytest.approx(rows[1]["value"] - rows[0]["value"])


def test_table_output(fp_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pid, sample = _astral_trace(fp_root)
    assert (
        main(["fineproofs-trace", str(fp_root / "data"), "--problem", pid, "--sample", str(sample)])
        == 0
    )
    out = capsys.readouterr().out
    rec = load_trace(fp_root, pid, sample)
    assert f"trace {pid} sample {sample}" in out
    assert "value" in out and "SE" in out and "change" in out
    first = rec.text[:40]
    idx = Utf16Index(rec.text)
    s0 = rec.steps[0]
    step0 = idx.slice(s0.utf16_start, s0.utf16_end)
    assert step0 is not None and step0.replace("\r", "\\r").replace("\n", "\\n")[:60] in out
    assert first  # the text is non-empty


def test_flags_printed_for_a_drop(fp_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = annotate(normalise(pl.read_parquet(fp_root / "data/prefix_values.parquet")).frame)
    row = a.filter(pl.col("sig_drop")).row(0, named=True)
    main(
        [
            "fineproofs-trace",
            str(fp_root),
            "--problem",
            row["problem_id"],
            "--sample",
            str(row["sample_index"]),
        ]
    )
    out = capsys.readouterr().out
    assert "DROP" in out


def test_unknown_trace_and_missing_shard(
    fp_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid, sample = _astral_trace(fp_root)
    assert main(["fineproofs-trace", str(fp_root), "--problem", pid, "--sample", "999"]) == 2
    err = capsys.readouterr().err
    assert "no prefix rows" in err and f"problem {pid} has samples" in err
    # a copy whose shard is gone: a clear message, not a traceback
    shutil.copytree(fp_root, tmp_path / "copy")
    (tmp_path / "copy" / "data/traces" / f"{pid[:2]}.json.gz").unlink()
    assert (
        main(
            ["fineproofs-trace", str(tmp_path / "copy"), "--problem", pid, "--sample", str(sample)]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "shard" in err and "missing" in err and "Traceback" not in err
    (tmp_path / "copy" / "data/traces" / f"{pid[:2]}.json.gz").write_bytes(gzip.compress(b"[")[:10])
    assert (
        main(
            ["fineproofs-trace", str(tmp_path / "copy"), "--problem", pid, "--sample", str(sample)]
        )
        == 2
    )
    assert "cannot decompress" in capsys.readouterr().err
    assert (
        main(["fineproofs-trace", str(tmp_path / "nowhere"), "--problem", pid, "--sample", "0"])
        == 2
    )
    assert "folder not found" in capsys.readouterr().err


# ---------------------------------------------------------------- crafted edge cases
def _copy(fp_root: Path, tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(fp_root, root)
    return root


def test_lone_surrogate_keeps_offsets_exact(
    fp_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(fp_root, tmp_path)
    pid, sample = astral_trace(root)
    raw = inject_lone_surrogate(root, pid, sample, step=2)
    rec = load_trace(root, pid, sample)
    args = ["fineproofs-trace", str(root), "--problem", pid, "--sample", str(sample)]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    raw_idx = Utf16Index(raw)  # the raw text, surrogate and all: the offsets' own reference
    for r, s in zip(doc["prefixes"], rec.steps, strict=True):
        want = raw_idx.span(s.utf16_start, s.utf16_end)
        assert (r["py_start"], r["py_end"]) == (want.start, want.end)
        assert r["step_text"] == raw[want.start : want.end].replace(LONE, REPLACEMENT)
        assert r["span_issue"] is None
    assert REPLACEMENT in doc["prefixes"][1]["step_text"]
    assert any("unpaired UTF-16 surrogate" in n for n in doc["notes"])
    assert main(args) == 0  # the table prints the step text too
    out = capsys.readouterr().out
    assert REPLACEMENT in out and "offset stays exact" in out


def test_end_offset_past_the_text_is_reported(
    fp_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(fp_root, tmp_path)
    pid, sample = astral_trace(root)
    n_steps = len(load_trace(root, pid, sample).steps)
    end = push_end_past_text(root, pid, sample, step=n_steps)
    args = ["fineproofs-trace", str(root), "--problem", pid, "--sample", str(sample)]
    assert main([*args, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["prefixes"]
    last = rows[-1]
    assert last["py_end"] is None and last["step_text"] is None
    assert f"UTF-16 offset {end} is outside the text" in last["span_issue"]
    assert last["issue_kinds"] == "out_of_range"
    assert all(r["span_issue"] is None for r in rows[:-1])


def test_prefix_table_end_past_the_text_is_reported(
    fp_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(fp_root, tmp_path)
    pid, sample = astral_trace(root)
    table = root / "data/prefix_values.parquet"
    df = pl.read_parquet(table)
    mask = (pl.col("problem_id") == pid) & (pl.col("sample_index") == sample)
    last_step = df.filter(mask)["step_idx"].max()
    df.with_columns(
        prefix_end_utf16=pl.when(mask & (pl.col("step_idx") == last_step))
        .then(pl.lit(99_999))
        .otherwise(pl.col("prefix_end_utf16"))
    ).write_parquet(table)
    assert (
        main(["fineproofs-trace", str(root), "--problem", pid, "--sample", str(sample), "--json"])
        == 0
    )
    last = json.loads(capsys.readouterr().out)["prefixes"][-1]
    assert "prefix table end offset: UTF-16 offset 99999 is outside the text" in last["span_issue"]
    assert last["step_text"] is not None  # the trace file's own span is still fine
