"""Sections of the Parason page: filters, browsing table, trajectory DAG + text, 1x vs 8x,
subset charts and RL prompts.

Why a component module: the page stays a thin script (read URL state, call these), while each
section runs inside `components.common.guards.guard`, so a malformed row or a missing file shows a
message and the rest of the page keeps working. Computation lives in `analysis.parason.analyse*`;
figures in `components.parason.dag` / `parason_charts`; text HTML in `parason_text`.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math

import polars as pl
import streamlit as st

from analysis.parason.analyse import (
    WARNING_CODES,
    added_branches,
    analyse_row,
    collapse_dag,
    layout,
)
from analysis.parason.metrics import SORT_COLUMNS, export_table, filter_table
from cache.sources import SourceConfig
from components.common.guards import guard
from components.common.safe_text import esc, md_text
from components.common.url_state import Param, bound_kept, safe_token
from components.parason import cached as pc
from components.parason.charts import (
    branches_hist,
    by_correctness,
    note_counter,
    ratio_scatter,
    selected_uuid,
    speedup_hist,
    speedup_scatter,
)
from components.parason.dag import dag_figure, dag_html
from components.parason.text import SCROLL_SCRIPT, highlighted_html, legend_html, node_text_html

DATASET = "parason"
UUID = Param("uuid", None, parse=safe_token(80))
NODE = Param("node", None, parse=safe_token(120))
VIEWS = ("Browse", "Trajectory", "1x vs 8x", "Charts", "RL")
TABLE_KEY = "pa_table"
DAG_KEY = "pa_dag"
COLLAPSE_AT = 12
DAG_LEGEND = (
    "Left to right by stage; size = tokens. Shapes: ▶ fork (a stage opens) · ■ AND join · "
    "◆ OR join · ★ mixed join · ● thread (green Subtask = AND sub-goal, orange Trial = OR attempt, "
    "purple untyped) · grey ● text outside the parallel blocks · dark ✦ the boxed answer · "
    "grey ⬢ collapsed branches (+n). Red = critical path; ⚠ = parser warning. Click a node to read it."
)
COUNTER_LABELS = {
    "estimate": "estimate (num_qwen_tokens by char share)",
    "words": "whitespace words",
    "qwen": "exact Qwen3 tokenizer",
}


# ---------------------------------------------------------------- selection callbacks
def open_trajectory(uuid: str, view: str = "Trajectory") -> None:
    """Select a trajectory (URL state) and switch tab; used from callbacks."""
    UUID.write(str(uuid))
    NODE.write(None)
    st.session_state["view"] = view


def _on_table_select(uuids: list[str]) -> None:
    sel = st.session_state.get(TABLE_KEY)
    rows = (sel or {}).get("selection", {}).get("rows", []) if sel else []
    if rows and rows[0] < len(uuids):
        open_trajectory(uuids[rows[0]])


def _on_chart_select(key: str) -> None:
    uid = selected_uuid(st.session_state.get(key))
    if uid:
        open_trajectory(uid)


def _on_dag_select(key: str, subset: str | None = None) -> None:
    """A clicked DAG node becomes the URL's node; from the 1x/8x comparison it also opens that
    subset's Trajectory tab, where the node text is shown."""
    sel = st.session_state.get(key)
    points = (sel or {}).get("selection", {}).get("points", []) if sel else []
    for p in points:
        cd = p.get("customdata")
        if isinstance(cd, list | tuple):
            cd = cd[0] if cd else None
        if isinstance(cd, str):
            NODE.write(cd)
            if subset is not None:
                st.session_state["subset"] = subset
                st.session_state["view"] = "Trajectory"
            return


def _on_pick(key: str, param: Param) -> None:
    value = st.session_state.get(key)
    param.write(value)
    if param is UUID:
        NODE.write(None)


# ---------------------------------------------------------------- filters (shared by tabs)
SPEEDUP_CAP = 1000.0


def speedup_top(speedup: pl.Series) -> float:
    """Upper bound of the speedup slider: the largest finite speedup rounded up to 0.5, in
    [2, SPEEDUP_CAP]. Why: a row with C = 0 gives an infinite (or NaN) T/C, and `math.ceil(inf)`
    raises; such rows stay visible while the slider spans its whole range."""
    values = speedup.cast(pl.Float64, strict=False)
    mx = values.filter(values.is_finite()).max()
    hi = min(SPEEDUP_CAP, max(2.0, float(mx) if isinstance(mx, int | float) else 2.0))
    return float(math.ceil(hi * 2) / 2)


