"""The top of the MARS page: the file and question pickers, the question header and data notes.

Why one module: these sections run before any tab, and the question picker is the only writer of
`?qid=` (the overview grid hands its clicks to it through the selector's state).
"""

from __future__ import annotations

import functools
import uuid

import polars as pl
import streamlit as st
from plotly.colors import get_colorscale

from analysis.mars.store import MarsFeatureStore
from analysis.mars.summaries import question_stats
from cache.datasets import MARS_FILES
from cache.sources import SourceConfig
from components.common import theme
from components.common.browser import focus_evidence
from components.common.click_text import text_block
from components.common.deeplink import LinkNotes
from components.common.formatting import DASH, fmt_kilo, fmt_num, fmt_quantity
from components.common.guards import guard
from components.common.lazy_expander import lazy_expander
from components.common.lite_chart import lite_chart
from components.common.lite_table import ROW_PX, lite_table
from components.common.mars_file import pick_mars_file
from components.common.maths import maybe_maths
from components.common.safe_text import esc, md_text
from components.common.selection import event_of, first_point_value
from components.common.stat_row import stat_row
from components.common.url_keys import MarsKeys
from components.common.url_state import selector_drawn, selector_key, url_selectbox
from components.mars import cached as mc
from components.mars import cases as mcs
from components.mars import figures as mf

DL = LinkNotes("mars")  # this view's deep-link notes

DATASET = "mars"
GRID_KEY = "mars_grid"
TABLE_KEY = "mars_overview_table"
MAX_NOTES = 12


QID_NOTE = (
    "The link asks for question {asked}, which this file does not have ({have}): showing "
    "{shown} instead."
)


def pick_file(src: SourceConfig) -> str:
    """The MARS file, bound to `?file=<relpath>` (`components.common.mars_file`)."""
    return pick_mars_file(src, MarsKeys.FILE, DL, lambda r: f"{MARS_FILES[r][2]}  ({r})")


def show_notes(notes: pl.DataFrame, where: str) -> None:
    """Data problems found while building, as warnings saying what was done about them."""
    if not notes.height:
        return
    rows = notes.select("kind", "message").rows()
    text = "  \n".join(
        f"**{md_text(str(k or 'note').replace('_', ' '))}**: {md_text(m, 300)}"
        for k, m in rows[:MAX_NOTES]
    )
    more = f"  \n… and {len(rows) - MAX_NOTES} more" if len(rows) > MAX_NOTES else ""
    st.warning(f"Data notes for {where}:  \n{text}{more}", icon=":material/report:")


def pick_question(rel: str, src: SourceConfig, store: MarsFeatureStore) -> int | None:
    """30-question overview grid (click a square) + a selector bound to `?qid=`."""
    ov = mc.overview(rel, src)
    qids = ov["qid"].to_list()
    if not qids:
        st.info("This file holds no questions.")
        return None
    # the question picked on this run (a square, a row or the selector) before the URL says it
    drawn = selector_drawn(MarsKeys.QID)  # else the value is left from an earlier visit
    picked = st.session_state.get(selector_key(MarsKeys.QID)) if drawn else None
    current = picked if picked in qids else MarsKeys.QID.read()
    # the question the page shows: the selector's default (the first) until one is chosen, so
    # the grid and the table mark it from the first opening on
    shown = current if current in qids else qids[0]
    # open when the page opens with no question chosen; a link naming one, even one this file
    # lacks, keeps it shut, so the note on that question is on the first screen
    linked = MarsKeys.QID.key in st.query_params
    with lazy_expander(
        "Questions overview: click a square to open it",
        (),
        "mars_overview_open",
        expanded=current is None and not linked,
    ) as draw:
        if draw:  # a closed grid and table would still cost a new tab
            st.caption(
                "Fill colour = pass@1 (share of traces whose final answer is right). A **black ring** "
                "marks a question whose majority vote of final answers is wrong; a **grey ring** an "
                "exact tie for first place; no ring: the majority is right. Blue frame: the open question. An **inner blue ring**: the "
                "question has cases in the casebook (ringed = has cases). Hover for answers and "
                "lengths."
            )
            marked = mcs.qid_case_counts(rel)
            lite_chart(
                mf.overview_grid(ov, selected=shown, marked=marked),
                key=GRID_KEY,
                on_select=_on_grid_select,
            )
            st.html(colour_bar_html())
            if ov["n_traces"].n_unique() == 1:
                st.caption(
                    f"{ov['n_traces'][0]:,} traces per question. Majority: the most common final "
                    "answer, ✓ when it is the ground truth. Answers: distinct final answers (traces "
                    "with none)."
                )
            rows = pl.DataFrame(overview_rows(ov), strict=False)
            lite_table(  # every question in sight: no inner scrolling for 30 rows
                rows,
                key=TABLE_KEY,
                label="questions",
                height=min(ROW_PX * (rows.height + 1) + 2, 40 * ROW_PX),
                on_pick=functools.partial(_on_table_pick, qids),
                selected=qids.index(shown),
                right=("pass@1",),
            )
    return _pick_qid(ov, qids)


