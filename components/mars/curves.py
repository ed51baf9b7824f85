"""The "Curves" tab: fixed-window confidence curves of a stable sample of the question's traces
(or quantile bands over all of them), probe markers on the curves, an optional DeepConf
threshold; a clicked marker picks that trace for the "Single trace" tab."""

from __future__ import annotations

import numpy as np
import polars as pl
import streamlit as st

from analysis.mars.confidence import WINDOW
from analysis.mars.summaries import sample_traces
from analysis.mars.windows import WINDOWS
from analysis.playground.params import SimSettings
from analysis.playground.quantiles import percentile_last_axis
from cache.sources import SourceConfig
from components.common.casebook import evidence
from components.common.formatting import fmt_num
from components.common.guards import guard
from components.common.lazy_expander import lazy_expander
from components.common.lite_chart import lite_chart
from components.common.selection import event_of, selected_points
from components.common.url_keys import MarsKeys
from components.common.url_state import (
    bound,
    int_text_in,
    one_of,
    refused_link,
    say_refused,
    url_radio,
    url_switch,
    whole_numbers,
)
from components.mars import cached as mc
from components.mars import cases as mcs
from components.mars import curve_figures as cf
from components.mars import trace_filters
from components.mars.curve_figures import BY_AGREEMENT, BY_CORRECTNESS, Threshold

CURVES_KEY = "mars_curves"
PICKED_KEY = "_mars_picked"
PROBE_KEY = "_mars_picked_probe"  # (trace, position) of the last clicked probe marker
TABS_STATE = "view"  # the tabs' key (components/mars/view.py)
DEFAULT_CURVES = 30  # enough to see the spread, few enough to follow single curves
DEFAULT_WINDOW = WINDOW  # DeepConf's group size, the window its threshold applies to
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


POLICIES = {
    "none": None,
    "DeepConf-low (90th percentile)": 90.0,
    "DeepConf-high (10th percentile)": 10.0,
}
_POLICY_HELP = (
    "Draw a DeepConf threshold: the q-th percentile (numpy linear) of the lowest 2,048-token "
    "group confidence (min_group) over the warmup traces, as the stopping playground computes "
    "it. Here the warmup traces are the question's first {w} traces with a final answer (by "
    "trace index). A trace whose curve dips below the line would be stopped. DeepConf-low keeps "
    "about the top 10 % of traces, DeepConf-high about the top 90 %."
)


def deepconf_threshold(feats: pl.DataFrame, q: float, warmup: int) -> tuple[float, int]:
    """(threshold, warmup traces used): the q-th percentile of min_group over the first `warmup`
    traces with a final answer, by trace index (`analysis.playground.quantiles`, what the
    playground's DeepConf uses)."""
    head = (
        feats.filter(pl.col("final_group") >= 0)
        .sort("trace_idx")
        .head(warmup)["min_group"]
        .to_numpy()
        .astype(np.float64)
    )
    if head.size == 0:
        return float("nan"), 0
    return float(percentile_last_axis(head, q)), int(head.size)


OPTION_KEYS = ("n", "win", "probes_by", "policy")  # URL keys of the chart options


def _chart_options(pool: pl.DataFrame, n_max: int) -> tuple[int, int, str, str]:
    """How many traces, the confidence window, what colours the probe markers, which DeepConf
    threshold: drawn only while their expander is open or one of them is set in the URL."""
    d1, d2 = st.columns(2, vertical_alignment="bottom")
    if n_max > 1:
        asked = refused_link("n", int_text_in(1, n_max))
        n = d1.slider(
            "Traces shown", 1, n_max, min(DEFAULT_CURVES, n_max), **bound("n"), help=_N_HELP
        )
        with d1:
            say_refused("n", asked, "Traces shown", n, whole_numbers(1, n_max))
    else:
        n = 1
        d1.caption("1 trace matches" if pool.height > 1 else "1 trace in this question")
    # the URL holds the window as shown ("1,024")
    asked_win = refused_link("win", {f"{w:,}" for w in WINDOWS}.__contains__)
    window = int(
        d2.select_slider(
            "Window (tokens)",
            WINDOWS,
            value=DEFAULT_WINDOW,
            format_func=lambda w: f"{w:,}",
            help="Each point is the mean confidence of the previous W tokens, the same W for "
            "every trace, so dips compare across traces. 2,048 is the group confidence DeepConf "
            "thresholds.",
            **bound("win"),
        )
    )
    with d2:
        say_refused(
            "win", asked_win, "Window (tokens)", f"{window:,}", one_of([f"{w:,}" for w in WINDOWS])
        )
    e1, e2 = st.columns([3, 2], vertical_alignment="bottom")
    asked_by = refused_link("probes_by", {BY_AGREEMENT, BY_CORRECTNESS}.__contains__)
    asked_policy = refused_link("policy", set(POLICIES).__contains__)
    probes_by = e1.radio(
        "Probe markers by",
        [BY_AGREEMENT, BY_CORRECTNESS],
        horizontal=True,
        help="Agreement: does the probed answer equal the trace's own final answer (what MARS "
        "models)? Correctness: is the probed answer the ground truth?",
        **bound("probes_by"),
    )
    warmup = SimSettings().warmup
    policy = e2.selectbox(
        "Threshold", list(POLICIES), help=_POLICY_HELP.format(w=warmup), **bound("policy")
    )
    with e1:
        say_refused(
            "probes_by", asked_by, "Probe markers by", probes_by,
            one_of([BY_AGREEMENT, BY_CORRECTNESS]),
        )  # fmt: skip
    with e2:
        say_refused("policy", asked_policy, "Threshold", policy, one_of(list(POLICIES)))
    return int(n), window, str(probes_by), str(policy)


