"""The lenses view: every lens with its rule and count, and the chosen lens's items, each a link
that opens the item in its view, with the figure that put it there and its cases.

The lenses are declared by the datasets (`cache.lenses`); this module never names one. Item
text (labels, answers in a "why") is dataset text: every piece is escaped (`esc`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import polars as pl
import streamlit as st

from cache.datasets import DATASETS
from cache.errors import DataError
from cache.lenses import (
    Lens,
    LensResult,
    all_lenses,
    cases_on,
    item_keys,
    item_query,
    queue_items,
)
from cache.sources import SourceConfig
from components.common.cached import present_files
from components.common.casebook import source_identity, store
from components.common.guards import guard
from components.common.links import view_href
from components.common.safe_text import esc, md_text
from components.common.source_picker import current_source, source_pairs
from components.common.theme import CASE_ACCENT, TABLE_RULE
from components.common.triage import triage_button
from components.common.url_keys import LensesKeys
from components.common.url_state import url_selectbox
from components.lenses.cached import found, kit_of

PAGE = 200  # items per page of the table
_TD = f"padding:4px 8px;border-bottom:1px solid {TABLE_RULE};vertical-align:top"


def parts_here(lens: Lens, src: SourceConfig) -> tuple[str, ...]:
    """The parts of the lens's dataset this source holds (a local folder may hold only some)."""
    parts = kit_of(lens).parts
    present = present_files(lens.dataset, src)
    if present is None:
        return parts
    held = tuple(p for p in parts if set(kit_of(lens).files(p)) <= set(present))
    return held or parts[:1]  # none: resolving the first says what is missing


def default_part(lens: Lens, src: SourceConfig) -> str:
    """The URL's file when it is one of the lens's parts, else the first the source holds."""
    parts = parts_here(lens, src)
    want = LensesKeys.FILE.read()
    return want if want in parts else parts[0]


def refused_file_note(lens: Lens, asked: str, shown: str) -> str:
    """What a link's file that this lens does not run on here was, and what is shown instead:
    a file of the dataset the source (a local folder) lacks, or no file of the dataset at all."""
    kit = kit_of(lens)
    label = md_text(kit.part_label, 40)
    if asked in kit.parts:
        why = f"which this folder does not have: showing {md_text(shown, 120)}, the first it has"
    else:
        title = md_text(DATASETS[lens.dataset].title, 60)
        why = f"which is not a {label} of {title}: showing {md_text(shown, 120)}"
    return f"The link asks for the {label} “{md_text(asked, 120)}”, {why}, instead."


def _count_cell(lens: Lens, src: SourceConfig) -> tuple[str, str]:
    """(found, of n) as the overview shows them; a source that fails says so in a dash."""
    part = default_part(lens, src)
    try:
        items, n = found(lens, part, src)
    except DataError as exc:
        return "–", esc(exc.message[:120])
    where = f" in {esc(kit_of(lens).part_title(part))}" if len(kit_of(lens).parts) > 1 else ""
    return f"{items.height:,}", f"of {n:,} {esc(lens.of)}{where}"


