"""The Trajectory tab: one trajectory's header, metrics, warnings, DAG, node text, the whole text
with tags highlighted (each part links to its node) and the stage table.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import polars as pl
import streamlit as st

from analysis.parason.analyse import analyse_row
from analysis.parason.dag import top_stage
from analysis.parason.metrics import PLACEMENT, Metrics, StageStats
from analysis.parason.parse import Trajectory
from analysis.parason.tables import (
    added_nodes,
    known_node,
    node_facts,
    resolve_uuid,
    shown_node,
    stage_frame,
    token_difference,
    warning_counts,
    warnings_frame,
)
from cache.sources import SourceConfig
from components.common.casebook import capture, cases_here, evidence
from components.common.click_text import click_text, text_block
from components.common.deeplink import LinkNotes
from components.common.downloads import download_file, file_stem
from components.common.formatting import DASH, fmt_quantity, fmt_tokens
from components.common.guards import guard
from components.common.lazy_expander import lazy_expander
from components.common.maths import maths_on, maybe_maths
from components.common.md_table import md_frame
from components.common.safe_text import esc, md_text
from components.common.stat_row import stat_row
from components.common.theme import (
    CAPTION_FG,
    CORRECTNESS_COLOURS,
    INFO_BG,
    INFO_FG,
    WARN_BG,
    WARN_FG,
)
from components.parason import cached as pc
from components.parason import cases as pcs
from components.parason.dag import dag_html
from components.parason.dag_panel import DAG_LEGEND, dag_view, zoom_box
from components.parason.shared import (
    DATASET,
    NODE,
    UUID,
    on_pick,
    picker,
    read_node,
    write_node,
)
from components.parason.text import highlighted_html, legend_html, node_text_html

DAG_KEY = "pa_dag"
TEXT_KEY = "pa_text"
NODE_TEXT_KEY = "pa_node_text"
VIEW = "Trajectory"
# the stage table's ratios, as the metric cards show them (token sums keep thousands separators)
STAGE_FORMATS = {"block speedup": ".2f", "imbalance": ".2f"}

DL = LinkNotes("parason")  # this view's deep-link notes
NODE_NOTE = (
    "The link asks for node “{asked}”, which this trajectory does not have: no node is selected; "
    "click one in the DAG."
)


def warning_badges(traj: Trajectory) -> str:
    """One escaped chip per code (× count): red with ⚠ for warnings (invalid data), blue with
    "note" for informational codes, which must not look like warnings."""
    chips = []
    for w in warning_counts(traj):
        is_warning = w.severity == "warning"
        bg, fg = (WARN_BG, WARN_FG) if is_warning else (INFO_BG, INFO_FG)
        mark = "⚠ " if is_warning else "note: "
        chips.append(
            f'<span title="{esc(w.description)}" style="background:{bg};color:{fg};'
            f'border-radius:10px;padding:1px 8px;margin-right:4px;font-size:0.8rem">{mark}'
            f"{esc(w.code)}{' ×' + str(w.count) if w.count > 1 else ''}</span>"
        )
    return "".join(chips)


def warnings_title(traj: Trajectory) -> str:
    """The expander title: "shown as far as it parses" only when the data is invalid."""
    n_warn = sum(w.severity == "warning" for w in traj.warnings)
    n_note = len(traj.warnings) - n_warn
    if n_warn:
        extra = f", {n_note} notes" if n_note else ""
        return f"Parser warnings ({n_warn}{extra}): the trajectory is shown as far as it parses"
    return f"Parser notes ({n_note}): informational, the trajectory parsed completely"


def tokens_caption(m: Metrics, counted_total: float, stored: object) -> str:
    """How the counts were made, the published tag placement, and the counted whole text against
    the stored num_qwen_tokens (a difference, not a verdict: the stored figure counts the whole
    chat template)."""
    diff = token_difference(counted_total, stored)
    cmp = ""
    if diff is not None:
        cmp = (
            f" Whole text counted: {fmt_tokens(counted_total)}; stored num_qwen_tokens: "
            f"{fmt_tokens(stored)} (the whole chat template); difference "
            f"{fmt_tokens(diff, sign=True)}."
        )
    return (
        f"Token counts: {md_text(m.counter)}. C = outside + Σ_b (s_b + max_i t_b,i). "
        f"{md_text(PLACEMENT, 600)}{md_text(cmp, 300)}"
    )


def question_html(row: dict, m: Metrics, traj: Trajectory, uid: str) -> str:
    """The header: the question (escaped, as written or with its maths wrapped), verdict, boxed
    answer, size and uuid."""
    q = row.get("question")
    corr = row.get("correctness")
    verdict = {True: "correct", False: "incorrect"}.get(corr, "correctness unknown")
    colour = CORRECTNESS_COLOURS.get(corr, CORRECTNESS_COLOURS[None])
    question = maybe_maths(q) if isinstance(q, str) else "<i>(no question column)</i>"
    answer = maybe_maths(m.answer, bare_tex=True) if m.answer is not None else "–"
    return (
        '<div style="font-size:0.95rem;margin:0.2rem 0 0.4rem 0"><b>Question.</b> '
        f'<span style="white-space:pre-wrap">{question}</span>'
        f'<br><span style="color:{CAPTION_FG}"><b style="color:{colour}">{esc(verdict)}</b> · '
        f"boxed answer: <code>{answer}</code>"
        f" · {len(traj.text):,} characters · uuid <code>{esc(uid)}</code></span></div>"
    )


def metric_row(m: Metrics, prefix: str = "", key: str = "pa_metrics") -> None:
    """The trajectory's headline figures, in a row that wraps at 1024 px."""
    with stat_row(key, label=f"{prefix}trajectory figures") as c:
        c.metric(f"{prefix}tokens T", fmt_quantity(m.T, "n"))
        c.metric(f"{prefix}critical path C", fmt_quantity(m.C, "n"))
        undefined = "undefined (T = 0)"
        c.metric(
            f"{prefix}speedup T/C",
            fmt_quantity(m.speedup, "x") if m.speedup is not None else "–",
            help="T / C" if m.speedup is not None else undefined,
        )
        c.metric(
            f"{prefix}1 − C/T",
            f"{m.acceleration_ratio:.1%}" if m.acceleration_ratio is not None else "–",
            help="acceleration ratio (the reference code's acceleration_ratio)"
            if m.acceleration_ratio is not None
            else undefined,
        )
        c.metric(
            f"{prefix}parallel ratio",
            f"{m.parallel_ratio:.1%}",
            help=f"subtask {m.subtask_ratio:.1%} · trial {m.trial_ratio:.1%}",
        )
        c.metric(f"{prefix}stages · widest", f"{m.stages} · {m.branches_max}")