def render_filters(table: pl.DataFrame) -> pl.DataFrame:
    """The filter bar above the tabs; returns the filtered (unsorted) table."""
    kinds = sorted(table["kind_mix"].unique().drop_nulls().to_list())
    top = speedup_top(table["speedup"])
    c1, c2, c3, c4, c5 = st.columns([1.2, 2, 2, 1.5, 2.4], vertical_alignment="bottom")
    correct = c1.selectbox("Correctness", ["all", "correct", "incorrect"], **bound_kept("correct"))
    chosen = c2.multiselect(
        "Kind mix", kinds, default=[], placeholder="all kinds", **bound_kept("kinds")
    )
    lo_hi = c3.slider(
        "Speedup T/C", 1.0, top, (1.0, top), step=0.05, format="%.2f", **bound_kept("speedup")
    )
    # bound widgets put the *shown* option in the URL, so the options are the plain words
    warn = c4.selectbox(
        "Warnings", ["any", "with", "without"], help="parser warnings (⚠)", **bound_kept("warn")
    )
    query = c5.text_input("Search questions", placeholder="text or uuid prefix", **bound_kept("q"))
    return filter_table(
        table,
        correctness=correct or "all",
        kinds=chosen or None,
        speedup=(float(lo_hi[0]), float(lo_hi[1])) if lo_hi[0] > 1.0 or lo_hi[1] < top else None,
        warnings=warn or "any",
        query=query or "",
    )


def filter_bar(table: pl.DataFrame) -> pl.DataFrame:
    """The bordered filter bar, drawn only in the tabs it acts on (Browse, Charts; on the other
    tabs it would do nothing); its values persist while another tab is open. If it fails, the tab
    still shows the whole subset."""
    filtered = table
    with st.container(border=True), guard("the filters", dataset=DATASET):
        filtered = render_filters(table)
    return filtered


# ---------------------------------------------------------------- browse
def _downloads(df: pl.DataFrame, stem: str, key: str) -> None:
    d1, d2, _ = st.columns([1, 1, 3])
    d1.download_button(
        "Download CSV",
        lambda: export_table(df).write_csv().encode(),
        f"{stem}.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"{key}_csv",
    )

    def parquet() -> bytes:
        buf = io.BytesIO()
        df.write_parquet(buf)
        return buf.getvalue()

    d2.download_button(
        "Download Parquet",
        parquet,
        f"{stem}.parquet",
        mime="application/octet-stream",
        on_click="ignore",
        key=f"{key}_pq",
    )


def render_browse(filtered: pl.DataFrame, total: int, subset: str) -> None:
    s1, s2, _ = st.columns([2, 1, 3], vertical_alignment="bottom")
    by_label = {v: k for k, v in SORT_COLUMNS.items()}
    label = s1.selectbox("Sort by", list(by_label), **bound_kept("sort"))
    sort = by_label.get(label or "", "row")
    desc = s2.toggle("Descending", value=False, **bound_kept("desc"))
    view = filter_table(filtered, sort=sort or "row", descending=bool(desc))
    st.caption(
        f"{view.height:,} of {total:,} trajectories in {subset} match the filters · click a row to open "
        "its DAG · speedup = T/C (tokens over critical-path tokens)."
    )
    if view.height == 0:
        st.info("No trajectory matches these filters. Clear the search or widen the speedup range.")
        return
    # key columns first and narrow, so they fit at 1400 px; the downloads keep the full uuid
    shown = view.select(
        pl.col("uuid").str.slice(0, 8).alias("uuid"),
        pl.col("question")
        .map_elements(lambda q: plain_question(q, 90), return_dtype=pl.String)
        .alias("question"),
        "correctness",
        "speedup",
        "T",
        "C",
        "stages",
        pl.col("branches").cast(pl.List(pl.String)).list.join(", ").alias("branches"),
        "kind_mix",
        "n_warnings",
        pl.col("warning_codes").list.join(", ").alias("warnings"),
    )
    st.dataframe(
        shown,
        key=TABLE_KEY,
        on_select=functools.partial(_on_table_select, view["uuid"].to_list()),
        selection_mode="single-row",
        hide_index=True,
        height=min(480, 38 + 35 * shown.height),
        column_config={
            "uuid": st.column_config.TextColumn("uuid", width=80, help="first 8 characters"),
            "question": st.column_config.TextColumn("question (start)", width=250),
            "correctness": st.column_config.Column("correct", width=55),
            "speedup": st.column_config.NumberColumn("speedup", format="%.2f", width=70),
            "T": st.column_config.NumberColumn(
                "T", format="%.0f", help="response tokens", width=60
            ),
            "C": st.column_config.NumberColumn(
                "C", format="%.0f", help="critical-path tokens", width=60
            ),
            "stages": st.column_config.NumberColumn("stages", width=50),
            "branches": st.column_config.TextColumn("branches", width=70),
            "kind_mix": st.column_config.TextColumn("kind mix", width=100),
            "n_warnings": st.column_config.NumberColumn("⚠", help="parser warnings", width=36),
            "warnings": st.column_config.TextColumn("warnings", width=90),
        },
    )
    _downloads(view, f"parason_{subset}_filtered", "pa_browse")


