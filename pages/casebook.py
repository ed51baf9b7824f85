"""Casebook: the findings researchers captured in the views, searchable, editable, gathered into
collections, presented step by step and exported."""

from __future__ import annotations

import streamlit as st

from components.casebook import cases, collections, import_tab
from components.casebook.present import PRESENT, STEP, start
from components.common.casebook import readonly, store
from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.url_keys import CasebookKeys
from components.common.url_state import url_tabs

ensure_routed()

st.title("Casebook")
st.caption(
    "What you marked in the views: search it, open each case in the view where you found it, "
    "gather cases into collections, present them to your team, export them."
    + (" Read-only on this server (RTE_CASEBOOK=readonly)." if readonly() else "")
)

TABS = ("Cases", "Collections", "Import")
book = None
with guard("the casebook database", dataset="casebook"):
    book = store()
    if PRESENT.read():  # a shared presentation link: go to its current step
        start(book, PRESENT.read(), STEP.read())
        book = None  # the step's view is loading (or a message says why it cannot)

if book is not None:
    default = "Collections" if CasebookKeys.COLLECTION.read() else "Cases"
    name = url_tabs("Casebook parts", TABS, "tab", default)
    if name == "Cases":
        with guard("the cases", dataset="casebook"):
            cases.render(book)
    elif name == "Collections":
        with guard("the collections", dataset="casebook"):
            collections.render(book)
    else:
        with guard("the import", dataset="casebook"):
            import_tab.render(book)
