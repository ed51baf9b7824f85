"""Acting on several cases at once from the Cases list: tag, set a verdict, add to a collection,
export, delete (with one undo); and adding one opened case to a collection."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from cache.casebook.errors import EditConflict
from cache.casebook.model import Case, normalize_tags
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.casebook.case_panel import delete_cases
from components.casebook.exports import export_buttons
from components.common.casebook import STEP_VERDICTS, VERDICTS, readonly, tag_suggestions
from components.common.formatting import counted
from components.common.guards import show_error
from components.common.safe_text import md_text


def _apply(book: CaseStore, cases: list[Case], change: dict[str, object]) -> tuple[int, int]:
    """Save `change` on each case against the version listed; (saved, conflicts)."""
    saved = conflicts = 0
    for c in cases:
        try:
            book.update(replace(c, **change), expected_version=c.version)  # type: ignore[arg-type]  # field values checked by validate_case
            saved += 1
        except EditConflict:
            conflicts += 1
    return saved, conflicts


def _report(saved: int, conflicts: int, what: str) -> None:
    msg = f"{what} on {counted(saved, 'case')}."
    if conflicts:
        msg += f" {conflicts} changed meanwhile and were left as they are: open them to retry."
    st.session_state["cb_toast"] = msg


def _tag(book: CaseStore, cases: list[Case]) -> None:
    tags = normalize_tags(st.session_state.get("cb_bulk_tags") or [])
    if not tags:
        return
    per_case = [(c, normalize_tags([*c.tags, *tags])) for c in cases]
    saved = conflicts = 0
    for c, merged in per_case:
        s, k = _apply(book, [c], {"tags": merged})
        saved, conflicts = saved + s, conflicts + k
    _report(saved, conflicts, f"Tagged {md_text(', '.join(tags), 200)}")
    st.session_state["cb_bulk_tags"] = []


def _verdict(book: CaseStore, cases: list[Case]) -> None:
    verdict = st.session_state.get("cb_bulk_verdict")
    if not verdict:
        return
    _report(*_apply(book, cases, {"verdict": verdict}), f"Verdict “{verdict}”")


NAME_MAX = 200  # a collection's name, as the Collections tab takes it


def _collect(book: CaseStore, cases: list[Case]) -> None:
    """Add the cases to the collection picked, or to a new one by the name typed (an existing
    collection's name typed in full is that collection)."""
    picked = str(st.session_state.get("cb_bulk_col") or "").strip()
    if not picked:
        st.session_state["cb_toast"] = "Pick a collection, or type a new one's name, first."
        return
    if len(picked) > NAME_MAX:
        st.session_state["cb_toast"] = (
            f"A collection's name is at most {NAME_MAX} characters; this one has {len(picked)}."
        )
        return
    try:
        col = book.find_collection(picked) or book.create_collection(picked, "")
        for c in cases:
            book.add_to_collection(col.id, c.id)
    except DataError as exc:  # a name taken meanwhile, characters a name cannot hold
        st.session_state["cb_toast"] = f"Not added: {md_text(exc.message, 200)}"
        return
    st.session_state["cb_toast"] = (
        f"Added {counted(len(cases), 'case')} to “{md_text(col.name, 200)}”."
    )


def bulk_bar(book: CaseStore, cases: list[Case]) -> None:
    """What can be done to the selected cases."""
    ro = readonly()
    datasets = {c.dataset for c in cases}
    suggestions = [t for d in sorted(datasets) for t in tag_suggestions(d)]
    with st.container(border=True, key="cb_bulk"):
        st.markdown(f"**{len(cases)} cases selected**")
        c1, c2, c3 = st.columns(3, vertical_alignment="bottom")
        c1.multiselect(
            "Add tags", list(dict.fromkeys([*book.all_tags(), *suggestions])),
            key="cb_bulk_tags", accept_new_options=True, disabled=ro,
        )  # fmt: skip
        c1.button("Tag them", key="cb_bulk_tag_btn", on_click=_tag, args=(book, cases),
                  disabled=ro)  # fmt: skip
        c2.selectbox("Verdict", [None, *VERDICTS, *STEP_VERDICTS], key="cb_bulk_verdict",
                     format_func=lambda v: "—" if v is None else v, disabled=ro)  # fmt: skip
        c2.button("Set verdict", key="cb_bulk_verdict_btn", on_click=_verdict,
                  args=(book, cases), disabled=ro)  # fmt: skip
        names = {c.id: c.name for c in book.collections()}
        c3.selectbox(
            "Collection", list(names), key="cb_bulk_col", index=None, accept_new_options=True,
            format_func=lambda v: names.get(v, v),  # a typed name: a new collection
            placeholder="Pick one, or type a new name", disabled=ro,
        )  # fmt: skip
        c3.button("Add to collection", key="cb_bulk_col_btn", on_click=_collect,
                  args=(book, cases), disabled=ro)  # fmt: skip
        export_buttons(cases, f"casebook_{len(cases)}_selected", key="cb_bulk_export")
        if st.button(f"Delete {len(cases)} cases", key="cb_bulk_delete", disabled=ro,
                     icon=":material/delete:"):  # fmt: skip
            try:
                delete_cases(book, cases)
            except DataError as exc:
                show_error(exc, key="cb_bulk_delete")
                return
            st.rerun()


def add_to_collection(book: CaseStore, case: Case) -> None:
    cols = book.collections()
    if not cols:
        st.caption("No collections yet: create one in the Collections tab.")
        return
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    by_id = {c.id: c for c in cols}
    chosen = c1.selectbox(
        "Add to collection", list(by_id), format_func=lambda i: by_id[i].name,
        key=f"cb_addcol_{case.id}",
    )  # fmt: skip
    pick = by_id.get(chosen, cols[0])
    if c2.button("Add", key=f"cb_addcol_btn_{case.id}", disabled=readonly()):
        if case.id in pick.case_ids:
            st.toast(f"Already in “{md_text(pick.name)}”.")
        else:
            book.add_to_collection(pick.id, case.id)
            st.toast(f"Added to “{md_text(pick.name)}”.", icon=":material/playlist_add:")