# ---------------------------------------------------------------- trajectory
def resolve_uuid(table: pl.DataFrame, uid: str | None) -> str | None:
    """The full uuid for `uid`: itself, or the one uuid it is a prefix of (>= 6 characters).
    Why shared: every tab takes the same deep links, `?uuid=b8c7711c` included."""
    if not uid:
        return None
    uuids = table["uuid"]
    if (uuids == uid).any():
        return uid
    if len(uid) >= 6:
        hits = uuids.filter(uuids.str.starts_with(uid))
        if hits.len() == 1:
            return str(hits[0])
    return None


def plain_question(text: object, limit: int = 70) -> str:
    """A question as one plain-text line for tables and pickers: whitespace folded and the `$`
    maths delimiters dropped (`$3600$` reads as 3600). Elsewhere text stays escaped as written."""
    s = " ".join(str(text or "").split()).replace("$", "")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _picker(table: pl.DataFrame, uid: str | None, label: str = "Trajectory") -> None:
    uuids = table["uuid"].to_list()
    questions = dict(zip(uuids, table["question"].fill_null("").to_list(), strict=True))
    key = f"pa_pick_{uid or 'none'}"
    st.selectbox(
        label,
        uuids,
        index=uuids.index(uid) if uid in questions else None,
        format_func=lambda u: f"{u[:8]} · {plain_question(questions.get(u, ''))}",
        placeholder="pick a trajectory",
        key=key,
        on_change=_on_pick,
        args=(key, UUID),
    )


def _warning_badges(traj) -> str:  # type: ignore[no-untyped-def]
    counts: dict[str, int] = {}
    for w in traj.warnings:
        counts[w.code] = counts.get(w.code, 0) + 1
    chips = []
    for code, n in sorted(counts.items()):
        sev = WARNING_CODES.get(code, ("warning", ""))[0]
        bg, fg = ("#fde2e1", "#b42318") if sev == "warning" else ("#e8f0fe", "#1a4d99")
        chips.append(
            f'<span title="{esc(WARNING_CODES.get(code, ("", code))[1])}" style="background:{bg};color:{fg};'
            f'border-radius:10px;padding:1px 8px;margin-right:4px;font-size:0.8rem">⚠ {esc(code)}'
            f"{' ×' + str(n) if n > 1 else ''}</span>"
        )
    return "".join(chips)


def _warnings_frame(traj) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    text = traj.text
    return pl.DataFrame(
        {
            "code": [w.code for w in traj.warnings],
            "severity": [w.severity for w in traj.warnings],
            "position": [w.pos for w in traj.warnings],
            "message": [w.message for w in traj.warnings],
            "context": [
                " ".join(text[max(0, w.pos - 30) : w.pos + 30].split()) for w in traj.warnings
            ],
        },
        schema={
            "code": pl.String,
            "severity": pl.String,
            "position": pl.Int64,
            "message": pl.String,
            "context": pl.String,
        },
    )


