"""The ingest driver: concurrent writers of one chunk, one process for every layout, a corrupt
row group reaching the caller as a `CorruptFile`, and the answers read for the fact helper."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import analysis.mars.ingest as ingest
from analysis.mars import ingest_chunks, ingest_read
from cache.errors import CorruptFile
from cache.sample.mars import write_file


@pytest.fixture(scope="module")
def small_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mars_ingest") / "small.parquet"
    write_file(path, "hmmt", 12, seed=5, drop=2, n_questions=4, median_len=5000)
    return path


def test_two_writers_of_the_same_chunk_do_not_collide(tmp_path: Path, monkeypatch) -> None:
    """Both writers finish writing before either renames (a barrier holds them): with one shared
    temp name the second rename finds nothing to move; with a temp file per writer both succeed
    and the chunk is one complete copy."""
    f = pa.table({"qid": [3, 3], "trace_idx": [0, 1]})
    g = pa.table({"qid": [3], "group_id": [0]})
    n = pa.table({"qid": [3], "kind": ["x"]})
    barrier = threading.Barrier(2, timeout=20)
    real = os.replace

    def wait_then_rename(src, dst):  # type: ignore[no-untyped-def]
        barrier.wait()  # both writers have written their whole temp file
        real(src, dst)

    monkeypatch.setattr(os, "replace", wait_then_rename)
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            ingest_chunks.write_chunk(tmp_path, 3, f, g, n)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    fp, gp, np_ = ingest_chunks.chunk_paths(tmp_path, 3)
    assert ingest_chunks.read_chunk(fp).equals(f) and ingest_chunks.read_chunk(gp).equals(g)
    assert ingest_chunks.read_chunk(np_).equals(n)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fp.name, gp.name, np_.name])


def test_a_corrupt_row_group_is_a_corrupt_file_error(small_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "corrupt.parquet"
    blob = bytearray(small_file.read_bytes())
    rg = pq.ParquetFile(small_file).metadata.row_group(2)
    col = next(
        rg.column(i)
        for i in range(rg.num_columns)
        if rg.column(i).path_in_schema.startswith("confs")
    )
    start = col.data_page_offset
    blob[start + 64 : start + 4064] = bytes(4000)
    bad.write_bytes(bytes(blob))
    with pytest.raises(CorruptFile, match="corrupt.parquet"):
        ingest.build_features(bad, work_dir=tmp_path / "w")


def test_one_process_builds_every_layout_on_any_number_of_cores(
    small_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No numeric worker processes: a row group per question or one row group, on two cores or
    eight, the build runs here alone (no fact helper without a memo) with the same tables."""
    one = tmp_path / "one_group.parquet"
    table = pq.read_table(small_file)
    pq.write_table(table, one, row_group_size=table.num_rows + 1)
    popen = subprocess.Popen
    started: list[object] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a) or popen(*a, **k))
    got = []
    for cores in (2, 8):
        monkeypatch.setattr(ingest.os, "cpu_count", lambda n=cores: n)
        for path in (small_file, one):
            got.append(ingest.build_features(path))
            assert ingest.LAST_WORKER_PEAK_RSS == []
    assert started == []
    for other in got[1:]:
        for name in ("features", "groups", "notes"):
            assert getattr(other, name).equals(getattr(got[0], name)), name


def test_warming_reads_each_question_s_answers_in_task_order(small_file: Path) -> None:
    """The parent's head start: the answers of each question (finals, probe answers, ground
    truths), in task order, each question once, only the task's own questions."""
    pf = pq.ParquetFile(small_file)
    n = pf.num_row_groups
    tasks: list[ingest_read.Task] = [(list(range(n)), [2, 0])]
    got = list(ingest_read.answers_to_warm(small_file, tasks))
    assert [q for q, *_ in got] == [0, 2]
    t = pq.read_table(small_file, columns=["qid", "extracted_answer", "probes"])
    for q, finals, p_ans, _ in got:
        rows = [i for i, x in enumerate(t.column("qid").to_pylist()) if x == q]
        assert finals == [t.column("extracted_answer")[i].as_py() for i in rows]
        want = [p["answer"] for i in rows for p in (t.column("probes")[i].as_py() or [])]
        assert p_ans == want


def test_warming_reads_a_question_in_trace_order_as_it_is_grouped(
    small_file: Path, tmp_path: Path
) -> None:
    """Rows stored out of trace_idx order, one of them twice: the answers come in the order
    `finalise_question` groups them (by trace_idx, the first of a duplicate kept), so the
    fact helper asks math-verify what the grouping will."""
    t = pq.read_table(small_file)
    q0 = t.filter(pc.equal(t.column("qid"), 0))
    shuffled = pa.concat_tables([q0.take(list(range(q0.num_rows))[::-1]), q0.slice(3, 1)])
    path = tmp_path / "shuffled.parquet"
    pq.write_table(shuffled, path)
    (_, finals, p_ans, gts), *_ = ingest_read.answers_to_warm(path, [([0], None)])
    (_, want_f, want_p, want_g), *_ = ingest_read.answers_to_warm(small_file, [([0], [0])])
    assert (finals, p_ans, gts) == (want_f, want_p, want_g)


def test_a_cold_build_and_its_helper_never_load_polars(small_file: Path, tmp_path: Path) -> None:
    """The cold CLI path (`analysis.mars.feature_files`) and the fact helper process (which
    imports `analysis.mars.fact_feed`) start without polars."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from analysis.mars.feature_files import feature_paths\n"
        f"paths = feature_paths(Path({str(small_file)!r}))\n"
        "assert all(p.is_file() for p in paths), paths\n"
        "print('polars' in sys.modules)\n"
    )
    env = dict(os.environ, RTE_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"
    worker = "import sys, analysis.mars.fact_feed; print('polars' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", worker], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr[-2000:]
