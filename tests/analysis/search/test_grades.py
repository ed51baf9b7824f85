"""MARS extracted answers in the search: their correctness is the feature build's
`final_correct`, read only for files already graded, built when asked; the correctness filter
then matches a plain scan of the file and its grades, and says what still waits for a grade."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from analysis.mars.store import load_features
from analysis.mars.text_grades import GRADER
from analysis.search.corpus import Corpus, graded, load_corpus
from analysis.search.engine import Filters
from analysis.search.query import Compiled, Query, compile_query
from analysis.search.results import counts, no_correctness
from cache.sources import SourceConfig

ROOT = Path(__file__).resolve().parents[3]
REL = "Qwen3-32B/aime25.parquet"
INT = re.compile(r"-?\d+")


def _local(sample_root: Path, tmp_path: Path) -> tuple[SourceConfig, Path]:
    """A folder holding one sample MARS file: a file no other test has graded."""
    dest = tmp_path / "mars" / REL
    dest.parent.mkdir(parents=True)
    shutil.copy(sample_root / "mars" / REL, dest)
    return SourceConfig(kind="local", local_path=str(tmp_path / "mars")), dest


def test_graded_fills_only_what_is_missing_in_order() -> None:
    frame = pl.DataFrame(
        {
            "file": ["f", "f", "f", "g"],
            "item": ["a", "b", "a", "a"],
            "field": ["x", "x", "y", "x"],
            "correct": [None, True, None, None],
            "text": ["1", "2", "3", "4"],
        },
        schema_overrides={"correct": pl.Boolean},
    )
    grades = pl.DataFrame(
        {
            "file": ["f", "f", "f", "f"],
            "item": ["a", "a", "b", "c"],  # "a" twice (a duplicated trace): one row still
            "field": ["x", "x", "x", "x"],
            "correct": [False, False, False, True],
        }
    )
    out = graded(frame, grades)
    assert out.columns == frame.columns
    assert out["text"].to_list() == ["1", "2", "3", "4"]
    # filled where missing; a value the data gives is kept; other fields and files untouched
    assert out["correct"].to_list() == [False, True, None, None]


def test_mars_grades_are_the_feature_builds_and_agree_with_the_ground_truth(
    sample_root: Path, tmp_path: Path
) -> None:
    source, path = _local(sample_root, tmp_path)
    before = GRADER.state(source)
    assert before.ready == () and before.pending == (REL,)
    assert GRADER.read(before).num_rows == 0
    GRADER.build(source, None)
    after = GRADER.state(source)
    assert after.pending == () and [rel for rel, _ in after.ready] == [REL]
    grades = {(r["item"], r["field"]): r["correct"] for r in GRADER.read(after).to_pylist()}
    feats = load_features(path).features.select("qid", "trace_idx", "final_correct")
    assert len(grades) == feats.height
    for qid, trace, ok in feats.iter_rows():
        assert grades[(f"q{qid} t{trace}", "extracted answer")] == ok
    # independently of the build: an integer answer against an integer truth
    raw = pq.read_table(path, columns=["qid", "trace_idx", "ground_truth", "extracted_answer"])
    checked = {True: 0, False: 0}
    for r in raw.to_pylist():
        a, gt = str(r["extracted_answer"]), str(r["ground_truth"])
        if INT.fullmatch(a) and INT.fullmatch(gt):
            same = int(a) == int(gt)
            assert grades[(f"q{r['qid']} t{r['trace_idx']}", "extracted answer")] == same
            checked[same] += 1
    assert checked[True] > 20 and checked[False] > 20


def _plain_scan(path: Path, needle: str, wrong: bool) -> tuple[int, int]:
    """(hits, traces) of `needle` in the file's extracted answers whose grade is `not wrong`,
    by reading the file and its feature table, not the search's tables."""
    feats = load_features(path).features
    ok = {(q, t): c for q, t, c in feats.select("qid", "trace_idx", "final_correct").iter_rows()}
    raw = pq.read_table(path, columns=["qid", "trace_idx", "extracted_answer"]).to_pylist()
    hits = traces = 0
    for r in raw:
        a = r["extracted_answer"]
        if a and ok[(r["qid"], r["trace_idx"])] is not wrong and needle in str(a):
            hits += str(a).count(needle)
            traces += 1
    return hits, traces


