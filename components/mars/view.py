"""Sections of the MARS page (pages/mars.py stays a thin script composing these).

Each function renders one section from the cached feature store; figures come from
`components.mars.figures`, numbers from `analysis`. Dataset text reaches HTML only escaped.
"""

from __future__ import annotations

import io

import numpy as np
import polars as pl
import streamlit as st

from analysis.mars.confidence import group_confidences
from analysis.mars.features import vote_shares
from analysis.mars.store import MarsFeatureStore
from cache.datasets import MARS_FILES
from cache.sources import SourceConfig
from components.common.guards import guard
from components.common.safe_text import esc, md_text
from components.common.url_state import Param, bound, int_in
from components.mars import cached as mc
from components.mars import figures as mf

DATASET = "mars"
DEFAULT_FILE = "DeepSeek-8B/aime25_deepseek.parquet"
TABS = ("Curves", "Vote evolution", "Distributions", "Single trace", "Data")
SMOOTHING = (1, 3, 5, 9, 15, 25)
DEFAULT_CURVES = 30  # enough to see the spread, few enough to follow single curves
DEFAULT_SMOOTHING = 5
ZOOM_SMOOTHING = (1, 16, 64, 256)
DEFAULT_ZOOM_SMOOTHING = 64
_N_HELP = "A stable random sample of the question's traces (more traces keep the ones shown)."
TRACE = Param("trace", None, parse=int_in(0, 10**7))
MAX_CURVES = 1000


FILE = Param("file", DEFAULT_FILE, parse=str, choices=tuple(MARS_FILES))
QID = Param("qid", None, parse=int_in(0, 10**6))


def _url_select(label: str, options: list, param: Param, fallback: object, fmt) -> object:
    """A selectbox whose choice lives in the URL as the plain value (`?file=<relpath>`,
    `?qid=3`) while it displays a readable label. (A widget bound with bind= would write the
    displayed label into the URL.) The URL wins when it changed since we last wrote it (a deep
    link, a clicked grid square); otherwise the widget's own state does."""
    key, seen = f"_sel_{param.key}", f"_sel_{param.key}_url"
    want = param.read()
    if want not in options:
        want = fallback if fallback in options else options[0]
    if st.session_state.get(key) not in options or st.session_state.get(seen) != want:
        st.session_state[key] = want
    value = st.selectbox(label, options, format_func=fmt, key=key)
    param.write(value if value != param.default else None)
    st.session_state[seen] = value
    return value


def pick_file() -> str:
    rels = list(MARS_FILES)
    return _url_select(  # type: ignore[return-value]
        "MARS file (model · benchmark)",
        rels,
        FILE,
        DEFAULT_FILE,
        lambda r: f"{MARS_FILES[r][2]}  ({r})",
    )


def show_notes(notes: pl.DataFrame, where: str) -> None:
    """Data problems found while building, as warnings saying what was done about them."""
    if not notes.height:
        return
    rows = notes.select("kind", "message").rows()
    text = "  \n".join(
        f"**{md_text(str(k or 'note').replace('_', ' '))}**: {md_text(m, 300)}"
        for k, m in rows[:12]
    )
    more = f"  \n… and {len(rows) - 12} more" if len(rows) > 12 else ""
    st.warning(f"Data notes for {where}:  \n{text}{more}", icon=":material/report:")


# "1 <up to three words, the last in the plural>": lazily, so the *first* plural word is the
# counted noun ("1 traces with probes out of order" -> "1 trace with probes out of order")
def pick_question(rel: str, src: SourceConfig, store: MarsFeatureStore) -> int | None:
    """30-question overview grid (click a square) + a selector bound to `?qid=`."""
    ov = mc.overview(rel, src)
    qids = ov["qid"].to_list()
    if not qids:
        st.info("This file holds no questions.")
        return None
    current = QID.read()
    with st.expander("Questions overview: click a square to open it", expanded=current is None):
        st.caption(
            "Fill colour = pass@1 (share of traces whose final answer is right). A **black ring** "
            "marks a question whose majority vote of final answers is wrong; no ring: the "
            "majority is right. Blue frame: the open question. Hover for answers and lengths."
        )
        st.plotly_chart(
            mf.overview_grid(ov, selected=current if current in qids else None),
            on_select=_on_grid_select,
            selection_mode="points",
            key=GRID_KEY,
            config={"displayModeBar": False},
        )
        table = ov.with_columns(
            (pl.col("pass_at_1") * 100).round(1).alias("pass@1 %"),
        ).select(
            "qid",
            "n_traces",
            "pass@1 %",
            "majority_answer",
            "majority_correct",
            "n_answers",
            "n_null",
            "median_len_correct",
            "median_len_wrong",
            "ground_truth",
        )
        # every question visible without scrolling the table (35 px a row + the header)
        st.dataframe(table, hide_index=True, height=35 * (table.height + 1) + 3, width="stretch")
    qid = _url_select("Question", qids, QID, qids[0], lambda q: _q_label(ov, q))
    QID.write(qid)  # always explicit in the URL, so a copied link names the question
    return int(qid)  # type: ignore[arg-type]


