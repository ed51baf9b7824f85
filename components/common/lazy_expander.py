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
def lazy_expander(
    label: str,
    url_keys: Sequence[str],
    key: str,
    expanded: bool | None = None,
    **kw: object,
) -> Iterator[bool]:
    """`with lazy_expander(...) as draw:` draw the widgets only when `draw` is true; open from
    the start when the URL sets one of `url_keys` (or when `expanded`, if given)."""
    asked = any(k in st.query_params for k in url_keys)
    # `expanded` stays what it was on the session's first run: a changed one would make it a
    # new expander, closing it under the user's hands as a value is set or cleared
    first_key, label_key = f"_{key}_first", f"_{key}_label"
    first = st.session_state.setdefault(first_key, asked if expanded is None else expanded)
    # a new label makes a new expander too (a source box's title names the source chosen in
    # it): the new one starts as the old one was, open or closed
    if st.session_state.get(label_key, label) != label:
        first = st.session_state[first_key] = bool(st.session_state.get(key, first))
    st.session_state[label_key] = label
    box = st.expander(label, expanded=first, key=key, on_change="rerun", **kw)  # type: ignore[arg-type]  # the expander's own keyword options
    with box:
        yield bool(box.open) or asked
