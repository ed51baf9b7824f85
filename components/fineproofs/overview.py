"""The Overview tab: a sortable, filterable grid of traces x prefixes, one page at a time.

Why server-side pages: the collection holds ~10k traces; only the shown page is drawn, so the
grid stays small. The grid is an HTML table (components/fineproofs/grid.py), not a Plotly chart:
the view's first paint then loads no Plotly. A click on a cell (or a table row) opens that trace
in the Trace tab.
"""

from __future__ import annotations

import functools
import math

import polars as pl
import streamlit as st

from analysis.fineproofs.overview import overview_cells, select_traces
from analysis.fineproofs.values import KEYS
from cache.sources import SourceConfig
from components.common.click_text import click_text
from components.common.lite_table import grid_switch, table_or_grid
from components.common.url_keys import FineproofsKeys
from components.common.url_state import (
    Param,
    bound_kept,
    parse_bool,
    url_multiselect,
    url_radio,
    url_range,
    url_selectbox,
    url_switch,
)
from components.fineproofs import cached as fc
from components.fineproofs.cases import trace_case_counts
from components.fineproofs.grid import overview_grid_html, parse_pick
from components.fineproofs.shared import correction, open_trace
from components.fineproofs.tables import TRACE_FORMATS, formatted, styled

SORTS = {
    "largest_drop": "largest drop",
    "endpoint": "endpoint grade",
    "first_error": "first-error depth",
    "last_value": "last prefix value",
}
PAGE_SIZES = (25, 50, 100)


def _sort_key(raw: str) -> str:
    """A sort from a link: its key, or its label (what earlier links held)."""
    key = raw if raw in SORTS else {label: k for k, label in SORTS.items()}.get(raw)
    if key is None:
        raise ValueError(raw)
    return key


# the Overview's light controls (`url_selectbox`, `url_switch`, `url_radio`)
SORT = Param("sort", "largest_drop", parse=_sort_key, choices=tuple(SORTS))
DESC = Param("desc", True, parse=parse_bool)
AXIS = Param("axis", "ordinal", choices=("ordinal", "depth"))
COLOR = Param("color", "value", choices=("value", "change"))
ROWS = Param("rows", PAGE_SIZES[0], parse=int, choices=PAGE_SIZES)
GRID_KEY = "fp_grid"
TABLE_KEY = "fp_page_table"
CASES_COLUMN = "cases"
# the row picker's columns, what a reader scans first first (at 1024 px the last ones scroll),
# each with its label and what it means (the data grid shows the same)
TABLE_COLUMNS: dict[str, tuple[str, str]] = {
    "problem_id": ("problem", "the problem's id (a click on the row opens this trace)"),
    "sample_index": ("sample", "the trace's sample index within its problem"),
    "shape": ("shape", "how the prefix values move along the trace (the Overview's shapes)"),
    "endpoint": ("endpoint grade", "the whole proof's grade, 0-1 (7/7 = 1)"),
    "largest_drop": ("largest drop", "the largest fall of the value from one prefix to the next"),
    "n_sig_drops": ("significant drops", "steps whose fall is significant (z < −2, ≤ −0.15)"),
    "n_recoveries": ("recoveries", "significant rises after a significant drop"),
    "n_bimodal": ("bimodal prefixes", "prefixes whose continuations split into low and high"),
    "n_prefixes": ("prefixes", "prefixes graded along the trace"),
    "first_value": ("first value", "the value of the first graded prefix"),
    "last_value": ("last value", "the value of the last graded prefix"),
    "largest_drop_depth": ("largest drop at", "relative depth (0-1) of the largest drop"),
    "drop_share": ("drop share", "the largest drop's share of the whole decline"),
    "first_error_depth": ("first error at", "relative depth (0-1) of the first error"),
    "source": ("source", "the problem's competition or collection"),
}


