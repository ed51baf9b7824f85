"""What only the browser can do: open a view by loading its URL, remember the author's name in a
cookie, ask before a reload drops text typed into a form, and scroll a view's item into sight.

Why a full load to open a saved view: a view state can hold keys that widgets of the page on
screen are bound to (tabs, the sidebar's sources), and Streamlit refuses to set those from Python
(`st.switch_page(query_params=...)` raises "bound to a widget"). Loading the URL is exactly what a
shared link does in a fresh browser, so whatever the state holds opens the same way.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import unquote

import streamlit as st

from components.common.registered import joined_js, registered

COMPONENT = "rte_browser"
AUTHOR_COOKIE = "rte_author"


def _component() -> Any:
    return registered(COMPONENT, lambda: joined_js("page_scroll.js", "browser.js"))


def _mount(key: str, **data: object) -> None:
    """In the sidebar, where a zero-height element costs no room (and it runs when hidden)."""
    with st.sidebar:
        _component()(key=f"rte_browser_{key}", data=data, height=0)


def bridge(author: str = "") -> None:
    """Once per run (app.py): the unsaved-text guard, and the author's name into its cookie."""
    _mount("bridge", author=author)


def navigate(path: str) -> None:
    """Load `path` (relative to the app's root, built by the explorer from its own views and
    URL-encoded keys) in this tab, then stop this run."""
    _mount("navigate", navigate=path, nonce=uuid.uuid4().hex)
    st.caption("Opening…")
    st.stop()


def cookie_author() -> str:
    """The author's name this browser remembered (empty when none)."""
    try:
        raw = st.context.cookies.get(AUTHOR_COOKIE)
    except Exception:  # noqa: BLE001 - no request context (a script run alone)
        return ""
    if not isinstance(raw, str):  # none set (AppTest hands back a stand-in object)
        return ""
    name = unquote(raw).strip()
    return name[:200] if name.isprintable() else ""


def focus_evidence(prefix: str, nonce: str | None = None, key: str = "focus") -> None:
    """Scroll the first element keyed `<prefix>_...` (a view's captured item) into sight below
    the pinned present banner or triage bar, once it has been drawn; again when `nonce` (default:
    the presentation's step) changes."""
    step = st.query_params.get("step", "") if nonce is None else nonce
    _mount(key, focus=f"st-key-{prefix}_", nonce=step)
