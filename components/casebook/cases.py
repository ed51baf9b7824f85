"""The Cases tab: search and filter, open a case's view, edit it, delete it with undo, add it to a
collection, export what is shown."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import polars as pl
import streamlit as st

from cache.casebook.errors import EditConflict
from cache.casebook.model import Case, deep_link, normalize_tags
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.casebook.exports import export_buttons
from components.casebook.shared import (
    DATASET_LABELS,
    UNDO_KEY,
    case_title,
    item_missing,
    open_case,
    snapshot_table,
)
from components.common.casebook import (
    STEP_VERDICTS,
    TAG_SUGGESTIONS,
    VERDICTS,
    author,
    author_input,
    case_html,
    readonly,
)
from components.common.guards import show_error
from components.common.safe_text import md_text
from components.common.selection import selected_rows
from components.common.url_keys import CasebookKeys
from components.common.url_state import bound

TABLE_KEY = "cb_table"
SORTS = {"updated": "last updated", "created": "created", "title": "title", "dataset": "dataset"}


def _filters(store: CaseStore) -> dict[str, object]:
    c1, c2, c3, c4 = st.columns([1.2, 2, 1.2, 1.2])
    dataset = c1.selectbox(
        "Dataset",
        [None, *DATASET_LABELS],
        format_func=lambda d: "all" if d is None else DATASET_LABELS[d],
        **bound("ds"),
    )
    tags = c2.multiselect("Tags (all of)", store.all_tags(), **bound("tag"))
    verdict = c3.selectbox(
        "Verdict", [None, *VERDICTS, *STEP_VERDICTS], format_func=lambda v: v or "any",
        **bound("verdict"),
    )  # fmt: skip
    authors = store.authors()
    who = c4.selectbox(
        "Author", [None, *authors], format_func=lambda a: a or "anyone", **bound("author")
    )
    c5, c6 = st.columns([3, 1.3], vertical_alignment="bottom")
    text = c5.text_input("Search title, note and tags", **bound("q"))
    sort = c6.selectbox("Sort by", list(SORTS), format_func=SORTS.__getitem__, **bound("sort"))
    with st.container(horizontal=True):
        desc = st.toggle("Descending", value=True, **bound("desc"))
        deleted = st.toggle("Show deleted cases", value=False, **bound("deleted"))
    return {
        "dataset": dataset,
        "tags": tags,
        "verdict": verdict,
        "author": who,
        "text": text or None,
        "sort": sort or "updated",
        "descending": bool(desc),
        "include_deleted": bool(deleted),
    }


def _frame(cases: list[Case]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "title": [case_title(c) for c in cases],
            "dataset": [DATASET_LABELS.get(c.dataset, c.dataset) for c in cases],
            "item": [" · ".join(f"{k} {v}" for k, v in c.item.items()) for c in cases],
            "tags": [", ".join(c.tags) for c in cases],
            "verdict": [c.verdict or "" for c in cases],
            "author": [c.author for c in cases],
            "updated": [dt.datetime.fromtimestamp(c.updated_at) for c in cases],
            "deleted": [c.deleted for c in cases],
        },
        schema_overrides={"updated": pl.Datetime("ms")},
    )


def _undo_bar(store: CaseStore) -> None:
    undo = st.session_state.get(UNDO_KEY)
    if not undo:
        return
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.info(f"Deleted “{md_text(undo[1], 80)}”.", icon=":material/delete:")
    if c2.button("Undo", key="cb_undo_btn", disabled=readonly()):
        store.restore(undo[0])
        st.session_state.pop(UNDO_KEY, None)
        st.rerun()


def _delete(store: CaseStore, case: Case) -> None:
    store.delete(case.id)
    st.session_state[UNDO_KEY] = (case.id, case_title(case))
    CasebookKeys.CASE.write(None)


def _edit_form(store: CaseStore, case: Case) -> None:
    """Edit with the version it started from; a conflicting save shows both versions."""
    key = f"cb_edit_{case.id}_{case.version}"
    with st.form(key, border=True):
        title = st.text_input("Title", value=case.title, max_chars=300)
        options = list(dict.fromkeys([*case.tags, *TAG_SUGGESTIONS.get(case.dataset, ())]))
        tags = st.multiselect("Tags", options, default=list(case.tags), accept_new_options=True)
        verdicts = [None, *VERDICTS, *STEP_VERDICTS]
        if case.verdict and case.verdict not in verdicts:
            verdicts.append(case.verdict)
        verdict = st.selectbox(
            "Verdict", verdicts, index=verdicts.index(case.verdict),
            format_func=lambda v: "—" if v is None else v,
        )  # fmt: skip
        note = st.text_area("Note (Markdown)", value=case.note, height=180)
        saved = st.form_submit_button("Save changes", type="primary", disabled=readonly())
    if not saved:
        return
    edited = replace(
        case, title=title.strip(), tags=normalize_tags(tags), verdict=verdict, note=note
    )
    try:
        store.update(edited, expected_version=case.version)
    except EditConflict as exc:
        st.session_state[f"cb_conflict_{case.id}"] = (edited, exc.current)
        return
    st.session_state.pop(f"cb_conflict_{case.id}", None)
    st.toast("Saved.", icon=":material/check:")
    st.rerun()


def _conflict(store: CaseStore, case: Case) -> None:
    pair = st.session_state.get(f"cb_conflict_{case.id}")
    if not pair:
        return
    mine, theirs = pair
    st.error(
        "Someone saved this case while you were editing it. Nothing was overwritten: compare the "
        "two versions and choose.",
        icon=":material/merge:",
    )
    a, b = st.columns(2)
    a.markdown("**Yours (not saved)**")
    a.html(case_html(mine))
    b.markdown(f"**Saved (version {theirs.version}, by {md_text(theirs.author or 'anonymous')})**")
    b.html(case_html(theirs))
    c1, c2 = st.columns(2)
    if c1.button("Keep mine", key=f"cb_keep_mine_{case.id}", disabled=readonly()):
        store.update(mine, expected_version=theirs.version)
        st.session_state.pop(f"cb_conflict_{case.id}", None)
        st.rerun()
    if c2.button("Keep the saved one", key=f"cb_keep_theirs_{case.id}"):
        st.session_state.pop(f"cb_conflict_{case.id}", None)
        st.rerun()


def _add_to_collection(store: CaseStore, case: Case) -> None:
    cols = store.collections()
    if not cols:
        st.caption("No collections yet: create one in the Collections tab.")
        return
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    pick = c1.selectbox(
        "Add to collection", cols, format_func=lambda c: c.name, key=f"cb_addcol_{case.id}"
    )
    if c2.button("Add", key=f"cb_addcol_btn_{case.id}", disabled=readonly()):
        if case.id in pick.case_ids:
            st.toast(f"Already in “{md_text(pick.name)}”.")
        else:
            store.add_to_collection(pick.id, case.id)
            st.toast(f"Added to “{md_text(pick.name)}”.", icon=":material/playlist_add:")


def case_panel(store: CaseStore, case: Case) -> None:
    """One case opened: its text, its figures, and what can be done with it."""
    with st.container(border=True):
        st.html(case_html(case))
        st.caption(f"Deep link: `{md_text(deep_link(case), 300)}`")
        snapshot_table(case)
        b1, b2, b3 = st.columns(3)
        if b1.button("Open the view", key=f"cb_open_{case.id}", type="primary"):
            problem = item_missing(case)
            if problem:
                st.warning(
                    f"This case cannot be reopened as it was: {md_text(problem, 300)}. "
                    "Its figures at capture time are shown above; check the source in the "
                    "sidebar or the stored source below.",
                    icon=":material/link_off:",
                )
                st.json(case.source)
            else:
                open_case(case)
        if case.deleted:
            if b2.button("Restore", key=f"cb_restore_{case.id}", disabled=readonly()):
                store.restore(case.id)
                st.rerun()
        elif b2.button("Delete", key=f"cb_delete_{case.id}", disabled=readonly()):
            _delete(store, case)
            st.rerun()
        b3.caption(f"version {case.version}")
        _conflict(store, case)
        if not readonly() and not case.deleted:
            with st.expander("Edit"):
                _edit_form(store, case)
            _add_to_collection(store, case)


def render(store: CaseStore) -> None:
    _undo_bar(store)
    if not readonly() and not author():
        with st.columns([2, 3])[0]:
            author_input("cb_page")
    filters = _filters(store)
    cases = store.list_cases(**filters)  # type: ignore[arg-type]  # values from the widgets above
    if not cases:
        st.info(
            "No cases match. Capture one with “Add to casebook” in any view, or clear the "
            "filters above."
            if store.count() == 0 or any(filters[k] for k in ("dataset", "tags", "text"))
            else "No cases match these filters.",
            icon=":material/bookmark:",
        )
        return
    st.caption(f"{len(cases)} case(s). Select a row to open it.")
    event = st.dataframe(
        _frame(cases),
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=TABLE_KEY,
        height=min(420, 38 + 35 * len(cases)),
        column_config={
            "title": st.column_config.TextColumn(width="medium"),
            "item": st.column_config.TextColumn(width="medium"),
            "tags": st.column_config.TextColumn(width="medium"),
            "dataset": st.column_config.TextColumn(width="small"),
            "verdict": st.column_config.TextColumn(width="small"),
            "author": st.column_config.TextColumn(width="small"),
            "updated": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm", width="small"),
            "deleted": st.column_config.CheckboxColumn(width="small"),
        },
    )
    rows = selected_rows(event)
    if rows and rows[0] < len(cases):
        CasebookKeys.CASE.write(cases[rows[0]].id)
    chosen = CasebookKeys.CASE.read()
    if chosen:
        try:
            case = store.get(chosen)
        except DataError as exc:
            show_error(exc, key="cb_case")
            case = None
        if case is None:
            st.warning("That case does not exist (any more).")
        else:
            case_panel(store, case)
    st.subheader("Export these cases")
    export_buttons(cases, "casebook_filtered", key="cb_filtered")