def _pick_qid(ov: pl.DataFrame, qids: list) -> int:
    """The question selector bound to `?qid=` (always explicit in the URL)."""
    raw = DL.asked(MarsKeys.QID.key)
    labels = {r["qid"]: _q_label(r) for r in ov.iter_rows(named=True)}  # one pass, not per option
    qid = url_selectbox(  # a refused question is said by QID_NOTE below
        "Question", qids, MarsKeys.QID, qids[0], lambda q: labels.get(q, f"Q{q}"), noted=True
    )
    MarsKeys.QID.write(qid)  # always explicit in the URL, so a copied link names the question
    DL.remember("qid", raw, raw is None or raw in {str(q) for q in qids}, f"Q{qid}")
    have = f"questions {qids[0]}–{qids[-1]}" if len(qids) > 1 else f"only question {qids[0]}"
    DL.show("qid", QID_NOTE.replace("{have}", have), f"Q{qid}")
    return int(qid)


def overview_rows(ov: pl.DataFrame) -> list[dict[str, object]]:
    """The overview table, one row per question, narrow enough for a 1024 px screen (a light
    table, every row in sight: a data grid of 30 rows costs more to draw in a new tab than the
    rest of the view).
    The trace count is a column only when the questions' counts differ."""
    rows = []
    same_n = ov["n_traces"].n_unique() == 1
    for r in ov.iter_rows(named=True):
        tie = int(r.get("majority_tie") or 0)
        row: dict[str, object] = {"Q": r["qid"]}
        if not same_n:
            row["traces"] = r["n_traces"]
        row |= {
            "pass@1": fmt_num(r["pass_at_1"], ".0%", inf=DASH),
            "majority": f"tie: {' | '.join(map(str, r['majority_tied']))}"
            if tie > 1
            else f"{r['majority_answer']} {'✓' if r['majority_correct'] else '✗'}",
            "answers (none)": f"{r['n_answers']} ({r['n_null']})",
            "median length ✓ / ✗": f"{fmt_kilo(r['median_len_correct'])} / "
            f"{fmt_kilo(r['median_len_wrong'])}",
            "truth": r["ground_truth"],
        }
        rows.append(row)
    return rows


COLOUR_BAR_TITLE = "fill: pass@1, share of the question's traces with a right final answer (%)"


def colour_bar_html(ticks: tuple[float, ...] = (0, 0.25, 0.5, 0.75, 1)) -> str:
    """The grid's colour bar: the fill scale from 0 % to 100 % pass@1, with its quantity named
    (the light chart draws no Plotly colour bar)."""
    stops = ", ".join(f"{c} {float(v) * 100:g}%" for v, c in get_colorscale(theme.GRID_SCALE))
    labels = "".join(
        f"<span style='position:absolute;left:{t * 100:g}%"
        + (f";transform:translateX(-{t * 100:g}%)'>" if t > 0 else "'>")
        + f"{fmt_quantity(t, '%').replace('.0%', '%')}</span>"
        for t in ticks
    )
    return (
        "<div style='max-width:420px;margin:2px 0 8px 10px;font-size:0.8rem'>"
        f"<div>{esc(COLOUR_BAR_TITLE)}</div>"
        f"<div style='height:12px;border:1px solid {theme.PANEL_BORDER};"
        f"background:linear-gradient(to right, {stops})'></div>"
        f"<div style='position:relative;height:1.2em'>{labels}</div></div>"
    )


