"""The light table's cells and columns: what the browser is sent (`components.common.lite_table`)."""

from __future__ import annotations

import math

import polars as pl
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from components.common.formatting import DASH
from components.common.links import is_view_href
from components.common.lite_table import (
    CHAR_PX,
    HEADER_CHAR_PX,
    HEADER_SLACK_PX,
    MAX_WIDTH,
    PAD_PX,
    capped,
    cell_text,
    header_chars,
    table_payload,
)
from tests.pages.tables import lite_payloads, lite_tables


def test_cells_read_as_the_grid_shows_them() -> None:
    assert cell_text(None) == DASH
    assert cell_text(math.nan) == DASH
    assert cell_text(math.inf) == "∞" and cell_text(-math.inf) == "−∞"  # as fmt_num writes them
    assert cell_text("") == ""  # an empty badge stays empty
    assert cell_text(True) == "yes" and cell_text(False) == "no"
    assert cell_text(1234567) == "1,234,567"
    assert cell_text(1.23456, "%.2f") == "1.23"
    assert cell_text(-3.0, "%+.0f") == "-3"
    assert cell_text(12345.6, "%,.0f") == "12,346" and cell_text(7, "%d") == "7"
    assert cell_text(0.8333, "percent") == "83.33%" and cell_text(12345, "localized") == "12,345"
    assert cell_text(2.5, "%q") == "2.5"  # a format the table does not know: plain
    assert cell_text(12345.678) == "12,345.7"
    assert cell_text(["a", None]) == f"a, {DASH}"
    assert cell_text("<b>x</b>") == "<b>x</b>"  # text is sent as is and set as text


def test_columns_come_from_their_grid_declaration() -> None:
    frame = pl.DataFrame(
        {"uuid": ["a"], "speedup": [1.5], "n": [3], "hidden": ["x"], "plain": ["p"]}
    )
    columns = {
        "uuid": st.column_config.TextColumn("id", width=80, help="first 8", pinned=True),
        "speedup": st.column_config.NumberColumn("speedup", format="%.2f", width=70),
        "n": st.column_config.NumberColumn("n", width="small"),
        "hidden": None,
    }
    payload = table_payload(frame, columns)
    cols = {c["name"]: c for c in payload["cols"]}
    assert list(cols) == ["uuid", "speedup", "n", "plain"]  # a hidden column is not sent
    assert cols["uuid"] == {
        "name": "uuid",
        "label": "id",
        "width": 80,
        "help": "first 8",
        "right": False,
        "pinned": True,  # kept at the left edge as the table scrolls sideways
    }
    assert cols["speedup"]["right"] and cols["speedup"]["width"] == 70
    assert not cols["speedup"]["pinned"]
    assert cols["n"]["width"] == 75  # the grid's "small"
    # its label, "plain", in the header's font (wider than its one-character cells)
    assert cols["plain"]["width"] == round(5 * HEADER_CHAR_PX) + 2 * PAD_PX + HEADER_SLACK_PX
    assert cols["plain"]["label"] == "plain"
    assert payload["rows"] == [["a", "1.50", "3", "p"]]


def test_a_declared_width_is_widened_to_fit_its_label_in_two_lines() -> None:
    frame = pl.DataFrame({"added": [1]})
    columns = {"added": st.column_config.NumberColumn("8x added", width=20)}
    [col] = table_payload(frame, columns)["cols"]
    assert col["width"] == round(len("added") * HEADER_CHAR_PX) + 2 * PAD_PX + HEADER_SLACK_PX


def test_a_header_wraps_at_the_space_that_balances_its_two_lines() -> None:
    assert header_chars("first differing iteration") == len("first differing")
    assert header_chars("A right, B wrong") == len("A right,")
    assert header_chars("qid") == 3 and header_chars("") == 0
    frame = pl.DataFrame({"first_differing_iteration": [0, 12]})
    columns = {"first_differing_iteration": "first differing iteration"}
    [col] = table_payload(frame, columns)["cols"]
    assert col["width"] == round(15 * HEADER_CHAR_PX) + 2 * PAD_PX + HEADER_SLACK_PX


def test_an_undeclared_column_is_as_wide_as_its_content_within_bounds() -> None:
    frame = pl.DataFrame({"problem_id": ["a" * 20, "b"], "long": ["x" * 500, "y"]})
    widths = {c["name"]: c["width"] for c in table_payload(frame)["cols"]}
    assert widths["problem_id"] == round(20 * CHAR_PX) + 2 * PAD_PX
    assert widths["long"] == MAX_WIDTH  # the cell's tip shows the rest


def test_a_light_table_mounts_with_its_rows() -> None:
    def script() -> None:
        import polars as pl

        from components.common.lite_table import lite_table

        lite_table(pl.DataFrame({"a": [1, 2], "b": ["x", None]}), key="t", label="two rows")

    at = AppTest.from_function(script).run()
    assert not at.exception
    payload = lite_payloads(at)[0]
    assert payload["label"] == "two rows" and not payload["pickable"]
    assert payload["height"] == 35 * 3 + 2  # a header and two rows, no empty space below
    frame = lite_tables(at)[0]
    assert frame["a"].tolist() == [1, 2] and frame["b"].tolist() == ["x", DASH]


def test_a_link_column_carries_only_links_to_the_explorer_s_views() -> None:
    frame = pl.DataFrame(
        {
            "open": [
                "mars?file=a.parquet&qid=1",
                "javascript:alert(1)",
                "https://evil.example/x",
                "//evil.example",
                "nosuchview?x=1",
                'mars?q="><img src=x>',
            ]
        }
    )
    columns = {"open": st.column_config.LinkColumn("MARS view", display_text="open ↗")}
    payload = table_payload(frame, columns)
    assert payload["cols"][0]["link"] == "open ↗"
    assert [r[0] for r in payload["rows"]] == ["mars?file=a.parquet&qid=1", "", "", "", "", ""]
    assert is_view_href("playground") and not is_view_href("mars/../x")


def test_tones_mark_cells_by_name_only() -> None:
    frame = pl.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    payload = table_payload(frame, tones={"b": [None, "diff"]})
    assert payload["tones"] == [["", ""], ["", "diff"]]
    assert "tones" not in table_payload(frame)
    with pytest.raises(ValueError, match="unknown tone"):
        table_payload(frame, tones={"a": ["red; background:url(x)", None]})
    with pytest.raises(ValueError, match="2 rows"):
        table_payload(frame, tones={"a": ["diff"]})


def test_a_capped_light_table_says_how_many_rows_it_leaves_to_the_grid() -> None:
    def page() -> None:
        import polars as pl

        from components.common.lite_table import table_or_grid

        table_or_grid(pl.DataFrame({"n": list(range(30))}), key="t", grid=False, max_rows=10)

    at = AppTest.from_function(page).run()
    (table,) = lite_tables(at)
    assert list(table["n"]) == list(range(10))
    assert [c.value for c in at.caption] == [capped(10, 30)]
    assert "first 10 of 30 rows" in capped(10, 30)