def items_summary(kinds: list[str]) -> str:
    """A stage's item kinds as counts ("45×S", "3×T 2×S"), first-seen order. Why: one letter per
    item made a 45-branch stage a 45-character cell that pushed the table off-screen."""
    counts: dict[str, int] = {}
    for k in kinds:
        letter = (k or "?")[0].upper()
        counts[letter] = counts.get(letter, 0) + 1
    return " ".join(f"{n}×{k}" for k, n in counts.items())


def _stage_frame(m) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    rows = [
        {
            "stage": st_.stage + 1,
            "kind": st_.kind,
            "join": st_.join_type,
            "branches": st_.branches,
            "items": items_summary(st_.item_kinds),
            "s_b (non-thread)": round(st_.s, 1),
            "max thread": round(max(st_.thread_tokens, default=0.0), 1),
            "sum threads": round(sum(st_.thread_tokens), 1),
            "block speedup": round(st_.block_speedup, 3),
            "imbalance": None if st_.imbalance is None else round(st_.imbalance, 3),
        }
        for st_ in m.stage_stats
    ]
    return pl.DataFrame(rows) if rows else pl.DataFrame()


def _metric_row(m, prefix: str = "") -> None:  # type: ignore[no-untyped-def]
    c = st.columns(6)
    c[0].metric(f"{prefix}tokens T", f"{m.T:,.0f}")
    c[1].metric(f"{prefix}critical path C", f"{m.C:,.0f}")
    c[2].metric(f"{prefix}speedup T/C", f"{m.speedup:.2f}×", help="T / C")
    c[3].metric(
        f"{prefix}1 − C/T",
        f"{m.acceleration_ratio:.1%}",
        help="acceleration ratio (the reference code's acceleration_ratio)",
    )
    c[4].metric(
        f"{prefix}parallel ratio",
        f"{m.parallel_ratio:.1%}",
        help=f"subtask {m.subtask_ratio:.1%} · trial {m.trial_ratio:.1%}",
    )
    c[5].metric(f"{prefix}stages · widest", f"{m.stages} · {m.branches_max}")


def _dag_controls(g, key: str, compact: bool = False) -> tuple[bool, int]:  # type: ignore[no-untyped-def]
    """Collapse toggle + branches slider, shown only for a stage wider than COLLAPSE_AT. Why
    `compact`: in the half-width 1x/8x columns the long labels were cut to "C…"."""
    widest = max(
        (d.get("branches", 0) for _, d in g.nodes(data=True) if d.get("kind") == "fork"), default=0
    )
    if widest <= COLLAPSE_AT:
        return False, COLLAPSE_AT
    c1, c2, _ = st.columns([1, 1.4, 0.2] if compact else [1.4, 2, 3], vertical_alignment="bottom")
    collapse = c1.toggle(
        "Collapse" if compact else "Collapse wide stages", value=True, key=f"{key}_collapse",
        help=f"The widest stage has {widest} branches. Keep the critical branch, the selected one and the heaviest others; merge the rest into one node.",
    )  # fmt: skip
    keep = c2.slider(
        "Shown per stage" if compact else "Branches shown per stage", 4, 40, COLLAPSE_AT,
        key=f"{key}_keep", disabled=not collapse,
    )  # fmt: skip
    return collapse, keep


def collapse_notes(g, h) -> list[str]:  # type: ignore[no-untyped-def]
    """One line per collapsed stage: how many branches the drawing shows and how many it merged.
    Why: without it the shown branches look like the whole stage."""
    notes = []
    for n, d in h.nodes(data=True):
        if d.get("kind") != "collapsed":
            continue
        fork = n[: -len(":more")] + ":fork"
        total = int(g.nodes[fork].get("branches", 0)) if fork in g else 0
        gone = int(d.get("count", 0))
        total = max(total, gone)
        stage = g.nodes[fork].get("stage") if fork in g else None
        where = f"stage {int(stage) + 1}" if isinstance(stage, int) else "a wide stage"
        notes.append(
            f"{where.capitalize()}: largest {total - gone} of {total} branches shown (the critical "
            f"one always); +{gone} collapsed into the grey hexagon. Click it to list them."
        )
    return notes


