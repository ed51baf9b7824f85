"""One home for registering the explorer's own components with Streamlit (components v2).

A component is registered once per process: registering a name again only logs a warning, and
would read its script files on every run. Each module that draws a component asks for its mount
function here by name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

_MOUNTS: dict[str, Any] = {}
HERE = Path(__file__).parent


def joined_js(*names: str) -> str:
    """Script files of this folder joined, in order, into one ES module: a component's code
    split by concern, or a helper (`page_scroll.js`) that several components share."""
    return "\n".join((HERE / name).read_text(encoding="utf-8") for name in names)


def registered(name: str, js: str | Callable[[], str], css: str | None = None) -> Any:
    """The mount function of the component `name` (its script `js`, or a function that reads
    it, called on the first use only; its stylesheet `css`)."""
    mount = _MOUNTS.get(name)
    if mount is None:
        code = js() if callable(js) else js
        extra = {"css": css} if css is not None else {}
        mount = _MOUNTS[name] = st.components.v2.component(name, js=code, **extra)
    return mount