def render_curves(rel: str, src: SourceConfig, pool: pl.DataFrame, qid: int) -> None:
    feats, _ = trace_filters.filtered(pool)  # the traces drawn: those the filters pass
    if not feats.height:
        return
    n_max = max(1, min(MAX_CURVES, feats.height))
    c3, c4 = st.columns([3, 1], vertical_alignment="bottom")
    with c3:
        mode = url_radio("Show", MarsKeys.SHOW.choices or (), MarsKeys.SHOW)
    with c4:  # a short label: "probe markers" was cut at 1024 px
        markers = url_switch("probes", MarsKeys.MARKERS, help="show the probe answers as markers")
        zoom = url_switch("zoom", MarsKeys.ZOOM, help=_ZOOM_HELP)
    n, window, probes_by = min(DEFAULT_CURVES, n_max), DEFAULT_WINDOW, BY_AGREEMENT
    policy = next(iter(POLICIES))  # the selectbox's first option
    with lazy_expander(
        "Chart options: traces shown, window, probe colours, threshold",
        OPTION_KEYS,
        "mars_curve_options_open",
        icon=":material/tune:",
    ) as draw:
        if draw:
            n, window, probes_by, policy = _chart_options(pool, n_max)
    if mode == "quantile bands":
        _render_bands(rel, src, feats, qid, window)
        return
    shown = sample_traces(feats, int(n), seed=qid)
    threshold, thr_note = None, ""
    q = POLICIES.get(str(policy))
    if q is not None:
        value, used = deepconf_threshold(pool, q, SimSettings().warmup)
        if window != WINDOW:
            thr_note = (
                f" The {policy} threshold is drawn only at W = {WINDOW:,}, the window its "
                "min_group is computed on."
            )
        elif used:
            threshold = Threshold(
                value,
                f"{policy}: {fmt_num(value)}, the {q:.0f}th percentile of min_group over {used} "
                "warmup traces",
            )
    cs = mc.curves(rel, src, qid, shown, window)
    probe_text = mc.probes(rel, src, qid) if markers else None
    fig = cf.curves_figure(
        shown,
        cs,
        probe_text,
        show_probes=bool(markers),
        probes_by=str(probes_by),
        threshold=threshold,
    )
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
        f"Each curve is one trace's confidence in a fixed window: at token x, the mean of the "
        f"{window:,} tokens before x (before token {window:,}, of the tokens so far), every "
        f"{cs.stride:,} tokens; at W = 2,048 this is DeepConf's group confidence, and its lowest "
        "point past 2,048 is the trace's min_group. Colour: the trace's final answer (green "
        "right, red wrong, grey none). Markers: the probe answers forced every 2,048 tokens and "
        "at the end, placed on the curve at their token position; "
        + (
            "● the probed answer equals the trace's own final answer, ◆ another answer, "
            "○ no answer."
            if probes_by == BY_AGREEMENT
            else "● the probed answer is right, × wrong, ○ no answer."
        )
        + " | marks the trace end. Click a marker to pick that trace for the Single trace tab."
        + thr_note
    )
    picked = st.session_state.pop(PICKED_KEY, None)
    if picked is not None:
        MarsKeys.TRACE.write(picked)
        st.info(f"Trace {picked} selected: open the **Single trace** tab to zoom in.")
    with guard("the selected trace's casebook control", dataset=mcs.DATASET):
        _selected_trace_capture(rel, src, pool, qid, picked)


def _render_bands(rel: str, src: SourceConfig, feats: pl.DataFrame, qid: int, window: int) -> None:
    """The pool's bands: every trace of the question with a final answer, not only the shown."""
    with st.spinner(f"Reading the confidences of all {feats.height:,} traces…"):
        grid, bands = mc.bands(rel, src, qid, feats, window)
    st.plotly_chart(cf.bands_figure(grid, bands, window), width="stretch")
    n = {b.name: b.n for b in bands}
    n_none = int((feats["final_group"] < 0).sum())
    st.caption(
        f"Bands over the whole pool: the 10th–90th percentile and median of the {window:,}-token "
        f"window confidence of all {n.get('right', 0):,} traces with a right final answer and "
        f"all {n.get('wrong', 0):,} with a wrong one ({n_none:,} without a final answer left "
        "out), at each token position while at least 3 traces of the class are still running "
        "(hover: how many). The 'Traces shown' slider does not apply here."
    )


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