def _dag_view(  # type: ignore[no-untyped-def]
    g,
    selected: str | None,
    added: set[str],
    key: str,
    title: str = "",
    height: int | None = None,
    subset: str | None = None,
    compact: bool = False,
):
    collapse, keep = _dag_controls(g, key, compact)
    h = collapse_dag(g, keep, keep=[selected] if selected else ()) if collapse else g
    fig = dag_figure(h, layout(h), selected=selected, added=added, title=title, height=height)
    note_counter(fig, g.graph.get("counter", ""))
    for note in collapse_notes(g, h):
        st.caption(note)
    st.plotly_chart(
        fig,
        key=key,
        on_select=functools.partial(_on_dag_select, key, subset),
        selection_mode="points",
        config={"displaylogo": False, "scrollZoom": True},
    )
    return fig, h


def _added_vs_1x(src: SourceConfig, counter: str, uid: str, traj8) -> set[str]:  # type: ignore[no-untyped-def]
    """Thread nodes of an 8x trajectory that its 1x row lacks (empty if the 1x row is missing)."""
    try:
        t1 = pc.metrics("sft-1x", src, counter)
        rec = t1.filter(pl.col("uuid") == uid)
        if rec.height == 0:
            return set()
        row1 = pc.row("sft-1x", src, uid, rec["row"][0])
        if row1 is None:
            return set()
        a1 = analyse_row(row1, counter)
        return {n for n, f in added_branches(a1.traj, traj8).items() if f}
    except Exception:  # noqa: BLE001 - a missing/broken 1x file only loses the marks
        return set()


def _shown_node(node: str | None, g, h) -> str | None:  # type: ignore[no-untyped-def]
    """The stored node, if it is still on screen. Why: a `*:more` node from a collapsed stage (a
    click, or a deep link) stays in the URL after the stage is expanded or widened; it is then in
    neither the trajectory's graph `g` nor the drawn graph `h` (None if drawing failed)."""
    if node is None or node in g or (h is not None and node in h):
        return node
    return None


