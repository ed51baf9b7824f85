"""The app-wide table style (`md_table.table_css`): the lenses' own HTML tables show their links
in the theme's colour, read from Streamlit's config, and nothing but a colour gets into the CSS."""

from __future__ import annotations

import pytest

from components.common import md_table


def test_lens_links_take_the_theme_colour() -> None:
    css = md_table.table_css()
    assert ".rte-lenses a, .rte-lens-items a { color: #3b6fd8; }" in css  # .streamlit/config.toml
    assert css.count("<style>") == 1 and css.rstrip().endswith("</style>")


def test_a_colour_option_that_is_not_a_colour_is_not_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(md_table.st, "get_option", lambda _name: "red;} body{display:none")
    css = md_table.table_css()
    assert "color: inherit;" in css and "display:none" not in css