def added_vs_1x(src: SourceConfig, counter: str, uid: str, traj8: Trajectory) -> set[str]:
    """Thread nodes of an 8x trajectory that its 1x row lacks (empty if the 1x row is missing)."""
    try:
        t1 = pc.metrics("sft-1x", src, counter)
        rec = t1.filter(pl.col("uuid") == uid)
        if rec.height == 0:
            return set()
        row1 = pc.row("sft-1x", src, uid, rec["row"][0])
        if row1 is None:
            return set()
        return added_nodes(analyse_row(row1, counter).traj, traj8)
    except Exception:  # noqa: BLE001 - a missing/broken 1x file only loses the marks
        return set()


def _node_capture(case: CaseContext, g: nx.DiGraph, node: str) -> None:
    """The selected node's "Add node" control (a real node only, not a collapsed stage)."""
    d = g.nodes[node]
    label = str(d.get("label", node))
    capture(
        DATASET,
        DATASET,
        pcs.node_item(case.subset, case.uid, node),
        title=pcs.node_title(case.subset, case.question, label),
        snapshot=pcs.node_snapshot(node, d, case.counter, case.stages),
        source=case.src,
        file=pcs.sft_file(case.subset),
        key=f"pa_node_{case.subset}_{case.uid}_{node}",
        label="Add node",
    )


