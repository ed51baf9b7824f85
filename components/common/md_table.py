"""Small read-only tables as escaped Markdown (GFM) instead of `st.dataframe`.

A data grid is the heaviest element a view can draw in a new tab (its canvas grid loads and lays
out before the page settles); a table of a few rows that nobody sorts or scrolls reads as well as
Markdown, which costs next to nothing. Every cell passes through `md_text`, so a file name or
value from the data can never become markup, a link or maths.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import polars as pl
import streamlit as st

from components.common.formatting import DASH, fmt_num
from components.common.safe_text import md_text

NUMERIC = (int, float)
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-z]+")  # a colour as CSS reads it, nothing else
# our own constant CSS (no data): a Markdown table wider than its column scrolls sideways, as a
# data grid does, instead of running past the column's edge (a 1024 px window)
TABLE_CSS = """<style>
[data-testid="stMarkdownContainer"] table { display: block; max-width: 100%; overflow-x: auto; }
.rte-lenses a, .rte-lens-items a { color: __LINK__; }
</style>"""  # the lenses' own HTML tables: links in the theme's colour, as Markdown links are


def _cell(value: object, limit: int, spec: str | None = None) -> str:
    if value is None or value == "":
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and spec is None:
        return f"{value:,}"
    if isinstance(value, NUMERIC):
        return fmt_num(value, spec or ",g")  # NaN as a dash, infinities as ∞
    return md_text(value, limit)


def md_table(
    rows: Sequence[Mapping[str, object]],
    limit: int = 120,
    formats: Mapping[str, str] | None = None,
) -> str:
    """`rows` (dicts with the same keys, in column order) as a Markdown table: numbers right
    aligned with thousands separators (or a column's format spec in `formats`, e.g. `".2f"`),
    empty cells as a dash; "" when there are no rows."""
    if not rows:
        return ""
    formats = formats or {}
    columns = list(rows[0])
    numeric = {
        c: all(isinstance(r.get(c), NUMERIC) or r.get(c) in (None, "") for r in rows)
        and any(isinstance(r.get(c), NUMERIC) for r in rows)
        for c in columns
    }
    head = "| " + " | ".join(md_text(c, 60) for c in columns) + " |"
    rule = "|" + "|".join("---:" if numeric[c] else "---" for c in columns) + "|"
    body = [
        "| " + " | ".join(_cell(r.get(c), limit, formats.get(c)) for c in columns) + " |"
        for r in rows
    ]
    return "\n".join([head, rule, *body])


def table_css() -> str:
    """`TABLE_CSS` with the theme's link colour (`theme.primaryColor`, a colour Streamlit has
    checked; a default when unset)."""
    colour = st.get_option("theme.primaryColor") or "#3b6fd8"
    return TABLE_CSS.replace(
        "__LINK__", str(colour) if _COLOUR.fullmatch(str(colour)) else "inherit"
    )


def table_style() -> None:
    """Draw `table_css()` (app.py, once per run: every view's Markdown tables)."""
    st.html(table_css())


def md_frame(
    frame: pl.DataFrame, limit: int = 120, formats: Mapping[str, str] | None = None
) -> str:
    """A small polars frame as `md_table` (a frame of strings prepared for display reads the
    same as in a data grid)."""
    return md_table(frame.to_dicts(), limit, formats)
