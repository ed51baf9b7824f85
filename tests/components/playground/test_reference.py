"""The reference diff's marks: a difference a tie explains is expected (blue), one no tie
explains is red, and nothing is painted in the quick preview."""

from __future__ import annotations

import pandas as pd

from components.common import theme
from components.playground.reference import _paint


def _table(status: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question_id": [0, 1, 2],
            "status": status,
            "accuracy_pct": [50.0, 60.0, 70.0],
            "accuracy_pct_ref": [40.0, 60.0, 65.0],
            "d_accuracy_pct": [10.0, 0.0, 5.0],
            "gamma": [0.8, 0.9, 1.0],
            "gamma_ref": [0.7, 0.9, 1.0],
        }
    )


def _styles(table: pd.DataFrame) -> dict[tuple[int, str], str]:
    ctx = _paint(table, ["d_accuracy_pct"])._compute().ctx
    cols = list(table.columns)
    return {
        (r, cols[c]): ";".join(f"{k}:{v}" for k, v in css) for (r, c), css in ctx.items() if css
    }


def test_tie_rows_are_blue_and_other_differences_red() -> None:
    s = _styles(_table(["tie", "same", "differs"]))
    assert theme.INFO_BG in s[(0, "d_accuracy_pct")]
    assert theme.INFO_BG in s[(0, "gamma_ref")]  # the gamma that differs from ours
    assert theme.DIFF_BG in s[(2, "d_accuracy_pct")]
    assert not any(r == 1 for r, _c in s)  # an equal row is not painted


def test_the_quick_preview_paints_nothing() -> None:
    assert _styles(_table(["preview", "same", "preview"])) == {}
