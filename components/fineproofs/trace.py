"""The Trace tab: one proof attempt's value curve with ±2 SE, the continuation histograms, the
highlighted trace text, the selected step's statistics, the per-prefix table and downloads.

Why each part has its own guard: a missing or corrupt trace shard only takes the text away; the
curve, histograms and table come from the prefix table and still render.
"""

from __future__ import annotations

import functools
from typing import Any

import polars as pl
import streamlit as st

from analysis.fineproofs.multitest import flag_burden
from analysis.fineproofs.overview import StartingPoint, resolve_trace, starting_points
from analysis.fineproofs.steptext import attach_step_text, export_frame, text_segments
from analysis.fineproofs.values import trace_row, trace_series
from cache.fineproofs_io import TraceRecord, TraceTextUnavailable
from cache.sources import SourceConfig
from components.common.casebook import evidence
from components.common.click_text import click_text, text_block
from components.common.deeplink import LinkNotes
from components.common.downloads import download_buttons, file_stem
from components.common.formatting import DASH, fmt_num, fmt_p
from components.common.guards import guard, show_error
from components.common.light_control import light_text
from components.common.links import view_href
from components.common.lite_chart import lite_chart
from components.common.maths import maths_on, maybe_maths
from components.common.safe_text import esc, line_text, md_label, md_text
from components.common.selection import event_of, first_point_value
from components.common.stat_row import stat_row
from components.common.url_keys import FineproofsKeys
from components.common.url_state import Param, url_radio
from components.fineproofs import cached as fc
from components.fineproofs.cases import (
    capture_step,
    capture_trace,
    step_cases_here,
    trace_cases_here,
)
from components.fineproofs.figures import hist_heatmap_figure, value_curve_figure
from components.fineproofs.phrases import (
    change_phrase,
    counts_phrase,
    drop_share_phrase,
    multiple_tests_note,
)
from components.fineproofs.shared import (
    DATASET,
    FDR_Q,
    TAB_KEY,
    correction,
    open_trace,
    show_notes,
)
from components.fineproofs.tables import SERIES_FORMATS, styled
from components.fineproofs.text import (
    highlighted_html,
    hist_sparkline,
    legend_html,
)

CURVE_KEY = "fp_curve"
# the curve's x axis and what colours the text (`url_radio`)
TX = Param("tx", "ordinal", choices=("ordinal", "depth"))
TCOLOR = Param("tcolor", "value", choices=("value", "change"))
TEXT_KEY = "fp_text"
PICK_KEY = "fp_trace_ref"  # the typed trace reference's light text box
PICK_ERROR = "_fp_trace_ref_error"  # (the text, why it names no trace) for the next run


def _pick_step(value: str) -> None:
    """A step clicked in the text becomes the URL's prefix (before the rerun draws the panel)."""
    if value.isdigit():
        FineproofsKeys.PREFIX.write(int(value))


def _on_curve_select() -> None:
    """A clicked curve point carries its prefix ordinal: select that step."""
    ordinal = first_point_value(event_of(CURVE_KEY))
    if ordinal is not None:
        FineproofsKeys.PREFIX.write(int(ordinal))


def _back() -> None:
    """Callback: leave the trace for the Overview, keeping the source and its filters."""
    FineproofsKeys.PROBLEM.write(None)
    FineproofsKeys.SAMPLE.write(None)
    FineproofsKeys.PREFIX.write(None)
    st.session_state[TAB_KEY] = "Overview"


def _open_typed(keys: list[tuple[str, int]], text: str) -> None:
    """Open the typed trace, or keep the sentence saying why not for the run to show."""
    found = resolve_trace(text, keys)
    if isinstance(found, str):
        st.session_state[PICK_ERROR] = (text, found)
    else:
        st.session_state.pop(PICK_ERROR, None)
        open_trace(*found)


