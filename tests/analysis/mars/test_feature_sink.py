"""The feature table written question by question while a build goes on: the rows of the table
a whole-table write gives, in qid order whatever order the questions finish in, with questions
finished by an earlier run read back in their turn, and a failed write raised, not lost."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from analysis.mars import ingest
from analysis.mars.feature_files import feature_paths
from analysis.mars.feature_sink import FeatureSink
from cache.sample.mars import write_file


@pytest.fixture(scope="module")
def pool(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sink") / "pool.parquet"
    write_file(path, "aime", 16, seed=3, n_questions=5, median_len=2500)
    return path


@pytest.fixture(scope="module")
def whole(pool: Path) -> pa.Table:
    return ingest.build_features(pool, helper=False).features


def _by_question(features: pa.Table) -> dict[int, pa.Table]:
    qids = sorted(set(features.column("qid").to_pylist()))
    return {q: features.filter(pc.equal(features.column("qid"), q)) for q in qids}


def test_questions_offered_out_of_order_are_written_in_qid_order(
    whole: pa.Table, tmp_path: Path
) -> None:
    parts = _by_question(whole)
    qids = list(parts)
    out = tmp_path / "f.parquet"
    sink = FeatureSink(str(out), qids)
    for q in reversed(qids):  # the last first: nothing can be written until the first comes
        sink.offer(q, parts[q])
    sink.finish()
    got = pq.read_table(out)
    assert got.equals(whole)
    assert pq.ParquetFile(out).metadata.num_row_groups == len(qids)  # a row group a question


def test_a_resumed_build_writes_the_questions_an_earlier_run_finished(
    pool: Path, whole: pa.Table, tmp_path: Path
) -> None:
    """A build stopped after two questions, then resumed in the same work folder: its file
    holds every question's rows, those of the first run read back from their chunks."""
    work = tmp_path / "work"
    ingest.build_features(pool, helper=False, work_dir=work, stop_after=2)
    out = tmp_path / "f.parquet"
    got = ingest.build_features(pool, helper=False, work_dir=work, features_out=str(out))
    assert got.features.equals(whole)
    assert pq.read_table(out).equals(whole)


def test_a_question_that_never_came_has_no_rows(whole: pa.Table, tmp_path: Path) -> None:
    parts = _by_question(whole)
    qids = list(parts)
    out = tmp_path / "f.parquet"
    sink = FeatureSink(str(out), qids)
    for q in qids[1:]:
        sink.offer(q, parts[q])
    sink.finish()
    assert pq.read_table(out).column("qid").to_pylist() == [
        q for q in whole.column("qid").to_pylist() if q != qids[0]
    ]


def test_a_failed_write_is_raised_by_finish(whole: pa.Table, tmp_path: Path) -> None:
    """A write that fails on the writer thread (a full disk) is raised where the build waits
    for the file, not lost with the thread."""
    parts = _by_question(whole)
    qids = list(parts)
    sink = FeatureSink(str(tmp_path / "f.parquet"), qids)

    def full_disk(table: pa.Table) -> None:
        raise OSError(28, "No space left on device")

    sink._writer.write_table = full_disk  # type: ignore[method-assign]
    sink.offer(qids[0], parts[qids[0]])
    with pytest.raises(OSError, match="No space left"):
        sink.finish()


def test_the_feature_store_writes_the_table_the_build_returns(
    pool: Path, whole: pa.Table, tmp_path: Path, monkeypatch
) -> None:
    """The cold build through the feature store streams its features to the store's file:
    read back, it is the table of a plain build, written as a row group a question."""
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    fp, _, _ = feature_paths(pool)
    assert pq.read_table(fp).equals(whole)
    assert pq.ParquetFile(fp).metadata.num_row_groups == len(_by_question(whole))
