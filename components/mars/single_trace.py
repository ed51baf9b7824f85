"""The "Single trace" tab: one trace at full resolution (raw `confs` read for it alone), its
numbers, data flags and every probe with its full (escaped) text."""

from __future__ import annotations

import functools

import numpy as np
import polars as pl
import streamlit as st

from analysis.mars.confidence import group_confidences
from analysis.mars.flags import flag_names
from analysis.mars.store import MarsFeatureStore
from analysis.mars.summaries import probe_table
from analysis.mars.trace_filters import read_ahead, verdict_expr
from cache.sources import SourceConfig
from components.common import theme
from components.common.browser import focus_evidence
from components.common.casebook import evidence
from components.common.click_text import text_block
from components.common.formatting import fmt_num
from components.common.guards import guard
from components.common.light_control import light_select
from components.common.lite_table import lite_table
from components.common.maths import maybe_maths
from components.common.safe_text import esc
from components.common.stat_row import stat_row
from components.common.url_keys import MarsKeys
from components.common.url_state import url_radio, url_switch
from components.mars import cases as mcs
from components.mars import trace_filters, trace_nav, trace_reads
from components.mars.trace_chart import trace_chart

ZOOM_SMOOTHING: tuple[int, ...] = tuple(MarsKeys.ZSMOOTH.choices or ())
TRACE_PICK_KEY = "mars_trace_pick"
PROBES_KEY = "mars_probe_rows"
# the row picked in the probe table: ((file, qid, trace), the clicked probe then, position)
PROBE_ROW_KEY = "_mars_probe_row"
PROBE_KEY = "_mars_picked_probe"  # set by a probe click in the Curves tab: (trace, position)
PICKED_KEY = "_mars_picked"  # the trace that click picked (components/mars/curves.py)
ZOOM_HELP = (
    "Draw the trace with Plotly at full resolution: drag to zoom, pan. It loads Plotly's "
    "bundle, so it is slower than the light chart."
)


def _num(v: object) -> str:
    return fmt_num(v, inf="–")


@st.fragment
def render_single_trace(
    rel: str, src: SourceConfig, store: MarsFeatureStore, feats: pl.DataFrame, qid: int
) -> None:
    """A fragment: a trace switch (picker, stepping, a filter) reruns this tab alone, not the
    page's header and question overview."""
    if not feats.height:
        st.info("No traces.")
        return
    shown, _ = trace_filters.filtered(feats)  # the picker lists only the traces that match
    traces = shown["trace_idx"].to_list()
    if not traces:
        return
    picked = st.session_state.pop(PICKED_KEY, None)  # a click in the Curves tab opened this tab
    if picked in traces:
        MarsKeys.TRACE.write(picked)
    want = picked if picked in traces else MarsKeys.TRACE.read()
    idx = traces.index(want) if want in traces else 0
    if want is not None and want not in traces and want in set(feats["trace_idx"].to_list()):
        st.caption(f"Trace {want} does not match the filters: showing trace {traces[0]}.")
    ok = dict(zip(traces, shown.select(verdict_expr().alias("v"))["v"].to_list(), strict=True))
    lens = dict(zip(traces, shown["length"].to_list(), strict=True))
    trace = traces[idx]
    with st.container(horizontal=True, vertical_alignment="bottom"):
        # a picker one can type into (a long pool: 4,096 traces a question); a pick opens the
        # trace as a step or a click in the Curves tab does
        light_select(
            "Trace",
            [f"trace {t} · {ok[t]} · {lens[t] / 1000:.1f}k tokens" for t in traces],
            idx,
            key=TRACE_PICK_KEY,
            on_pick=functools.partial(_on_trace_pick, traces),
            typed=True,
        )
        trace_nav.step_buttons(shown, int(trace))
    MarsKeys.TRACE.write(trace if trace != traces[0] or want is not None else None)
    with st.container(horizontal=True, vertical_alignment="bottom", gap="large"):
        smooth = url_radio(
            "Smoothing (tokens averaged)",
            ZOOM_SMOOTHING,
            MarsKeys.ZSMOOTH,
            lambda n: "1 (raw)" if n == 1 else str(n),
            help="Moving average of the token confidences over this many tokens; 1 = raw.",
            width="content",
        )
        zoom = url_switch("zoom", MarsKeys.ZOOM, help=ZOOM_HELP)
    verdicts = list(ok.values())
    ahead = tuple(read_ahead(traces, verdicts, int(trace)))
    raw = trace_reads.raw_trace(rel, src, qid, int(trace), ahead)
    if not raw.height:
        st.warning("This trace is not in the file any more.")
        return
    row = raw.row(0, named=True)
    confs = np.asarray(row.get("confs") or [], dtype=np.float32)
    f = feats.filter(pl.col("trace_idx") == trace).row(0, named=True)
    groups = group_confidences(confs, store.window)
    probes = probe_table(row.get("probes") or [], f, store.question_groups(qid))
    with evidence("mars_trace"):
        trace_chart(confs, groups, store.window, probes, int(smooth), bool(zoom))
        with stat_row("mars_trace_stats", label=f"Trace {trace}") as stats:
            for label, value in (
                ("length", f"{f['length']:,}"),
                ("mean conf", _num(f["mean_conf"])),
                ("tail conf", _num(f["tail_conf"])),
                ("lowest group", _num(f["min_group"])),
                ("bottom 10%", _num(f["bottom_10"])),
            ):
                stats.metric(label, value)
    verdict = "right" if f["final_correct"] else ("no answer" if f["final_group"] < 0 else "wrong")
    ref = mcs.TraceRef(rel, src, qid, int(trace))
    with st.container(horizontal=True, vertical_alignment="center"):
        st.html(
            f"<div>Final answer ({verdict}): <code>{esc(f['final_answer'])}</code></div>",
            width="content",
        )
        with guard("the trace's casebook control", dataset=mcs.DATASET):
            mcs.capture_trace(ref, f, where="zoom")
    with guard("the trace's cases", dataset=mcs.DATASET):
        mcs.trace_cases_here(ref, where="zoom")
    if f["flags"]:
        st.warning(f"Data flags on this trace: {', '.join(flag_names(int(f['flags'])))}")
    clicked = st.session_state.get(PROBE_KEY)
    at = clicked[1] if clicked is not None and clicked[0] == int(trace) else None
    if at is None and want == int(trace):  # a link (a search hit) names the probe to show
        at = MarsKeys.PROBE.read()
    show_probe_texts(probes, ref, at=at)


