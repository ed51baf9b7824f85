"""The inventory calls a file "ok" exactly when the view that reads it accepts its columns."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from analysis.fineproofs.values import map_prefix_roles
from analysis.mars.ingest_read import check_schema as _check_schema
from analysis.parason.store import _roles, rl_table
from cache.datasets import check_view_columns
from cache.errors import SchemaError
from cache.inventory import inventory
from cache.scan import parquet_info
from cache.sources import SourceConfig

CASES = [
    ("parason", "sft-1x/train.parquet", {"uuid": ["a"], "qwen_text": ["t"]}, True),
    ("parason", "sft-1x/train.parquet", {"uuid": ["a"], "reasoning": ["t"]}, True),
    ("parason", "sft-8x/train.parquet", {"uuid": ["a"], "question": ["q"]}, False),
    ("parason", "rl/train.parquet", {"prompt": ["p"]}, True),
    ("parason", "rl/train.parquet", {"question": ["q"]}, False),
    ("mars", "Qwen3-32B/hmmt.parquet", {"qid": [1], "trace_idx": [0], "confs": [[0.5]]}, True),
    ("mars", "Qwen3-32B/hmmt.parquet", {"qid": [1], "trace_idx": [0]}, False),
    (
        "mars",
        "Qwen3-32B/hmmt.parquet",
        {"question_id": [1], "trace_idx": [0], "confs": [[0.5]]},
        False,
    ),
    (
        "fineproofs",
        "data/prefix_values.parquet",
        {"problem_id": ["p"], "sample_index": [0], "step_idx": [0], "mean_grade": [0.5]},
        True,
    ),
    (
        "fineproofs",
        "data/prefix_values.parquet",
        {"problem_id": ["p"], "sample_index": [0], "step_idx": [0]},
        False,
    ),
]


def _view_accepts(dataset: str, rel: str, path: Path) -> bool:
    names = pq.read_schema(path).names
    try:
        if dataset == "parason" and rel.startswith("rl/"):
            rl_table(path)
        elif dataset == "parason":
            _roles(names, rel)
        elif dataset == "mars":
            _check_schema(pq.ParquetFile(path), path)
        else:
            map_prefix_roles(names)
    except SchemaError:
        return False
    return True


@pytest.mark.parametrize(("dataset", "rel", "data", "ok"), CASES)
def test_home_check_agrees_with_the_view(
    tmp_path: Path, dataset: str, rel: str, data: dict, ok: bool
) -> None:
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    pl.DataFrame(data).write_parquet(path)
    assert _view_accepts(dataset, rel, path) is ok
    cols = parquet_info(path).columns
    if ok:
        check_view_columns(dataset, rel, cols)
    else:
        with pytest.raises(SchemaError):
            check_view_columns(dataset, rel, cols)
    entry = next(
        f
        for f in inventory(dataset, SourceConfig(kind="local", local_path=str(tmp_path))).files
        if f.relpath == rel
    )
    assert (entry.status == "ok") is ok
    assert ok or entry.problem


def test_sample_files_are_all_ok(sample_root: Path) -> None:
    for dataset in ("parason", "mars", "fineproofs"):
        inv = inventory(dataset, SourceConfig(kind="sample"))
        assert all(f.status == "ok" for f in inv.files), [(f.relpath, f.problem) for f in inv.files]
