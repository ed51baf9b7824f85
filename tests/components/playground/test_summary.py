"""Headline numbers and the policy-owned pieces the playground renders (no Streamlit run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.mars.store import load_features
from analysis.playground import (
    ALL_METHODS,
    DeepConfOnline,
    NoteCode,
    SelfConsistency,
    SimSettings,
    prepare,
    simulate,
)
from analysis.playground.synthetic import hand_pool
from components.common.url_keys import PlaygroundKeys
from components.playground.controls import published_policy
from components.playground.reference import run_stem
from components.playground.summary import INFO_TEXT, WARN_TEXT, untruncated_savings_pct

REL = "DeepSeek-8B/aime25_deepseek.parquet"


def test_untruncated_savings_match_the_result_files(sample_root: Path) -> None:
    """X = mean over questions of mean_i (1 - dco tokens / SC tokens), SC at full budget being
    the untruncated cost of the same bootstrap sample (read back from results.csv here)."""
    store = load_features(sample_root / "mars" / REL, window=2048)
    preps = [prepare(store.pool(q)) for q in store.qids[:4]]
    settings = SimSettings(budget=64, iterations=3)
    dco = simulate(preps, DeepConfOnline(), settings)
    sc = simulate(preps, SelfConsistency(), settings)
    d, s = dco.results_frame(), sc.results_frame()
    assert (s["total_tokens"] == s["baseline_tokens"]).all()  # SC spends its whole baseline
    assert (d["total_tokens"] == d["baseline_tokens"]).all()  # dco: 0 % published savings
    frac = 1 - d["total_tokens"] / s["total_tokens"]
    want = float(frac.groupby(d["question_id"]).mean().mean()) * 100
    got = untruncated_savings_pct(dco, sc)
    assert got == pytest.approx(want, abs=1e-9)
    assert got > 0
    other = simulate(preps, SelfConsistency(), SimSettings(budget=64, iterations=2))
    assert untruncated_savings_pct(dco, other) is None  # samples do not line up: no number


@pytest.mark.parametrize("method", ALL_METHODS)
def test_every_parameter_widget_is_a_registered_url_key(method: str) -> None:
    """The URL registry lists every key a policy's widgets bind (deep links are checked
    against it)."""
    for spec in published_policy(method).ui_params():
        assert spec.key in PlaygroundKeys.WIDGETS, (method, spec.key)


def test_notes_are_typed_and_explained_by_code() -> None:
    """The engine hands over codes; the warning and info texts are keyed by them."""
    prep = prepare(hand_pool(final=[0, 1, 0], groups=[[0], [1], [0]], lengths=[10, 20, 30]))
    run = simulate([prep], SelfConsistency(), SimSettings(budget=8, iterations=2, warmup=16))
    codes = {n.code for n in run.questions[0].notes}
    assert {NoteCode.SMALL_POOL, NoteCode.BUDGET_ABOVE_POOL} <= codes
    assert NoteCode.SMALL_POOL in WARN_TEXT and NoteCode.BUDGET_ABOVE_POOL in INFO_TEXT
    info = [n for n in run.questions[0].notes if n.info]
    assert [n.code for n in info] == [NoteCode.BUDGET_ABOVE_POOL]


def test_downloads_are_named_after_the_run() -> None:
    prep = prepare(hand_pool(final=[0, 1, 0], groups=[[0], [1], [0]]))
    pol = published_policy("sc-consensus")
    run = simulate([prep], pol, SimSettings(budget=8, iterations=2))
    stem = run_stem(REL, run, "results")
    assert stem.startswith("mars_DeepSeek-8B_aime25_deepseek_sc-consensus_tau=0.95_budget8")
    assert stem.endswith("_results") and "/" not in stem
