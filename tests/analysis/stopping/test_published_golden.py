"""Our simulator against golden outputs of the published MARS simulator (github Wenbo11/MARS).

tests/data/published_mars/ holds the published simulator's results.csv and summaries for the 7
published methods on the bundled sample's DeepSeek-8B AIME 2025 file (budget 512, 64 iterations,
warmup 16, window 2048, seed 42; the -cal ones with warmup gamma, z = 1, gamma_min = 0.5). They
were produced by running a transcription of that simulator's logic outside this repository (the
transcription is not committed, only its numbers). Every iteration must agree exactly: this is the
"numbers must agree with the published simulator" requirement of shared/spec/stopping.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.stopping import PUBLISHED_METHODS, SimSettings, policy_for_method, simulate
from analysis.stopping.cli import load_prepared

GOLDEN = Path(__file__).resolve().parents[2] / "data/published_mars/DeepSeek-8B/aime-2025"
REL = "DeepSeek-8B/aime25_deepseek.parquet"
SETTINGS = SimSettings(budget=512, iterations=64, warmup=16, window=2048, seed=42)
METHODS = ("offline", "dco", "sc-mars", "dco-mars", "sc-mars-cal", "dco-mars-cal", "sc-pp")
EXACT = ("voted_answer", "is_correct", "total_tokens", "baseline_tokens", "stopped_by", "position")


@pytest.fixture(scope="module")
def preps(sample_root: Path) -> list:
    """Prepared questions of the sample file, through the feature store (cached per session)."""
    return load_prepared(sample_root / "mars" / REL, SETTINGS.window)


def _policy(method: str):  # type: ignore[no-untyped-def]
    """The published runs' flags: warmup-calibrated gamma for the -cal methods only."""
    if method.endswith("-cal"):
        return policy_for_method(method, warmup_gamma=True, ucb_z=1.0, gamma_min=0.5)
    return policy_for_method(method)


def _read(path: Path) -> pd.DataFrame:
    # keep answers as text ("007" must not become 7); empty answer = no answer
    return pd.read_csv(
        path, dtype={"voted_answer": str, "ground_truth": str}, keep_default_na=False
    )


def test_golden_covers_every_published_method() -> None:
    assert set(METHODS) == set(PUBLISHED_METHODS)
    for m in METHODS:
        for name in ("results.csv.gz", "summary_per_question.csv", "summary_overall.csv"):
            assert (GOLDEN / m / name).is_file(), (m, name)


@pytest.mark.parametrize("method", METHODS)
def test_matches_published_simulator(preps: list, method: str) -> None:
    run = simulate(preps, _policy(method), SETTINGS)

    ours = run.results_frame()
    ours = ours.astype({"voted_answer": str, "ground_truth": str})
    ref = _read(GOLDEN / method / "results.csv.gz")
    assert list(ours.columns) == list(ref.columns)
    key = ["question_id", "iteration"]
    ours = ours.sort_values(key).reset_index(drop=True)
    ref = ref.sort_values(key).reset_index(drop=True)
    assert len(ours) == len(ref) == 30 * SETTINGS.iterations
    assert (ours[key].to_numpy() == ref[key].to_numpy()).all()
    assert (ours["ground_truth"] == ref["ground_truth"]).all()
    for col in EXACT:
        bad = ours[col].to_numpy() != ref[col].to_numpy()
        assert not bad.any(), (
            f"{method} {col}: {int(bad.sum())} iterations differ, first "
            f"{ours.loc[bad, key + [col]].head(3).to_dict('records')} vs "
            f"{ref.loc[bad, [col]].head(3).to_dict('records')}"
        )

    for name, frame in (
        ("summary_per_question.csv", run.per_question_frame()),
        ("summary_overall.csv", run.overall_frame()),
    ):
        gold = pd.read_csv(GOLDEN / method / name)
        assert list(frame.columns) == list(gold.columns), name
        a = frame.to_numpy(dtype=np.float64)
        b = gold.to_numpy(dtype=np.float64)
        assert a.shape == b.shape, name
        np.testing.assert_allclose(
            a, b, rtol=0, atol=1e-9, equal_nan=True, err_msg=f"{method} {name}"
        )