def overview_html(rows: Sequence[tuple[Lens, str, str]], chosen: str | None) -> str:
    """The table of every lens: dataset, title (a link choosing it) over its rule, count and n."""
    body = []
    for lens, count, of in rows:
        title = esc(lens.title)
        mark = f"border-left:3px solid {CASE_ACCENT};" if lens.id == chosen else ""
        link = f"<a href='{esc(view_href('lenses', lens=lens.id))}' target='_self'>{title}</a>"
        body.append(
            f"<tr class='rte-lens'><td style='{_TD};{mark}white-space:nowrap'>"
            f"{esc(DATASETS[lens.dataset].title)}</td>"
            f"<td style='{_TD}'><b>{link}</b><br>"
            f"<span style='font-size:0.82rem;color:gray'>{esc(lens.rule)}</span></td>"
            f"<td style='{_TD};width:13rem'><b class='rte-lens-count'>{count}</b> "
            f"<span style='font-size:0.82rem'>{of}</span></td></tr>"
        )
    head = "".join(
        f"<th style='{_TD};text-align:left'>{h}</th>"
        for h in ("Dataset", "Lens and its rule", "Found")
    )
    return (
        "<table class='rte-lenses' style='border-collapse:collapse;width:100%;font-size:0.9rem'>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def overview(src_of: dict[str, SourceConfig], chosen: str | None) -> None:
    rows = [(lens, *_count_cell(lens, src_of[lens.dataset])) for lens in all_lenses()]
    with st.expander(f"All lenses ({len(rows)})", expanded=chosen is None):
        st.html(overview_html(rows, chosen))


def _cases(lens: Lens, items: pl.DataFrame) -> list[int]:
    """Per item, the casebook's cases on it (none when the casebook cannot be read: a caption
    says so)."""
    keys = [item_keys(lens, row) for row in items.iter_rows(named=True)]
    try:
        book = [c.item for c in store().list_cases(dataset=lens.view)]
    except DataError as exc:
        st.caption(f"Casebook marks are hidden: {md_text(exc.message, 160)}")
        return [0] * len(keys)
    return cases_on(keys, book)


def items_html(lens: Lens, items: pl.DataFrame, cases: Sequence[int], start: int) -> str:
    """The items as an escaped table: number, the item (a link opening it in its view at the
    item), why it is here, its cases."""
    body = []
    for i, (row, n_cases) in enumerate(zip(items.iter_rows(named=True), cases, strict=True)):
        href = view_href(lens.view, **dict(item_query(lens, row)))
        mark = (
            f"<span style='color:{CASE_ACCENT}' title='cases on this item'>"
            f"● {n_cases} case{'s' if n_cases != 1 else ''}</span>"
            if n_cases
            else "–"
        )
        body.append(
            f"<tr class='rte-lens-item'><td style='{_TD};color:gray'>{start + i + 1}</td>"
            f"<td style='{_TD};white-space:nowrap'>"
            f"<a href='{esc(href)}' target='_self'>{esc(row['label'])}</a></td>"
            f"<td style='{_TD};overflow-wrap:anywhere'>{esc(row['why'])}</td>"
            f"<td style='{_TD};white-space:nowrap'>{mark}</td></tr>"
        )
    head = "".join(
        f"<th style='{_TD};text-align:left'>{h}</th>" for h in ("#", "Item", "Why", "Casebook")
    )
    return (
        "<table class='rte-lens-items' style='border-collapse:collapse;width:100%;"
        f"font-size:0.9rem'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _page(total: int) -> int:
    """The 0-based first row of the page the URL asks for (a picker when there are several)."""
    pages = max(1, -(-total // PAGE))
    if pages == 1:
        return 0
    page = url_selectbox(
        "Rows",
        list(range(1, pages + 1)),
        LensesKeys.PAGE,
        fmt=lambda p: f"{(p - 1) * PAGE + 1:,}–{min(total, p * PAGE):,} of {total:,}",
        width=260,
    )
    return (int(page) - 1) * PAGE


def chosen_lens(lens: Lens, src: SourceConfig, pickers: Any) -> LensResult | None:
    """The chosen lens: its file picker (in `pickers`, beside the lens picker), its rule, its
    items. Returns what it found (for the triage queue's button)."""
    kit = kit_of(lens)
    parts = parts_here(lens, src)
    part = default_part(lens, src)
    asked = st.query_params.get(LensesKeys.FILE.key)
    if len(parts) > 1:
        with pickers:
            part = url_selectbox(
                kit.part_label.capitalize(),
                list(parts),
                LensesKeys.FILE,
                fallback=part,
                fmt=kit.part_title,
                width=420,
                noted=True,  # the note below
            )
    elif asked and asked != part:
        st.query_params[LensesKeys.FILE.key] = part  # no picker rewrites it
    st.subheader(lens.title)
    if asked and asked not in parts:
        st.warning(refused_file_note(lens, asked, kit.part_title(part)), icon=":material/link_off:")
    st.markdown(md_text(lens.rule, 1000))
    items, n = found(lens, part, src)
    where = kit.part_title(part)
    st.markdown(
        f"**{items.height:,}** found of {n:,} {md_text(lens.of)} in {md_text(where, 120)}",
        help="The count is the table's rows; each link opens the item in its view.",
    )
    if n == 0:
        st.info(
            f"{md_text(where, 120)} holds no {md_text(lens.of)}, so this lens has nothing to "
            "look at; pick another source or file.",
            icon=":material/info:",
        )
    elif items.is_empty():
        st.info(f"Nothing found. {md_text(lens.empty, 400)}", icon=":material/info:")
    result = LensResult(lens, items, n, part, source_identity(src, part))
    if n and not items.is_empty():
        queue = [replace(i, query=(*i.query, *source_pairs())) for i in queue_items(result)]
        triage_button(
            queue,
            f"{lens.title} · {where} ({len(queue):,})",
            f"lens: {lens.title}, {where}",
            key="lens_triage",
        )
        start = _page(items.height)
        shown = items.slice(start, PAGE)
        st.html(items_html(lens, shown, _cases(lens, shown), start))
    return result


def render() -> LensResult | None:
    """The page: every lens, then the chosen one (`?lens=`)."""
    lenses = all_lenses()
    if not lenses:
        st.info("No dataset declares a lens.", icon=":material/info:")
        return None
    src_of = {lens.dataset: current_source(lens.dataset) for lens in lenses}
    by_id = {lens.id: lens for lens in lenses}
    want = LensesKeys.LENS.read()
    with guard("the lens counts"):
        overview(src_of, want if want in by_id else None)
    pickers = st.container(horizontal=True)
    with pickers:
        picked = url_selectbox(
            "Lens",
            [None, *by_id],
            LensesKeys.LENS,
            fmt=lambda i: (
                "Choose a lens…"
                if i is None
                else f"{DATASETS[by_id[i].dataset].title} · {by_id[i].title}"
            ),
            width=420,
        )
    if picked is None:
        st.caption("Choose a lens (or click its name) to list its items.")
        return None
    lens = by_id[picked]
    result = None
    with guard(f"the lens {lens.title}", dataset=lens.dataset):
        result = chosen_lens(lens, src_of[lens.dataset], pickers)
    return result
