"""The FineProofs sample: layout, schema, realistic content, determinism; shard reading errors
(the derived-table store wiring is tested in tests/analysis/fineproofs/test_store.py)."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analysis.fineproofs.utf16 import Utf16Index
from analysis.fineproofs.values import GRADE_BINS, annotate, hist_stats, normalise, trace_summary
from cache.errors import CorruptFile, SchemaError
from cache.fineproofs_io import (
    ShardMissing,
    TraceNotFound,
    load_shard,
    load_trace,
    present_shards,
    read_side_json,
    shard_key,
    shard_relpath,
)
from cache.sample.fineproofs import write_large, write_sample
from cache.sources import SourceConfig


@pytest.fixture(scope="module")
def fp_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fineproofs")
    write_sample(root)
    return root


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted((root / "data").rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_layout_and_schema(fp_root: Path) -> None:
    data = fp_root / "data"
    assert (data / "prefix_values.parquet").is_file()
    assert (data / "summary.json").is_file() and (data / "trace_manifest.json").is_file()
    shards = sorted((data / "traces").glob("*.json.gz"))
    assert shards and all(len(p.name) == len("ab.json.gz") for p in shards)
    df = pl.read_parquet(data / "prefix_values.parquet")
    assert df.schema["grade_hist"] == pl.List(pl.Int32)
    for col in ("problem_id", "sample_index", "step_idx", "num_steps", "mean_grade", "std_grade",
                "n_graded", "base_grade", "source"):  # fmt: skip
        assert col in df.columns
    assert df["problem_id"].str.contains(r"^[0-9a-f]{16}$").all()
    traces = df.select("problem_id", "sample_index").unique()
    assert traces.height >= 40
    per = df.group_by("problem_id", "sample_index").len()["len"]
    assert 6 <= per.mean() <= 10  # ~8 prefixes per trace
    assert df["source"].n_unique() >= 4
    assert (df["n_graded"] < 32).any() and (df["n_graded"] == 32).any()


def test_histograms_are_combs_consistent_with_stats(fp_root: Path) -> None:
    df = pl.read_parquet(fp_root / "data/prefix_values.parquet")
    hist = np.stack(df["grade_hist"].to_numpy())
    assert hist.shape[1] == 20
    off_comb = np.setdiff1d(np.arange(20), GRADE_BINS)
    assert hist[:, off_comb].sum() == 0  # grades k/7 only fill bins 0,2,5,...,19
    assert (hist.sum(1) == df["n_graded"].to_numpy()).all()
    st = hist_stats(hist)
    assert np.allclose(st["mean"], df["mean_grade"].to_numpy())
    assert np.allclose(st["std"], df["std_grade"].to_numpy())
    endpoint = df["base_grade"].drop_nulls().to_numpy()
    assert np.allclose(endpoint * 7, np.round(endpoint * 7))


def test_realistic_shapes(fp_root: Path) -> None:
    a = annotate(normalise(pl.read_parquet(fp_root / "data/prefix_values.parquet")).frame)
    shapes = set(trace_summary(a)["shape"])
    assert {"steady", "one-step", "gradual", "drop then recovery"} <= shapes
    assert a["bimodal"].sum() >= 5 and a["sig_drop"].sum() >= 5 and a["recovery"].sum() >= 2


def test_traces_offsets_and_text(fp_root: Path) -> None:
    df = pl.read_parquet(fp_root / "data/prefix_values.parquet")
    astral = crlf = 0
    for (pid, sample), rows in df.group_by("problem_id", "sample_index"):
        rec = load_trace(fp_root, pid, sample)
        idx = Utf16Index(rec.text)
        astral += not idx.fast_path
        crlf += "\r\n" in rec.text
        assert [s.step_idx for s in rec.steps] == sorted(rows["step_idx"].to_list())
        for s, end in zip(rec.steps, rows.sort("step_idx")["prefix_end_utf16"], strict=True):
            span = idx.span(s.utf16_start, s.utf16_end)
            assert span.ok, span.issues
            piece = rec.text[span.start : span.end]
            assert piece and piece == piece.strip()
            assert s.utf16_end == end
            # offsets count UTF-16 units, exactly like JavaScript would
            assert len(rec.text[: span.start].encode("utf-16-le")) // 2 == s.utf16_start
    assert astral >= 10 and crlf >= 3
    assert any("\U0001f3af" in load_trace(fp_root, p, s).text for p, s in
               df.select("problem_id", "sample_index").unique().rows())  # fmt: skip


def test_summary_and_manifest(fp_root: Path) -> None:
    summary = read_side_json(fp_root / "data/summary.json")
    manifest = read_side_json(fp_root / "data/trace_manifest.json")
    df = pl.read_parquet(fp_root / "data/prefix_values.parquet")
    assert summary["n_prefixes"] == df.height
    assert sum(summary["mean_grade_distribution"]["counts"]) == df.height
    assert manifest["n_traces_written"] == summary["n_traces"]
    assert sum(v["traces"] for v in manifest["shards"].values()) == summary["n_traces"]


def test_deterministic(fp_root: Path, tmp_path: Path) -> None:
    write_sample(tmp_path)
    assert _digest(tmp_path) == _digest(fp_root)


def test_write_large_small_scale(tmp_path: Path) -> None:
    write_large(tmp_path, n_prefixes=830, n_traces=100)
    df = pl.read_parquet(tmp_path / "data/prefix_values.parquet")
    assert df.height == 830 and df.select("problem_id", "sample_index").n_unique() == 100
    pid, sample = df.row(0, named=True)["problem_id"], df.row(0, named=True)["sample_index"]
    rec = load_trace(tmp_path, pid, sample)
    idx = Utf16Index(rec.text)
    assert all(idx.span(s.utf16_start, s.utf16_end).ok for s in rec.steps)


# ---------------------------------------------------------------- shard reading errors
def test_shard_key() -> None:
    assert shard_key("AB12cdef00112233") == "ab"
    assert shard_relpath("0f12cdef00112233") == "data/traces/0f.json.gz"
    with pytest.raises(SchemaError, match="hex"):
        shard_key("zz")


def test_missing_shard(tmp_path: Path) -> None:
    with pytest.raises(ShardMissing, match=r"trace shard ab\.json\.gz is missing"):
        load_trace(tmp_path, "ab" + "0" * 14, 0)


def test_corrupt_and_truncated_shards(tmp_path: Path, fp_root: Path) -> None:
    d = tmp_path / "data/traces"
    d.mkdir(parents=True)
    (d / "ab.json.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(CorruptFile, match="ab.json.gz"):
        load_trace(tmp_path, "ab" + "0" * 14, 0)
    good = next((fp_root / "data/traces").glob("*.json.gz")).read_bytes()
    (d / "cd.json.gz").write_bytes(good[: len(good) // 2])
    with pytest.raises(CorruptFile, match="cd.json.gz"):
        load_shard(d / "cd.json.gz")
    (d / "ef.json.gz").write_bytes(gzip.compress(b'{"traces": [ {"problem_id": '))
    with pytest.raises(CorruptFile, match="not valid JSON"):
        load_shard(d / "ef.json.gz")
    (d / "01.json.gz").write_bytes(gzip.compress(b'"just a string"'))
    with pytest.raises(CorruptFile, match="no list of traces"):
        load_shard(d / "01.json.gz")


def test_missing_trace_and_textless_trace(tmp_path: Path) -> None:
    d = tmp_path / "data/traces"
    d.mkdir(parents=True)
    pid = "ab" + "1" * 14
    doc = [
        {"problem_id": pid, "sample_index": 3, "text": "hello", "steps": []},
        {"problem_id": pid, "sample_index": 4, "steps": []},
    ]
    (d / "ab.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))
    assert load_trace(tmp_path, pid, 3).text == "hello"  # a bare JSON list is accepted
    with pytest.raises(TraceNotFound, match="sample 5 is not in the export: shard ab.json.gz"):
        load_trace(tmp_path, pid, 5)
    with pytest.raises(SchemaError, match="has no text"):
        load_trace(tmp_path, pid, 4)


def test_alternative_shard_layouts(tmp_path: Path) -> None:
    d = tmp_path / "data/traces"
    d.mkdir(parents=True)
    pid = "cd" + "2" * 14
    lines = json.dumps(
        {"id": pid, "sample_index": 1, "response": "x\r\ny", "prefixes": [[1, 0, 1], [2, 3, 4]]}
    )
    (d / "cd.json.gz").write_bytes(gzip.compress((lines + "\n" + lines + "\n").encode()))
    rec = load_trace(tmp_path, pid, 1)
    assert rec.text == "x\r\ny" and [(s.step_idx, s.utf16_start) for s in rec.steps] == [
        (1, 0),
        (2, 3),
    ]


def test_present_shards_lists_local_trace_files(fp_root: Path, tmp_path: Path) -> None:
    src = SourceConfig(kind="local", local_path=str(fp_root))
    on_disk = {p.name.split(".")[0] for p in (fp_root / "data/traces").glob("*.json.gz")}
    assert present_shards(src) == on_disk and on_disk
    assert present_shards(SourceConfig(kind="local", local_path=str(tmp_path))) == set()


def test_step_spans_are_what_the_trace_lists(fp_root: Path) -> None:
    df = pl.read_parquet(fp_root / "data/prefix_values.parquet")
    pid, sample = df.select("problem_id", "sample_index").row(0)
    rec = load_trace(fp_root, pid, sample)
    assert rec.step_spans() == [(s.step_idx, s.utf16_start, s.utf16_end) for s in rec.steps]
