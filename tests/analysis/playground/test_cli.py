"""`python -m analysis simulate` / `diff` on a small MARS file: CSV columns and content."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.playground import SimSettings, prepare, simulate
from analysis.playground.params import SelfConsistency
from analysis.playground.results import OVERALL_COLUMNS, PER_QUESTION_COLUMNS, RESULTS_COLUMNS
from analysis.playground.synthetic import hand_pool
from cache.sample.mars import write_file


@pytest.fixture(scope="module")
def mars_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mars")
    write_file(
        root / "DeepSeek-8B/aime25_deepseek.parquet", "aime", 24, seed=5, drop=0, n_questions=4
    )
    return root


def _run(mars_dir: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "simulate",
            "--data",
            str(mars_dir),
            "--model",
            "deepseek-8b",
            "--dataset",
            "aime-2025",
            "--budget",
            "32",
            "--iterations",
            "5",
            "--out",
            str(out),
            *extra,
        ]
    )


def test_simulate_writes_published_columns(mars_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "mars"
    assert (
        _run(
            mars_dir,
            out,
            "--method",
            "sc-mars-cal",
            "--warmup-gamma",
            "--ucb-z",
            "1",
            "--gamma-min",
            "0.5",
        )
        == 0
    )
    res = pd.read_csv(out / "results.csv", keep_default_na=False)
    perq = pd.read_csv(out / "summary_per_question.csv")
    overall = pd.read_csv(out / "summary_overall.csv")
    assert list(res.columns) == RESULTS_COLUMNS
    assert list(perq.columns) == PER_QUESTION_COLUMNS
    assert list(overall.columns) == OVERALL_COLUMNS
    assert len(res) == 4 * 5 and sorted(perq["question_id"]) == [0, 1, 2, 3]
    # content is self-consistent
    for qid, g in res.groupby("question_id"):
        row = perq[perq["question_id"] == qid].iloc[0]
        assert row["n_correct"] == g["is_correct"].sum() and row["n_iterations"] == 5
        assert row["accuracy_std"] == pytest.approx(
            g["is_correct"].astype(float).std(ddof=1), nan_ok=True
        )
        sav = (1 - g["total_tokens"] / g["baseline_tokens"]).mean() * 100
        assert row["token_savings_pct"] == pytest.approx(sav)
        assert row["stopped_by_margin"] + row["stopped_by_budget"] == 5
        assert (g["total_tokens"] <= g["baseline_tokens"]).all()
        assert set(g["stopped_by"]) <= {"margin", "budget"}
    assert overall["accuracy_pct"][0] == pytest.approx(perq["accuracy_pct"].mean())
    assert overall["mean_token_savings_pct"][0] == pytest.approx(perq["token_savings_pct"].mean())
    assert overall["n_questions"][0] == 4
    assert "accuracy" in capsys.readouterr().out


def test_offline_and_diff(mars_dir: Path, tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert _run(mars_dir, a, "--method", "offline") == 0
    assert (a / "results_majority.csv").is_file()
    res = pd.read_csv(a / "results.csv")
    assert (res["total_tokens"] == res["baseline_tokens"]).all()
    assert (res["stopped_by"] == "budget").all()
    # the DeepConf majority vote is the offline answer itself
    maj = pd.read_csv(a / "results_majority.csv", keep_default_na=False)
    assert (
        maj["voted_answer"].to_numpy()
        == pd.read_csv(a / "results.csv", keep_default_na=False)["voted_answer"].to_numpy()
    ).all()
    assert main(["diff", str(a), str(a), "--tolerance", "0"]) == 0
    assert _run(mars_dir, b, "--method", "sc-pp") == 0
    capsys.readouterr()
    main(["diff", str(b), str(a)])
    text = capsys.readouterr().out
    assert "questions compared" in text and "overall accuracy_pct" in text
    perq_b = pd.read_csv(b / "summary_per_question.csv")
    if (perq_b["token_savings_pct"] > 0).any():
        assert main(["diff", str(b), str(a), "--tolerance", "0"]) == 1


def test_bad_paths_are_data_errors(tmp_path: Path, capsys) -> None:
    assert (
        main(
            [
                "simulate",
                "--data",
                str(tmp_path / "nope"),
                "--method",
                "dco",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "error:" in capsys.readouterr().err
    assert main(["diff", str(tmp_path), str(tmp_path)]) == 2


def test_results_frame_handles_empty_questions() -> None:
    run = simulate(
        [prepare(hand_pool(final=[-1, -1], groups=[[0], [1]]))],
        SelfConsistency(),
        SimSettings(4, 3),
    )
    perq = run.per_question_frame()
    assert perq["accuracy"][0] == 0.0 and perq["token_savings_pct"][0] == 0.0
    assert np.isnan(run.overall_frame()["accuracy_std"][0])  # one question: sample std undefined
    assert run.results_frame()["voted_answer"].tolist() == ["", "", ""]


@pytest.mark.parametrize(
    ("method", "flag", "value"),
    [
        ("sc-consensus", "--tau", "0.5"),
        ("sc-stability", "--stability-k", "1"),
        ("esc", "--esc-window", "2"),
        ("ac-majority", "--ac-threshold", "0.5"),
    ],
)
def test_added_rule_flags_change_the_output(
    mars_dir: Path, tmp_path: Path, capsys, method: str, flag: str, value: str
) -> None:
    """Each flag of our added rules reaches the policy: a looser setting stops earlier, so the
    written results change (fewer tokens), and the printed policy shows the value."""
    a, b = tmp_path / "default", tmp_path / "flag"
    assert _run(mars_dir, a, "--method", method) == 0
    capsys.readouterr()
    assert _run(mars_dir, b, "--method", method, flag, value) == 0
    out = capsys.readouterr().out
    field = {"--tau": "tau", "--stability-k": "k", "--esc-window": "window"}.get(flag, "threshold")
    assert f"{field}={float(value) if '.' in value else int(value)}" in out
    ra, rb = pd.read_csv(a / "results.csv"), pd.read_csv(b / "results.csv")
    assert rb["total_tokens"].sum() < ra["total_tokens"].sum()
    assert (rb["baseline_tokens"] == ra["baseline_tokens"]).all()  # same bootstrap sample


def test_help_lists_the_added_flags(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = capsys.readouterr().out
    for flag in ("--tau", "--stability-k", "--esc-window", "--ac-threshold", "--dco-percentile"):
        assert flag in text
    assert "Consensus.tau" in text and "ProbeStability.k" in text
