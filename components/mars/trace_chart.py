"""The Single trace chart: a light SVG chart first (no Plotly bundle, so the tab opens as fast as
the others), the full-resolution Plotly chart on "zoom" (the Curves tab's switch and key)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import polars as pl
import streamlit as st

from components.common import theme
from components.common.lite_chart import lite_chart
from components.mars import figures as mf

LITE_POINTS = 600  # points a line of the light chart keeps (bin means): about one a pixel
LITE_KEY = "mars_trace_lite"


def bin_means(y: np.ndarray, k: int) -> np.ndarray:
    """Means of consecutive bins of `k` values (the last one shorter), NaN-aware."""
    if k <= 1 or y.size == 0:
        return y.astype(np.float32)
    n = math.ceil(y.size / k)
    pad = np.full(n * k, np.nan, dtype=np.float64)
    pad[: y.size] = y
    bins = pad.reshape(n, k)
    ok = np.isfinite(bins)
    count = ok.sum(axis=1)
    total = np.where(ok, bins, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan).astype(np.float32)


def lite_figure(
    confs: np.ndarray, groups: np.ndarray, window: int, probes: pl.DataFrame, smooth: int
) -> tuple[go.Figure, int]:
    """The zoom figure with each line reduced to at most LITE_POINTS bin means at their bins'
    first token; (figure, tokens a point)."""
    c = np.asarray(confs, dtype=np.float64)
    if smooth > 1 and c.size:
        c = mf.smooth_rows(c[None, :], smooth)[0].astype(np.float64)
    k = max(1, math.ceil(c.size / LITE_POINTS))
    g = np.asarray(groups, dtype=np.float64)
    fig = mf.zoom_figure(bin_means(c, k), bin_means(g, k), window, probes, smooth=1)
    start = min(window, max(c.size, 1)) - 1
    fig.data[0].update(x=np.arange(0, c.size, k), x0=None, dx=None)
    fig.data[1].update(x=start + np.arange(0, g.size, k), x0=None, dx=None)
    if smooth > 1:
        fig.data[0].update(
            name=f"token confidence (smoothed over {smooth})",
            line={"color": theme.TOKEN_LINE_SMOOTHED},
        )
    return fig, k


def trace_chart(
    confs: np.ndarray,
    groups: np.ndarray,
    window: int,
    probes: pl.DataFrame,
    smooth: int,
    zoom: bool,
) -> None:
    if zoom:
        st.plotly_chart(
            mf.zoom_figure(confs, groups, window, probes, smooth=smooth), width="stretch"
        )
        return
    fig, k = lite_figure(confs, groups, window, probes, smooth)
    lite_chart(fig, key=LITE_KEY)
    if k > 1:
        st.caption(
            f"Each point is the mean of {k:,} tokens ({confs.size:,} in the trace). Tick "
            "**zoom** for every token, with zoom and pan."
        )