def render_trajectory(src: SourceConfig, subset: str, counter: str, table: pl.DataFrame) -> None:
    uid = UUID.read()
    if uid is None:
        st.info("Pick a trajectory here, click a row in **Browse**, or a point in **Charts**.")
        _picker(table, None)
        return
    full = resolve_uuid(table, uid)
    rec = table.filter(pl.col("uuid") == full) if full else table.clear()
    if full is not None:
        uid = full
    if rec.height == 0:
        st.warning(
            f"This trajectory is not in {subset}; pick another one below. Requested id:",
            icon=":material/search:",
        )
        st.code(uid, language=None)
        _picker(table, None)
        return
    _picker(table, uid)
    info = rec.row(0, named=True)
    row = pc.row(subset, src, uid, info["row"])
    if row is None:
        st.error(
            "The row could not be read back from the file; rebuild the sample or re-fetch the file."
        )
        return
    a = analyse_row(row, counter)
    traj, m, g = a.traj, a.metrics, a.dag
    q = row.get("question")
    corr = row.get("correctness")
    verdict = {True: "correct", False: "incorrect"}.get(corr, "correctness unknown")
    colour = {True: "#2e9e5b", False: "#d62728"}.get(corr, "#8c8c8c")
    st.html(
        '<div style="font-size:0.95rem;margin:0.2rem 0 0.4rem 0"><b>Question.</b> '
        f'<span style="white-space:pre-wrap">{esc(q) if isinstance(q, str) else "<i>(no question column)</i>"}</span>'
        f'<br><span style="color:#555"><b style="color:{colour}">{esc(verdict)}</b> · boxed answer: <code>{esc(m.answer) if m.answer is not None else "–"}</code>'
        f" · {len(traj.text):,} characters · uuid <code>{esc(uid)}</code></span></div>"
    )
    _metric_row(m)
    st.caption(f"Token counts: {md_text(m.counter)}. C = outside + Σ_b (s_b + max_i t_b,i).")
    if traj.warnings:
        st.html(_warning_badges(traj))
        with st.expander(
            f"Parser warnings ({len(traj.warnings)}): the trajectory is shown as far as it parses"
        ):
            st.dataframe(_warnings_frame(traj), hide_index=True)
    node = NODE.read()
    if node is not None and node not in g and not node.endswith(":more"):
        node = None
    added = _added_vs_1x(src, counter, uid, traj) if subset == "sft-8x" else set()
    h = None
    with guard("the DAG", dataset=DATASET):
        fig, h = _dag_view(g, node, added, DAG_KEY)
        if added:
            st.caption(
                f"{len(added)} branches (magenta, +) were added by the 8x expansion, compared with "
                "the sft-1x row of the same uuid (see the 1x vs 8x tab)."
            )
        st.caption(DAG_LEGEND)
        st.download_button(
            "Download DAG (standalone HTML)",
            lambda: dag_html(fig, f"Parason {subset} {uid}").encode(),
            f"parason_{subset}_{uid[:8]}_dag.html",
            mime="text/html",
            on_click="ignore",
            key="pa_dag_html",
        )
    node = _shown_node(node, g, h)
    if node is None:  # nothing to show beside the text: the text takes the full width
        left = st.columns([2, 3])[0]
        right = st.container()
    else:
        left, right = st.columns([2, 3])
    with left, guard("the node text", dataset=DATASET):
        st.markdown("**Selected node**")
        order = list(g.nodes)
        key = f"pa_node_{node or 'none'}"
        st.selectbox(
            "Node",
            order,
            index=order.index(node) if node in order else None,
            format_func=lambda n: (
                f"{g.nodes[n].get('label', n)} · {g.nodes[n].get('tokens', 0):,.0f} tok"
            ),
            placeholder="click a node in the DAG, or pick one",
            key=key,
            on_change=_on_pick,
            args=(key, NODE),
            label_visibility="collapsed",
        )
        if node is not None and node not in g and h is not None and node in h:
            members = h.nodes[node].get("members", [])
            st.info(
                f"{len(members)} collapsed branches; pick one above to read it, or widen the stage."
            )
        elif node is not None:
            d = g.nodes[node]
            facts = [
                f"kind: {d.get('thread_kind') or d.get('kind')}",
                f"{d.get('tokens', 0):,.1f} tokens",
            ]
            if d.get("critical"):
                facts.append("on the critical path")
            if d.get("warnings"):
                facts.append("warnings: " + ", ".join(d["warnings"]))
            st.caption(md_text(" · ".join(facts), 600))
            if d.get("goal"):
                st.html(
                    f'<div style="font-size:0.85rem"><b>Outline goal.</b> {esc(d["goal"])}</div>'
                )
            st.html(node_text_html(traj.node_text(node)))
        else:
            st.caption("No node selected. Click a node in the DAG or pick one above.")
    with right, guard("the text view", dataset=DATASET):
        st.markdown(
            "**Whole trajectory** (tags highlighted; the selected node is outlined; "
            "click any part to select its node)"
        )
        st.html(legend_html())
        # each node's text is a link to this URL with `node=` set (a reload selects it)
        params = {k: st.query_params.get(k, "") for k in st.query_params}
        params["view"] = "Trajectory"
        text_html = highlighted_html(
            traj, selected=node, added=added, link_params=params, linkable=set(g.nodes)
        )
        if node is not None:
            st.html(text_html + SCROLL_SCRIPT, unsafe_allow_javascript=True)
        else:
            st.html(text_html)
    with guard("the stage table", dataset=DATASET):
        frame = _stage_frame(m)
        if frame.height:
            st.markdown("**Stages**")
            st.dataframe(frame, hide_index=True)


