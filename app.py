"""Reasoning Trace Explorer: entry point and router.

Run: `streamlit run app.py`. Each view is a file in pages/; the sidebar holds the data sources.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from components.common.guards import show_bug
from components.common.router import routed
from components.common.source_picker import render_source_sidebar

HERE = Path(__file__).parent

st.set_page_config(page_title="Reasoning Trace Explorer", page_icon="🧭", layout="wide")

# (file, title, url path, icon); a view appears once its file exists
VIEWS = [
    ("pages/home.py", "Home", "home", ":material/home:"),
    ("pages/parason.py", "Parason DAGs", "parason", ":material/account_tree:"),
    ("pages/mars.py", "MARS pools", "mars", ":material/show_chart:"),
    ("pages/playground.py", "Stopping playground", "playground", ":material/tune:"),
    ("pages/fineproofs.py", "FineProofs values", "fineproofs", ":material/grid_on:"),
]

pages = [
    st.Page(str(HERE / f), title=t, url_path=u, icon=i, default=(u == "home"))
    for f, t, u, i in VIEWS
    if (HERE / f).exists()
]
page = st.navigation(pages)
render_source_sidebar()

try:
    with routed():
        page.run()
except Exception as exc:  # noqa: BLE001 - the page boundary: never show a traceback
    show_bug(exc, page.title)
