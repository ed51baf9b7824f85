"""AppTest of the MARS view's "Compare models" tab: opened by URL, a chosen question, a model
whose file the folder lacks, a question one model's file lacks, and the exports' bytes against
the tables shown."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from cache.sample.mars import write_file
from tests.pages.charts import lite_specs
from tests.pages.conftest import run_page
from tests.pages.controls import choose, chosen, light_select
from tests.pages.tables import lite_payloads, lite_tables, shown_tables

PAGE = "pages/mars.py"
DS = "DeepSeek-8B/aime25_deepseek.parquet"
QW = "Qwen3-32B/aime25.parquet"  # Qwen3-next's AIME file is absent from the folder


@pytest.fixture(scope="module")
def two_models(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mars_models")
    write_file(root / DS, "aime", 16, seed=4, n_questions=4, median_len=5000)
    write_file(root / QW, "aime", 12, seed=5, n_questions=3, median_len=5000)  # no Q3
    return root


@pytest.fixture
def open_page(two_models: Path, monkeypatch):
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(two_models))
    return lambda **params: run_page(PAGE, **params)


def _table(at, first_column: str):  # type: ignore[no-untyped-def]
    """A table of the tab (light tables as shown, numbers parsed; or the data grids)."""
    return next(d for d in shown_tables(at) if d.columns[0] == first_column)


def test_tab_by_url_names_the_absent_model_and_ranks_questions(open_page) -> None:
    at = open_page(file=DS, qid="0", view="models")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # `view=models` (short) opens the tab as `view=Compare models` does
    assert chosen(at, "bench") == "aime-2025"
    assert light_select(at, "Benchmark").shown.endswith("(aime-2025)")
    warn = " ".join(w.value for w in at.warning)
    assert "Not in this source" in warn and "`Qwen3-next/aime25_thinking.parquet`" in warn
    # the two files were drawn alone (seeds 4 and 5): their truths differ on the 3 shared qids
    assert "On 3 of 4 questions the files name different ground truths" in warn
    rank = _table(at, "rank")
    assert sorted(rank["qid"].tolist()) == [0, 1, 2, 3]
    q3 = rank[rank["qid"] == 3].iloc[0]
    assert q3["missing_models"] == "qwen3-32b"
    assert list(rank["rank"]) == [1, 2, 3, 4]
    # the compared question defaults to the open one; its rows name both models with links
    rows = _table(at, "model")
    assert list(rows["model"]) == ["deepseek-8b", "qwen3-32b"]
    assert all("file=" in h and "qid=0" in h for h in rows["open"])
    assert not at.get("plotly_chart")  # light charts first: no Plotly bundle at first paint
    bars = [s for s in lite_specs(at) if "final answers" in s["title"]]
    assert bars and {t["name"] for t in bars[0]["traces"]} == {"deepseek-8b", "qwen3-32b"}
    assert not any("This tab compares" in i.value for i in at.info)  # the open file's benchmark


def test_another_benchmark_says_the_question_above_is_the_open_files(open_page) -> None:
    """Comparing a benchmark other than the open file's: the tab says the question above (its
    numbers and ground truth) is the open file's, and its heading names the benchmark."""
    at = open_page(file=DS, qid="0", view="models", bench="hmmt")
    assert not at.exception, at.exception
    (note,) = [i.value for i in at.info if "This tab compares" in i.value]
    assert "HMMT" in note and "aime25" in note and "(AIME 2025)" in note


def test_choosing_the_top_question_and_a_missing_one(open_page) -> None:
    at = open_page(file=DS, qid="0", view="models")
    rank = _table(at, "rank")
    top = int(rank.iloc[0]["qid"])
    choose(at, "cq", top)
    assert not at.exception, at.exception
    assert at.query_params["cq"] in (str(top), [str(top)])
    rows = _table(at, "model")
    assert all(f"qid={top}" in h for h in rows["open"])
    at = open_page(file=DS, qid="0", view="models", cq="3")
    assert not at.exception, at.exception
    rows = _table(at, "model")
    qw = rows[rows["model"] == "qwen3-32b"].iloc[0]
    assert qw["pass@1"] == "missing" and not qw["open"]  # no link: the file lacks Q3