def _trace_picker(summary: pl.DataFrame) -> None:
    """One light text box: a problem id (its start is enough) and a sample, Enter or the
    button opens that trace."""
    keys = [(str(p), int(s)) for p, s in summary.select("problem_id", "sample_index").iter_rows()]
    typed, why = st.session_state.get(PICK_ERROR, ("", ""))
    light_text(
        "Open a trace: its problem id (the start is enough) and sample",
        typed,
        key=PICK_KEY,
        on_enter=functools.partial(_open_typed, keys),
        placeholder="e.g. 73c49ae5d8 3",
        button="Open trace",
        enter_only=True,
    )
    if why:
        st.warning(md_text(why, 300), icon=":material/search_off:")


def _open_start(points: list[StartingPoint], value: str) -> None:
    if value.isdigit() and int(value) < len(points):
        p = points[int(value)]
        open_trace(p.problem_id, p.sample_index)


def _starting_points(summary: pl.DataFrame) -> None:
    """A few traces worth a first look, each with its rule and figure; a click opens it."""
    points = starting_points(summary)
    if not points:
        return
    items = "".join(
        f"<li><a data-pick='{n}' href='"
        + esc(view_href(DATASET, problem=p.problem_id, sample=p.sample_index, view="Trace"))
        + f"' target='_self'>Trace {esc(p.problem_id[:10])} · sample {p.sample_index}</a>"
        f" — {esc(p.why)}: {esc(p.figure)}</li>"
        for n, p in enumerate(points)
    )
    click_text(
        f"<div style='font-size:0.95rem'>Or start with one of these traces:"
        f"<ul style='margin:0.3rem 0 0 0'>{items}</ul></div>",
        key="fp_starts",
        on_pick=functools.partial(_open_start, points),
    )


def _trace_header(info: dict[str, Any], n_prefixes: int) -> None:
    """Headline metrics and the one-line shape description of the trace."""
    with stat_row("fp_trace_stats", label="The trace's figures") as m:
        m.metric("source", line_text(info.get("source") or "–", 60))
        m.metric("prefixes", n_prefixes)
        m.metric("endpoint grade", fmt_num(info.get("endpoint"), ".3f"), help="base grading log")
        ld = info.get("largest_drop")
        ldd = info.get("largest_drop_depth")
        m.metric(
            "largest drop" + (f" (depth {ldd:.2f})" if ld and ldd is not None else ""),
            "–" if not ld else fmt_num(ld, ".3f"),
            help="largest fall between consecutive prefixes; depth = relative depth of the "
            "prefix after it",
        )
        m.metric("first-error depth", fmt_num(info.get("first_error_depth"), ".2f"))
    share = info.get("drop_share")
    facts = [f"Shape: **{md_label(info.get('shape') or '–')}**"]
    if info.get("total_decline") is not None:
        facts.append(change_phrase(info["total_decline"]))
    if share is not None:
        facts.append(drop_share_phrase(info.get("largest_drop"), share))
    facts.append(
        counts_phrase(
            int(info.get("n_sig_drops") or 0),
            int(info.get("n_recoveries") or 0),
            int(info.get("n_bimodal") or 0),
        )
    )
    st.caption(" · ".join(facts))


DL = LinkNotes("fineproofs")  # this view's deep-link notes
SAMPLE_NOTE = (
    "The link's sample “{asked}” is not a sample number: pick the trace below or in the Overview."
)
PREFIX_NOTE = (
    "The link asks for prefix “{asked}”, which this trace does not have (prefixes {have}): no "
    "step is selected; click one below."
)


