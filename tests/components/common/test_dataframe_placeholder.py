"""Every table the app draws shows a missing cell as "–": Streamlit's grid prints "None" unless
`st.dataframe` gets `placeholder`. This walks the UI code for calls that forget it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _calls_without_placeholder(source: str) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "dataframe"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "st"
        ):
            ok = any(
                k.arg == "placeholder" and isinstance(k.value, ast.Name) and k.value.id == "DASH"
                for k in node.keywords
            )
            if not ok:
                lines.append(node.lineno)
    return lines


def test_the_walk_finds_a_forgotten_placeholder() -> None:
    assert _calls_without_placeholder("st.dataframe(df, hide_index=True)") == [1]
    assert _calls_without_placeholder("st.dataframe(df, placeholder=DASH)") == []
    assert _calls_without_placeholder("x = 1\nst.dataframe(df)") == [2]


def test_every_table_of_the_app_shows_missing_cells_as_a_dash() -> None:
    files = [ROOT / "app.py", *(ROOT / "components").rglob("*.py"), *(ROOT / "pages").rglob("*.py")]
    missing = {
        str(f.relative_to(ROOT)): found
        for f in files
        if (found := _calls_without_placeholder(f.read_text()))
    }
    assert missing == {}
