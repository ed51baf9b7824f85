"""The persistent answer memo: a rebuild groups exactly as a cold build without asking
math-verify, facts are kept only under their versions and only when no timeout could have cut
them, and a broken or unwritable memo costs speed, never a build."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from analysis.mars import answers, fact_feed, features, ingest, ingest_read, verdict_memo
from analysis.mars.answers import AnswerGrouper, normalize
from analysis.mars.verdict_memo import VerdictMemo
from cache.sample.mars import write_file

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def garbage_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("memo") / "garbage.parquet"
    write_file(path, "aime", 48, seed=11, n_questions=3, median_len=3000, garbage="realistic")
    return path


@pytest.fixture(autouse=True)
def _fresh() -> None:
    answers.clear_caches()
    before = answers.use_memo(None)
    yield
    answers.use_memo(before)
    answers.clear_caches()


def _build_in_child(path: Path, memo: Path, out: Path) -> dict:
    """A build in a fresh process (empty in-process caches), reporting what it imported."""
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from analysis.mars import ingest\n"
        f"t = ingest.build_features(Path({str(path)!r}), helper=False, memo=Path({str(memo)!r}))\n"
        "import pyarrow.parquet as pq\n"
        f"pq.write_table(t.features, {str(out)!r})\n"
        f"pq.write_table(t.groups, {str(out)!r} + '.groups')\n"
        "print(json.dumps({'math_verify': 'math_verify' in sys.modules,"
        " 'sympy': 'sympy' in sys.modules, 'pandas': 'pandas' in sys.modules}))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _facts(memo: Path) -> int:
    saved = verdict_memo.load(memo)
    return len(saved.verdicts) + len(saved.fingerprints) + len(saved.parses)


def test_a_rebuild_with_the_memo_groups_the_same_without_math_verify(
    garbage_file: Path, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    memo = tmp_path / "memo.sqlite"
    first = _build_in_child(garbage_file, memo, tmp_path / "a.parquet")
    assert first["math_verify"], "the garbage pool should need math-verify when cold"
    saved = verdict_memo.load(memo)
    assert saved.key == verdict_memo.version_key()
    assert saved.verdicts and saved.fingerprints and saved.parses
    # A verdict that took longer than a timeout could allow is not kept (`MAX_RECORD_S`); on a
    # loaded machine a few honest ones take that long, so a rebuild may still ask math-verify
    # for those, and keeps what it learnt: each such rebuild must grow the memo, and one with
    # everything known asks nothing.
    for _attempt in range(3):
        known = _facts(memo)
        second = _build_in_child(garbage_file, memo, tmp_path / "b.parquet")
        if not second["math_verify"]:
            break
        assert _facts(memo) > known, "a rebuild that asked math-verify learnt nothing"
    # nothing heavy the build does not need: no sympy, and no pandas (pyarrow's to_numpy and
    # pa.array would import it; cache.arrow_numpy goes through the buffers)
    assert not second["math_verify"] and not second["sympy"] and not second["pandas"]
    for suffix in ("", ".groups"):
        a = pq.read_table(tmp_path / f"a.parquet{suffix}")
        b = pq.read_table(tmp_path / f"b.parquet{suffix}")
        assert a.equals(b)


def test_a_recorded_verdict_is_what_grouping_uses(tmp_path: Path) -> None:
    """The memo is consulted: a (made-up) verdict in it joins two answers math-verify keeps
    apart, so this test fails if grouping ignored the memo."""
    a, b = normalize("x^2+1"), normalize("\\frac{\\pi}{6}")
    assert a is not None and b is not None
    g = AnswerGrouper("7")
    assert g.add("x^2+1") != g.add("\\frac{\\pi}{6}")
    answers.clear_caches()
    memo = VerdictMemo(verdict_memo.version_key())
    memo.verdicts[(min(a, b), max(a, b))] = True
    memo.fingerprints[a] = memo.fingerprints[b] = None
    memo.parses[a] = memo.parses[b] = True
    answers.use_memo(memo)
    g = AnswerGrouper("7")
    assert g.add("x^2+1") == g.add("\\frac{\\pi}{6}")


def test_facts_of_other_versions_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "memo.sqlite"
    memo = VerdictMemo("rte0-math-verify0.0.1")
    memo.add_verdict("a_1", "b_1", True, 0.01)
    verdict_memo.save(memo, path)
    assert verdict_memo.load(path).verdicts == {}


def test_a_fact_that_a_timeout_could_have_cut_is_not_kept(tmp_path: Path) -> None:
    memo = VerdictMemo(verdict_memo.version_key())
    memo.add_verdict("p", "q", False, verdict_memo.MAX_RECORD_S + 0.05)
    memo.add_parse("p", False, 2.5)
    memo.add_fingerprint("p", None, 3.0)
    memo.add_verdict("p", "r", False, 0.2)
    assert memo.verdicts == {("p", "r"): False} and not memo.parses and not memo.fingerprints


def test_saves_merge_and_survive_lone_surrogates(tmp_path: Path) -> None:
    path = tmp_path / "memo.sqlite"
    key = verdict_memo.version_key()
    one, two = VerdictMemo(key), VerdictMemo(key)
    one.add_verdict("\ud800x", "y", False, 0.01)
    two.add_fingerprint("\\sqrt{2}", "1.41421356,0", 0.01)
    verdict_memo.save(one, path)
    verdict_memo.save(two, path)
    back = verdict_memo.load(path)
    assert back.verdicts == {("\ud800x", "y"): False}
    assert back.fingerprints == {"\\sqrt{2}": "1.41421356,0"}


def test_a_corrupt_memo_counts_as_empty_and_is_rewritten(tmp_path: Path, caplog) -> None:
    path = tmp_path / "memo.sqlite"
    path.write_bytes(b"not a database, " * 512)
    with caplog.at_level(logging.WARNING):
        memo = verdict_memo.load(path)
    assert memo.size() == 0 and "corrupt" in caplog.text
    memo.add_parse("z", True, 0.01)
    verdict_memo.save(memo, path)
    assert verdict_memo.load(path).parses == {"z": True}


def test_an_unwritable_memo_does_not_stop_the_build(
    garbage_file: Path, tmp_path: Path, caplog
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with caplog.at_level(logging.WARNING):
        tables = ingest.build_features(garbage_file, helper=False, memo=blocker / "memo.sqlite")
    assert tables.features.num_rows > 0
    assert "answer memo not saved" in caplog.text
    assert answers.current_memo() is None  # detached after the build


def test_unknown_answers_get_a_helper_for_the_facts_known_ones_one_process(
    garbage_file: Path, tmp_path: Path, monkeypatch
) -> None:
    """A cold build of a file whose answers the memo does not know splits in two: a helper
    process groups the answers with math-verify and sends the facts it learnt, while this one
    does the numeric pass and takes the groups it sends (checked against its own answers)
    without importing math-verify; once the
    memo knows them, one process does it all. Both give the tables of a plain single-process
    build, and the facts the helper sent are saved in the memo."""
    monkeypatch.setattr(fact_feed, "OVERLAP_MIN_BYTES", 0)
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    plain = ingest.build_features(garbage_file, helper=False)
    assert ingest.LAST_WORKER_PEAK_RSS == []
    answers.clear_caches()
    memo = tmp_path / "memo.sqlite"
    asked: list[str] = []
    monkeypatch.setattr(answers, "_parse", lambda norm: asked.append(norm) or [])
    regrouped: list[str] = []
    real_grouped = features.grouped
    monkeypatch.setattr(
        features, "grouped", lambda gt, *rest: regrouped.append(gt) or real_grouped(gt, *rest)
    )
    cold = ingest.build_features(garbage_file, memo=memo)
    monkeypatch.undo()
    monkeypatch.setattr(fact_feed, "OVERLAP_MIN_BYTES", 0)
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    assert asked == []  # every fact came from the helper: math-verify never ran here
    assert regrouped == []  # and every question's groups: none was grouped again here
    assert len(ingest.LAST_WORKER_PEAK_RSS) == 1 and ingest.LAST_WORKER_PEAK_RSS[0] > 10 << 20
    learnt = verdict_memo.load(memo)
    assert learnt.parses and learnt.fingerprints and learnt.verdicts
    answers.clear_caches()
    warm = ingest.build_features(garbage_file, memo=memo)
    assert ingest.LAST_WORKER_PEAK_RSS == []  # every answer known: no worker
    for got in (cold, warm):
        assert got.features.equals(plain.features) and got.groups.equals(plain.groups)
    # no memo at all: nothing says the answers are dear, the plain single pass runs
    ingest.build_features(garbage_file)
    assert ingest.LAST_WORKER_PEAK_RSS == []


@pytest.mark.parametrize(
    "helper",
    [
        ["-c", "import sys; sys.exit(3)"],  # dies at once
        ["-c", "import sys; sys.stdout.buffer.write(b'not a pickle'); sys.stdout.flush()"],
        [],  # cannot start
    ],
)
def test_a_failed_fact_helper_costs_speed_not_results(
    garbage_file: Path, tmp_path: Path, monkeypatch, helper: list[str]
) -> None:
    """The helper's facts are a cache: when it dies, sends garbage or cannot start, this process
    groups the answers itself with math-verify, and the tables are those of a plain build."""
    monkeypatch.setattr(fact_feed, "OVERLAP_MIN_BYTES", 0)
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    plain = ingest.build_features(garbage_file, helper=False)
    answers.clear_caches()
    if helper:
        monkeypatch.setattr(fact_feed, "HELPER", helper)
    else:  # the helper cannot even start (no process to spare)
        monkeypatch.setattr(fact_feed.sys, "executable", str(tmp_path / "no-such-python"))
    got = ingest.build_features(garbage_file, memo=tmp_path / "memo.sqlite")
    assert ingest.LAST_WORKER_PEAK_RSS == []  # no report from the helper
    assert got.features.equals(plain.features) and got.groups.equals(plain.groups)
    assert got.notes.equals(plain.notes)


def _recorded_feeds(monkeypatch) -> list[fact_feed.FactFeed]:  # type: ignore[no-untyped-def]
    """The fact feeds the builds start from now on, in order."""
    feeds: list[fact_feed.FactFeed] = []
    real = ingest.FactFeed

    def kept(*args):  # type: ignore[no-untyped-def]
        feeds.append(real(*args))
        return feeds[-1]

    monkeypatch.setattr(ingest, "FactFeed", kept)
    return feeds


def test_the_helper_starts_from_the_facts_known_already(
    garbage_file: Path, tmp_path: Path, monkeypatch
) -> None:
    """A memo that knows every fact of a file but one (a second file of the same model): the
    helper is handed the known facts and computes only what is missing, and the tables are
    those of a plain build."""
    monkeypatch.setattr(fact_feed, "OVERLAP_MIN_BYTES", 0)
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    memo = tmp_path / "memo.sqlite"
    plain = ingest.build_features(garbage_file, helper=False, memo=memo)
    full = verdict_memo.load(memo)
    dropped = sorted(k for k, v in full.fingerprints.items() if v is None)[0]
    del full.fingerprints[dropped]
    memo.unlink()
    known = VerdictMemo(full.key)
    known.learn(full.parses.items(), full.fingerprints.items(), full.verdicts.items())
    verdict_memo.save(known, memo)
    feeds = _recorded_feeds(monkeypatch)
    answers.clear_caches()
    got = ingest.build_features(garbage_file, memo=memo)
    assert len(feeds) == 1  # one unknown answer: a helper
    assert 1 <= feeds[0].received <= 3  # its fingerprint, and a verdict or parse it leads to
    assert dropped in verdict_memo.load(memo).fingerprints
    assert got.features.equals(plain.features) and got.groups.equals(plain.groups)


def test_helpers_run_without_openblas_threads(monkeypatch) -> None:
    """A helper process (the fact helper, a numeric worker) imports numpy without the OpenBLAS
    threads that would spin beside the build: one thread after the import, where this
    environment, even one asking OpenBLAS for four, would start one per core."""
    code = "import os, numpy; print(len(os.listdir('/proc/self/task')))"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")  # the helpers' setting must win
    for name in ("OMP_NUM_THREADS", "GOTO_NUM_THREADS"):  # OpenBLAS reads these too
        monkeypatch.delenv(name, raising=False)

    def threads(env: dict[str, str]) -> int:
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        return int(out.stdout)

    own = dict(os.environ, PYTHONPATH=fact_feed.worker_env()["PYTHONPATH"])
    if threads(own) == 1:
        pytest.skip("OpenBLAS starts no thread of its own here (one usable core)")
    assert threads(fact_feed.worker_env()) == 1


def _answer_file(path: Path, finals: list[list[str]]) -> Path:
    """A file of one row group per list of final answers (no probes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetWriter(path, pa.schema([("extracted_answer", pa.string())])) as writer:
        for group in finals:
            writer.write_table(pa.table({"extracted_answer": group}))
    return path


def test_new_answers_are_found_a_row_group_at_a_time(tmp_path: Path, monkeypatch) -> None:
    """Whether a build needs the fact helper is decided by reading the answers one row group at
    a time: it stops at the first row group holding an answer math-verify would be asked about
    that the memo does not know (a new pool has one in its first), reads on to the last one
    otherwise, and answers that never reach math-verify (integers, prose) need no helper."""
    import pyarrow.parquet as pq

    reads: list[int] = []
    real = pq.ParquetFile.read_row_group

    def counted(self, i, *args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(i)
        return real(self, i, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read_row_group", counted)
    memo = VerdictMemo(verdict_memo.version_key())
    answers.use_memo(memo)
    for finals, unknown, n_read in (
        ([["\\frac{x}{2}", "3"], ["4"], ["5"]], True, 1),  # found in the first row group
        ([["3"], ["Letmere-examine"], ["\\sqrt{x}"]], True, 3),  # only in the last
        ([["3", "7/2"], ["Letmere-examine", "4"], ["5"]], False, 3),  # none: no helper
    ):
        reads.clear()
        path = _answer_file(tmp_path / f"a{len(finals[0])}{unknown}{n_read}.parquet", finals)
        assert ingest_read.answers_unknown(ingest_read.open_file(path)) is unknown
        assert reads == list(range(n_read))
    memo.fingerprints["\\sqrt{x}"] = None  # known now: no helper for that file
    path = _answer_file(tmp_path / "known.parquet", [["3"], ["\\sqrt{x}"]])
    assert ingest_read.answers_unknown(ingest_read.open_file(path)) is False


def test_a_helper_started_early_is_the_one_the_cold_build_takes(
    garbage_file: Path, tmp_path: Path, monkeypatch
) -> None:
    """`start_early` (a cold `simulate` calls it before the builder's imports) starts the helper
    only while the cache has no answer memo; the cold build then takes that process instead of
    starting its own, with the tables of a plain build. A helper no build takes is stopped."""
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(fact_feed, "OVERLAP_MIN_BYTES", 0)
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    plain = ingest.build_features(garbage_file, helper=False)
    answers.clear_caches()
    fact_feed.start_early(garbage_file)
    spare = fact_feed._spare
    assert spare is not None and spare.poll() is None
    feeds = _recorded_feeds(monkeypatch)
    memo = fact_feed.derived_dir() / verdict_memo.MEMO_FILE
    got = ingest.build_features(garbage_file, memo=memo)
    assert len(feeds) == 1 and feeds[0]._proc is spare and fact_feed._spare is None
    assert len(ingest.LAST_WORKER_PEAK_RSS) == 1  # the early helper reported, as any helper
    assert got.features.equals(plain.features) and got.groups.equals(plain.groups)
    # the cache has a memo now: the next cold build may need no helper, none starts early
    assert memo.exists()
    fact_feed.start_early(garbage_file)
    assert fact_feed._spare is None
    # started, then not taken (the build found another plan): stopped, not left running
    memo.unlink()
    fact_feed.start_early(garbage_file)
    unused = fact_feed._spare
    assert unused is not None
    fact_feed.stop_spare()
    assert unused.poll() is not None and fact_feed._spare is None
    # a file below the helper's size: no helper
    monkeypatch.setattr(fact_feed, "OVERLAP_MIN_BYTES", 1 << 40)
    fact_feed.start_early(garbage_file)
    assert fact_feed._spare is None


def test_the_decode_thread_yields_to_the_fact_helper(
    garbage_file: Path, tmp_path: Path, monkeypatch
) -> None:
    """With a fact helper, the build's decode thread runs at a higher nice value (the helper's
    facts are what its finalisation waits for); without one it keeps its priority."""
    monkeypatch.setattr(fact_feed, "OVERLAP_MIN_BYTES", 0)
    monkeypatch.setattr(ingest.os, "cpu_count", lambda: 2)
    asked: list[int] = []
    real = ingest_read.yield_cpu
    monkeypatch.setattr(ingest_read, "yield_cpu", lambda nice: asked.append(nice) or real(nice))
    ingest.build_features(garbage_file, memo=tmp_path / "memo.sqlite")
    assert asked == [ingest_read.DECODE_NICE]
    asked.clear()
    ingest.build_features(garbage_file, helper=False)  # no memo: no helper
    assert asked == [0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread nice values: Linux")
def test_yield_cpu_raises_only_the_calling_thread_s_nice_value() -> None:
    seen: dict[str, int] = {}

    def run() -> None:
        ingest_read.yield_cpu(7)
        seen["thread"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = os.getpriority(os.PRIO_PROCESS, 0)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert seen["thread"] == min(before + 7, 19)  # nice values stop at 19
    assert os.getpriority(os.PRIO_PROCESS, 0) == before  # this thread, the process: unchanged