def _choose(qid: int) -> None:
    """Move the question selector (its own state, allowed in a callback); the run then writes
    the URL, which the browser only picks up from a script run, not from a callback."""
    st.session_state[selector_key(MarsKeys.QID)] = qid


OVERVIEW_PICK = "_mars_overview_pick"  # a question picked in the overview, to bring in sight


def _on_table_pick(qids: list[int], row: int) -> None:
    """A picked row of the questions table opens its question, as a square of the grid does."""
    if 0 <= row < len(qids):
        _choose(qids[row])
        st.session_state[OVERVIEW_PICK] = qids[row]


def _on_grid_select() -> None:
    """A clicked square opens its question (before the next run draws the selector)."""
    q = first_point_value(event_of(GRID_KEY))
    try:
        qid = int(q) if q is not None else None
    except (TypeError, ValueError):
        qid = None
    if qid is not None:
        _choose(qid)
        st.session_state[OVERVIEW_PICK] = qid


def majority_mark(r: dict) -> str:
    """✓ / ✗ for a clear majority; an exact tie says so (its lowest-id pick is arbitrary)."""
    tie = int(r.get("majority_tie") or 0)
    if tie > 1:
        return f"tie ({tie} answers)"
    return "✓" if r.get("majority_correct") else "✗"


def _q_label(r: dict) -> str:
    """A question's option in the selector, from its overview row."""
    acc = fmt_num(r["pass_at_1"], ".0%", inf="–")
    return f"Q{r['qid']} · pass@1 {acc} · majority {majority_mark(r)} · {r['n_traces']} traces"


def question_header(store: MarsFeatureStore, qid: int, rel: str, src: SourceConfig) -> pl.DataFrame:
    """Headline numbers, ground truth (beside it the question's casebook control, under it the
    cases already on it) and data notes of a question; its traces, by trace_idx."""
    feats = store.question(qid).sort("trace_idx")
    groups = store.question_groups(qid)
    gt = groups["ground_truth"][0] if groups.height else ""
    stats = question_stats(feats, groups)
    # a wrapping row of content-wide figures: at 1024 px five equal columns cut the labels
    picked = st.session_state.pop(OVERVIEW_PICK, None)
    if picked == qid:  # picked in the overview above: its numbers and tabs come into sight
        focus_evidence("mars_question", nonce=f"{rel}:{qid}:{uuid.uuid4().hex}", key="mars_q_focus")
    with stat_row("mars_question_stats", label=f"Question {qid}") as row:
        row.metric("traces", stats.n_traces)
        row.metric("pass@1", f"{stats.pass_at_1:.0%}")
        row.metric("distinct final answers", stats.n_distinct)
        row.metric("median length (tokens)", f"{stats.median_length / 1000:.1f}k")
        row.metric("no final answer", stats.n_no_answer)
    with st.container(horizontal=True, vertical_alignment="center"):
        text_block(
            f"<div style='margin:0'>Ground truth: <code>{maybe_maths(gt, bare_tex=True)}</code></div>",
            key="mars_ground_truth",
            width="content",
        )
        with guard("the question's casebook control", dataset=DATASET):
            mcs.capture_question(rel, src, qid, mc.overview(rel, src), feats)
    with guard("the question's cases", dataset=DATASET):
        mcs.question_cases_here(rel, qid)
    with guard("the data notes", dataset=DATASET):
        show_notes(store.question_notes(qid), f"question {qid} and the file")
    return feats
