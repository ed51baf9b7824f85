"""Keep every view behind app.py's router.

Streamlit still supports the legacy multipage mode: while no session has called `st.navigation`
yet, a URL naming a page (`/mars?qid=3`) runs `pages/mars.py` on its own, without app.py's page
config, sidebar or error boundary. That happens to the first visitor after a server start who
opens a deep link. Each page calls `ensure_routed()` first; outside the router it switches the
legacy mode off and reruns, so app.py runs and resolves the same URL with its query parameters.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

_state = threading.local()  # Streamlit runs each session's script in its own thread


@contextmanager
def routed() -> Iterator[None]:
    """Wrap `page.run()` in app.py."""
    _state.active = True
    try:
        yield
    finally:
        _state.active = False


def ensure_routed() -> None:
    if getattr(_state, "active", False):
        return
    if st.session_state.get("_rte_rerouted"):
        return  # rerouting did not help (a page run on its own, e.g. by a tool): just render
    st.session_state["_rte_rerouted"] = True
    PagesManager.uses_pages_directory = False
    st.rerun()