GRID_KEY = "mars_grid"
CURVES_KEY = "mars_curves"


def _on_grid_select() -> None:
    """A clicked square opens its question (before the next run draws the selector)."""
    q = _clicked_value(st.session_state.get(GRID_KEY))
    if q is not None:
        # the selector's own state (allowed in a callback); the run then writes the URL, which
        # the browser only picks up from a script run, not from a callback
        st.session_state[f"_sel_{QID.key}"] = q


def _on_curves_select() -> None:
    """A clicked probe marker or trace end picks that trace for the Single trace tab."""
    t = _clicked_value(st.session_state.get(CURVES_KEY))
    if t is not None:
        st.session_state["_mars_picked"] = t


def _q_label(ov: pl.DataFrame, q: int) -> str:
    r = ov.filter(pl.col("qid") == q).row(0, named=True)
    mark = "✓" if r["majority_correct"] else "✗"
    return f"Q{q} · pass@1 {mf.fmt_num(r['pass_at_1'], '.0%')} · majority {mark} · {r['n_traces']} traces"


def _clicked_value(event: object) -> int | None:
    """customdata of the first selected point of a plotly selection event (dict or object)."""
    if event is None:
        return None
    sel = event.get("selection") if isinstance(event, dict) else getattr(event, "selection", None)
    if sel is None:
        return None
    pts = sel.get("points") if isinstance(sel, dict) else getattr(sel, "points", None)
    if not pts:
        return None
    cd = pts[0].get("customdata")
    if isinstance(cd, list | tuple):
        cd = cd[0] if cd else None
    try:
        return int(cd) if cd is not None else None
    except (TypeError, ValueError):
        return None


def question_header(store: MarsFeatureStore, qid: int) -> pl.DataFrame:
    feats = store.question(qid).sort("trace_idx")
    groups = store.question_groups(qid)
    gt = groups["ground_truth"][0] if groups.height else ""
    c = st.columns(5)
    c[0].metric("traces", feats.height)
    c[1].metric("pass@1", f"{feats['final_correct'].mean() or 0:.0%}")
    c[2].metric("distinct final answers", int((groups["n_final"] > 0).sum()))
    c[3].metric("median length (tokens)", f"{(feats['length'].median() or 0) / 1000:.1f}k")
    c[4].metric("no final answer", int((feats["final_group"] < 0).sum()))
    st.html(f"<div style='margin:-6px 0 6px'>Ground truth: <code>{esc(gt)}</code></div>")
    with guard("the data notes", dataset=DATASET):
        show_notes(store.question_notes(qid), f"question {qid} and the file")
    return feats


def sample_traces(feats: pl.DataFrame, n: int, seed: int) -> pl.DataFrame:
    """A stable random sample: growing n keeps the traces already shown."""
    order = np.random.default_rng(seed).permutation(feats.height)[:n]
    return feats[np.sort(order).tolist()] if feats.height else feats


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
    markers = c4.checkbox("probe markers", value=True, **bound("markers"))
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
    st.plotly_chart(
        fig,
        on_select=_on_curves_select,
        selection_mode="points",
        key=CURVES_KEY,
        width="stretch",
    )
    st.caption(
        "Each curve is a trace's confidence in 96 equal slices of its length (mean per slice), "
        "coloured by its final answer (green right, red wrong, grey none). Markers: the probe answers forced every 2,048 tokens and at "
        "the end, at their stored `avg_conf` (○ right, × wrong); | marks the trace end. Click a "
        "marker to pick that trace for the Single trace tab."
    )
    picked = st.session_state.pop("_mars_picked", None)
    if picked is not None:
        TRACE.write(picked)
        st.info(f"Trace {picked} selected: open the **Single trace** tab to zoom in.")


def render_votes(rel: str, src: SourceConfig, qid: int) -> None:
    pool = mc.pool(rel, src, qid)
    vs = vote_shares(pool)
    if not vs.positions.size:
        st.info("No probe checkpoints in this question.")
        return
    st.plotly_chart(mf.vote_figure(vs, pool.ground_truth), width="stretch")
    st.caption(
        "At each checkpoint every trace contributes its answer then: the probe answer while it "
        "is still running, its final answer once it has ended. Light grey hatched: no answer "
        "(yet); mid grey: all smaller answers pooled; the stack always adds up to 100%. The green "
        "band is the ground truth's share: where it becomes the largest is when the pool 'knows' "
        "the answer. Hover for the full answers at a checkpoint."
    )


