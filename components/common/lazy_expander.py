"""An expander whose URL-bound widgets are drawn only while they matter.

Widgets inside a closed expander are still drawn by the browser, and a handful of them (sliders,
multiselects, number inputs) cost more to draw in a new tab than the rest of a view. A lazy
expander reruns the script when opened or closed (`on_change="rerun"`) and draws its content
while it is open, or while one of its widgets holds a value in the URL: a bound widget that is
not drawn drops its value from the URL, so a set value keeps its widget drawn.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import streamlit as st


@contextmanager
def lazy_expander(label: str, url_keys: Sequence[str], key: str, **kw: object) -> Iterator[bool]:
    """`with lazy_expander(...) as draw:` draw the widgets only when `draw` is true; open from
    the start when the URL sets one of `url_keys`."""
    asked = any(k in st.query_params for k in url_keys)
    box = st.expander(label, expanded=asked, key=key, on_change="rerun", **kw)  # type: ignore[arg-type]  # the expander's own keyword options
    with box:
        yield bool(box.open) or asked
