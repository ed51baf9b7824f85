"""Selection events have one home: what a click on a plotly chart or a dataframe row sent.

Streamlit hands a selection over as a dict (from `st.session_state[key]` in a callback) or as an
attribute object (the return value of `st.plotly_chart` / `st.dataframe`); these helpers read
both, so no view re-implements the shape.
"""

from __future__ import annotations

from typing import Any

import streamlit as st


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    try:
        return obj[name]  # Streamlit's AttributeDictionary supports both
    except (KeyError, TypeError, IndexError):
        return getattr(obj, name, None)


def event_of(key: str) -> Any:
    """The selection state a widget with `key` left in the session (None when never used)."""
    return st.session_state.get(key)


def selected_points(event: Any) -> list[dict[str, Any]]:
    """The clicked points of a plotly selection event, [] when none."""
    points = _get(_get(event, "selection"), "points")
    return [p for p in points or [] if isinstance(p, dict)]


def selected_rows(event: Any) -> list[int]:
    """Row positions of a dataframe selection event, [] when none."""
    rows = _get(_get(event, "selection"), "rows")
    return [int(r) for r in rows or []]


def unwrap(customdata: Any) -> Any:
    """A point's customdata as one value: plotly wraps multi-column customdata in a list."""
    if isinstance(customdata, list | tuple):
        return customdata[0] if customdata else None
    return customdata


def point_values(event: Any) -> list[Any]:
    """The (unwrapped) customdata of every clicked point, in click order, None ones dropped."""
    out = [unwrap(p.get("customdata")) for p in selected_points(event)]
    return [v for v in out if v is not None]


def first_point_value(event: Any) -> Any:
    """The customdata of the first clicked point that carries one, or None."""
    values = point_values(event)
    return values[0] if values else None


def picked_value(key: str, event: str = "pick") -> str | None:
    """The value a bidirectional component (e.g. `click_text`) sent with `event`, in a callback."""
    value = _get(st.session_state.get(key), event)
    return value if isinstance(value, str) else None
