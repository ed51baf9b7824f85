"""The ingest driver: concurrent writers of one chunk, worker processes that never re-run the
app script, and a data error inside a worker reaching the caller as itself."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import types
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import analysis.mars.ingest as ingest
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
            ingest._write_chunk(tmp_path, 3, f, g, n)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    fp, gp, np_ = ingest._chunk_paths(tmp_path, 3)
    assert ingest._read_chunk(fp).equals(f) and ingest._read_chunk(gp).equals(g)
    assert ingest._read_chunk(np_).equals(n)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fp.name, gp.name, np_.name])


def test_workers_never_re_run_the_main_script(
    small_file: Path, tmp_path: Path, monkeypatch
) -> None:
    """Under Streamlit (and AppTest) `__main__` is the page script; a worker that imported it
    would run the page. Here `__main__` is a script that leaves a mark when run."""
    mark = tmp_path / "ran"
    script = tmp_path / "fake_app.py"
    script.write_text(f"open({str(mark)!r}, 'w').write('ran')\n")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", fake)
    tables = ingest.build_features(small_file, workers=2)
    assert len(ingest.LAST_WORKER_PEAK_RSS) == 2
    assert tables.features.num_rows > 0
    assert not mark.exists()


def test_a_corrupt_row_group_in_a_worker_is_a_corrupt_file_error(
    small_file: Path, tmp_path: Path
) -> None:
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
        ingest.build_features(bad, work_dir=tmp_path / "w", workers=2)


def test_a_worker_killed_by_a_signal_is_a_build_failed_error(
    small_file: Path, tmp_path: Path, monkeypatch
) -> None:
    """The OOM killer (or a kill -9) stops a worker: the build raises `BuildFailed` naming the
    signal, with a hint to reload (finished questions are kept), not a RuntimeError."""
    import signal
    import subprocess

    from cache.errors import BuildFailed

    real = subprocess.Popen

    def killed_soon(cmd, **kw):  # type: ignore[no-untyped-def]
        proc = real(cmd, **kw)
        proc.send_signal(signal.SIGKILL)
        return proc

    monkeypatch.setattr(ingest.subprocess, "Popen", killed_soon)
    with pytest.raises(BuildFailed, match="stopped by signal 9") as info:
        ingest.build_features(small_file, work_dir=tmp_path / "w", workers=2)
    assert "reload to resume" in info.value.hint and "memory" in info.value.hint


def test_one_big_row_group_is_still_built_by_two_workers(small_file: Path, tmp_path: Path) -> None:
    """A file written as one row group used to fall back to one process; now each worker keeps
    its own run of questions, and the tables are the ones a single pass gives."""
    one = tmp_path / "one_group.parquet"
    table = pq.read_table(small_file)
    pq.write_table(table, one, row_group_size=table.num_rows + 1)
    assert pq.ParquetFile(one).num_row_groups == 1
    single = ingest.build_features(one, workers=1)
    ingest.LAST_WORKER_PEAK_RSS.clear()
    split = ingest.build_features(one, workers=2)
    assert len(ingest.LAST_WORKER_PEAK_RSS) == 2
    for name in ("features", "groups", "notes"):
        assert getattr(split, name).equals(getattr(single, name)), name


def test_default_workers_two_only_where_they_pay() -> None:
    """Two processes for a big file whose row groups can be shared out, on four cores or more;
    one on two cores (one process keeps both busy) and for one big row group (two workers
    would each decode all of it)."""
    big = ingest.PARALLEL_MIN_BYTES
    units = [[0], [1], [2]]
    assert ingest._default_workers(big, 4, units) == 2
    assert ingest._default_workers(big, 2, units) == 1
    assert ingest._default_workers(big, 3, units) == 1
    assert ingest._default_workers(big, 8, None) == 1
    assert ingest._default_workers(big, 8, [[0, 1, 2]]) == 1
    assert ingest._default_workers(big - 1, 8, units) == 1


def test_the_default_build_of_a_big_file_follows_its_layout(
    small_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every file "big" and four cores: a row group per question is shared over two
    workers, the same rows in one row group are streamed by this process alone; same tables."""
    one = tmp_path / "one_group.parquet"
    table = pq.read_table(small_file)
    pq.write_table(table, one, row_group_size=table.num_rows + 1)
    monkeypatch.setattr(ingest, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 4)
    split = ingest.build_features(small_file)
    assert len(ingest.LAST_WORKER_PEAK_RSS) == 2
    whole = ingest.build_features(one)
    assert ingest.LAST_WORKER_PEAK_RSS == []
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    two_cores = ingest.build_features(small_file)
    assert ingest.LAST_WORKER_PEAK_RSS == []
    for name in ("features", "groups", "notes"):
        assert getattr(split, name).equals(getattr(whole, name)), name
        assert getattr(two_cores, name).equals(getattr(whole, name)), name


