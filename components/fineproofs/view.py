"""Sections of the FineProofs page: overview grid, trace view, collection overview.

Why a component module: the page stays a thin script (read URL state, call these), while each
section is wrapped in `components.common.guards.guard` so bad data in one part (a missing shard, a
corrupt `.json.gz`, a prefix row without a trace) shows a message and the rest keeps working.
Computation lives in `analysis.fineproofs.values`; figures in `components.fineproofs.figures`.
"""

from __future__ import annotations

import functools
import io
import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from analysis.fineproofs.values import (
    KEYS,
    attach_step_text,
    export_frame,
    overview_cells,
    select_traces,
    shard_coverage,
    text_segments,
    trace_series,
)
from cache.sources import SourceConfig
from components.common.guards import guard
from components.common.safe_text import esc, md_label, md_text
from components.common.url_state import Param, bound_kept, int_in, safe_token
from components.fineproofs import cached as fc
from components.fineproofs.figures import (
    bar_figure,
    depth_distribution_figure,
    hist_heatmap_figure,
    overview_figure,
    value_curve_figure,
)
from components.fineproofs.text import (
    highlighted_html,
    hist_sparkline,
    legend_html,
    scroll_script,
)

DATASET = "fineproofs"
PROBLEM = Param("problem", None, parse=safe_token(64))
SAMPLE = Param("sample", None, parse=int_in(0, 10_000_000))
PREFIX = Param("prefix", None, parse=int_in(1, 100_000))
VIEWS = ("Overview", "Trace", "Collection")
SORTS = {
    "largest_drop": "largest drop",
    "endpoint": "endpoint grade",
    "first_error": "first-error depth",
    "last_value": "last prefix value",
}
PAGE_SIZES = (25, 50, 100)
GRID_KEY = "fp_grid"
TABLE_KEY = "fp_page_table"
CURVE_KEY = "fp_curve"


# ---------------------------------------------------------------- selection callbacks
def open_trace(problem_id: str, sample_index: int, prefix: int | None = None) -> None:
    """Select a trace (URL state) and switch to the Trace tab; used from callbacks."""
    PROBLEM.write(str(problem_id))
    SAMPLE.write(int(sample_index))
    PREFIX.write(int(prefix) if prefix else None)
    st.session_state["view"] = "Trace"


def _on_grid_select() -> None:
    sel = st.session_state.get(GRID_KEY)
    points = (sel or {}).get("selection", {}).get("points", []) if sel else []
    for p in points:
        cd = p.get("customdata")
        if cd and len(cd) >= 2:
            o = cd[2] if len(cd) > 2 else None
            open_trace(str(cd[0]), int(cd[1]), int(o) if o else None)
            return


def _on_table_select(page_rows: list[tuple[str, int]]) -> None:
    sel = st.session_state.get(TABLE_KEY)
    rows = (sel or {}).get("selection", {}).get("rows", []) if sel else []
    if rows and rows[0] < len(page_rows):
        pid, sample = page_rows[rows[0]]
        open_trace(pid, sample)


def _on_curve_select() -> None:
    sel = st.session_state.get(CURVE_KEY)
    points = (sel or {}).get("selection", {}).get("points", []) if sel else []
    for p in points:
        cd = p.get("customdata")
        if cd is not None:
            o = cd[0] if isinstance(cd, list | tuple) else cd
            PREFIX.write(int(o))
            return


# ---------------------------------------------------------------- notes
def show_notes(notes: list[str]) -> None:
    for n in notes:
        st.warning(md_text(n, 600), icon="🔎")


