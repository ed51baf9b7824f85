"""The light table (`components.common.lite_table`) in a real browser, on a throwaway one-page
app: text from the data stays text, only the rows in sight are in the page and the rest come as
the reader scrolls, and a click or the keyboard picks a row."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from components.common import theme
from tests.e2e.journey_helpers import SMALL, VIEWPORTS, new_page, one_page_app

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]

ROWS = 2000
HOSTILE = "<b>bold</b> <img src=x onerror=window.__pwned=1>"
APP = f"""
import polars as pl
import streamlit as st

from components.common.lite_table import lite_table, table_or_grid

frame = pl.DataFrame(
    {{
        "name": [{HOSTILE!r}] + [f"row {{i}}" for i in range(1, {ROWS})],
        "value": [i * 1.5 for i in range({ROWS})],
        "count": list(range({ROWS})),
    }}
)
columns = {{"value": st.column_config.NumberColumn("value", format="%.1f", width=90, help="half")}}


def picked(i):
    st.session_state["picked"] = i


lite_table(
    frame,
    key="t",
    columns=columns,
    label="test rows",
    on_pick=picked,
    selected=st.session_state.get("picked"),
)
st.container(key="out").write(f"picked {{st.session_state.get('picked')}}")


def grid_picked(i):
    st.session_state["grid_picked"] = i


table_or_grid(frame.head(3), key="g", grid=True, columns=columns, on_pick=grid_picked)
st.container(key="grid_out").write(f"grid picked {{st.session_state.get('grid_picked')}}")

wide = pl.DataFrame({{f"column {{c}}": [f"cell {{c}}.{{r}}" for r in range(4)] for c in range(8)}})
with st.container(key="wide", width=320):
    lite_table(
        wide,
        key="w",
        columns={{n: st.column_config.TextColumn(n, width=100) for n in wide.columns}},
    )

with st.container(key="pinned", width=320):
    lite_table(
        wide,
        key="p",
        columns={{
            n: st.column_config.TextColumn(n, width=100, pinned=n == "column 0")
            for n in wide.columns
        }},
    )

with st.container(key="capped"):
    table_or_grid(
        frame.head(5),
        key="c",
        grid=False,
        tones={{"value": ["diff", None, "info", None, "diff"]}},
        max_rows=3,
    )
