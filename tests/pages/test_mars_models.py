"""AppTest of the MARS view's "Compare models" tab: opened by URL, a chosen question, a model
whose file the folder lacks, a question one model's file lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from cache.sample.mars import write_file
from tests.pages.charts import plotly_specs
from tests.pages.conftest import run_page

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
    return next(d.value for d in at.dataframe if d.value.columns[0] == first_column)


def test_tab_by_url_names_the_absent_model_and_ranks_questions(open_page) -> None:
    at = open_page(file=DS, qid="0", view="models")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # `view=models` (short) opens the tab as `view=Compare models` does
    bench = next(s for s in at.selectbox if s.label == "Benchmark")
    assert bench.value == "aime-2025"
    warn = " ".join(w.value for w in at.warning)
    assert "Not in this source" in warn and "`Qwen3-next/aime25_thinking.parquet`" in warn
    rank = _table(at, "rank")
    assert sorted(rank["qid"].tolist()) == [0, 1, 2, 3]
    q3 = rank[rank["qid"] == 3].iloc[0]
    assert q3["missing_models"] == "qwen3-32b"
    assert list(rank["rank"]) == [1, 2, 3, 4]
    # the compared question defaults to the open one; its rows name both models with links
    rows = _table(at, "model")
    assert list(rows["model"]) == ["deepseek-8b", "qwen3-32b"]
    assert all("file=" in h and "qid=0" in h for h in rows["open"])
    specs = plotly_specs(at)
    bars = [s for s in specs if "final answers" in str(s["layout"].get("title", ""))]
    assert bars and {t["name"] for t in bars[0]["data"]} == {"deepseek-8b", "qwen3-32b"}


def test_choosing_the_top_question_and_a_missing_one(open_page) -> None:
    at = open_page(file=DS, qid="0", view="models")
    rank = _table(at, "rank")
    top = int(rank.iloc[0]["qid"])
    pick = next(s for s in at.selectbox if s.label.startswith("Compared question"))
    pick.set_value(top).run()
    assert not at.exception, at.exception
    assert at.query_params["cq"] in (str(top), [str(top)])
    rows = _table(at, "model")
    assert all(f"qid={top}" in h for h in rows["open"])
    at = open_page(file=DS, qid="0", view="models", cq="3")
    assert not at.exception, at.exception
    rows = _table(at, "model")
    qw = rows[rows["model"] == "qwen3-32b"].iloc[0]
    assert qw["pass@1"] == "missing" and not isinstance(qw["open"], str)
