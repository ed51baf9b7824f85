"""URL state has one home: declared, validated query parameters per page.

Widgets bind themselves with Streamlit's own `bind="query-params"` (use `bound(key)`); state that
is not a widget (a clicked node, a selected trace) is read and written here through `Param`s,
which parse and validate each value and fall back to the default on anything odd (nothing is ever
unpickled or evaluated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st


def bound(key: str) -> dict[str, str]:
    """Keyword arguments that bind a widget's value to the URL under `key`."""
    return {"key": key, "bind": "query-params"}


def bound_kept(key: str) -> dict[str, str]:
    """`bound`, and the value survives while its tab or section is not rendered."""
    return {**bound(key), "persist_state": "page"}


@dataclass(frozen=True)
class Param:
    key: str
    default: Any
    parse: Callable[[str], Any] = str
    choices: Sequence[Any] | None = None

    def read(self) -> Any:
        raw = st.query_params.get(self.key)
        if raw is None or raw == "":
            return self.default
        try:
            value = self.parse(raw)
        except (TypeError, ValueError):
            return self.default
        if self.choices is not None and value not in self.choices:
            return self.default
        return value

    def write(self, value: Any) -> None:
        if value is None or value == self.default:
            if self.key in st.query_params:
                del st.query_params[self.key]
        elif st.query_params.get(self.key) != str(value):
            st.query_params[self.key] = str(value)


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """A parser accepting integers in [lo, hi]."""

    def parse(raw: str) -> int:
        v = int(raw)
        if not lo <= v <= hi:
            raise ValueError(raw)
        return v

    return parse


def safe_token(max_len: int = 200) -> Callable[[str], str]:
    """A parser for ids: printable, bounded length."""

    def parse(raw: str) -> str:
        if len(raw) > max_len or not raw.isprintable():
            raise ValueError(raw)
        return raw

    return parse


def selector_key(param: Param) -> str:
    """The session-state key of `url_selectbox`'s widget for `param`: a callback that sets it
    moves the selector before the run draws it."""
    return f"_sel_{param.key}"


def url_selectbox(
    label: str,
    options: Sequence[Any],
    param: Param,
    fallback: object = None,
    fmt: Callable[[Any], str] = str,
    **kwargs: Any,
) -> Any:
    """A selectbox whose choice lives in the URL as the plain value (`?file=<relpath>`, `?qid=3`)
    while it displays a readable label. Why not `bound()`: a bound widget writes the displayed
    label into the URL, and Streamlit drops a page's bound keys when navigating away. The URL
    wins when it changed since we last wrote it (a deep link, a clicked grid square); otherwise
    the widget's own state does."""
    key = selector_key(param)
    seen = f"{key}_url"
    opts = list(options)
    want = param.read()
    if want not in opts:
        want = fallback if fallback in opts else opts[0]
    if st.session_state.get(key) not in opts or st.session_state.get(seen) != want:
        st.session_state[key] = want
    value = st.selectbox(label, opts, format_func=fmt, key=key, **kwargs)
    param.write(value if value != param.default else None)
    st.session_state[seen] = value
    return value


def query_pairs() -> list[tuple[str, str]]:
    """The current URL's query as (key, value) pairs, every value of a repeated key kept (a
    multiselect bound to the URL repeats its key), for building in-page links."""
    return [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