# ---------------------------------------------------------------- overview
def render_overview(src: SourceConfig) -> None:
    """Sortable, filterable grid of traces x prefixes, one page at a time (server-side)."""
    annotated, _notes, _extra = fc.prefixes(src)
    summary = fc.traces(src)
    sources = sorted(s for s in summary["source"].unique().to_list() if s is not None)
    c1, c2, c3, c4 = st.columns([2, 1.3, 3, 2], vertical_alignment="bottom")
    sort = c1.selectbox("Sort rows by", list(SORTS), format_func=SORTS.get, **bound_kept("sort"))
    desc = c2.toggle("Descending", value=True, help="largest values first", **bound_kept("desc"))
    chosen = c3.multiselect(
        "Sources", sources, default=[], placeholder="all sources", **bound_kept("src")
    )
    lo_hi = c4.slider(
        "Endpoint grade range",
        0.0,
        1.0,
        (0.0, 1.0),
        step=1 / 28,
        format="%.2f",
        help="Filter on the base trace's endpoint grade (from the base grading log).",
        **bound_kept("grade"),
    )
    d1, d2, d3 = st.columns([2, 2, 1])
    axis = (
        d1.segmented_control(
            "Columns",
            ["ordinal", "depth"],
            default="ordinal",
            help="prefix ordinal (1 = first collected prefix) or relative depth step/num_steps in 10 bins",
            **bound_kept("axis"),
        )
        or "ordinal"
    )
    color = (
        d2.segmented_control(
            "Colour",
            ["value", "change"],
            default="value",
            help="mean grade of the continuations, or its change from the previous prefix (diverging)",
            **bound_kept("color"),
        )
        or "value"
    )
    rows_per_page = d3.selectbox("Rows per page", PAGE_SIZES, index=0, **bound_kept("rows"))
    picked = select_traces(
        summary,
        sort=sort or "largest_drop",
        descending=bool(desc),
        sources=chosen or None,
        grade_range=(float(lo_hi[0]), float(lo_hi[1])),
    )
    n = picked.height
    if n == 0:
        st.info("No trace matches these filters. Widen the grade range or clear the source filter.")
        return
    n_pages = max(1, math.ceil(n / rows_per_page))
    page = st.pagination(n_pages, max_visible_pages=9, **bound_kept("page"))
    page = min(max(1, int(page or 1)), n_pages)
    start = (page - 1) * rows_per_page
    page_traces = picked.slice(start, rows_per_page)
    st.caption(
        f"{n:,} of {summary.height:,} traces match · rows {start + 1}–{start + page_traces.height} · "
        f"sorted by {SORTS.get(sort or '', sort)} ({'descending' if desc else 'ascending'}) · "
        "click a cell to open that trace at that prefix; grey = no value there (no grade, or no "
        "previous prefix to change from); ◆ = endpoint grade from the base grading log."
    )
    cells = overview_cells(annotated, page_traces, axis=axis, metric=color)
    sel = (PROBLEM.read(), SAMPLE.read())
    fig = overview_figure(
        cells, page_traces, metric=color, axis=axis, selected=sel if sel[0] else None
    )
    st.plotly_chart(
        fig,
        key=GRID_KEY,
        on_select=_on_grid_select,
        selection_mode="points",
        config={"displayModeBar": False},
    )
    page_rows = page_traces.select(*KEYS).rows()
    view = page_traces.select(
        "problem_id", "sample_index", "source", "shape", "endpoint", "first_value", "last_value",
        "largest_drop", "largest_drop_depth", "first_error_depth", "n_prefixes", "n_sig_drops",
        "n_recoveries", "n_bimodal",
    )  # fmt: skip
    st.caption("Or pick a row to open its trace:")
    st.dataframe(
        view,
        key=TABLE_KEY,
        on_select=functools.partial(_on_table_select, page_rows),
        selection_mode="single-row",
        hide_index=True,
        height=min(400, 36 + 35 * view.height),
    )


# ---------------------------------------------------------------- trace view
def _open_from_form() -> None:
    pid = str(st.session_state.get("fp_pid_in") or "").strip()
    if pid:
        open_trace(pid, int(st.session_state.get("fp_sample_in") or 0))


def _trace_picker() -> None:
    with st.form("fp_open_trace", border=False):
        c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
        c1.text_input("Problem id", placeholder="16 hex characters", key="fp_pid_in")
        c2.number_input("Sample", min_value=0, step=1, value=0, key="fp_sample_in")
        c3.form_submit_button("Open trace", on_click=_open_from_form)