def _node_panel(traj: Trajectory, g, h, node: str | None, case: CaseContext) -> None:  # type: ignore[no-untyped-def]  # networkx graphs are untyped
    with st.container(horizontal=True, vertical_alignment="center"):
        st.markdown("**Selected node**", width="content")
        if node is not None and node in g:
            with guard("the node's casebook control", dataset=DATASET):
                _node_capture(case, g, node)
    order = list(g.nodes)
    key = f"pa_node_{node or 'none'}"
    st.selectbox(
        "Node",
        order,
        index=order.index(node) if node in order else None,
        format_func=lambda n: (
            f"{g.nodes[n].get('label', n)} · {fmt_tokens(g.nodes[n].get('tokens', 0), 1)}"
        ),
        placeholder="click a node in the DAG, or pick one",
        key=key,
        on_change=on_pick,
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
        st.caption(md_text(" · ".join(node_facts(d)), 600))
        if d.get("goal"):
            st.html(f'<div style="font-size:0.85rem"><b>Outline goal.</b> {esc(d["goal"])}</div>')
        text_block(node_text_html(traj.node_text(node), maths=maths_on()), key=NODE_TEXT_KEY)
    else:
        st.caption("No node selected. Click a node in the DAG or pick one above.")


def _text_view(traj: Trajectory, g, node: str | None, added: set[str]) -> None:  # type: ignore[no-untyped-def]  # networkx graphs are untyped
    st.markdown(
        "**Whole trajectory** (tags highlighted; the selected node is outlined; "
        "click any part to select its node)"
    )
    st.html(legend_html())
    # each node's text is a `data-pick` span: a click selects the node in place (no reload,
    # the text keeps its scroll position); the node goes into the URL as before
    text_html = highlighted_html(
        traj, selected=node, added=added, pickable=set(g.nodes), maths=maths_on()
    )
    click_text(text_html, key=TEXT_KEY, on_pick=pick_node, reveal=node is not None)


def pick_node(node: str) -> None:
    """A node picked in the text view becomes the URL's node (before the rerun draws the panel)."""
    write_node(node)


@dataclass(frozen=True, slots=True)
class CaseContext:
    """What every capture on this tab shares: the source, subset, trajectory, counter and the
    question (for the suggested titles)."""

    src: SourceConfig
    subset: str
    uid: str
    counter: str
    question: object
    stages: tuple[StageStats, ...] = ()  # a node case's picture is its stage's branches


def _trajectory_capture(case: CaseContext, m: Metrics, correctness: object) -> None:
    """The trajectory's "Add to casebook" control and, beside it, the cases already on it (the
    node and stage cases of this trajectory included)."""
    item = pcs.trajectory_item(case.subset, case.uid)
    capture(
        DATASET,
        DATASET,
        item,
        title=pcs.trajectory_title(case.subset, case.question),
        snapshot=pcs.trajectory_snapshot(m, correctness),
        source=case.src,
        file=pcs.sft_file(case.subset),
        key=f"pa_traj_{case.subset}_{case.uid}",
    )
    cases_here(DATASET, item, key="pa_traj")


def _stage_capture(case: CaseContext, m: Metrics, node: str | None) -> None:
    """A stage picker and its "Add stage" control, above the stage table. The picker moves to the
    selected node's stage when the node changes (a lens's link, a click on the DAG), and is the
    reader's own while the node stays."""
    stats = {s.stage: s for s in m.stage_stats}
    pick_key = f"pa_stage_{case.subset}_{case.uid}"
    stage, seen_key = top_stage(node), f"{pick_key}_node"
    if stage in stats and st.session_state.get(seen_key) != node:
        st.session_state[pick_key] = stage
    st.session_state[seen_key] = node
    picked = st.selectbox(
        "Stage",
        list(stats),
        format_func=lambda i: pcs.stage_label(stats[i]),
        key=pick_key,
        label_visibility="collapsed",
        width=300,
    )
    s = stats.get(picked) if picked is not None else None
    if s is None:
        return
    capture(
        DATASET,
        DATASET,
        pcs.stage_item(case.subset, case.uid, s),
        title=pcs.stage_title(case.subset, case.question, s),
        snapshot=pcs.stage_snapshot(s, case.counter),
        source=case.src,
        file=pcs.sft_file(case.subset),
        key=f"{pick_key}_{s.stage}",
        label="Add stage",
    )


def render_trajectory(src: SourceConfig, subset: str, counter: str, table: pl.DataFrame) -> None:
    uid = UUID.read()
    if uid is None:
        st.info("Pick a trajectory here, click a row in **Browse**, or a point in **Charts**.")
        picker(table, None)
        return
    full = resolve_uuid(table, uid)
    rec = table.filter(pl.col("uuid") == full) if full else table.clear()
    if full is not None:
        uid = full
    if rec.height == 0:
        st.warning(  # said like the other views' link notes: what was asked, what to do
            f"Trajectory “{md_text(uid, 80)}” is not in {md_text(subset)}: pick one below, or the "
            "subset above that holds it.",
            icon=":material/link_off:",
        )
        picker(table, None)
        return
    picker(table, uid)
    info = rec.row(0, named=True)
    row = pc.row(subset, src, uid, info["row"])
    if row is None:
        st.error(
            "The row could not be read back from the file; rebuild the sample or re-fetch the file."
        )
        return
    a = analyse_row(row, counter)
    traj, m, g = a.traj, a.metrics, a.dag
    text_block(question_html(row, m, traj, uid), key="pa_question_text")
    case = CaseContext(src, subset, uid, m.counter, row.get("question"), tuple(m.stage_stats))
    with (
        st.container(horizontal=True, vertical_alignment="center"),
        guard("the casebook controls", dataset=DATASET),
    ):
        _trajectory_capture(case, m, row.get("correctness"))
    metric_row(m)
    st.caption(tokens_caption(m, sum(a.counts), row.get("num_qwen_tokens")))
    if "empty_reasoning" in m.warning_codes:
        st.warning(
            "The reasoning is empty: T = 0 and the speedup is undefined (the answer alone is not "
            "counted as T).",
            icon=":material/warning:",
        )
    if traj.warnings:
        st.html(warning_badges(traj))
        with lazy_expander(warnings_title(traj), (), "pa_warnings_open") as draw:
            if draw:
                st.dataframe(warnings_frame(traj), hide_index=True, placeholder=DASH)
    node = known_node(read_node(), g)
    raw = DL.asked("node")
    DL.remember("node", raw, raw is None or node is not None, node)
    DL.show("node", NODE_NOTE, node)
    added = added_vs_1x(src, counter, uid, traj) if subset == "sft-8x" else set()
    h = None
    with guard("the DAG", dataset=DATASET):
        fig, h = dag_view(g, node, added, DAG_KEY, zoom=zoom_box())
        if added:
            st.caption(
                f"{len(added)} branches (magenta, +) were added by the 8x expansion, compared with "
                "the sft-1x row of the same uuid (see the 1x vs 8x tab)."
            )
        st.caption(DAG_LEGEND)
        download_file(
            lambda: dag_html(fig, f"Parason {subset} {uid}").encode(),
            file_stem("parason", subset, uid[:8], counter, "dag"),
            "html",
            key="pa_dag_html",
            label="Download DAG (standalone HTML)",
            mime="text/html",
        )
    node = shown_node(node, g, h)
    if node is None:  # nothing to show beside the text: the text takes the full width
        left = st.columns([2, 3])[0]
        right = st.container()
    else:
        left, right = st.columns([2, 3])
    with (
        left,
        guard("the node text", dataset=DATASET),
        evidence("parason_node") if node else st.container(),
    ):
        _node_panel(traj, g, h, node, case)
    with right, guard("the text view", dataset=DATASET):
        _text_view(traj, g, node, added)
    with guard("the stage table", dataset=DATASET):
        frame = stage_frame(m)
        if frame.height:
            with st.container(horizontal=True, vertical_alignment="center"):
                st.markdown("**Stages**", width="content")
                with guard("the stage's casebook control", dataset=DATASET):
                    _stage_capture(case, m, node)
            st.markdown(md_frame(frame, formats=STAGE_FORMATS))