def test_capture_the_comparison(open_page, db: str) -> None:
    from cache.casebook.store import open_store

    at = open_page(file=DS, qid="0", view="models", cq="1")
    key = "mars_models_aime-2025_1"
    assert at.text_input(key=f"cb_{key}_title").value.startswith("AIME 2025 · Q1 across 2 models")
    at.text_input(key=f"cb_{key}_title").input("models split")
    at.button(key=f"cb_{key}_save").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    [case] = open_store(db).cases_for_item("mars")
    assert case.title == "models split"
    assert case.item == {"file": DS, "qid": "1", "compare": "aime-2025"}
    q = dict(case.query)
    assert q["cq"] == "1" and q["bench"] == "aime-2025"
    rows = _table(at, "model")
    ds = rows[rows["model"] == "deepseek-8b"].iloc[0]
    snap = case.snapshot
    assert snap["models"] == "deepseek-8b, qwen3-32b"
    assert ds["pass@1"].startswith(f"{snap['deepseek-8b pass_at_1']:.0%} (")
    assert snap["deepseek-8b n_traces"] == 16 and snap["qwen3-32b n_traces"] == 12
    names = [s["name"] for s in snap["evidence"]["series"]]
    assert names == ["deepseek-8b", "qwen3-32b"]


def test_no_truth_warning_when_the_files_share_their_questions(tmp_path: Path, monkeypatch) -> None:
    """Files that share their questions (as the bundled sample's do) raise no truth warning."""
    qs = write_file(tmp_path / DS, "aime", 8, seed=4, n_questions=3, median_len=5000)
    write_file(tmp_path / QW, "aime", 8, seed=5, n_questions=3, median_len=5000, questions=qs)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    at = run_page(PAGE, file=DS, qid="0", view="models")
    assert not at.exception, at.exception
    assert not any("different ground truths" in w.value for w in at.warning)
    assert any("agrees across the files on 3 of 3" in c.value for c in at.caption)


