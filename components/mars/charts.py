"""A MARS figure drawn light (SVG, `lite_chart`) unless the tab's "zoom" switch asks for Plotly:
the tabs open without Plotly's bundle (see `components/common/lite_spec.py` for why), and the same
figure is drawn by Plotly, with its hover, zoom and pan, on request."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import streamlit as st

from components.common.lite_chart import lite_chart
from components.common.url_keys import MarsKeys
from components.common.url_state import url_switch

ZOOM_HELP = (
    "Draw this tab's charts with Plotly: hover for every value, drag to zoom, pan. It loads "
    "Plotly's 4.7 MB bundle, so the tab opens on the light charts."
)


def zoom_switch(where: Any = st) -> bool:
    """The tab's URL-bound "zoom" switch (the key the Curves and Single trace tabs use too), in
    `where` (a column or a tab; the current container for `st`)."""
    if where is st:
        return url_switch("zoom", MarsKeys.ZOOM, help=ZOOM_HELP)
    with where:
        return url_switch("zoom", MarsKeys.ZOOM, help=ZOOM_HELP)


def chart(fig: go.Figure, *, key: str, zoom: bool, where: Any = None) -> None:
    """`fig` in `where` (a column or tab; the current container when None): Plotly on zoom, the
    light chart otherwise."""
    if zoom:
        (where or st).plotly_chart(fig, width="stretch", key=key)
        return
    if where is None:
        lite_chart(fig, key=f"{key}_lite")
        return
    with where:
        lite_chart(fig, key=f"{key}_lite")
