"""The reference diff's marks: a difference a tie explains is expected (blue), one no tie
explains is red, and nothing is marked in the quick preview; the light table and the grid mark
the same cells."""

from __future__ import annotations

import pandas as pd

from components.common import theme
from components.common.lite_table import table_payload
from components.playground.reference import _as_text, _formats, _paint, cell_tones


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
    tones = cell_tones(_table(["tie", "same", "differs"]), ["d_accuracy_pct"])
    assert tones == {
        "d_accuracy_pct": ["info", None, "diff"],
        "gamma_ref": ["info", None, None],  # the gamma that differs from ours
    }


def test_the_grid_paints_the_cells_the_light_table_marks() -> None:
    s = _styles(_table(["tie", "same", "differs"]))
    assert theme.INFO_BG in s[(0, "d_accuracy_pct")]
    assert theme.INFO_BG in s[(0, "gamma_ref")]
    assert theme.DIFF_BG in s[(2, "d_accuracy_pct")]
    assert not any(r == 1 for r, _c in s)  # an equal row is not painted
    assert len(s) == 3


def test_the_quick_preview_marks_nothing() -> None:
    table = _table(["preview", "same", "preview"])
    assert cell_tones(table, ["d_accuracy_pct"]) == {}
    assert _styles(table) == {}


def test_the_light_table_shows_the_grids_formats_and_marks() -> None:
    table = _table(["tie", "same", "differs"])
    text, numeric = _as_text(table, _formats(list(table.columns)))
    assert text["question_id"].to_list() == ["0", "1", "2"]
    assert text["accuracy_pct"].to_list() == ["50.00", "60.00", "70.00"]
    assert text["d_accuracy_pct"].to_list() == ["+10", "0", "+5"]
    assert "status" not in numeric and "d_accuracy_pct" in numeric
    payload = table_payload(text, right=numeric, tones=cell_tones(table, ["d_accuracy_pct"]))
    d = [c["name"] for c in payload["cols"]].index("d_accuracy_pct")
    assert [row[d] for row in payload["tones"]] == ["info", "", "diff"]