def render_trace(src: SourceConfig) -> None:
    """Value curve with ±2 SE, histogram per prefix, highlighted text, table and downloads."""
    annotated, _notes, extra = fc.prefixes(src)
    summary = fc.traces(src)
    pid, sample = FineproofsKeys.PROBLEM.read(), FineproofsKeys.SAMPLE.read()
    raw = DL.asked("sample")
    DL.remember("sample", raw, raw is None or sample is not None, sample)
    DL.show("sample", SAMPLE_NOTE, sample)
    if pid is None or sample is None:
        st.info(
            "No trace is open. Click a cell in the Overview, enter a trace below, or start with "
            "one of the traces listed under it."
        )
        _trace_picker(summary)
        _starting_points(summary)
        return
    st.session_state.pop(PICK_ERROR, None)  # a trace is open: an earlier typo is moot
    series = trace_series(annotated, pid, sample)
    if series.height == 0:
        st.error(
            f"**No prefix rows for problem {md_text(pid)} sample {sample}.** "
            "Check the link, or pick a trace in the Overview.",
            icon="⚠️",
        )
        _trace_picker(summary)
        return
    prefix = FineproofsKeys.PREFIX.read()
    ordinals = series["ordinal"].to_list()
    if prefix is not None and prefix not in ordinals:
        prefix = None
    raw = DL.asked("prefix")
    DL.remember("prefix", raw, raw is None or prefix is not None, prefix)
    span = f"{min(ordinals)}–{max(ordinals)}"
    DL.show("prefix", PREFIX_NOTE.replace("{have}", span), prefix)
    info = trace_row(summary, pid, sample)
    # a flex row: the control keeps its full label and wraps below the title when narrow
    with st.container(
        horizontal=True, horizontal_alignment="distribute", vertical_alignment="center"
    ):
        st.subheader(f"Trace {md_text(pid)} · sample {sample}", anchor=False, width="content")
        capture_trace(src, pid, sample, info, series.height)
    _trace_header(info, series.height)
    trace_cases_here(pid, sample)
    t1, t2 = st.columns(2)
    with t1:
        axis = url_radio(
            "Curve x axis",
            TX.choices or (),
            TX,
            help="prefix ordinal, or relative depth step/num_steps",
            width="content",
        )
    with t2:
        color = url_radio(
            "Colour the text by",
            TCOLOR.choices or (),
            TCOLOR,
            help="each step's value, or its change from the previous prefix",
            width="content",
        )
    x = "ordinal" if axis == "ordinal" else "rel_depth"
    c1, c2 = st.columns([3, 2])
    with c1, guard("the value curve", dataset=DATASET):
        lite_chart(
            value_curve_figure(series, x=x, selected=prefix),
            key=CURVE_KEY,
            on_select=_on_curve_select,
        )
        st.caption(
            "Value = mean grade of the continuations from that prefix (a value of the policy, not a "
            "verdict on the step); band = ±2 SE (std/√n). Marks beside a point: ▼ above = significant "
            "drop, ▲ below = recovery, × below = first-error candidate; ○ bimodal prefix; ★ at "
            '"end" = endpoint grade. Click a point to jump to its step.'
        )
        st.caption(multiple_tests_note(flag_burden(series["z"]), correction(), FDR_Q))
    with c2, guard("the continuation histograms", dataset=DATASET):
        lite_chart(hist_heatmap_figure(series), key="fp_hist")
        n_bad = int(series["hist"].is_null().sum()) if "hist" in series.columns else series.height
        if n_bad:
            st.caption(f"{n_bad} prefixes have no usable histogram (blank columns).")
    table = series
    rec: TraceRecord | None = None
    with guard("the trace text", dataset=DATASET):
        try:
            rec = fc.trace_record(src, pid, sample)
        except TraceTextUnavailable as exc:
            # not the guard's way back: that would switch a user's own source to the sample
            show_error(exc)
            st.button("Pick another trace in the Overview", key="fp_back", on_click=_back)
        if rec is not None:
            problem = rec.meta.get("problem")
            if problem:
                text_block(
                    '<div style="font-size:0.9rem;margin-bottom:0.3rem"><b>Problem.</b> '
                    f'<span style="white-space:pre-wrap">{maybe_maths(problem)}</span></div>',
                    key="fp_problem_text",
                )
            show_notes(list(rec.notes))
            mapped = attach_step_text(series, rec.text, rec.step_spans())
            table = mapped.frame
            show_notes(mapped.notes)
    if prefix is not None:
        with guard("the selected step", dataset=DATASET):
            step_stats_panel(
                table.filter(pl.col("ordinal") == prefix).row(0, named=True),
                src=src,
                trace=(pid, sample),
                text_shown=rec is not None,
            )
    if rec is not None:
        with guard("the trace text", dataset=DATASET):
            segs = text_segments(rec.text, table)
            html = highlighted_html(
                rec.text, segs, table, color_by=color, selected=prefix, maths=maths_on()
            )
            st.html(legend_html(color))
            # a click on a step selects it in place (no reload); the step goes into the URL
            click_text(html, key=TEXT_KEY, on_pick=_pick_step, reveal=prefix is not None)
    st.markdown(
        "**Per-prefix series**"
        + (f" · extra columns shown as stored: {', '.join(map(md_label, extra))}" if extra else "")
    )
    out = export_frame(table)
    st.dataframe(
        styled(out, SERIES_FORMATS),
        hide_index=True,
        height=min(420, 36 + 35 * out.height),
        placeholder=DASH,
    )
    row = st.container(horizontal=True, wrap=True)  # full labels at any width
    download_buttons(
        out,
        file_stem(DATASET, pid, sample, "steps"),
        key="fp_series",
        columns=[row, row],
        label="series",
    )