def _on_grid_pick(page_rows: list[tuple[str, int]], value: str) -> None:
    """A clicked cell names (row on the page, prefix ordinal): open that trace there (the
    endpoint column, ordinal 0, opens the trace without a prefix)."""
    hit = parse_pick(value)
    if hit is None or hit[0] >= len(page_rows):
        return
    pid, sample = page_rows[hit[0]]
    open_trace(str(pid), int(sample), hit[1] or None)


def _on_row_pick(page_rows: list[tuple[str, int]], row: int) -> None:
    if 0 <= row < len(page_rows):
        open_trace(*page_rows[row])


def render_overview(src: SourceConfig) -> None:
    """Sortable, filterable grid of traces x prefixes, one page at a time (server-side)."""
    annotated, _notes, _extra = fc.prefixes(src)
    summary = fc.traces(src)
    sources = sorted(s for s in summary["source"].unique().to_list() if s is not None)
    # wrapping flex rows: every control keeps its full label at 1024 px (fixed columns cut
    # "Descending" to "D.")
    row1 = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
    with row1:
        sort = url_selectbox("Sort rows by", list(SORTS), SORT, fmt=SORTS.__getitem__, width=190)
        desc = url_switch("Descending", DESC, help="largest values first")
        chosen = url_multiselect("Sources", sources, "src", placeholder="all sources", width=260)
        lo_hi = url_range(
            "Endpoint grade range",
            "grade",
            0.0,
            1.0,
            1 / 28,
            help="Filter on the base trace's endpoint grade (from the base grading log).",
            width=260,
            shown_digits=2,
        )
    row2 = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
    with row2:
        axis = url_radio(
            "Columns",
            AXIS.choices or (),
            AXIS,
            help="prefix ordinal (1 = first collected prefix) or relative depth step/num_steps in 10 bins",
            width="content",
        )
        color = url_radio(
            "Colour",
            COLOR.choices or (),
            COLOR,
            help="mean grade of the continuations, or its change from the previous prefix (diverging)",
            width="content",
        )
        rows_per_page = url_selectbox("Rows per page", PAGE_SIZES, ROWS, width=130)
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
        "click a cell to open that trace at that prefix; hatched grey = no value there (no grade, "
        "or no previous prefix to change from); ▼ = a significant drop; ◆ = endpoint grade from "
        "the base grading log."
    )
    cells = overview_cells(annotated, page_traces, axis=axis, metric=color)
    sel = (FineproofsKeys.PROBLEM.read(), FineproofsKeys.SAMPLE.read())
    marked = trace_case_counts()
    page_rows = page_traces.select(*KEYS).rows()
    html = overview_grid_html(
        cells,
        page_traces,
        metric=color,
        axis=axis,
        selected=sel if sel[0] else None,
        marked=marked,
        fdr=correction() == "bh",
    )
    click_text(html, key=GRID_KEY, on_pick=functools.partial(_on_grid_pick, page_rows))
    # text, not a number: an empty cell reads better than "None" for a trace without cases
    badges = [f"● {marked[k]}" if k in marked else "" for k in page_rows]
    view = page_traces.select(*TABLE_COLUMNS).insert_column(
        2, pl.Series(CASES_COLUMN, badges, dtype=pl.String)
    )
    above = st.container(horizontal=True, vertical_alignment="center")
    above.caption(
        "Or pick a row to open its trace"
        + (" (● = cases in the casebook on that trace):" if marked else ":")
    )
    grid = grid_switch("grid", container=above)
    cases_column = {
        CASES_COLUMN: st.column_config.TextColumn(
            CASES_COLUMN, help="cases in the casebook on this trace or its steps"
        ),
        **{
            c: st.column_config.Column(label, help=help)
            for c, (label, help) in TABLE_COLUMNS.items()
        },
    }
    table_or_grid(
        formatted(view, TRACE_FORMATS),
        key=TABLE_KEY,
        grid=grid,
        columns=cases_column,
        height=min(400, 36 + 35 * view.height),
        label="traces on this page",
        on_pick=functools.partial(_on_row_pick, page_rows),
        right=[c for c, t in view.schema.items() if t.is_numeric()],
        grid_data=styled(view, TRACE_FORMATS),
    )