def test_the_correctness_filter_on_extracted_answers_matches_a_plain_scan(
    sample_root: Path, tmp_path: Path
) -> None:
    source, path = _local(sample_root, tmp_path)
    compiled = compile_query(Query("9"))
    wrong = Filters(datasets=("mars",), correct=False)
    ungraded = load_corpus({"mars": source}, datasets=["mars"])
    assert ungraded.grading["mars"].pending == (REL,)
    out = no_correctness(ungraded, wrong)["mars"]
    n_answers = sum(
        1 for a in pq.read_table(path, columns=["extracted_answer"])[0].to_pylist() if a
    )
    assert out.waiting == n_answers and out.waiting_in == (REL,)
    assert "extracted answer" in out.fields
    assert _answers_only(ungraded, compiled, wrong) == (0, 0)  # no grade: none shown
    corpus = load_corpus({"mars": source}, datasets=["mars"], grade=True)
    assert corpus.grading["mars"].pending == ()
    out = no_correctness(corpus, wrong)["mars"]
    assert out.waiting == 0 and out.fields == ("ground truth",)
    for is_wrong in (True, False):
        filters = Filters(datasets=("mars",), correct=not is_wrong)
        found = _answers_only(corpus, compiled, filters)
        assert found == _plain_scan(path, "9", is_wrong)
        assert found[1] > 10


def _answers_only(corpus: Corpus, compiled: Compiled, filters: Filters) -> tuple[int, int]:
    """(hits, items) of the search among the extracted answers alone."""
    rows = corpus.frame.filter(pl.col("field") == "extracted answer")
    found = counts(Corpus(rows, corpus.titles, corpus.problems, corpus.grading), compiled, filters)
    return found.total, found.per_item.height


def test_cli_says_what_waits_for_a_grade_and_grades_it(sample_root: Path, tmp_path: Path) -> None:
    source, path = _local(sample_root, tmp_path)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "RTE_MARS_SOURCE": "local",
        "RTE_MARS_PATH": source.local_path,
    }
    args = [sys.executable, "-m", "analysis", "search", "9", "--dataset", "mars"]

    def run(*more: str) -> dict:
        out = subprocess.run(
            [*args, *more], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr
        doc: dict = json.loads(out.stdout)
        return doc

    before = run("--correct", "wrong")["left_out_no_correctness"]["mars"]
    answers = pq.read_table(path, columns=["extracted_answer"])[0].to_pylist()
    assert before["waiting"] == sum(1 for a in answers if a) and before["waiting_in"] == [REL]
    doc = run("--correct", "wrong", "--grade", "--limit", "10000")
    assert doc["left_out_no_correctness"]["mars"]["waiting"] == 0
    got = [h for h in doc["hits"] if h["field"] == "extracted answer"]
    hits, traces = _plain_scan(path, "9", wrong=True)
    assert len(got) == hits and len({h["item"] for h in got}) == traces
    assert all(h["correct"] is False for h in got)


def test_grading_the_files_in_scope_leaves_the_others_waiting(
    sample_root: Path, tmp_path: Path
) -> None:
    source, _ = _local(sample_root, tmp_path)
    other = "DeepSeek-8B/aime25_deepseek.parquet"
    (tmp_path / "mars" / other).parent.mkdir(parents=True)
    shutil.copy(sample_root / "mars" / other, tmp_path / "mars" / other)
    corpus = load_corpus({"mars": source}, datasets=["mars"])
    wrong = Filters(datasets=("mars",), correct=False)
    assert set(no_correctness(corpus, wrong)["mars"].waiting_in) == {REL, other}
    scoped = no_correctness(corpus, Filters(datasets=("mars",), groups=(other,), correct=False))
    assert scoped["mars"].waiting_in == (other,)
    GRADER.build(source, None, scoped["mars"].waiting_in)
    assert GRADER.state(source).pending == (REL,)
    after = load_corpus({"mars": source}, datasets=["mars"])
    assert no_correctness(after, wrong)["mars"].waiting_in == (REL,)
