"""The RL tab: search the RL prompts (veRL format) and read one."""

from __future__ import annotations

import hashlib

import polars as pl
import streamlit as st

from analysis.parason.tables import filter_rl, rl_frame, rl_sources
from cache.sources import SourceConfig
from components.common.click_text import text_block
from components.common.downloads import file_stem
from components.common.lite_table import grid_switch, table_or_grid
from components.common.maths import maths_on
from components.common.safe_text import esc
from components.common.url_keys import ParasonKeys
from components.common.url_state import url_multiselect, url_text
from components.parason import cached as pc
from components.parason.shared import table_downloads
from components.parason.text import node_text_html


def rl_table_key(query: str | None, sources: list[str] | None) -> str:
    """The RL table's widget key (its picked row is kept under `<key>_row`). Why per filter
    state: a pick is a row *position*, which names another prompt (or none) once the filters
    change; a new key starts with no pick."""
    filters = repr(((query or "").strip().lower(), sorted(sources or [])))
    return "pa_rl_table_" + hashlib.sha1(filters.encode()).hexdigest()[:12]


def _row_of(view: pl.DataFrame, index: int | None) -> int | None:
    """The position in `view` of the first prompt whose index is `index` (None if none)."""
    if index is None:
        return None
    rows = view.with_row_index("_pos").filter(pl.col("index") == index)["_pos"]
    return int(rows[0]) if rows.len() else None


def messages_html(messages: list[dict], maths: bool = False) -> str:
    """Every message of a prompt under its role (escaped), so a system message reads as one."""
    parts = []
    for m in messages:
        role = esc(m.get("role") or "?")
        parts.append(
            f'<div class="rte-rl-message"><div style="font-size:0.78rem;font-weight:600;'
            f'margin:0.3rem 0 0.1rem 0">{role}</div>{node_text_html(str(m.get("content") or ""), maths=maths)}'
            "</div>"
        )
    return "".join(parts)


def render_rl(src: SourceConfig) -> None:
    rl = pc.rl(src)
    # one row: the search takes what the source filter and the switch (each as wide as its
    # content) leave, so the switch's label is never cut (three columns cut it at 1024 px)
    row = st.container(horizontal=True, vertical_alignment="bottom")
    with row:
        q = url_text(
            "Search prompts", ParasonKeys.RLQ, placeholder="problem words or a ground truth"
        )
        chosen = url_multiselect(
            "Data source", rl_sources(rl), "rlsrc", placeholder="all sources", width=220
        )
    view = filter_rl(rl, q, chosen)
    st.caption(
        f"{view.height:,} of {rl.height:,} RL prompts (veRL format: prompt, data_source, ability, reward_model.ground_truth)."
    )
    if view.height == 0:
        st.info("No prompt matches; clear the search.")
        return
    key = rl_table_key(q, chosen)
    row_key = f"{key}_row"  # the picked row of this filter state (a position in `view`)

    def _pick(i: int) -> None:
        st.session_state[row_key] = i
        ParasonKeys.RL_PROMPT.write(int(view["index"][i]))  # a link opens the same prompt

    picked = st.session_state.get(row_key)
    if picked is None:  # a link names the prompt: its first row in this filter state, if any
        picked = _row_of(view, ParasonKeys.RL_PROMPT.read())
    table_or_grid(
        rl_frame(view),
        key=key,
        grid=grid_switch("rl_grid", container=row),
        label="RL prompts",
        on_pick=_pick,
        height=min(420, 38 + 35 * view.height),
        selected=picked,
    )
    if isinstance(picked, int) and 0 <= picked < view.height:
        r = view.row(picked, named=True)
        st.html(
            f'<div style="font-size:0.85rem"><b>Prompt {esc(r["index"])}</b> · {esc(r["data_source"] or "–")} · '
            f"ground truth <code>{esc(r['ground_truth'] or '–')}</code></div>"
        )
        messages = r.get("messages") or [{"role": "user", "content": r["prompt"]}]
        text_block(messages_html(messages, maths=maths_on()), key="pa_rl_text")
    table_downloads(view, file_stem("parason", "rl", "filtered"), "pa_rl")
