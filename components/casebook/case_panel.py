"""One case opened in the Cases tab: its text and figures, its link, open/delete, and the edit
form that never loses an edit.

Why the form keeps its own state: the form and its fields are keyed by the case id only, and the
version the edit started from is remembered beside them. Someone else's save does not reset what
you typed; your save is compared against the version you started from, and a conflict shows both
versions with "Keep mine", "Keep theirs" and "Merge by hand".
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from cache.casebook.errors import EditConflict
from cache.casebook.links import absolute
from cache.casebook.model import Case, normalize_tags
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.casebook.shared import UNDO_KEY, case_href, case_title, item_missing, open_case
from components.casebook.shared import snapshot_table as _snapshot
from components.common.casebook import (
    STEP_VERDICTS,
    VERDICTS,
    case_html,
    readonly,
    tag_suggestions,
)
from components.common.click_text import text_block
from components.common.guards import show_error
from components.common.maths import maths_on
from components.common.safe_text import md_text
from components.common.url_keys import CasebookKeys


def _k(case_id: str, name: str) -> str:
    return f"cb_edit_{case_id}_{name}"


def _wk(case_id: str, name: str) -> str:
    """A field's widget key: it changes with each load of the form, so a load draws new
    widgets holding the loaded text as their value (a value put in the session state under a
    widget's key reaches the browser only in the run that sets it: a field drawn anew later,
    e.g. when the layout above the form moves, would come back empty)."""
    return f"cb_edit_{case_id}_{name}_g{st.session_state.get(_k(case_id, 'gen'), 0)}"


def _load_form(case_id: str, values: Case, base_version: int) -> None:
    """Put `values` into the edit form and remember the version the edit starts from."""
    s = st.session_state
    s[_k(case_id, "loaded")] = {
        "title": values.title,
        "tags": list(values.tags),
        "verdict": values.verdict,
        "note": values.note,
    }
    s[_k(case_id, "base")] = base_version
    s[_k(case_id, "gen")] = int(s.get(_k(case_id, "gen"), 0)) + 1


def _field(case_id: str, name: str) -> object:
    """What the form's field `name` holds now: the widget's value, else the loaded one."""
    s = st.session_state
    loaded = s.get(_k(case_id, "loaded")) or {}
    return s.get(_wk(case_id, name), loaded.get(name))


def _drop_form(case_id: str) -> None:
    for name in ("loaded", "base", "gen"):
        st.session_state.pop(_k(case_id, name), None)


def _conflict_key(case_id: str) -> str:
    return f"cb_conflict_{case_id}"


def _save(book: CaseStore, case: Case) -> None:
    """Form callback: save against the version the edit started from."""
    s = st.session_state
    base = int(s.get(_k(case.id, "base"), case.version))
    tags, verdict = _field(case.id, "tags"), _field(case.id, "verdict")
    edited = replace(
        case,
        title=str(_field(case.id, "title") or "").strip(),
        tags=normalize_tags(tags if isinstance(tags, list) else []),
        verdict=verdict if isinstance(verdict, str) else None,
        note=str(_field(case.id, "note") or ""),
        version=base,
    )
    try:
        saved = book.update(edited, expected_version=base)
    except EditConflict as exc:
        s[_conflict_key(case.id)] = (edited, exc.current)
        return
    except DataError as exc:
        s[f"cb_edit_error_{case.id}"] = exc
        return
    s.pop(f"cb_edit_error_{case.id}", None)
    s[_k(case.id, "base")] = saved.version
    s["cb_toast"] = "Saved."


def _keep_mine(book: CaseStore, case_id: str) -> None:
    s = st.session_state
    mine, theirs = s.pop(_conflict_key(case_id))
    try:
        saved = book.update(replace(mine, version=theirs.version), theirs.version)
    except EditConflict as exc:
        s[_conflict_key(case_id)] = (mine, exc.current)
        return
    _load_form(case_id, saved, saved.version)
    s["cb_toast"] = "Saved your version."


def _keep_theirs(case_id: str) -> None:
    _mine, theirs = st.session_state.pop(_conflict_key(case_id))
    _load_form(case_id, theirs, theirs.version)


def _merge_by_hand(case_id: str) -> None:
    mine, theirs = st.session_state.pop(_conflict_key(case_id))
    note = mine.note
    if theirs.note.strip() and theirs.note.strip() != mine.note.strip():
        note = (
            f"{mine.note}\n\n<!-- their version (v{theirs.version}, "
            f"{theirs.author or 'anonymous'}) -->\n\n{theirs.note}"
        )
    merged = replace(
        mine,
        title=mine.title or theirs.title,
        tags=normalize_tags([*mine.tags, *theirs.tags]),
        verdict=mine.verdict or theirs.verdict,
        note=note,
    )
    _load_form(case_id, merged, theirs.version)


def _conflict(book: CaseStore, case: Case) -> None:
    pair = st.session_state.get(_conflict_key(case.id))
    if not pair:
        return
    mine, theirs = pair
    st.error(
        "Someone saved this case while you were editing it. Nothing was overwritten: compare the "
        "two versions and choose.",
        icon=":material/merge:",
    )
    a, b = st.columns(2)
    with a, st.container(border=True, key=f"cb_mine_{case.id}"):
        st.markdown("**Yours (not saved)**")
        st.html(case_html(mine))
    with b, st.container(border=True, key=f"cb_theirs_{case.id}"):
        st.markdown(f"**Saved (version {theirs.version})**")
        st.html(case_html(theirs))
    with st.container(horizontal=True):
        st.button(
            "Keep mine", key=f"cb_keep_mine_{case.id}", type="primary", disabled=readonly(),
            on_click=_keep_mine, args=(book, case.id),
        )  # fmt: skip
        st.button("Keep theirs", key=f"cb_keep_theirs_{case.id}", on_click=_keep_theirs,
                  args=(case.id,))  # fmt: skip
        st.button("Merge by hand", key=f"cb_merge_{case.id}", on_click=_merge_by_hand,
                  args=(case.id,), help="Your text with theirs appended, to edit and save")  # fmt: skip


def _edit_form(book: CaseStore, case: Case) -> None:
    s = st.session_state
    if _k(case.id, "loaded") not in s or _k(case.id, "base") not in s:
        _load_form(case.id, case, case.version)  # first open, or the form was not on screen
    base = int(s[_k(case.id, "base")])
    loaded = s[_k(case.id, "loaded")]
    if case.version > base and not s.get(_conflict_key(case.id)):
        c1, c2 = st.columns([4, 1.4], vertical_alignment="center")
        c1.info(
            f"Someone saved version {case.version} after you opened this form; saving will "
            "show both versions.",
            icon=":material/update:",
        )
        c2.button(
            "Start from theirs", key=f"cb_reload_{case.id}", on_click=_load_form,
            args=(case.id, case, case.version),
        )  # fmt: skip
    with st.form(f"cb_edit_{case.id}", border=True, enter_to_submit=False):
        st.text_input("Title", value=loaded["title"], key=_wk(case.id, "title"), max_chars=300)
        tags = list(loaded["tags"] or [])
        options = list(dict.fromkeys([*tags, *tag_suggestions(case.dataset)]))
        st.multiselect(
            "Tags", options, default=tags, key=_wk(case.id, "tags"), accept_new_options=True
        )
        verdicts = [None, *VERDICTS, *STEP_VERDICTS]
        current = loaded["verdict"]
        if current and current not in verdicts:
            verdicts.append(current)
        st.selectbox(
            "Verdict", verdicts, index=verdicts.index(current) if current in verdicts else 0,
            key=_wk(case.id, "verdict"), format_func=lambda v: "—" if v is None else v,
        )  # fmt: skip
        st.text_area("Note (Markdown)", value=loaded["note"], key=_wk(case.id, "note"), height=180)
        st.form_submit_button(
            "Save changes", type="primary", disabled=readonly(), on_click=_save, args=(book, case)
        )
    err = s.get(f"cb_edit_error_{case.id}")
    if isinstance(err, DataError):
        show_error(err, key=f"cb_edit_{case.id}")


def _delete(book: CaseStore, cases: list[Case]) -> None:
    for c in cases:
        book.delete(c.id)
    st.session_state[UNDO_KEY] = [(c.id, case_title(c)) for c in cases]
    CasebookKeys.CASE.write(None)


def _link(case: Case) -> None:
    path = case_href(case)
    if path is None:
        st.caption(
            f"Captured in a view this version does not have: {md_text(case.view, 120)} (no link)."
        )
        return
    st.caption("Link to this case's view (copy button on the right):")
    st.code(absolute(path) or path, language=None, wrap_lines=True)


def case_panel(book: CaseStore, case: Case) -> None:
    """One case opened: its text, its figures, and what can be done with it."""
    with st.container(border=True, key="cb_case_panel"):
        text_block(case_html(case, maths=maths_on()), key="case_panel_text")
        _link(case)
        _snapshot(case)
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
                open_case(case, focus="true")  # the view brings the case's item into sight
        if case.deleted:
            if b2.button("Restore", key=f"cb_restore_{case.id}", disabled=readonly()):
                book.restore(case.id)
                st.rerun()
        elif b2.button("Delete", key=f"cb_delete_{case.id}", disabled=readonly()):
            _delete(book, [case])
            st.rerun()
        b3.caption(f"version {case.version}")
        _conflict(book, case)
        if not readonly() and not case.deleted:
            # keyed: the conflict block above it comes and goes without closing the form
            with st.expander("Edit", key=f"cb_edit_open_{case.id}"):
                _edit_form(book, case)


def delete_cases(book: CaseStore, cases: list[Case]) -> None:
    """Soft-delete `cases` with one undo."""
    _delete(book, cases)


# what the triage bar (components.casebook.triage_bar) shares with the Edit form: the same form
# state per case, and the same conflict block with "Keep mine", "Keep theirs", "Merge by hand"
form_key = _k
field_key = _wk
load_form = _load_form
conflict_key = _conflict_key
conflict_block = _conflict