@pytest.fixture
def downloads(monkeypatch) -> dict[str, Callable[[], bytes]]:
    """file name -> the function a download button serves its bytes with (what a click runs)."""
    got: dict[str, Callable[[], bytes]] = {}
    add = MediaFileManager.add_deferred

    def record(self, data, mimetype, coordinates, file_name=None, **kw):
        got[str(file_name)] = data
        return add(self, data, mimetype, coordinates, file_name=file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return got


def test_the_exports_hold_the_rows_shown_and_say_what_they_are(open_page, downloads) -> None:
    # the data grids hold the exact numbers (tests/pages/test_mars_models.py's light-table test:
    # the light tables show the same rows)
    at = open_page(
        file=DS, qid="0", view="models", cq="3", models_grid="true", mfig=["pass@1", "traces"]
    )
    assert not at.exception, at.exception
    stem = "mars_aime-2025_models_deepseek-8b_qwen3-32b"
    for what in ("per-question", "disagreement"):
        assert {f"{stem}_{what}.csv", f"{stem}_{what}.parquet"} <= set(downloads)
    assert "mars_aime-2025_models_deepseek-8b_q3_answers.csv" in downloads  # Q3: one model has it
    # the per-question table as drawn: a block of columns per model
    shown = next(d.value for d in at.dataframe if "truth_agrees" in d.value.columns[:2])
    assert not lite_payloads(at)  # the grid switch is on
    csv = pl.read_csv(io.BytesIO(downloads[f"{stem}_per-question.csv"]()))
    parquet = pl.from_arrow(pq.read_table(io.BytesIO(downloads[f"{stem}_per-question.parquet"]())))
    assert isinstance(parquet, pl.DataFrame)
    for got in (csv, parquet):
        assert sorted(set(got["qid"].to_list())) == sorted(shown["qid"].tolist()) == [0, 1, 2, 3]
        assert got.height == 4 * 2  # one row per question and model
        for m in ("deepseek-8b", "qwen3-32b"):
            mine = got.filter(pl.col("model") == m).sort("qid")
            want = shown.sort_values("qid")
            for q, p, n, gone in zip(
                mine["qid"], mine["pass_at_1"], mine["n_traces"], mine["missing"], strict=True
            ):
                row = want[want["qid"] == q].iloc[0]
                if gone:  # the file lacks the question: empty in both
                    assert pd.isna(row[f"{m} pass@1"]) and p is None and n is None
                    continue
                assert p == pytest.approx(row[f"{m} pass@1"]) and n == row[f"{m} traces"]
        assert got.filter(pl.col("missing"))["model"].to_list() == ["qwen3-32b"]  # Q3
    rank = _table(at, "rank")
    for name in (f"{stem}_disagreement.csv", f"{stem}_disagreement.parquet"):
        data = downloads[name]()
        got = pl.read_csv(io.BytesIO(data)) if name.endswith(".csv") else pl.read_parquet(data)
        assert got["qid"].to_list() == rank["qid"].tolist()  # same questions, same order
        assert got["best_model"].to_list() == _cells(rank["best_model"])
        gaps = [None if g is None else round(g * 100, 6) for g in got["gap"]]
        assert gaps == [None if g is None else round(g, 6) for g in _cells(rank["gap_pp"])]
        assert got["gap"].null_count() == 1  # Q3: one model, no gap


def _cells(column: pd.Series) -> list:
    """A shown column's cells, an empty one as None."""
    return [None if pd.isna(x) else x for x in column.tolist()]


def test_the_light_tables_show_the_grids_rows_as_text(open_page) -> None:
    """A new tab draws the comparison's tables light; the grid switch draws the same rows."""
    light = open_page(file=DS, qid="0", view="models", cq="3")
    grids = open_page(file=DS, qid="0", view="models", cq="3", models_grid="true")
    assert not light.dataframe and len(grids.dataframe) == 3
    labels = [p["label"] for p in lite_payloads(light)]
    assert labels == ["models per question", "questions by disagreement", "Q3 per model"]
    for lite, grid in zip(lite_tables(light), (d.value for d in grids.dataframe), strict=True):
        assert list(lite.columns) == list(grid.columns)
        assert len(lite) == len(grid)
    wide = lite_payloads(light)[0]
    pass_cols = [i for i, c in enumerate(wide["cols"]) if c["name"].endswith("pass@1")]
    assert pass_cols and all(
        row[i] == "–" or row[i].endswith("%") for row in wide["rows"] for i in pass_cols
    )  # pass@1 as a percentage, as the grid's progress bars label it


def test_the_side_by_side_shows_the_figures_chosen_per_model(open_page, downloads) -> None:
    """By default each model's block shows pass@1 and the majority answer after ✓/✗ (three
    models fit a 1024 px screen); a link's `mfig` chooses others, in the table's own order."""
    at = open_page(file=DS, qid="0", view="models", models_grid="true")
    assert not at.exception, at.exception
    shown = next(d.value for d in at.dataframe if d.value.columns[0] == "qid")
    models = ("deepseek-8b", "qwen3-32b")
    # (these two files' ground truths differ, so the "same truth" column stays)
    assert list(shown.columns) == [
        "qid", "truth_agrees", *(f"{m} {f}" for m in models for f in ("pass@1", "majority"))
    ]  # fmt: skip
    csv = downloads["mars_aime-2025_models_deepseek-8b_qwen3-32b_per-question.csv"]()
    long = pl.read_csv(io.BytesIO(csv), schema_overrides={"majority_answer": pl.String})
    for m in models:
        for q, answer, right in (
            long.filter(pl.col("model") == m)
            .select("qid", "majority_answer", "majority_correct")
            .iter_rows()
        ):
            cell = shown.loc[shown["qid"] == q, f"{m} majority"].iloc[0]
            if answer is None:  # the file lacks the question
                assert pd.isna(cell), (m, q)
            else:
                assert cell == (answer if right is None else f"{'✓' if right else '✗'} {answer}")
    at = open_page(
        file=DS, qid="0", view="models", models_grid="true", mfig=["median tokens", "pass@1"]
    )
    shown = next(d.value for d in at.dataframe if d.value.columns[0] == "qid")
    assert list(shown.columns)[2:4] == ["deepseek-8b pass@1", "deepseek-8b median tokens"]
    assert "deepseek-8b majority" not in shown.columns