def render_distributions(store: MarsFeatureStore, feats: pl.DataFrame, qid: int) -> None:
    a, b = st.columns(2)
    n_none = int((feats["final_group"] < 0).sum())
    a.plotly_chart(mf.answers_bar(store.question_groups(qid), n_none=n_none), width="stretch")
    b.plotly_chart(
        mf.compare_hist(feats, "length", "length: right vs wrong", x_title="trace length (tokens)"),
        width="stretch",
    )
    c, d = st.columns(2)
    c.plotly_chart(
        mf.compare_hist(
            feats,
            "min_group",
            "lowest group confidence (DeepConf min_group)",
            x_title="lowest 2,048-token group confidence",
        ),
        width="stretch",
    )
    d.plotly_chart(
        mf.compare_hist(
            feats,
            "tail_conf",
            "tail confidence (last 2,048 tokens)",
            x_title="mean confidence of the last 2,048 tokens",
        ),
        width="stretch",
    )


def render_single_trace(
    rel: str, src: SourceConfig, store: MarsFeatureStore, feats: pl.DataFrame, qid: int
) -> None:
    traces = feats["trace_idx"].to_list()
    if not traces:
        st.info("No traces.")
        return
    want = TRACE.read()
    idx = traces.index(want) if want in traces else 0
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    ok = dict(zip(traces, feats["final_correct"].to_list(), strict=True))
    lens = dict(zip(traces, feats["length"].to_list(), strict=True))
    trace = c1.selectbox(
        "Trace",
        traces,
        index=idx,
        format_func=lambda t: (
            f"trace {t} · {'right' if ok[t] else 'wrong'} · {lens[t] / 1000:.1f}k tokens"
        ),
    )
    TRACE.write(trace if trace != traces[0] or want is not None else None)
    smooth = c2.select_slider(
        "Smoothing (tokens averaged)",
        ZOOM_SMOOTHING,
        value=DEFAULT_ZOOM_SMOOTHING,
        help="Moving average of the token confidences over this many tokens; 1 = raw.",
        **bound("zsmooth"),
    )
    raw = mc.raw_trace(rel, src, qid, int(trace))
    if not raw.height:
        st.warning("This trace is not in the file any more.")
        return
    row = raw.row(0, named=True)
    confs = np.asarray(row.get("confs") or [], dtype=np.float32)
    f = feats.filter(pl.col("trace_idx") == trace).row(0, named=True)
    groups = group_confidences(confs, store.window)
    probes = _probe_table(row.get("probes") or [], f, store.question_groups(qid))
    st.plotly_chart(
        mf.zoom_figure(confs, groups, store.window, probes, smooth=int(smooth)), width="stretch"
    )
    m = st.columns(5)
    m[0].metric("length", f"{f['length']:,}")
    m[1].metric("mean conf", mf.fmt_num(f["mean_conf"]))
    m[2].metric("tail conf", mf.fmt_num(f["tail_conf"]))
    m[3].metric("lowest group", mf.fmt_num(f["min_group"]))
    m[4].metric("bottom 10%", mf.fmt_num(f["bottom_10"]))
    verdict = "right" if f["final_correct"] else ("no answer" if f["final_group"] < 0 else "wrong")
    st.html(f"<div>Final answer ({verdict}): <code>{esc(f['final_answer'])}</code></div>")
    if f["flags"]:
        st.warning(f"Data flags on this trace: {', '.join(_flag_names(int(f['flags'])))}")
    show_probe_texts(probes)


PROBES_KEY = "mars_probe_rows"


def show_probe_texts(probes: pl.DataFrame) -> None:
    """The probe table (raw_text shortened in the cell) and, under it, the full escaped
    raw_text of the selected row (the first probe until a row is picked)."""
    if not probes.height:
        st.info("This trace has no probes.")
        return
    event = st.dataframe(
        probes,
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=PROBES_KEY,
        column_config={"raw_text": st.column_config.TextColumn("raw_text", width="large")},
    )
    rows = _selected_rows(event)
    i = rows[0] if rows and 0 <= rows[0] < probes.height else 0
    r = probes.row(i, named=True)
    st.caption("Select a row to read its probe text in full.")
    answer = f"<code>{esc(r['answer'])}</code>" if r["answer"] is not None else "(none)"
    text = esc(r["raw_text"]) or "(no text)"
    st.html(
        "<div style='font-size:0.9rem;margin-bottom:4px'>Probe at token "
        f"<b>{esc(r['position'])}</b>, answer {answer}:</div>"
        "<pre style='white-space:pre-wrap;word-break:break-word;max-height:320px;overflow:auto;"
        "background:#f6f6f4;border:1px solid #e0e0dc;border-radius:6px;padding:8px 10px;"
        f"margin:0'>{text}</pre>"
    )