def _on_trace_pick(traces: list[int], i: int) -> None:
    """Open the picked trace (before the run that draws it)."""
    st.session_state[PICKED_KEY] = traces[i]


def _on_probe_pick(context: tuple[object, int | None], positions: list[int], row: int) -> None:
    """Keep the picked row's probe (before the run that shows its text)."""
    if 0 <= row < len(positions):
        st.session_state[PROBE_ROW_KEY] = (*context, positions[row])


def show_probe_texts(
    probes: pl.DataFrame, ref: mcs.TraceRef | None = None, at: int | None = None
) -> None:
    """The probe table (raw_text shortened in the cell) and, under it, the full escaped
    raw_text of the selected row (the first probe until a row is picked), with the row's
    casebook control beside its header when `ref` names the trace."""
    if not probes.height:
        st.info("This trace has no probes.")
        return
    positions = probes["position"].to_list()
    whose = (ref.rel, ref.qid, ref.trace) if ref is not None else None
    # the row picked in this table (for this trace, since the same clicked probe), else the
    # clicked probe, else the first
    kept = st.session_state.get(PROBE_ROW_KEY)
    mine = kept[2] if isinstance(kept, tuple) and kept[:2] == (whose, at) else None
    start = positions.index(at) if at in positions else 0
    i = positions.index(mine) if mine in positions else start
    lite_table(
        probes,
        key=PROBES_KEY,
        label="probes",
        height=min(400, 36 + 35 * probes.height),
        columns={"raw_text": st.column_config.TextColumn("raw_text", width="large")},
        on_pick=functools.partial(_on_probe_pick, (whose, at), positions),
        selected=i,
    )
    r = probes.row(i, named=True)
    opened = (
        " (the probe the link names)" if mine is None and i == start and at in positions else ""
    )
    st.caption("Pick a row (a click, or Enter) to read its probe text in full.")
    given = r["answer"] if isinstance(r["answer"], str) and r["answer"].strip() else None
    answer = f"<code>{esc(given)}</code>" if given is not None else "(no answer)"
    text = maybe_maths(r["raw_text"]) or "(no text)"
    with st.container(horizontal=True, vertical_alignment="center"):
        st.html(
            "<div style='font-size:0.9rem;margin-bottom:4px'>Probe at token "
            f"<b>{esc(r['position'])}</b>{opened}, answer {answer}:</div>",
            width="content",
        )
        if ref is not None:
            with guard("the probe's casebook control", dataset=mcs.DATASET):
                mcs.capture_probe(ref, r)
    with st.container(key="mars_probetext_box"):  # the element a link's focus brings in sight
        text_block(
            "<pre style='white-space:pre-wrap;word-break:break-word;max-height:320px;"
            f"overflow:auto;background:{theme.PANEL_BG};border:1px solid {theme.PANEL_BORDER};"
            f"border-radius:6px;padding:8px 10px;margin:0'>{text}</pre>",
            key="mars_probe_text",
        )
    if opened:  # a link (a search hit) named this probe: bring its table and text into sight,
        # once per probe in a session (not again on each rerun while it stays open)
        seen = st.session_state.setdefault("_mars_probe_focused", set())
        if (whose, at) not in seen:
            seen.add((whose, at))
            focus_evidence("mars_probetext", nonce=f"{whose}:{at}", key="mars_probe_focus")