"""


@pytest.fixture(scope="module")
def table_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with one_page_app(tmp_path_factory, "lite_table_app", APP) as url:
        yield url


@pytest.mark.parametrize("viewport", SMALL)
def test_a_light_table_keeps_text_as_text_and_picks_rows(
    browser: Browser, table_app: str, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    page.goto(table_app)
    table = page.locator(".rte-lite-table").first  # the app's first table, of 2,000 rows
    expect(table.locator("table")).to_have_attribute("aria-label", "test rows")
    # the header reads the column's declaration: its label, its help as a tip
    expect(table.locator("th").nth(1)).to_have_text("value")
    expect(table.locator("th").nth(1)).to_have_attribute("title", "half")
    # text from the data is text: no bold, no image, nothing ran
    first = table.locator('tr[data-i="0"] td').first
    expect(first).to_have_text(HOSTILE)
    expect(table.locator("b, img")).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None
    # numbers by the column's format, with thousands separators where it has none
    expect(table.locator('tr[data-i="5"] td')).to_have_text(["row 5", "7.5", "5"])
    # only the rows in sight (and a margin) are in the page; the rest come on scrolling
    rows = table.locator("tr[data-i]")
    expect(rows.first).to_be_visible()
    assert rows.count() < 80
    table.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")
    last = table.locator(f'tr[data-i="{ROWS - 1}"] td').first
    expect(last).to_have_text(f"row {ROWS - 1}")
    expect(last).to_be_visible()
    assert table.locator("tr[data-i]").count() < 80
    # a click picks a row; the keyboard moves to the next row and Enter picks it
    table.evaluate("(el) => { el.scrollTop = 0; }")
    row5 = table.locator('tr[data-i="5"]')
    row5.click()
    out = page.locator(".st-key-out")
    expect(out).to_have_text("picked 5")
    expect(table.locator('tr[data-i="5"]')).to_be_visible()
    table.locator('tr[data-i="5"]').focus()
    page.keyboard.press("ArrowDown")
    expect(table.locator('tr[data-i="6"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(out).to_have_text(re.compile(r"^picked 6$"))
    expect(table.locator('tr[data-i="6"]')).to_have_attribute("aria-selected", "true")
    expect(table.locator('tr[data-i="6"]')).to_be_focused()  # the keyboard path goes on
    # a pick far down: the run it starts marks the row where the reader scrolled to
    table.evaluate("(el) => { el.scrollTop = 60 * 35; }")
    far = table.locator('tr[data-i="65"]')
    far.click()
    expect(out).to_have_text("picked 65")
    expect(far).to_have_attribute("aria-selected", "true")
    expect(table.locator('tr[aria-selected="true"]')).to_have_count(1)
    assert table.evaluate("(el) => el.scrollTop") >= 50 * 35
    expect(far).to_be_in_viewport()
    page.context.close()


def test_the_grid_of_table_or_grid_picks_a_row_by_its_selection_box(
    browser: Browser, table_app: str
) -> None:
    page = new_page(browser, {"width": 1440, "height": 900})
    page.goto(table_app)
    grid = page.locator('[data-testid="stDataFrame"]')
    expect(grid).to_be_visible()
    expect(page.locator(".st-key-grid_out")).to_have_text("grid picked None")
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 35 + 17)  # the second row's selection box
    expect(page.locator(".st-key-grid_out")).to_have_text("grid picked 1")
    page.context.close()


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_marked_cells_and_a_capped_table(browser: Browser, table_app: str) -> None:
    page = new_page(browser, {"width": 1024, "height": 768})
    page.goto(table_app)
    box = page.locator(".st-key-capped")
    table = box.locator(".rte-lite-table")
    expect(table.locator("tr[data-i]")).to_have_count(3)  # the first rows only, and a line
    expect(box.get_by_text("The first 3 of 5 rows")).to_be_visible()
    value = table.locator("tr[data-i] td:nth-child(2)")
    expect(value.nth(0)).to_have_css("background-color", _rgb(theme.DIFF_BG))
    expect(value.nth(2)).to_have_css("background-color", _rgb(theme.INFO_BG))
    expect(value.nth(1)).to_have_css("background-color", "rgba(0, 0, 0, 0)")
    expect(table.locator("tr[data-i] td:nth-child(1)").nth(0)).to_have_css(
        "background-color", "rgba(0, 0, 0, 0)"
    )
    page.context.close()


# the columns whose right edge is past the box's, as the reader sees them
HIDDEN_JS = """(root) => {
  const edge = root.getBoundingClientRect().right;
  return Array.from(root.querySelectorAll('th')).filter(
    (th) => th.getBoundingClientRect().right > edge + 1).length;
}"""


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_table_wider_than_its_box_says_how_many_columns_are_out_of_sight(
    browser: Browser, table_app: str, viewport: dict[str, int]
) -> None:
    page = new_page(browser, viewport)
    page.goto(table_app)
    box = page.locator(".st-key-wide")
    table = box.locator(".rte-lite-table")
    tag = box.locator(".rte-lt-more")
    expect(tag).to_have_text(re.compile(r"^\+\d+$"))  # small: it sits on the headers
    hidden = table.evaluate(HIDDEN_JS)
    assert 4 <= hidden <= 6  # 8 columns of 100 px in 320 px
    expect(tag).to_have_text(f"+{hidden}")
    expect(tag).to_have_attribute("title", f"{hidden} more columns: scroll sideways")
    expect(box.locator(".rte-lt-frame")).to_have_class(re.compile("rte-lt-cut-right"))
    # a click on the tag scrolls sideways: fewer columns are out of sight
    tag.click()
    page.wait_for_function("(root) => root.scrollLeft > 0", arg=table.element_handle())
    # scrolled to its end, nothing is out of sight on the right, and the left edge is cut
    table.evaluate("(root) => { root.scrollLeft = root.scrollWidth; }")
    expect(tag).to_be_hidden()
    expect(box.locator(".rte-lt-frame")).to_have_class(re.compile("rte-lt-cut-left"))
    assert table.evaluate(HIDDEN_JS) == 0
    # a table as wide as its box says nothing
    expect(page.locator(".st-key-capped .rte-lt-more")).to_be_hidden()
    page.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_pinned_column_stays_at_the_left_edge_as_the_table_scrolls_sideways(
    browser: Browser, table_app: str, viewport: dict[str, int]
) -> None:
    """A column declared `pinned` (as the data grid pins it: a row's key, such as qid) keeps its
    place while the other columns scroll under it, header and cells."""
    page = new_page(browser, viewport)
    page.goto(table_app)
    table = page.locator(".st-key-pinned .rte-lite-table")
    first_head = table.locator("th").first
    expect(first_head).to_have_text("column 0")
    expect(table.locator("td").first).to_have_text("cell 0.0")
    left = table.evaluate("(root) => root.getBoundingClientRect().left")
    table.evaluate("(root) => { root.scrollLeft = 250; }")
    page.wait_for_function("(root) => root.scrollLeft >= 250", arg=table.element_handle())
    for cell in (first_head, table.locator("td").first):
        box = cell.bounding_box()
        assert box is not None and abs(box["x"] - left) <= 2, box
    # the columns after it did move: the second header is under the pinned one or gone left
    second = table.locator("th").nth(1).bounding_box()
    assert second is not None and second["x"] < left + 100 - 200
    page.context.close()