def _selected_rows(event: object) -> list[int]:
    """Row indices of a dataframe selection event (dict or object), [] when none."""
    sel = event.get("selection") if isinstance(event, dict) else getattr(event, "selection", None)
    if sel is None:
        return []
    rows = sel.get("rows") if isinstance(sel, dict) else getattr(sel, "rows", None)
    return [int(x) for x in rows or []]


def _probe_table(raw_probes: list[dict], f: dict, groups: pl.DataFrame) -> pl.DataFrame:
    labels = dict(zip(groups["group_id"].to_list(), groups["label"].to_list(), strict=True))
    rows = []
    ours = dict(
        zip(
            f["probe_pos"] or [],
            zip(f["probe_group"] or [], f["probe_correct"] or [], strict=True),
            strict=True,
        )
    )
    ck = dict(zip(f["ckpt_pos"] or [], f["ckpt_conf"] or [], strict=True))
    for p in raw_probes:
        pos = p.get("position")
        g, okg = ours.get(pos, (-1, False))
        rows.append(
            {
                "position": pos,
                "answer": p.get("answer"),
                "group": labels.get(g, "—") if g is not None and g >= 0 else "—",
                "is_correct_group": bool(okg),
                "is_correct (stored)": p.get("is_correct"),
                "avg_conf": p.get("avg_conf"),
                "conf_at_pos": ck.get(pos),
                "raw_text": p.get("raw_text"),
            }
        )
    schema = {
        "position": pl.Int64,
        "answer": pl.String,
        "group": pl.String,
        "is_correct_group": pl.Boolean,
        "is_correct (stored)": pl.Boolean,
        "avg_conf": pl.Float64,
        "conf_at_pos": pl.Float64,
        "raw_text": pl.String,
    }
    return pl.DataFrame(rows, schema=schema)


_FLAGS = {
    1: "empty confs",
    2: "NaN/inf confidences (ignored)",
    4: "negative confidences",
    8: "probes out of order (re-sorted)",
    16: "probes beyond the end (dropped)",
    32: "final answer is a long text span",
    64: "no probes",
}


def _flag_names(flags: int) -> list[str]:
    return [name for bit, name in _FLAGS.items() if flags & bit]


def render_data(feats: pl.DataFrame, qid: int, rel: str) -> None:
    scalar = [c for c, t in feats.schema.items() if not isinstance(t, pl.List)]
    st.dataframe(feats.select(scalar), hide_index=True, width="stretch", height=360)
    csv = feats.with_columns(
        [
            pl.col(c).cast(pl.List(pl.String)).list.join(" ").alias(c)
            for c, t in feats.schema.items()
            if isinstance(t, pl.List)
        ]
    ).write_csv()
    buf = io.BytesIO()
    feats.write_parquet(buf)
    stem = rel.replace("/", "_").removesuffix(".parquet") + f"_q{qid}_features"
    c1, c2 = st.columns(2)
    c1.download_button("Download CSV", csv, file_name=f"{stem}.csv", mime="text/csv")
    c2.download_button(
        "Download Parquet",
        buf.getvalue(),
        file_name=f"{stem}.parquet",
        mime="application/octet-stream",
    )
    st.caption(
        "One row per trace: final answer group and correctness, confidence features "
        "(mean, tail, lowest group, bottom 10%), conf_at_pos and answer group at every multiple of "
        "2,048 tokens, probe answers and the plotting curve. (The record lows of the group "
        "confidence, used for DeepConf truncation, stay in the cached table the playground reads.)"
    )


def render_question(rel: str, src: SourceConfig, store: MarsFeatureStore, qid: int) -> None:
    feats = question_header(store, qid)
    tabs = st.tabs(list(TABS), key="view", bind="query-params", default="Curves")
    for tab, name in zip(tabs, TABS, strict=True):
        if not tab.open:
            continue
        with tab:
            if name == "Curves":
                with guard("the confidence curves", dataset=DATASET):
                    render_curves(rel, src, feats, qid)
            elif name == "Vote evolution":
                with guard("the vote evolution", dataset=DATASET):
                    render_votes(rel, src, qid)
            elif name == "Distributions":
                with guard("the distributions", dataset=DATASET):
                    render_distributions(store, feats, qid)
            elif name == "Single trace":
                with guard("the single-trace zoom", dataset=DATASET):
                    render_single_trace(rel, src, store, feats, qid)
            else:
                with guard("the feature table", dataset=DATASET):
                    render_data(feats, qid, rel)
