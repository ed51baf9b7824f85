"""Capture from any view: the "Add to casebook" control, the cases already on an item, badges.

Every view calls `capture(...)` next to the item it concerns and `cases_here(...)` where the item
is open; tables and grids ask `case_counts(dataset, key)` for their badges. The case stores the
view's deep link (its URL query as it is now), the source, the item keys and a small snapshot of
key figures, so the casebook stays informative when the source is gone. The store is
`cache.casebook` (SQLite by default, PostgreSQL with RTE_DB_URL); with
`RTE_CASEBOOK=readonly` every write control is disabled.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import streamlit as st

from cache.casebook.evidence import EVIDENCE_KEY, clean_evidence
from cache.casebook.model import Case, default_title, make_case
from cache.casebook.store import CaseStore, default_url, open_store
from cache.datasets import view_info
from cache.errors import DataError
from cache.sources import SourceConfig
from components.common.browser import cookie_author, focus_evidence
from components.common.click_text import text_block
from components.common.formatting import counted
from components.common.guards import show_error
from components.common.links import view_href
from components.common.maths import maths_on
from components.common.safe_text import esc, md_html, md_text
from components.common.theme import CASE_ACCENT, CASE_META_FG, CASE_TAG_BG
from components.common.url_state import Param, parse_bool, query_pairs

AUTHOR_KEY = "casebook_author"


def tag_suggestions(dataset: str) -> tuple[str, ...]:
    """Free-text tags offered first for a case of `dataset` (the view's `tags`, `cache.datasets`)."""
    view = view_info(dataset)
    return view.tags if view is not None else ()


# verdict labels; FineProofs step verdicts become the `label` of the PRM export
VERDICTS: tuple[str, ...] = ("confirmed", "suspect", "false alarm", "needs review")
STEP_VERDICTS: tuple[str, ...] = ("correct step", "first error", "wrong step", "unclear")


def readonly() -> bool:
    """`RTE_CASEBOOK=readonly`: cases and present mode only, every write control disabled."""
    return os.environ.get("RTE_CASEBOOK", "").strip().lower() == "readonly"


@st.cache_resource(show_spinner=False, max_entries=4)
def _open(url: str, read_only: bool) -> CaseStore:
    return open_store(url, readonly=read_only)


def store() -> CaseStore:
    """The casebook store of this server (shared by every session; the engine pools its
    connections). Raises a DataError when the database cannot be opened."""
    return _open(default_url(), readonly())


def reset_store() -> None:
    """Forget the open store (after a database error, so the next run reconnects)."""
    _open.clear()


def logged_in_name() -> str | None:
    """The name of the logged-in user when Streamlit authentication is configured."""
    try:
        user = st.user
        if getattr(user, "is_logged_in", False):
            return str(user.get("name") or user.get("email") or "") or None
    except Exception:  # noqa: BLE001 - no auth configured: st.user raises or is empty
        return None
    return None


def author() -> str:
    """Who writes: the logged-in user, else the name this browser remembers (set once, kept in a
    cookie across reloads and typed URLs)."""
    name = logged_in_name()
    if name:
        return name
    if AUTHOR_KEY not in st.session_state:
        st.session_state[AUTHOR_KEY] = cookie_author()
    return str(st.session_state.get(AUTHOR_KEY, "")).strip()


EVIDENCE_PREFIX = "rte_evidence"


def evidence(name: str) -> Any:
    """The container of a view's captured item (a trace chart, a node, a step, a replay): while
    presenting, it is scrolled into sight below the banner and outlined."""
    return st.container(key=f"{EVIDENCE_PREFIX}_{name}")


FOCUS = Param("focus", False, parse=parse_bool)  # a case's "Open the view": bring its item in


def focus_linked_item() -> None:
    """A case opened from the casebook (`?focus=true`) scrolls its view to the captured item,
    as present mode does (the banner and the triage bar do that themselves)."""
    if FOCUS.read() and not presenting() and not st.query_params.get("triage"):
        focus_evidence(EVIDENCE_PREFIX, nonce="case", key="case_focus")


def presenting() -> bool:
    """A presentation is running (`?present=`): capture and editing controls stay hidden."""
    return bool(st.query_params.get("present"))


def author_input(key: str, in_form: bool = False) -> None:
    """Ask for a name once per session (not shown when a user is logged in). Inside a form the
    name is taken when the form is submitted (forms allow no change callbacks)."""
    if logged_in_name():
        st.caption(f"Author: {md_text(logged_in_name())}")
        return
    st.text_input(
        "Your name (this browser remembers it)",
        key=f"{key}_author",
        value=author(),
        on_change=None if in_form else _remember_author,
        args=None if in_form else (f"{key}_author",),
        max_chars=200,
    )


def remember_author(widget_key: str) -> None:
    """Change callback of a name field: the name is this session's author (and its cookie's)."""
    _remember_author(widget_key)


def _remember_author(widget_key: str) -> None:
    name = str(st.session_state.get(widget_key, "")).strip()
    if name:
        st.session_state[AUTHOR_KEY] = name


def source_identity(source: SourceConfig, file: str | None) -> dict[str, str]:
    return {
        "kind": source.kind,
        "repo_id": source.repo_id if source.kind == "hub" else "",
        "revision": source.revision if source.kind == "hub" else "",
        "local_path": source.local_path if source.kind == "local" else "",
        "file": file or "",
    }


def _plain(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """JSON-able key figures: numbers, strings, booleans; NaN/inf become None. The evidence
    picture (`cache.casebook.evidence`) is kept as its cleaned, bounded structure."""
    out: dict[str, Any] = {}
    for k, v in snapshot.items():
        if str(k) == EVIDENCE_KEY:
            ev = clean_evidence(v)
            if ev is not None:
                out[EVIDENCE_KEY] = ev
            continue
        if v is None or isinstance(v, bool | str):
            out[str(k)] = v
        elif isinstance(v, int | float):
            f = float(v)
            out[str(k)] = None if f != f or f in (float("inf"), float("-inf")) else v
        elif hasattr(v, "item"):  # numpy scalars
            out.update(_plain({str(k): v.item()}))
        else:
            out[str(k)] = str(v)
    return out


def _save(
    key: str,
    dataset: str,
    view: str,
    item: dict[str, str],
    snapshot: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
    source: dict[str, str],
    query: list[tuple[str, str]],
) -> None:
    """Form callback: store the case; on failure keep the form's values and say why."""
    s = st.session_state
    _remember_author(f"{key}_author")
    title = str(s.get(f"{key}_title", "")).strip()
    s.pop(f"{key}_dup", None)
    if not author():
        s[f"{key}_error"] = MissingAuthor()
        return
    try:
        # a lazy snapshot is made here, once the case is about to be stored: a file that went
        # away meanwhile is the form's message, like any other failure to save
        figures = _plain(snapshot() if callable(snapshot) else snapshot)
        case = make_case(
            dataset,
            view,
            query=query,
            source=source,
            item=item,
            title=title or default_title(dataset, item),
            tags=list(s.get(f"{key}_tags", [])),
            verdict=s.get(f"{key}_verdict") or None,
            note=str(s.get(f"{key}_note", "")),
            author=author(),
            snapshot=figures,
        )
        twin = _identical(case)
        if twin is not None:
            s[f"{key}_dup"] = twin.id
            s.pop(f"{key}_error", None)
            return
        store().add(case)
    except DataError as exc:
        s[f"{key}_error"] = exc
        return
    s.pop(f"{key}_error", None)
    s[f"{key}_saved"] = case.title
    s[f"{key}_done"] = (case.id, case.title)  # the control confirms instead of showing the form
    for field in ("title", "tags", "verdict", "note"):
        s.pop(f"{key}_{field}", None)


class MissingAuthor(DataError):
    title = "Who is writing?"

    def __init__(self) -> None:
        super().__init__(
            "a case needs an author, and this browser has no name yet",
            "type your name in the form and save again",
        )


def _identical(case: Case) -> Case | None:
    """A live case on the same item with the same title, tags, verdict and note."""
    for c in store().cases_for_item(case.dataset, **case.item):
        if c.item == case.item and (c.title, c.tags, c.verdict, c.note) == (
            case.title, case.tags, case.verdict, case.note,
        ):  # fmt: skip
            return c
    return None


def capture(
    dataset: str,
    view: str,
    item: Mapping[str, object],
    *,
    title: str,
    snapshot: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
    source: SourceConfig,
    file: str | None,
    key: str,
    label: str = "Add to casebook",
    verdicts: tuple[str, ...] = VERDICTS,
) -> None:
    """The "Add to casebook" control for one item: a popover with title, tags, verdict, note.
    `snapshot` may be a function: it is then made only when the case is saved (an evidence
    picture costs a view's every run otherwise)."""
    if presenting():
        return
    item_s = {str(k): str(v) for k, v in item.items() if v is not None}
    key = f"cb_{key}"
    disabled = readonly()
    with st.popover(
        f":material/bookmark_add: {label}",
        disabled=disabled,
        help="Read-only casebook (RTE_CASEBOOK=readonly)" if disabled else None,
    ):
        st.markdown(f"**{md_text(default_title(dataset, item_s), 120)}**")
        done = st.session_state.get(f"{key}_done")
        if not done:
            _existing_note(dataset, item_s)
        if done:
            _confirmation(key, done)
        else:
            _capture_form(
                key, dataset, item_s, title, verdicts,
                args=(key, dataset, view, item_s, snapshot,
                      source_identity(source, file), query_pairs()),
            )  # fmt: skip
    saved = st.session_state.pop(f"{key}_saved", None)
    if saved:
        st.toast(f"Saved to the casebook: {md_text(saved, 80)}", icon=":material/bookmark:")


def _existing_note(dataset: str, item: dict[str, str]) -> None:
    """Above the form: the cases this very item has already, each linked, so a second capture is
    a choice (a walk saved a second label on a labelled step without knowing)."""
    try:
        cases = [c for c in store().cases_for_item(dataset, **item) if c.item == item]
    except DataError:
        return  # the form's save says what is wrong with the casebook
    if not cases:
        return
    links = ", ".join(
        f"[{md_text(c.title or default_title(c.dataset, c.item), 60)}]"
        f"({view_href('casebook', case=c.id)}) by {md_text(c.author or 'anonymous', 40)}"
        for c in cases[-3:]
    )
    more = f" and {len(cases) - 3} more" if len(cases) > 3 else ""
    st.caption(
        f":material/bookmark: This item has {counted(len(cases), 'case')} already: {links}{more}. "
        "Saving here adds another; to change one, open it in the casebook.",
        width=FORM_PX,  # as wide as the form below: the popover keeps its size
    )


def _confirmation(key: str, done: tuple[str, str]) -> None:
    """What the control shows once its case is saved: no form left to save a second time."""
    case_id, saved_title = done
    st.success(
        f"Saved “{md_text(saved_title, 80)}” to the casebook. "
        f"[Open it in the casebook]({view_href('casebook', case=case_id)})",
        icon=":material/bookmark_added:",
    )
    st.button(
        "Capture another case here",
        key=f"{key}_again",
        on_click=lambda: st.session_state.pop(f"{key}_done", None),
    )


FORM_PX = 460


def _capture_form(
    key: str,
    dataset: str,
    item_s: dict[str, str],
    title: str,
    verdicts: tuple[str, ...],
    args: tuple[object, ...],
) -> None:
    # a form: typing reruns nothing (a rerun could close the popover); Save submits it all
    # wide enough for a suggested title, low enough that Save shows on a 768 px high screen
    with st.form(f"{key}_form", border=False, enter_to_submit=False, width=FORM_PX):
        # seeded once, not passed as `value`: a suggested title that changes between runs
        # (data still loading) must not reset what the user typed
        st.session_state.setdefault(f"{key}_title", title)
        st.text_input("Title", key=f"{key}_title", max_chars=300)
        tags, verdict = st.columns([3, 2])
        tags.multiselect(
            "Tags",
            list(tag_suggestions(dataset)),
            key=f"{key}_tags",
            accept_new_options=True,
            placeholder="Pick or type tags",
        )
        verdict.selectbox(
            "Verdict", [None, *verdicts], format_func=lambda v: "—" if v is None else v,
            key=f"{key}_verdict",
        )  # fmt: skip
        st.text_area(
            "Note (Markdown)", key=f"{key}_note", height=100, placeholder="What did you find?"
        )
        author_input(key, in_form=True)
        st.form_submit_button(
            "Save case", key=f"{key}_save", type="primary", on_click=_save, args=args
        )
    err = st.session_state.get(f"{key}_error")
    if isinstance(err, DataError):
        show_error(err)
        st.caption("Your text is still in the form: save again when the problem is fixed.")
    twin = st.session_state.get(f"{key}_dup")
    if twin:
        st.warning(
            "An identical case is already on this item, so nothing was saved. "
            f"[Open it in the casebook]({view_href('casebook', case=twin)}), or change the "
            "title or note to save another one.",
            icon=":material/content_copy:",
        )


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def case_html(case: Case, link: str | None = None, maths: bool = False) -> str:
    """One case as escaped HTML: title, verdict, tags, author and time, the rendered note (its
    maths wrapped for typesetting with `maths`)."""
    tags = "".join(
        f"<span style='background:{CASE_TAG_BG};border-radius:10px;padding:0 7px;margin-right:4px;"
        f"font-size:0.8rem'>{esc(t)}</span>"
        for t in case.tags
    )
    verdict = (
        f" <span style='font-size:0.8rem;color:{CASE_META_FG}'>· {esc(case.verdict)}</span>"
        if case.verdict
        else ""
    )
    title = esc(case.title or default_title(case.dataset, case.item))
    if link:
        title = f"<a href='{esc(link)}' target='_self'>{title}</a>"
    meta = f"{esc(case.author or 'anonymous')} · {esc(_when(case.updated_at))}"
    note = md_html(case.note, maths=maths) if case.note else ""
    return (
        f"<div style='border-left:3px solid {CASE_ACCENT};padding:2px 10px;margin:6px 0'>"
        f"<div><b>{title}</b>{verdict}</div><div>{tags}</div>"
        f"<div style='font-size:0.78rem;color:{CASE_META_FG}'>{meta}</div>"
        f"<div style='font-size:0.9rem;overflow-wrap:anywhere'>{note}</div></div>"
    )


def cases_here(dataset: str, item: Mapping[str, object], *, key: str) -> None:
    """The cases already on this item, inline (nothing when there are none or while
    presenting)."""
    if presenting():
        return
    item_s = {str(k): str(v) for k, v in item.items() if v is not None}
    try:
        cases = store().cases_for_item(dataset, **item_s)
    except DataError as exc:
        show_error(exc, key=f"cases_here_{key}")
        return
    if not cases:
        return
    with st.expander(
        f":material/bookmark: {counted(len(cases), 'case')} on this item", expanded=False
    ):
        maths = maths_on()
        text_block(
            "".join(case_html(c, view_href("casebook", case=c.id), maths) for c in cases),
            key=f"cases_here_text_{key}",
        )


def case_counts(dataset: str, key: str) -> dict[str, int]:
    """item value -> number of cases (for badges). When the casebook cannot be read, a caption
    says so and the view goes on without badges."""
    try:
        return store().items_with_cases(dataset, key)
    except DataError as exc:
        st.caption(f"Casebook badges are hidden: {md_text(exc.message, 160)}")
        return {}


def count_by_key(cases: Iterable[Case], key: str, **match: str) -> dict[int, int]:
    """int(item[key]) -> number of cases whose item also holds every `match` value (e.g. the
    questions of one MARS file: `count_by_key(cases, "qid", file=rel)`)."""
    counts: Counter[int] = Counter()
    for c in cases:
        if any(c.item.get(k) != v for k, v in match.items()):
            continue
        try:
            counts[int(c.item.get(key, ""))] += 1
        except ValueError:
            continue
    return dict(counts)


def qid_counts(dataset: str, rel: str, what: str = "marks") -> dict[int, int]:
    """qid -> number of `dataset` cases on that question of the file `rel`. When the casebook
    cannot be read, a caption says so and the view goes on without its marks."""
    try:
        cases = store().cases_for_item(dataset, file=rel)
    except DataError as exc:
        st.caption(f"Casebook {what} are hidden: {md_text(exc.message, 160)}")
        return {}
    return count_by_key(cases, "qid", file=rel)
