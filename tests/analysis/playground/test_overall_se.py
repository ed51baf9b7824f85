"""The Reference tab's overall rows: a standard error in place of the raw `accuracy_std`."""

from __future__ import annotations

import math

import pandas as pd

from analysis.playground.compare import overall_comparison, overall_with_se


def test_se_is_std_over_root_n_in_points() -> None:
    row = {"accuracy_pct": 60.0, "accuracy_std": 0.4578, "n_questions": 30}
    out = overall_with_se(row)
    se = 0.4578 * 100 / math.sqrt(30)  # 8.3582... pp
    assert out["accuracy_se_pp"] == se
    assert round(se, 4) == 8.3582
    assert out["accuracy_ci_lo"] == 60.0 - 1.96 * se
    assert out["accuracy_ci_hi"] == 60.0 + 1.96 * se
    assert math.isnan(out["total_tokens_mean"])  # absent: NaN, shown as "–"


def test_missing_or_bad_counts_give_nan_not_errors() -> None:
    out = overall_with_se({"accuracy_pct": "n/a", "accuracy_std": 0.1, "n_questions": 0})
    assert math.isnan(out["accuracy_se_pp"]) and math.isnan(out["accuracy_pct"])


def test_comparison_has_readable_columns_and_a_source() -> None:
    ours = {"accuracy_pct": 50.0, "accuracy_std": 0.5, "n_questions": 4, "total_tokens_mean": 6144}
    ref = pd.DataFrame([{"accuracy_pct": 50.0, "accuracy_std": 0.5, "n_questions": 4}])
    t = overall_comparison(ours, ref)
    assert list(t["source"]) == ["ours", "reference"]
    assert "SE of accuracy (pp)" in t.columns and "accuracy_std" not in t.columns
    assert list(t["SE of accuracy (pp)"]) == [25.0, 25.0]
    assert t["mean tokens per iteration"].iloc[0] == 6144
