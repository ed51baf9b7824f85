"""Charts a view opens on, drawn as SVG without Plotly (see `lite_spec` for why).

`lite_chart(fig, key=..., on_select=...)` takes the same `go.Figure` a view would hand to
`st.plotly_chart` and behaves like it where the views rely on it: hover text, a click on a point
hands `{"selection": {"points": [...]}}` to `on_select` through `st.session_state[key]` (so
`components.common.selection` reads it unchanged), legend items and group titles hide and show
traces. It has no zoom or pan: a view that offers them draws the Plotly chart on request. A figure
the lite renderer cannot draw goes to `st.plotly_chart` (logged), so nothing is lost.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from cache.kept import Kept
from components.common.lite_spec import LiteUnsupported, chart_spec
from components.common.registered import joined_js, registered

LOG = logging.getLogger(__name__)
COMPONENT = "rte_lite_chart"
SELECT_EVENT = "selection"
# one module in three files, joined in this order: the layout helpers, the drawing, the component
_JS_FILES = ("lite_chart_layout.js", "lite_chart_draw.js", "lite_chart.js")
_CSS = """
.rte-lite-root { position: relative; width: 100%; }
.rte-lite-root svg { display: block; overflow: visible; }
.rte-lite-root [data-legend]:focus-visible { outline: 2px solid var(--st-primary-color); }
.rte-lite-tip {
  position: absolute; z-index: 5; pointer-events: none; max-width: 420px;
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; line-height: 1.35;
  background: rgba(255, 255, 255, 0.97); color: #31333f; border: 1px solid #999;
  border-left-width: 4px; border-radius: 4px; padding: 4px 7px;
  box-shadow: 0 2px 6px rgba(0, 0, 0, 0.15);
}
.rte-lite-steps { display: flex; align-items: center; gap: 10px; height: 36px; font-size: 13px; }
.rte-lite-steps input { flex: 1; accent-color: var(--st-primary-color); }
.rte-lite-steps button {
  font: inherit; padding: 2px 12px; border-radius: 6px; cursor: pointer;
  border: 1px solid rgba(49, 51, 63, 0.25); background: white;
}
"""
STEPS_PX = 40  # the Play / slider bar under a chart with steps

# the spec of a figure object a view keeps in a cache and draws again on every run: by the
# figure's id and its steps, with a weak reference that tells a reused id from the same figure
_SPECS: Kept[tuple[int, str], tuple[weakref.ref, dict[str, Any]]] = Kept(256)


def component_js() -> str:
    """The component's JavaScript: its three files joined into one ES module."""
    return joined_js(*_JS_FILES)


def _component() -> Any:
    return registered(COMPONENT, component_js, _CSS)


def _spec(fig: go.Figure, steps: Mapping[str, Any] | None, kept: bool) -> dict[str, Any]:
    if not kept:
        return chart_spec(fig, steps)
    memo = (id(fig), repr(sorted(steps.items())) if steps else "")
    hit = _SPECS.get(memo)
    if hit is not None and hit[0]() is fig:
        return hit[1]
    spec = chart_spec(fig, steps)
    _SPECS.put(memo, (weakref.ref(fig), spec))
    return spec


def lite_chart(
    fig: go.Figure,
    *,
    key: str,
    on_select: Callable[[], None] | None = None,
    steps: Mapping[str, Any] | None = None,
    kept: bool = False,
) -> Any:
    """Draw `fig` without Plotly; a figure it cannot draw is drawn by `st.plotly_chart`.

    `kept`: the figure comes from a cache and is never changed, so its spec is made once and
    reused while the figure lives. Returns the click of this run as `st.plotly_chart` would (read
    it with `selection.selected_points`): a click reruns the script even without `on_select`."""
    try:
        spec = _spec(fig, steps, kept)
    except LiteUnsupported as exc:
        LOG.warning("chart %s drawn with Plotly: the lite renderer cannot draw %s", key, exc)
        return st.plotly_chart(
            fig, key=key, on_select=on_select or "rerun", selection_mode="points", width="stretch"
        )
    return _component()(
        key=key,
        data={"spec": spec},
        height=spec["height"] + (STEPS_PX if spec["steps"] else 0),
        on_selection_change=on_select or (lambda: None),
    )
