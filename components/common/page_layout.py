"""The page's own margins on a small screen, drawn with the app-wide table style.

Streamlit's wide layout keeps 5rem on each side of a view and 6rem above it at every width: at
1024 px, with the sidebar open, that leaves a view 564 px, and the DAGs, curves and tables of
the views were cramped into it. Below 1280 px wide the sides are 1.5rem (676 px at 1024), and
below 820 px high the space above the title is smaller, so more of a view is in the first screen.
"""

from __future__ import annotations

import streamlit as st

from components.common.md_table import table_css

# Streamlit's own rule for the block is an emotion class: two parts of a selector outrank it
LAYOUT_CSS = """<style>
@media (max-width: 1279px) {
  .stMain [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
}
@media (max-height: 819px) {
  .stMain [data-testid="stMainBlockContainer"] { padding-top: 4.5rem; }
}
</style>"""


def app_style() -> None:
    """Once per run (app.py), as one element: the tables' style and the page's margins."""
    st.html(table_css() + LAYOUT_CSS)
