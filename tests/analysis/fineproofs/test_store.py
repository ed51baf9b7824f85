"""The FineProofs derived-table store: the three tables are built once, read back, versioned,
and keep the data notes of bad rows; a corrupt prefix table raises CorruptFile."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from analysis.fineproofs import store as fs
from cache.errors import CorruptFile
from cache.sample.fineproofs import write_sample


@pytest.fixture(scope="module")
def fp_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fineproofs")
    write_sample(root)
    return root


def test_store_tables_built_once_and_versioned(fp_root: Path, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    path = fp_root / "data/prefix_values.parquet"
    annotated, notes, extra = fs.prefixes_table(path)
    assert extra == ["branch_id"] and notes == []
    assert {"value", "se", "change", "sig_drop", "flags", "branch_id"} <= set(annotated.columns)
    traces = fs.traces_table(path)
    assert traces.height == annotated.select("problem_id", "sample_index").n_unique()
    depth = fs.depth_table(path)
    assert depth["count"].sum() == annotated["value"].is_not_null().sum()
    built = sorted((tmp_path / "cache" / "derived").glob("fineproofs-*.parquet"))
    assert len(built) == 3
    mtimes = [p.stat().st_mtime_ns for p in built]
    fs.traces_table(path)
    assert [p.stat().st_mtime_ns for p in built] == mtimes  # read, not rebuilt
    monkeypatch.setattr(fs, "VERSION", fs.VERSION + 1)
    fs.traces_table(path)
    assert len(list((tmp_path / "cache" / "derived").glob("fineproofs-traces-*.parquet"))) == 2


def test_store_notes_for_bad_rows(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    df = pl.DataFrame(
        {
            "problem_id": ["ab" + "0" * 14] * 2,
            "sample_index": [0, 0],
            "step_idx": [1, 2],
            "mean_grade": [float("nan"), 0.5],
            "grade_hist": [[1, 2], [0] * 20],
        }
    )
    p = tmp_path / "prefix_values.parquet"
    df.write_parquet(p)
    _a, notes, _e = fs.prefixes_table(p)
    assert any("histogram" in n for n in notes) and any("no usable grade" in n for n in notes)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    with pytest.raises(CorruptFile):
        fs.prefixes_table(bad)
