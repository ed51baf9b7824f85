"""Reasoning Trace Explorer: entry point and router.

Run: `streamlit run components/server/entry.py` (which serves this file). Each view is a file in
pages/; the sidebar holds the data sources.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from components.casebook.present import banner as present_banner
from components.casebook.triage_bar import triage_bar
from components.common.browser import bridge
from components.common.casebook import author, focus_linked_item
from components.common.guards import show_bug
from components.common.links import CASEBOOK, HOME, views
from components.common.maths import maths_toggle
from components.common.page_layout import app_style
from components.common.router import routed
from components.common.search_marks import search_marks
from components.common.source_picker import render_source_sidebar
from components.common.url_keys import keys_of
from components.common.url_state import refused_summary

HERE = Path(__file__).parent

st.set_page_config(page_title="Reasoning Trace Explorer", page_icon="🧭", layout="wide")

# a view appears once its file exists (the list lives in components.common.links)
shown = [v for v in views().values() if (HERE / v.script).exists()]
pages = [
    st.Page(
        str(HERE / v.script), title=v.title, url_path=v.url_path, icon=v.icon, default=v == HOME
    )
    for v in shown
]
page = st.navigation(pages)
view = next((v for v, p in zip(shown, pages, strict=True) if p is page), HOME)  # the open one
app_style()  # wide Markdown tables scroll sideways; narrower margins on a small screen
maths_toggle()  # "Render maths": every view's reasoning text reads it
render_source_sidebar()
bridge(author())  # the unsaved-text guard; the author's name kept in this browser
try:
    with routed():
        if view != CASEBOOK:
            present_banner()
            triage_bar(view.url_path)
            focus_linked_item()  # a case opened from the casebook: its item in sight
        search_marks()  # a search hit's text, marked in the view it opens
        # a link's values the view's controls refused, and keys it does not read, named atop it
        with refused_summary(keys_of(view.url_path)):
            page.run()
except Exception as exc:  # noqa: BLE001 - the page boundary: never show a traceback
    show_bug(exc, page.title)