# ---------------------------------------------------------------- 1x vs 8x
def render_compare(src: SourceConfig, counter: str) -> None:
    t1 = pc.metrics("sft-1x", src, counter)
    t8 = pc.metrics("sft-8x", src, counter)
    common = t1.join(t8.select("uuid"), on="uuid", how="semi")
    if common.height == 0:
        st.info("No trajectory is present in both sft-1x and sft-8x.")
        return
    asked = UUID.read()
    uid = resolve_uuid(common, asked)
    if uid is None:
        if asked is not None:
            st.warning(
                "This trajectory is not in both subsets; showing the first one that is.",
                icon=":material/search:",
            )
        uid = str(common["uuid"][0])
    _picker(common, uid, "Trajectory (in both subsets)")
    r1 = t1.filter(pl.col("uuid") == uid).row(0, named=True)
    r8 = t8.filter(pl.col("uuid") == uid).row(0, named=True)
    row1 = pc.row("sft-1x", src, uid, r1["row"])
    row8 = pc.row("sft-8x", src, uid, r8["row"])
    if row1 is None or row8 is None:
        st.error("One of the two rows could not be read back; re-fetch the files.")
        return
    a1, a8 = analyse_row(row1, counter), analyse_row(row8, counter)
    flags = added_branches(a1.traj, a8.traj)
    added = {n for n, f in flags.items() if f}
    if not added:
        st.info("No added branches in this pair.", icon=":material/info:")
    said = f"{len(added)} branches were added by the 8x expansion (magenta outline and '+'). "
    st.caption(
        (said if added else "") + "How added branches are "
        "found: each 8x stage is compared with the same stage of the 1x row; a thread whose text (number "
        "prefix ignored) occurs in the 1x stage is original, the others are added (when no text matches "
        "at all, threads past the 1x count are the added ones). Click a node to read it in "
        "the Trajectory tab."
    )
    st.dataframe(_compare_frame(a1.metrics, a8.metrics), hide_index=True)
    c1, c8 = st.columns(2)
    height = max(
        320,
        min(
            900, 160 + 34 * max(a1.metrics.branches_max, min(a8.metrics.branches_max, COLLAPSE_AT))
        ),
    )
    with c1, guard("the 1x DAG", dataset=DATASET):
        st.markdown("**sft-1x**")
        _dag_view(a1.dag, None, set(), "pa_dag_1x", height=height, subset="sft-1x", compact=True)
    with c8, guard("the 8x DAG", dataset=DATASET):
        st.markdown("**sft-8x** (added branches outlined in magenta, marked +)")
        _dag_view(a8.dag, None, added, "pa_dag_8x", height=height, subset="sft-8x", compact=True)
    rows = []
    for k, s8 in enumerate(a8.metrics.stage_stats):
        s1 = a1.metrics.stage_stats[k] if k < len(a1.metrics.stage_stats) else None
        b8 = a8.traj.blocks[k]
        rows.append(
            {
                "stage": k + 1,
                "kind": s8.kind,
                "1x branches": s1.branches if s1 else None,
                "8x branches": s8.branches,
                "added": sum(flags.get(t.node, False) for t in b8.threads),
                "1x block speedup": round(s1.block_speedup, 3) if s1 else None,
                "8x block speedup": round(s8.block_speedup, 3),
            }
        )
    if rows:
        st.dataframe(pl.DataFrame(rows), hide_index=True)


def _fmt(value: float, style: str, sign: bool = False) -> str:
    """One compare-table cell: counts/tokens as 1,116, speedups as 1.98×, ratios as 95.1%."""
    if not math.isfinite(value):
        return "–"
    if style == "x":
        return f"{value:+,.2f}×" if sign else f"{value:,.2f}×"
    if style == "%":
        return f"{value * 100:+.1f} pt" if sign else f"{value * 100:.1f}%"
    return f"{value:+,.0f}" if sign else f"{value:,.0f}"


def _compare_frame(m1, m8) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    """The headline metrics of both expansions side by side, with the change, as display text
    (rounded per metric: a token count with three decimals reads as false precision)."""
    rows = [
        ("tokens T", m1.T, m8.T, "n"),
        ("critical path C", m1.C, m8.C, "n"),
        ("speedup T/C", m1.speedup, m8.speedup, "x"),
        ("parallel ratio", m1.parallel_ratio, m8.parallel_ratio, "%"),
        ("trial ratio", m1.trial_ratio, m8.trial_ratio, "%"),
        ("stages", m1.stages, m8.stages, "n"),
        ("total branches", sum(m1.branches), sum(m8.branches), "n"),
    ]
    return pl.DataFrame(
        {
            "metric": [r[0] for r in rows],
            "sft-1x": [_fmt(float(r[1]), r[3]) for r in rows],
            "sft-8x": [_fmt(float(r[2]), r[3]) for r in rows],
            "change": [_fmt(float(r[2]) - float(r[1]), r[3], sign=True) for r in rows],
        }
    )


