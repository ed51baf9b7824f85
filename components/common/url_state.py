"""URL state has one home: declared, validated query parameters per page.

Widgets bind themselves with Streamlit's own `bind="query-params"` (use `bound(key)`); state that
is not a widget (a clicked node, a selected trace) is read and written here through `Param`s,
which parse and validate each value and fall back to the default on anything odd (nothing is ever
unpickled or evaluated).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

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


def read_all(params: Sequence[Param]) -> dict[str, Any]:
    return {p.key: p.read() for p in params}


def query_href(
    params: Mapping[str, str] | Iterable[tuple[str, str]], key: str, value: object
) -> str:
    """`?<params with key=value>` for a plain in-page link (repeated keys kept, URL-encoded).
    Not HTML-escaped: the caller escapes it for its attribute."""
    items = params.items() if isinstance(params, Mapping) else params
    pairs = [(str(k), str(v)) for k, v in items if k != key]
    pairs.append((key, str(value)))
    return "?" + urlencode(pairs)
