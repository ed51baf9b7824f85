"""The Collections tab: named, ordered sets of cases ("Friday demo"), reordered here, presented
step by step, exported as a whole."""

from __future__ import annotations

import streamlit as st

from cache.casebook.links import absolute
from cache.casebook.model import Collection
from cache.casebook.queue_ops import items_of_cases
from cache.casebook.store import CaseStore
from components.casebook.exports import export_buttons
from components.casebook.present import go_to
from components.casebook.shared import case_title, dataset_label, short_label
from components.common.casebook import readonly
from components.common.links import view_href
from components.common.safe_text import md_text
from components.common.triage import item_path, triage_button
from components.common.url_keys import CasebookKeys
from components.common.url_state import say_refused


def _create(store: CaseStore) -> None:
    with st.form("cb_new_collection", border=True, clear_on_submit=True):
        c1, c2 = st.columns([2, 3])
        name = c1.text_input("New collection", placeholder="e.g. Friday demo", max_chars=200)
        desc = c2.text_input("Description (optional)", max_chars=500)
        if st.form_submit_button("Create", disabled=readonly()) and name.strip():
            col = store.create_collection(name.strip(), desc.strip())
            CasebookKeys.COLLECTION.write(col.id)
            st.rerun()


def _move(book: CaseStore, cid: str, case_id: str, to: int) -> None:
    """Button callback: move the case it belongs to (by id), before the list is drawn again."""
    book.move_in_collection(cid, case_id, to)


def _remove(book: CaseStore, cid: str, case_id: str) -> None:
    book.remove_from_collection(cid, case_id)


def _order(book: CaseStore, col: Collection) -> None:
    """The collection's cases in order, each row with its own Up / Down / Remove. Positions are
    those of the stored list (a purged case leaves a gap the store skips)."""
    rows = [(pos, book.get(i)) for pos, i in enumerate(col.case_ids)]
    live = [(pos, c) for pos, c in rows if c is not None]
    if not live:
        st.info(
            "This collection is empty: select cases in the Cases tab and use “Add to collection”."
        )
        return
    ro = readonly()
    last = len(col.case_ids) - 1
    for n, (pos, case) in enumerate(live):
        with st.container(
            horizontal=True, vertical_alignment="center", key=f"cb_row_{col.id}_{case.id}"
        ):
            gone = " *(deleted: skipped when presenting)*" if case.deleted else ""
            st.markdown(
                f"**{n + 1}.** {md_text(short_label(case), 80)} · "
                f"{md_text(case_title(case), 100)} · "
                f"{dataset_label(case.dataset)}{gone}",
                width="stretch",
            )
            args = (book, col.id, case.id)
            st.button(
                "Up", key=f"cb_up_{col.id}_{case.id}", icon=":material/arrow_upward:",
                disabled=ro or n == 0, type="tertiary", on_click=_move, args=(*args, pos - 1),
            )  # fmt: skip
            st.button(
                "Down", key=f"cb_down_{col.id}_{case.id}", icon=":material/arrow_downward:",
                disabled=ro or pos >= last or n == len(live) - 1, type="tertiary",
                on_click=_move, args=(*args, pos + 1),
            )  # fmt: skip
            st.button(
                "Remove", key=f"cb_rm_{col.id}_{case.id}", icon=":material/close:",
                disabled=ro, type="tertiary", on_click=_remove, args=args,
            )  # fmt: skip


def _queues(store: CaseStore) -> None:
    """The triage queues stepped through last, each a link back to the item it stopped at."""
    queues = store.queues(limit=10)
    if not queues:
        return
    with st.expander(f":material/checklist: Triage queues ({len(queues)} most recent)"):
        for q in queues:
            pos = q.position + 1
            path = item_path(q.id, q.items[q.position], pos) if q.items else None
            text = f"{md_text(q.name, 80)} · {pos} of {q.size} · {md_text(q.origin, 120)}"
            st.markdown(f"[Resume]({path}) · {text}" if path else text)


def render(store: CaseStore) -> None:
    _queues(store)
    if not readonly():
        _create(store)
    cols = store.collections()
    if not cols:
        st.info(
            "No collections yet. Create one above, then add cases to it from the Cases tab; or "
            "select cases there and type a new collection's name."
        )
        return
    ids = [c.id for c in cols]
    want = CasebookKeys.COLLECTION.read()
    index = ids.index(want) if want in ids else 0
    # the options are ids, not Collection objects: a widget may hand back the object it stored
    # on an earlier run, whose order is stale once a row moved
    by_id = {c.id: c for c in cols}
    chosen = st.selectbox(
        "Collection",
        ids,
        index=index,
        format_func=lambda i: f"{by_id[i].name} ({len(by_id[i].case_ids)})",
    )
    col = by_id[chosen]
    if want is not None and want not in ids:  # a link to a collection gone (or mistyped)
        say_refused(
            CasebookKeys.COLLECTION.key, str(want), "Collection", col.name,
            "a collection of this casebook",
        )  # fmt: skip
    CasebookKeys.COLLECTION.write(col.id)
    if col.description:
        st.caption(md_text(col.description, 500))
    live = [c for c in (store.get(i) for i in col.case_ids) if c is not None and not c.deleted]
    bar = st.container(horizontal=True, vertical_alignment="center")
    if bar.button(
        "Present", key="cb_present", type="primary", disabled=not live,
        icon=":material/slideshow:",
    ):  # fmt: skip
        go_to(col.id, live, 1)
    with bar:
        triage_button(
            items_of_cases(live), col.name, f"collection: {col.name}", key="cb_triage",
            label=f"Triage this collection ({len(live)})",
        )  # fmt: skip
    if bar.button("Delete collection", key="cb_del_col", disabled=readonly()):
        store.delete_collection(col.id)
        CasebookKeys.COLLECTION.write(None)
        st.rerun()
    st.caption("Share the presentation (the ← → arrow keys step through it, Esc ends it):")
    share = view_href("casebook", present=col.id)
    st.code(absolute(share) or share, language=None)
    _order(store, col)
    st.subheader("Export this collection")
    export_buttons(
        live, f"casebook_{col.name}", key=f"cb_col_{col.id}", title=col.name, collection=col
    )