# ---------------------------------------------------------------- charts
def render_charts(filtered: pl.DataFrame, total: int, counter: str = "estimate") -> None:
    if filtered.height == 0:
        st.info("No trajectory matches the filters above.")
        return
    st.caption(
        f"{filtered.height:,} of {total:,} trajectories (the filters above apply). Click a point to open its DAG."
    )
    uid = UUID.read()
    label = COUNTER_LABELS.get(counter, counter)
    c1, c2 = st.columns(2)
    with c1, guard("the speedup chart", dataset=DATASET):
        st.plotly_chart(
            note_counter(speedup_scatter(filtered, uid), label), key="pa_ch_speed", on_select=functools.partial(_on_chart_select, "pa_ch_speed"),
            selection_mode="points", config={"displayModeBar": False},
        )  # fmt: skip
    with c2, guard("the ratio chart", dataset=DATASET):
        st.plotly_chart(
            note_counter(ratio_scatter(filtered, uid), label), key="pa_ch_ratio", on_select=functools.partial(_on_chart_select, "pa_ch_ratio"),
            selection_mode="points", config={"displayModeBar": False},
        )  # fmt: skip
    c3, c4 = st.columns(2)
    with c3, guard("the speedup histogram", dataset=DATASET):
        st.plotly_chart(
            note_counter(speedup_hist(filtered), label), config={"displayModeBar": False}
        )
    with c4, guard("the branches histogram", dataset=DATASET):
        st.plotly_chart(
            note_counter(branches_hist(filtered), label), config={"displayModeBar": False}
        )
    with guard("the correctness split", dataset=DATASET):
        st.plotly_chart(
            note_counter(by_correctness(filtered), label), config={"displayModeBar": False}
        )


# ---------------------------------------------------------------- RL prompts
def rl_table_key(query: str | None, sources: list[str] | None) -> str:
    """The RL table's widget key. Why per filter state: its selection is a row *position*, which
    names another prompt (or none) once the filters change; a new key starts with no selection."""
    filters = repr(((query or "").strip().lower(), sorted(sources or [])))
    return "pa_rl_table_" + hashlib.sha1(filters.encode()).hexdigest()[:12]


def render_rl(src: SourceConfig) -> None:
    rl = pc.rl(src)
    c1, c2 = st.columns([3, 2])
    q = c1.text_input(
        "Search prompts",
        placeholder="words in the problem or the ground truth",
        **bound_kept("rlq"),
    )
    sources = sorted(rl["data_source"].drop_nulls().unique().to_list())
    chosen = c2.multiselect(
        "Data source", sources, default=[], placeholder="all sources", **bound_kept("rlsrc")
    )
    view = rl
    if chosen:
        view = view.filter(pl.col("data_source").is_in(chosen))
    if q and q.strip():
        needle = q.strip().lower()
        view = view.filter(
            pl.col("prompt").str.to_lowercase().str.contains(needle, literal=True)
            | pl.col("ground_truth")
            .fill_null("")
            .str.to_lowercase()
            .str.contains(needle, literal=True)
        )
    st.caption(
        f"{view.height:,} of {rl.height:,} RL prompts (veRL format: prompt, data_source, ability, reward_model.ground_truth)."
    )
    if view.height == 0:
        st.info("No prompt matches; clear the search.")
        return
    shown = view.with_columns(pl.col("prompt").str.slice(0, 120).alias("prompt (start)")).select(
        "index", "data_source", "ability", "ground_truth", "prompt (start)"
    )
    state = st.dataframe(
        shown,
        key=rl_table_key(q, chosen),
        on_select="rerun",
        selection_mode="single-row",
        hide_index=True,
        height=min(420, 38 + 35 * shown.height),
    )
    rows = state.selection.rows if state is not None and hasattr(state, "selection") else []
    if rows and 0 <= rows[0] < view.height:
        r = view.row(rows[0], named=True)
        st.html(
            f'<div style="font-size:0.85rem"><b>Prompt {esc(r["index"])}</b> · {esc(r["data_source"] or "–")} · '
            f"ground truth <code>{esc(r['ground_truth'] or '–')}</code></div>"
        )
        st.html(node_text_html(r["prompt"]))
    _downloads(view, "parason_rl_filtered", "pa_rl")