def render_trace(src: SourceConfig) -> None:
    """Value curve with ±2 SE, histogram per prefix, highlighted text, table and downloads."""
    annotated, _notes, extra = fc.prefixes(src)
    summary = fc.traces(src)
    pid, sample = PROBLEM.read(), SAMPLE.read()
    if pid is None or sample is None:
        st.info("Click a cell in the Overview (or enter a trace below) to open a trace.")
        _trace_picker()
        return
    series = trace_series(annotated, pid, sample)
    if series.height == 0:
        st.error(
            f"**No prefix rows for problem {md_text(pid)} sample {sample}.** "
            "Check the link, or pick a trace in the Overview.",
            icon="⚠️",
        )
        _trace_picker()
        return
    row = summary.filter((pl.col("problem_id") == pid) & (pl.col("sample_index") == sample))
    info = row.row(0, named=True) if row.height else {}
    prefix = PREFIX.read()
    if prefix is not None and prefix not in series["ordinal"].to_list():
        prefix = None
    st.subheader(f"Trace {md_text(pid)} · sample {sample}", anchor=False)
    m = st.columns(5)
    m[0].metric("source", md_text(info.get("source") or "–", 60))
    m[1].metric("prefixes", series.height)
    end = info.get("endpoint")
    m[2].metric("endpoint grade", "–" if end is None else f"{end:.3f}", help="base grading log")
    ld = info.get("largest_drop")
    ldd = info.get("largest_drop_depth")
    m[3].metric(
        "largest drop" + (f" (depth {ldd:.2f})" if ld and ldd is not None else ""),
        "–" if not ld else f"{ld:.3f}",
        help="largest fall between consecutive prefixes; depth = relative depth of the prefix after it",
    )
    fe = info.get("first_error_depth")
    m[4].metric("first-error depth", "–" if fe is None else f"{fe:.2f}")
    share = info.get("drop_share")
    facts = [f"Shape: **{md_label(info.get('shape') or '–')}**"]
    if info.get("total_decline") is not None:
        facts.append(change_phrase(info["total_decline"]))
    if share is not None:
        facts.append(f"the largest single drop is {share:.0%} of it")
    facts.append(
        f"{info.get('n_sig_drops', 0)} significant drops, {info.get('n_recoveries', 0)} recoveries, "
        f"{info.get('n_bimodal', 0)} bimodal prefixes"
    )
    st.caption(" · ".join(facts))
    t1, t2 = st.columns(2)
    axis = (
        t1.segmented_control(
            "Curve x axis",
            ["ordinal", "depth"],
            default="ordinal",
            help="prefix ordinal, or relative depth step/num_steps",
            **bound_kept("tx"),
        )
        or "ordinal"
    )
    color = (
        t2.segmented_control(
            "Colour the text by",
            ["value", "change"],
            default="value",
            help="each step's value, or its change from the previous prefix",
            **bound_kept("tcolor"),
        )
        or "value"
    )
    x = "ordinal" if axis == "ordinal" else "rel_depth"
    c1, c2 = st.columns([3, 2])
    with c1, guard("the value curve", dataset=DATASET):
        st.plotly_chart(
            value_curve_figure(series, x=x, selected=prefix),
            key=CURVE_KEY,
            on_select=_on_curve_select,
            selection_mode="points",
            config={"displayModeBar": False},
        )
        st.caption(
            "Value = mean grade of the continuations from that prefix (a value of the policy, not a "
            "verdict on the step); band = ±2 SE (std/√n). Marks beside a point: ▼ above = significant "
            "drop, ▲ below = recovery, × below = first-error candidate; ○ bimodal prefix; ★ at "
            '"end" = endpoint grade. Click a point to jump to its step.'
        )
    with c2, guard("the continuation histograms", dataset=DATASET):
        st.plotly_chart(hist_heatmap_figure(series), config={"displayModeBar": False})
        n_bad = int(series["hist"].is_null().sum()) if "hist" in series.columns else series.height
        if n_bad:
            st.caption(f"{n_bad} prefixes have no usable histogram (blank columns).")
    table = series
    with guard("the trace text", dataset=DATASET):
        rec = fc.trace_record(src, pid, sample)
        problem = rec.meta.get("problem")
        if problem:
            st.html(
                '<div style="font-size:0.9rem;margin-bottom:0.3rem"><b>Problem.</b> '
                f'<span style="white-space:pre-wrap">{esc(problem)}</span></div>'
            )
        steps = [(s.step_idx, s.utf16_start, s.utf16_end) for s in rec.steps]
        mapped = attach_step_text(series, rec.text, steps)
        table = mapped.frame
        show_notes(mapped.notes)
        segs = text_segments(rec.text, table)
        html = highlighted_html(
            rec.text, segs, table, color_by=color, selected=prefix, query=_query_pairs()
        )
        if prefix is not None:
            step_stats_panel(table.filter(pl.col("ordinal") == prefix).row(0, named=True))
        st.html(legend_html(color))
        if prefix is not None:
            st.html(html + scroll_script(prefix), unsafe_allow_javascript=True)
        else:
            st.html(html)
    st.markdown(
        "**Per-prefix series**"
        + (f" · extra columns shown as stored: {', '.join(map(md_label, extra))}" if extra else "")
    )
    out = export_frame(table)
    st.dataframe(out, hide_index=True, height=min(420, 36 + 35 * out.height))
    d1, d2, _ = st.columns([1, 1, 2], gap="small")
    stem = f"fineproofs_{pid}_{sample}"
    d1.download_button(
        "Download series (CSV)",
        out.write_csv().encode(),
        f"{stem}.csv",
        mime="text/csv",
        width="stretch",
    )
    buf = io.BytesIO()
    out.write_parquet(buf)
    d2.download_button(
        "Download series (Parquet)",
        buf.getvalue(),
        f"{stem}.parquet",
        mime="application/octet-stream",
        width="stretch",
    )


