"""Start the browser's Plotly work while the server still runs the script.

Why: a new tab fetches and evaluates Streamlit's Plotly bundle (4.7 MB of JavaScript) only when
the first chart element arrives, which is late in a view's script, and that evaluation alone
took 0.7-1.4 s of the first paint on the benchmark machine (bench/first_paint.py). A tiny chart
sent first, in a container hidden by CSS (zero width: Streamlit never draws it), makes the
browser load Plotly in parallel with the script; the chart is removed when the script ends, so
no chart is added to the page (AppTest sees one empty slot and a style element).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import plotly.graph_objects as go
import streamlit as st

KEY = "rte_plotly_preload"
_CSS = f"<style>.st-key-{KEY}{{display:none}}</style>"


@contextmanager
def plotly_preloaded(enabled: bool = True) -> Iterator[None]:
    """Run the body with a hidden one-point chart on the page; it is gone once the body ends."""
    if not enabled:
        yield
        return
    box = st.container(key=KEY)
    box.html(_CSS)
    slot = box.empty()
    slot.plotly_chart(go.Figure(go.Scatter(x=[0], y=[0])), config={"staticPlot": True})
    try:
        yield
    finally:
        slot.empty()  # the style stays: the emptied container keeps no gap on the page
