"""The file-level figures' text: intervals and n spelled out, "–" for what is undefined."""

from __future__ import annotations

import math

from analysis.mars.file_stats import Estimate, SignalSeparation
from components.mars.file_summary import estimate_text, separation_table


def test_estimate_text_names_interval_and_n() -> None:
    assert estimate_text(Estimate(0.432, 0.351, 0.51, 30)) == "95% CI 35.1%–51.0%, n = 30 questions"
    assert estimate_text(Estimate(1.0, 1.0, 1.0, 1)) == "95% CI 100.0%–100.0%, n = 1 question"


def test_separation_table_prints_a_dash_for_a_missing_class() -> None:
    nan = math.nan
    t = separation_table(
        [
            SignalSeparation("min_group", 0.6234, 10, 20, 0.655, 0.5, 0.71, 7),
            SignalSeparation("mean_conf", nan, 0, 20, nan, nan, nan, 0),
        ]
    )
    assert t.row(0) == (
        "min_group: lowest 2,048-token group",
        "0.62",
        "10 / 20",
        "0.66 (0.50–0.71)",
        7,
    )
    assert t.row(1)[1] == "–" and t.row(1)[3] == "–"