def _query_pairs() -> list[tuple[str, str]]:
    """The current URL query as (key, value) pairs, repeated keys kept (multiselects)."""
    return [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]


def _num(x: object, spec: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return format(x, spec)


def step_stats_panel(r: dict[str, Any]) -> None:
    """The selected step's statistics (set by clicking its text, a curve point or a deep link)."""
    with st.container(border=True, key="fp_step_stats"):
        of = f" of {r['num_steps']}" if r.get("num_steps") else ""
        st.markdown(f"**Selected step · prefix {r['ordinal']} · step {r['step']}{of}**")
        m = st.columns(5)
        se = r.get("se")
        m[0].metric(
            "value",
            _num(r.get("value"), ".3f"),
            help="mean grade of the continuations from this prefix",
        )
        m[1].metric(
            "± 2 SE",
            _num(2 * se if se is not None else None, ".3f"),
            help="SE = std/√n of the continuation grades",
        )
        m[2].metric(
            "change",
            _num(r.get("change"), "+.3f"),
            help=f"from the previous prefix with a value; z = {_num(r.get('z'), '+.1f')}",
        )
        m[3].metric("n graded", _num(r.get("n"), ".0f"))
        m[4].metric("flags", md_text(r.get("flags") or "none", 60))
        hist = r.get("hist")
        spark = hist_sparkline(hist)
        bits = [f"z {_num(r.get('z'), '+.1f')}"]
        if spark:
            bits.append(
                f"grades 0 → 1: `{spark}` (low < 0.25: {_num(r.get('low_frac'), '.0%')}, "
                f"high ≥ 0.75: {_num(r.get('high_frac'), '.0%')})"
            )
        else:
            bits.append("no usable histogram")
        lo, hi = r.get("min_grade"), r.get("max_grade")
        if lo is not None or hi is not None:
            bits.append(f"min {_num(lo, '.2f')} · max {_num(hi, '.2f')}")
        st.caption(" · ".join(bits))


# ---------------------------------------------------------------- collection overview
def _is_num(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _labels_for(values: list, sibling: dict, key: str) -> list[str]:
    n = len(values)
    for cand in ("bin_edges", "edges", "bins", "labels", f"{key}_labels"):
        lab = sibling.get(cand)
        if isinstance(lab, list) and lab is not values:
            if len(lab) == n + 1 and all(_is_num(v) for v in lab):
                return [f"{lab[i]:.2f}–{lab[i + 1]:.2f}" for i in range(n)]
            if len(lab) == n:
                return [str(v) for v in lab]
    return [str(i) for i in range(n)]


def kv_table_html(scalars: dict[str, Any]) -> str:
    """Key/value rows as an escaped HTML table whose cells wrap anywhere: a long run name with no
    spaces was cut off (dataframe cells and st.table never break inside such a word)."""
    rows = "".join(
        f'<tr><td style="{_TD};white-space:nowrap;color:#555">{esc(k)}</td>'
        f'<td style="{_TD};overflow-wrap:anywhere;word-break:break-word">{esc(_scalar(v))}</td></tr>'
        for k, v in scalars.items()
    )
    return (
        '<table class="fp-kv" style="border-collapse:collapse;width:100%;font-size:0.85rem;'
        'table-layout:auto">'
        f'<thead><tr><th style="{_TD};text-align:left">key</th>'
        f'<th style="{_TD};text-align:left">value</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def _scalar(v: object) -> str:
    """A JSON scalar as JSON writes it (null, true, 0.5); strings as they are."""
    return v if isinstance(v, str) else json.dumps(v)


_TD = "border:1px solid rgba(128,128,128,0.25);padding:4px 8px;vertical-align:top"


def render_json(doc: dict[str, Any], title: str, depth: int = 0) -> None:
    """Render whatever a summary/manifest JSON holds, without assuming its keys."""
    scalars = {k: v for k, v in doc.items() if v is None or isinstance(v, str | bool) or _is_num(v)}
    if scalars:
        st.html(kv_table_html(scalars))
    for k, v in doc.items():
        if k in scalars:
            continue
        label = md_label(k)
        if isinstance(v, list) and v and all(_is_num(x) for x in v):
            if k in ("bin_edges", "edges") and any(isinstance(x, list) for x in doc.values()):
                continue
            labels = _labels_for(v, doc, k)
            plain = labels == [str(i) for i in range(len(v))]
            st.plotly_chart(
                bar_figure(
                    v,
                    labels,
                    f"{title} · {label}",
                    x_title="position in the list" if plain else "bin",
                    y_title=label,
                ),
                config={"displayModeBar": False},
            )
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            st.markdown(f"**{label}**")
            try:
                st.dataframe(pl.DataFrame(v, strict=False), hide_index=True)
            except Exception:  # noqa: BLE001 - heterogeneous records: show as JSON
                st.json(v, expanded=False)
        elif (
            isinstance(v, dict)
            and v
            and all(isinstance(x, dict) for x in v.values())
            and len(v) > 8
        ):
            st.markdown(f"**{label}** ({len(v)} entries)")
            try:
                st.dataframe(
                    pl.DataFrame([{"key": str(kk), **vv} for kk, vv in v.items()], strict=False),
                    hide_index=True,
                )
            except Exception:  # noqa: BLE001
                st.json(v, expanded=False)
        elif isinstance(v, dict) and v and depth < 2:
            st.markdown(f"**{label}**")
            render_json(v, f"{title} · {label}", depth + 1)
        elif isinstance(v, list | dict):
            st.markdown(f"**{label}**" + (" (empty)" if not v else ""))
            if v:
                st.json(v, expanded=False)


def _coverage(src: SourceConfig, summary: pl.DataFrame) -> None:
    """Which trace shards the prefix table needs, and which are present (no download)."""
    from cache.sources import available_files

    files = available_files(DATASET, src, "data/traces/*.json.gz")
    present = {Path(f).name.split(".")[0].lower() for f in files}
    cov = shard_coverage(summary, present)
    missing = cov.filter(~pl.col("present"))
    where = "in the HF cache" if src.kind == "hub" else "on disk"
    st.markdown("#### Trace coverage")
    st.caption(
        f"The prefix table refers to {summary.height:,} traces in {cov.height:,} shards; "
        f"{cov.height - missing.height:,} shards are present {where}"
        + (
            f"; {int(missing['traces'].sum()):,} traces ({int(missing['prefixes'].sum()):,} "
            "prefix rows) are in shards that are not."
            if missing.height
            else "."
        )
        + (
            " A Hub source downloads each shard when its trace is opened."
            if src.kind == "hub"
            else ""
        )
    )
    if missing.height and src.kind != "hub":
        st.dataframe(missing, hide_index=True, height=min(300, 36 + 35 * missing.height))


def render_collection(src: SourceConfig) -> None:
    """Derived depth/shape summaries first (the answers), then coverage, then summary.json and
    trace_manifest.json as they are, folded away in expanders."""
    with guard("the derived summaries", dataset=DATASET):
        st.markdown("#### Value by relative depth (derived from the prefix table)")
        st.plotly_chart(depth_distribution_figure(fc.depth(src)), config={"displayModeBar": False})
        summary = fc.traces(src)
        fe = summary["first_error_depth"].drop_nulls()
        st.caption(
            f"{summary.height:,} traces; {fe.len():,} have a first-error candidate "
            f"(median depth {fe.median() if fe.len() else float('nan'):.2f}); "
            f"{int((summary['n_recoveries'] > 0).sum()):,} show a drop then a recovery."
        )
        shapes = summary.group_by("shape").len().sort("len", descending=True)
        st.markdown("#### Failure shapes of the traces")
        st.plotly_chart(
            bar_figure(
                shapes["len"].to_list(),
                [s or "–" for s in shapes["shape"].to_list()],
                x_title="failure shape",
                y_title="traces",
                max_ticks=50,  # categories: name every bar
            ),
            config={"displayModeBar": False},
        )
        with guard("the trace coverage", dataset=DATASET):
            _coverage(src, summary)
    st.markdown("#### Side files, as stored")
    c1, c2 = st.columns(2)
    with c1, guard("summary.json", dataset=DATASET), st.expander("summary.json"):
        render_json(fc.side_json(src, "summary"), "summary")
    with c2, guard("trace_manifest.json", dataset=DATASET), st.expander("trace_manifest.json"):
        render_json(fc.side_json(src, "manifest"), "manifest")


def change_phrase(total_decline: float) -> str:
    """total_decline = first - last prefix value, said in words (a signed "decline" of -0.058
    read as a double negative)."""
    d = float(total_decline)
    if d != d:
        return "no first-to-last change (a value is missing)"
    if abs(d) < 0.0005:
        return "value unchanged from first to last prefix"
    verb = "fell" if d > 0 else "rose"
    return f"value {verb} by {abs(d):.3f} from first to last prefix"
