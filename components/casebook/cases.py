"""The Cases tab: search and filter, open a case (`case_panel`), act on several at once
(`bulk`), export what is shown."""

from __future__ import annotations

import datetime as dt

import polars as pl
import streamlit as st

from cache.casebook.model import Case
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.casebook.bulk import add_to_collection as _add_to_collection
from components.casebook.bulk import bulk_bar
from components.casebook.case_panel import case_panel
from components.casebook.exports import export_buttons
from components.casebook.shared import (
    UNDO_KEY,
    case_title,
    dataset_label,
    dataset_labels,
    short_label,
)
from components.common.casebook import STEP_VERDICTS, VERDICTS, author, author_input, readonly
from components.common.formatting import DASH, counted
from components.common.guards import show_error
from components.common.safe_text import md_text
from components.common.selection import selected_rows
from components.common.url_keys import CasebookKeys
from components.common.url_state import (
    Param,
    parse_bool,
    safe_token,
    url_multiselect,
    url_selectbox,
    url_switch,
    url_text,
)

TABLE_KEY = "cb_table"
SORTS = {"updated": "last updated", "created": "created", "title": "title", "dataset": "dataset"}


ALL = "all"
# the filter bar's light controls (`url_selectbox`, `url_text`, `url_switch`)
DATASET = Param("ds", ALL)
VERDICT = Param("verdict", "any")
AUTHOR = Param("author", "anyone")
TEXT = Param("q", "", parse=safe_token(300))
SORT = Param("sort", "updated", choices=tuple(SORTS))
DESC = Param("desc", True, parse=parse_bool)
DELETED = Param("deleted", False, parse=parse_bool)


def _filters(store: CaseStore) -> dict[str, object]:
    """The filter bar. Every choice is a real option ("all", "any", "anyone" included), so a
    filter coming back from another tab shows its value, never an empty placeholder."""
    c1, c2, c3, c4 = st.columns([1.2, 2, 1.2, 1.2], vertical_alignment="bottom")
    with c1:
        dataset = url_selectbox(
            "Dataset",
            [ALL, *dataset_labels()],
            DATASET,
            fmt=lambda d: "all" if d == ALL else dataset_label(d),
        )
    with c2:
        tags = url_multiselect("Tags (all of)", store.all_tags(), "tag", placeholder="any tags")
    with c3:
        verdict = url_selectbox("Verdict", ["any", *VERDICTS, *STEP_VERDICTS], VERDICT)
    with c4:
        who = url_selectbox("Author", ["anyone", *store.authors()], AUTHOR)
    c5, c6 = st.columns([3, 1.3], vertical_alignment="bottom")
    with c5:
        text = url_text("Search title, note and tags", TEXT, max_chars=300)
    with c6:
        sort = url_selectbox("Sort by", list(SORTS), SORT, fmt=SORTS.__getitem__)
    with st.container(horizontal=True):
        desc = url_switch("Descending", DESC)
        deleted = url_switch("Show deleted cases", DELETED)
    return {
        "dataset": None if dataset in (None, ALL) else dataset,
        "tags": tags,
        "verdict": None if verdict in (None, "any") else verdict,
        "author": None if who in (None, "anyone") else who,
        "text": text or None,
        "sort": sort or "updated",
        "descending": bool(desc),
        "include_deleted": bool(deleted),
    }


def _frame(cases: list[Case], deleted: bool) -> pl.DataFrame:
    """The list: what tells cases apart (item, verdict, author, when), then the title and tags;
    whether a case is deleted only when deleted cases are listed (`deleted`)."""
    frame = pl.DataFrame(
        {
            # what tells cases apart first (on screen at 1024 px, the title's start too), then
            # the title and tags (the whole row on screen at 1440 px)
            "case": [short_label(c) for c in cases],
            "verdict": [c.verdict or "" for c in cases],
            "author": [c.author for c in cases],
            "updated": [dt.datetime.fromtimestamp(c.updated_at) for c in cases],
            "dataset": [dataset_label(c.dataset) for c in cases],
            "title": [case_title(c) for c in cases],
            "tags": [", ".join(c.tags) for c in cases],
            "deleted": [c.deleted for c in cases],
        },
        schema_overrides={"updated": pl.Datetime("ms")},
    )
    return frame if deleted else frame.drop("deleted")


def _undo_bar(store: CaseStore) -> None:
    undo = st.session_state.get(UNDO_KEY)
    if not undo:
        return
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    what = f"“{md_text(undo[0][1], 80)}”" if len(undo) == 1 else f"{len(undo)} cases"
    c1.info(f"Deleted {what}.", icon=":material/delete:")
    if c2.button("Undo", key="cb_undo_btn", disabled=readonly()):
        for case_id, _title in undo:
            store.restore(case_id)
        st.session_state.pop(UNDO_KEY, None)
        st.rerun()


def render(store: CaseStore) -> None:
    _undo_bar(store)
    toast = st.session_state.pop("cb_toast", None)
    if toast:
        st.toast(toast, icon=":material/check:")
    if not readonly() and not author():
        with st.columns([2, 3])[0]:
            author_input("cb_page")
    filters = _filters(store)
    cases = store.list_cases(**filters)  # type: ignore[arg-type]  # values from the widgets above
    if not cases:
        st.info(
            "No cases match. Capture one in any view with its **Add …** button: *Add question* "
            "or *Add trace* in MARS, *Add run* in the playground, *Add to casebook* on a Parason "
            "trajectory or a FineProofs trace. Or clear the filters above."
            if store.count() == 0 or any(filters[k] for k in ("dataset", "tags", "text"))
            else "No cases match these filters.",
            icon=":material/bookmark:",
        )
        return
    st.caption(
        f"{counted(len(cases), 'case')}. Select a row to open it; select several to tag, judge, collect, "
        "export or delete them together."
    )
    event = st.dataframe(
        _frame(cases, bool(filters["include_deleted"])),
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="multi-row",
        key=TABLE_KEY,
        height=min(420, 38 + 35 * len(cases)),
        column_config={
            # pixels: "small" cut the time off "updated", and the sum of the named widths ran
            # past a 1440-wide window, the tags out of sight
            "case": st.column_config.TextColumn(width=125),
            "title": st.column_config.TextColumn(width=270),
            "tags": st.column_config.TextColumn(width=150),
            "verdict": st.column_config.TextColumn(width=85),
            "author": st.column_config.TextColumn(width=90),
            "updated": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm", width=130),
            "dataset": st.column_config.TextColumn(width=85),
            "deleted": st.column_config.CheckboxColumn(width=70),
        },
        placeholder=DASH,
    )
    picked = [cases[r] for r in selected_rows(event) if r < len(cases)]
    if len(picked) == 1:
        CasebookKeys.CASE.write(picked[0].id)
    elif len(picked) > 1:
        bulk_bar(store, picked)
    chosen = CasebookKeys.CASE.read() if len(picked) <= 1 else None
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
            if not readonly() and not case.deleted:
                _add_to_collection(store, case)
    st.subheader("Export these cases")
    narrowed = any(filters[k] for k in ("dataset", "tags", "verdict", "author", "text"))
    # the files are named after what they hold: every case, or the filtered list
    export_buttons(cases, "casebook_filtered" if narrowed else "casebook_all", key="cb_filtered")