def step_stats_panel(
    r: dict[str, Any],
    *,
    src: SourceConfig | None = None,
    trace: tuple[str, int] | None = None,
    text_shown: bool = True,
) -> None:
    """The selected step's statistics (set by clicking its text, a curve point or a deep link);
    with `src` and `trace`, the control that labels the step in the casebook, and its cases.
    A step whose offsets are invalid says so: its text is not highlighted below."""
    with evidence("fp_step"), st.container(border=True, key="fp_step_stats"):
        of = f" of {r['num_steps']}" if r.get("num_steps") else ""
        with st.container(
            horizontal=True, horizontal_alignment="distribute", vertical_alignment="center"
        ):
            st.markdown(
                f"**Selected step · prefix {r['ordinal']} · step {r['step']}{of}**", width="content"
            )
            if src is not None and trace is not None:
                capture_step(src, trace[0], trace[1], r)
        se = r.get("se")
        with stat_row("fp_step_figures", label="The selected step's figures") as m:
            m.metric(
                "value",
                fmt_num(r.get("value"), ".3f"),
                help="mean grade of the continuations from this prefix",
            )
            m.metric(
                "± 2 SE",
                fmt_num(2 * se if se is not None else None, ".3f"),
                help="SE = std/√n of the continuation grades",
            )
            m.metric(
                "change",
                fmt_num(r.get("change"), "+.3f"),
                help=f"from the previous prefix with a value; z = {fmt_num(r.get('z'), '+.2f')}",
            )
            m.metric("n graded", fmt_num(r.get("n"), ".0f"))
            m.metric("flags", line_text(r.get("flags") or "none", 60))
        spark = hist_sparkline(r.get("hist"))
        bits = [
            f"z {fmt_num(r.get('z'), '+.2f')}",
            f"p {fmt_p(r.get('p_value'))} (two-sided)",
        ]
        if spark:
            bits.append(
                f"grades 0 → 1: `{spark}` (low < 0.25: {fmt_num(r.get('low_frac'), '.0%')}, "
                f"high ≥ 0.75: {fmt_num(r.get('high_frac'), '.0%')})"
            )
        else:
            bits.append("no usable histogram")
        lo, hi = r.get("min_grade"), r.get("max_grade")
        if lo is not None or hi is not None:
            bits.append(f"min {fmt_num(lo, '.2f')} · max {fmt_num(hi, '.2f')}")
        st.caption(" · ".join(bits))
        if r.get("span_issue"):
            st.warning(
                "**This step's offsets are invalid**, so its text is not highlighted: "
                f"{md_text(r['span_issue'], 400)}. The statistics above come from the prefix "
                "table and are unaffected.",
                icon="🔎",
            )
        elif not text_shown:
            st.caption(
                "The trace text is unavailable (see above); these statistics do not need it."
            )
        if trace is not None:
            step_cases_here(trace[0], trace[1], int(r["ordinal"]))
