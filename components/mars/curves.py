"""The "Curves" tab: confidence curves (or quantile bands) of a stable sample of the question's
traces, with probe markers; a clicked marker picks that trace for the "Single trace" tab."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.mars.summaries import sample_traces
from cache.sources import SourceConfig
from components.common.casebook import evidence
from components.common.guards import guard
from components.common.lite_chart import lite_chart
from components.common.selection import event_of, selected_points
from components.common.url_keys import MarsKeys
from components.common.url_state import bound
from components.mars import cached as mc
from components.mars import cases as mcs
from components.mars import figures as mf

CURVES_KEY = "mars_curves"
PICKED_KEY = "_mars_picked"
PROBE_KEY = "_mars_picked_probe"  # (trace, position) of the last clicked probe marker
TABS_STATE = "view"  # the tabs' key (components/mars/view.py)
SMOOTHING = (1, 3, 5, 9, 15, 25)
DEFAULT_CURVES = 30  # enough to see the spread, few enough to follow single curves
DEFAULT_SMOOTHING = 5
MAX_CURVES = 1000
_ZOOM_HELP = (
    "Draw the curves with Plotly: drag to zoom, pan, box-select. It loads Plotly's 4.7 MB "
    "bundle, so the tab opens slower in a new browser tab."
)
_N_HELP = "A stable random sample of the question's traces (more traces keep the ones shown)."


def clicked_probe(event: object) -> tuple[int, int | None] | None:
    """(trace, probe position) of the first clicked point: a probe marker carries both, a
    trace end only the trace (position None)."""
    for p in selected_points(event):
        data = p.get("customdata")
        values = list(data) if isinstance(data, list | tuple) else [data]
        try:
            trace = int(values[0])
            pos = int(values[1]) if len(values) > 1 and values[1] is not None else None
        except (TypeError, ValueError, IndexError):
            continue
        return trace, pos
    return None


def _on_curves_select() -> None:
    """A clicked probe marker opens the Single trace tab on that trace, at that probe; a
    clicked trace end opens the trace."""
    hit = clicked_probe(event_of(CURVES_KEY))
    if hit is None:
        return
    trace, pos = hit
    st.session_state[PICKED_KEY] = trace
    st.session_state[PROBE_KEY] = (trace, pos)
    st.session_state[TABS_STATE] = "Single trace"


def render_curves(rel: str, src: SourceConfig, feats: pl.DataFrame, qid: int) -> None:
    n_max = max(1, min(MAX_CURVES, feats.height))
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1.3], vertical_alignment="bottom")
    if n_max > 1:
        n = c1.slider(
            "Traces shown", 1, n_max, min(DEFAULT_CURVES, n_max), **bound("n"), help=_N_HELP
        )
    else:
        n = 1
        c1.caption("1 trace in this question")
    smooth = c2.select_slider(
        "Smoothing (points averaged)",
        SMOOTHING,
        value=DEFAULT_SMOOTHING,
        help="Each curve has 96 points, one per 1/96 of the trace's length. The value is how "
        "many neighbouring points are averaged into one: 1 = no smoothing.",
        **bound("smooth"),
    )
    mode = c3.radio("Show", ["curves", "quantile bands"], horizontal=True, **bound("show"))
    markers = c4.checkbox(  # a short label: "probe markers" was cut at 1024 px
        "probes", value=True, help="show the probe answers as markers", **bound("markers")
    )
    zoom = c4.checkbox("zoom", value=False, help=_ZOOM_HELP, **bound("zoom"))
    shown = sample_traces(feats, int(n), seed=qid)
    if mode == "quantile bands":
        st.plotly_chart(mf.bands_figure(shown, smooth=int(smooth)), width="stretch")
        st.caption(
            "Bands: 10th–90th percentile and median of the smoothed curves of the sampled traces, "
            "right vs wrong final answers, while at least 3 traces are still running."
        )
        return
    probe_text = mc.probes(rel, src, qid) if markers else None
    fig = mf.curves_figure(shown, probe_text, smooth=int(smooth), show_probes=bool(markers))
    with evidence("mars_curves"):
        if zoom:
            st.plotly_chart(
                fig,
                on_select=_on_curves_select,
                selection_mode="points",
                key=CURVES_KEY,
                width="stretch",
            )
        else:
            lite_chart(fig, key=CURVES_KEY, on_select=_on_curves_select)
    st.caption(
        "Each curve is a trace's confidence in 96 equal slices of its length (mean per slice), "
        "coloured by its final answer (green right, red wrong, grey none). Markers: the probe "
        "answers forced every 2,048 tokens and at the end, at their stored `avg_conf` "
        "(● right, × wrong); | marks the trace end. Click a marker to pick that trace for the "
        "Single trace tab."
    )
    picked = st.session_state.pop(PICKED_KEY, None)
    if picked is not None:
        MarsKeys.TRACE.write(picked)
        st.info(f"Trace {picked} selected: open the **Single trace** tab to zoom in.")
    with guard("the selected trace's casebook control", dataset=mcs.DATASET):
        _selected_trace_capture(rel, src, feats, qid, picked)


def _selected_trace_capture(
    rel: str, src: SourceConfig, feats: pl.DataFrame, qid: int, picked: int | None
) -> None:
    """The selected trace (just clicked, or named in the URL): its casebook control and the
    cases already on it."""
    trace = picked if picked is not None else MarsKeys.TRACE.read()
    rows = feats.filter(pl.col("trace_idx") == trace) if trace is not None else feats.clear()
    if not rows.height:
        return
    f = rows.row(0, named=True)
    ref = mcs.TraceRef(rel, src, qid, int(trace))
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(
            f"Selected: trace {ref.trace} ({mcs.trace_verdict(f)}, "
            f"{(f.get('length') or 0) / 1000:.1f}k tokens)",
            width="content",
        )
        mcs.capture_trace(ref, f, where="curves")
    mcs.trace_cases_here(ref, where="curves")