def test_a_parallel_build_groups_answers_once_in_the_parent(
    small_file: Path, tmp_path: Path, monkeypatch
) -> None:
    """Answer grouping is mostly per distinct string, and the strings repeat across questions:
    two workers each grouping their own questions repeat the file's parse/solve/verify work.
    The workers hand in numeric batches; this process finalises every question (once each),
    with the same tables as a single-process build, and writes the chunks of a resumable
    build itself."""
    single = ingest.build_features(small_file, workers=1)
    seen: list[int] = []
    real = ingest.finalise_question

    def counted(q: int, part: dict, *warmed):  # type: ignore[no-untyped-def]
        seen.append(q)
        return real(q, part, *warmed)

    own: list[int] = []
    take = ingest._Shards.step

    def taken(self):  # type: ignore[no-untyped-def]
        got = take(self)
        own.extend(got or [])
        return got

    monkeypatch.setattr(ingest, "finalise_question", counted)
    monkeypatch.setattr(ingest._Shards, "step", taken)  # this process's share only
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    par = ingest.build_features(small_file, workers=2, work_dir=tmp_path / "w")
    assert len(ingest.LAST_WORKER_PEAK_RSS) == 2
    qids = sorted(set(single.features.column("qid").to_pylist()))
    assert sorted(seen) == qids
    assert not own  # two workers on two cores: no core to spare, it only finalises
    seen.clear()
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 4)
    again = ingest.build_features(small_file, workers=2)
    assert sorted(seen) == qids and again.features.equals(single.features)
    # a core to spare, idle at once (a few plain answers to group, the workers still
    # starting): it computed questions itself
    assert own and set(own) <= set(qids)
    assert par.features.equals(single.features) and par.groups.equals(single.groups)
    assert par.notes.equals(single.notes)
    assert all(ingest._chunk_done(tmp_path / "w", q) for q in qids)


def test_warming_reads_each_question_s_answers_in_the_workers_order(small_file: Path) -> None:
    """The parent's head start: the answers of each question (finals, probe answers, ground
    truths), in task order, each question once, only the task's own questions."""
    pf = pq.ParquetFile(small_file)
    n = pf.num_row_groups
    tasks: list[ingest.Task] = [(list(range(n)), [2, 0])]
    got = list(ingest._answers_to_warm(small_file, tasks))
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
    (_, finals, p_ans, gts), *_ = ingest._answers_to_warm(path, [([0], None)])
    (_, want_f, want_p, want_g), *_ = ingest._answers_to_warm(small_file, [([0], [0])])
    assert (finals, p_ans, gts) == (want_f, want_p, want_g)


def test_processes_sharing_the_tasks_claim_each_once(small_file: Path, tmp_path: Path) -> None:
    """`_Shards`: two processes working through the same task list (the workers, and the
    parent when it is idle) claim each task exactly once and between them hand in a numeric
    part for every question."""
    pf = pq.ParquetFile(small_file)
    tasks = [([i], None) for i in range(pf.num_row_groups)]
    spec = {
        "path": str(small_file),
        "tasks": tasks,
        "window": 2048,
        "claim_dir": str(tmp_path / "claims"),
        "part_dir": str(tmp_path / "parts"),
        "batch_rows": 512,
    }
    for d in ("claims", "parts"):
        (tmp_path / d).mkdir()
    a, b = ingest._Shards(spec), ingest._Shards(spec)
    got_a = a.step()  # its decode thread claims the first task, and more ahead
    assert got_a is not None and a.busy
    got_b: list[int] = []
    while (more := b.step()) is not None:  # b skips the tasks a claimed
        got_b += more
    while (more := a.step()) is not None:  # a finishes what it claimed, nothing more
        got_a += more
    assert a.step() is None and not a.busy
    assert not set(got_a) & set(got_b)
    assert len(list((tmp_path / "claims").iterdir())) == len(tasks)
    qids = sorted(set(pq.read_table(small_file, columns=["qid"]).column("qid").to_pylist()))
    assert sorted(got_a + got_b) == qids
    parts = sorted(p.name for p in (tmp_path / "parts").iterdir())
    assert parts == [ingest._part_path(tmp_path / "parts", q).name for q in qids]


def test_a_cold_build_and_its_workers_never_load_polars(small_file: Path, tmp_path: Path) -> None:
    """The cold CLI path (`analysis.mars.feature_files`) and a worker process (which imports
    `analysis.mars.ingest`) start without polars: ~0.17 s of each one's start-up."""
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
    worker = "import sys, analysis.mars.ingest; print('polars' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", worker], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr[-2000:]
