"""The triage bar: a queue's item on screen under a bar that says where we are ("2 of 40", the
item's label, which items already have cases) and captures a case in a few keys: `j`/`k` step,
`1`-`9` toggle the dataset's tag suggestions, `v` cycles the verdict, `n` focuses the note,
Enter saves and moves on (`triage_keys.js` clicks the bar's own buttons).

Every save writes through the casebook: a new case on an item without one, else an edit of the
item's case against the version the bar loaded, with the Edit form's state and conflict block
(`components.casebook.case_panel`). The step reached is stored with the queue and is in the URL
(`tpos`), so a reload or a later visit resumes there. Each step scrolls the view's item (its
`evidence` container: a Parason node, a FineProofs step, a MARS trace) into sight below the bar,
as present mode does.
"""

from __future__ import annotations

import uuid
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

import streamlit as st

from cache.casebook.errors import EditConflict
from cache.casebook.links import case_path, view_pairs
from cache.casebook.model import Case, default_title, make_case, normalize_tags
from cache.casebook.queue_items import QueueItem
from cache.casebook.queue_ops import Queue
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.casebook.case_panel import (
    conflict_block,
    conflict_key,
    field_key,
    form_key,
    load_form,
)
from components.common.browser import focus_evidence, navigate
from components.common.casebook import (
    EVIDENCE_PREFIX,
    VERDICTS,
    MissingAuthor,
    author,
    presenting,
    readonly,
    remember_author,
    store,
    tag_suggestions,
)
from components.common.formatting import counted
from components.common.guards import show_error
from components.common.links import view_href
from components.common.registered import registered
from components.common.safe_text import esc, md_text
from components.common.theme import CASE_ACCENT
from components.common.triage import TPOS, TRIAGE, open_position
from components.common.url_keys import widget_keys

BAR_KEY = "tq_bar"
_JS_FILE = Path(__file__).with_name("triage_keys.js")

# our own constant CSS (no user text): a compact bar pinned above the view
_CSS = f"""<style>
@media (min-height: 700px) {{
  [data-testid="stLayoutWrapper"]:has(> .st-key-{BAR_KEY}) {{
    position: sticky; top: 3.75rem; z-index: 990;
  }}
  /* the header above the pinned bar is opaque: the view does not show through above it */
  [data-testid="stHeader"] {{ background: var(--st-background-color, #fff); }}
}}
.st-key-{BAR_KEY} {{
  background: var(--st-background-color, #fff); box-shadow: 0 6px 10px -8px rgba(0, 0, 0, 0.35);
  gap: 0.35rem; padding-top: 0.5rem; padding-bottom: 0.5rem;
}}
.st-key-{BAR_KEY} button {{ min-height: 1.8rem; padding: 0 0.55rem; }}
.st-key-{BAR_KEY} button p {{ font-size: 0.85rem; }}
.st-key-tq_tags {{ column-gap: 0.35rem !important; row-gap: 0.35rem; }}
.st-key-tq_tags > div {{ flex-shrink: 0; }}
/* an empty note is one line high until it has the focus or text, so the bar takes less of a
   small window; Streamlit's text area is at least 68 px */
.st-key-{BAR_KEY} [data-testid="stTextAreaRootElement"]:not(:focus-within):has(textarea:placeholder-shown) {{
  height: 2.5rem !important; min-height: 0 !important;
}}
.st-key-{BAR_KEY} [data-testid="stTextAreaRootElement"]:not(:focus-within):has(textarea:placeholder-shown) textarea {{
  min-height: 0 !important; overflow: hidden; white-space: nowrap;
}}
/* Streamlit's "Press Ctrl+Enter to apply" would cover the note's text; the placeholder says it */
.st-key-{BAR_KEY} [data-testid="InputInstructions"] {{ display: none; }}
</style>"""


def _keys(queue_id: str, stored_note: str) -> None:
    """The key listener, once per page (in the sidebar: a zero-height element costs no room).
    Drawn after the whole bar, with a new token each run: the listener knows that the run of
    its last key has drawn every control of the bar (a run stopped early by a step draws none).
    `stored_note`: the note of the item's case as stored, which `n` starts a new line after."""
    mount = registered("rte_triage_keys", lambda: _JS_FILE.read_text(encoding="utf-8"))
    data = {"qid": queue_id, "run": uuid.uuid4().hex, "stored": stored_note, "readonly": readonly()}
    with st.sidebar:
        mount(key="rte_triage_keys", data=data, height=0)


def _step_to(pos: int) -> None:
    """Keys j/k (the step buttons): the step is taken at the top of the next run, before the
    bar is drawn, as a save's is (a press read inline is lost if its run is restarted)."""
    st.session_state["tq_go"] = pos


def verdict_choices(current: str | None) -> list[str | None]:
    """What `v` cycles through: none, the casebook's verdicts, and a stored one of another kind."""
    out: list[str | None] = [None, *VERDICTS]
    if current and current not in out:
        out.append(current)
    return out


def next_verdict(current: str | None) -> str | None:
    choices = verdict_choices(current)
    return choices[(choices.index(current) + 1) % len(choices)]


def toggled(tags: list[str], tag: str) -> list[str]:
    """`tags` with `tag` added, or removed when it is there (order kept)."""
    return [t for t in tags if t != tag] if tag in tags else [*tags, tag]


def subject_id(queue: Queue, pos: int, case: Case | None) -> str:
    """Whose form state the bar edits: the item's case, else a case not saved yet."""
    return case.id if case is not None else f"tq_{queue.id}_{pos}"


def _value(fid: str, name: str) -> Any:
    loaded = st.session_state.get(form_key(fid, "loaded")) or {}
    return st.session_state.get(field_key(fid, f"tq_{name}"), loaded.get(name))


def tags_of(fid: str) -> list[str]:
    return list(_value(fid, "tags") or [])


def verdict_of(fid: str) -> str | None:
    v = _value(fid, "verdict")
    return v if isinstance(v, str) and v else None


def toggle_tag(fid: str, tag: str) -> None:
    """Keys 1-9 (a tag button): the tag on or off."""
    st.session_state[field_key(fid, "tq_tags")] = toggled(tags_of(fid), tag)


def cycle_verdict(fid: str) -> None:
    """Key v (the verdict button): the next verdict."""
    st.session_state[field_key(fid, "tq_verdict")] = next_verdict(verdict_of(fid))


def item_case(book: CaseStore, item: QueueItem) -> tuple[Case | None, int]:
    """The live case on exactly this item (the newest), and how many cases its item holds (a
    trajectory's node cases count for the trajectory)."""
    cases = book.cases_for_item(item.view, **item.item)
    exact = [c for c in cases if c.item == item.item]
    return (exact[-1] if exact else None), len(cases)


def items_with_cases(book: CaseStore, queue: Queue) -> set[int]:
    """Positions (0-based) of the queue's items that have a case of their own."""
    have: set[frozenset[tuple[str, str]]] = set()
    for view in {i.view for i in queue.items}:
        have |= {frozenset(c.item.items()) for c in book.list_cases(dataset=view)}
    return {n for n, i in enumerate(queue.items) if frozenset(i.item.items()) in have}


NOTHING_SET = "Nothing was set on item {at} (no tag, verdict or note)"


def save_item(book: CaseStore, queue: Queue, pos: int, case: Case | None) -> None:
    """Save (Enter, the Save button): edit the item's case or add one, then move on. An item
    with no case and nothing set makes no case (Enter is also how a reader passes an item by)."""
    s = st.session_state
    item = queue.items[pos - 1]
    fid = subject_id(queue, pos, case)
    tags = normalize_tags(tags_of(fid))
    verdict = verdict_of(fid)
    note = str(_value(fid, "note") or "").rstrip()  # `n` starts a line after a case's note
    s.pop("tq_error", None)
    label = item.label or default_title(item.view, item.item)
    if case is None and not (tags or verdict or note):  # Enter to move on: no empty case
        s["tq_saved"] = (pos, label, None)
        _advance(queue, pos)
        return
    try:
        if case is not None:
            base = int(s.get(form_key(fid, "base"), case.version))
            edited = replace(case, tags=tags, verdict=verdict, note=note, version=base)
            try:
                book.update(edited, expected_version=base)
            except EditConflict as exc:
                s[conflict_key(case.id)] = (edited, exc.current)
                return
        else:
            if not author():
                raise MissingAuthor()
            book.add(
                make_case(
                    item.view,
                    item.view,
                    query=item.query,
                    source=item.source,
                    item=item.item,
                    title=item.label or default_title(item.view, item.item),
                    tags=tags,
                    verdict=verdict,
                    note=note,
                    author=author(),
                )
            )
    except DataError as exc:
        s["tq_error"] = exc
        return
    # said on the next item's run (a step that loads another view's page starts a new session,
    # and there the "have cases" count is what tells)
    s["tq_saved"] = (pos, label, case is not None)
    _advance(queue, pos)


def _advance(queue: Queue, pos: int) -> None:
    """After a save: the next item, or the queue's end."""
    if pos < queue.size:
        st.session_state["tq_go"] = pos + 1
    else:
        st.session_state["tq_done"] = True


def _position(book: CaseStore, queue: Queue) -> int:
    """The step to show (1-based): the URL's, else where the queue stopped; stored when it
    moved (a read-only casebook just does not remember it)."""
    want = TPOS.read()
    pos = queue.clamp((want or queue.position + 1) - 1) + 1
    if want != pos:
        TPOS.write(pos)
    if pos - 1 != queue.position:
        with suppress(DataError):  # the bar works; only the resume point is not kept
            book.set_queue_position(queue.id, pos - 1)
    return pos


def _first_sight(queue_id: str, pos: int) -> bool:
    """Whether this session shows step `pos` of the queue for the first time (a link opened, a
    step taken), not a rerun of the same step (the reader changing the view's own state)."""
    seen = st.session_state.setdefault(f"_tq_seen_{queue_id}", set())
    if pos in seen:
        return False
    seen.add(pos)
    return True


def _on_screen(item: QueueItem, here: str) -> bool:
    """The view on screen is the item's and its URL names the item (a link with only
    `?triage=&tpos=` showed the view's default question while the bar named another). Checked
    before the view's first run rewrites its URL; keys bound to widgets are left out (a widget
    at its default leaves the URL)."""
    if here != item.view:
        return False
    skip = widget_keys(item.view)
    for key, value in view_pairs(item.query):
        if key in skip or key.startswith("src_"):
            continue
        if value not in st.query_params.get_all(key):
            return False
    return True


def triage_bar(here: str = "") -> None:
    """Above every view while a queue runs (`?triage=`); nothing otherwise. `here`: the view
    on screen (its URL path), where a step can stay."""
    qid = TRIAGE.read()
    if not qid:
        return
    st.html(_CSS)
    try:
        book = store()
        queue = book.get_queue(qid)
        if queue is None:
            st.warning(
                "This triage queue is no longer in the casebook; start it again from its list.",
                icon=":material/checklist:",
            )
            return
        pos = _position(book, queue)
        go = st.session_state.pop("tq_go", None)
        if isinstance(go, int):
            open_position(queue, go, here)
        elif here and _first_sight(queue.id, pos) and not _on_screen(queue.items[pos - 1], here):
            open_position(queue, pos, here)  # a link naming the step but not its item
        case, n_cases = item_case(book, queue.items[pos - 1])
        done = items_with_cases(book, queue)
    except DataError as exc:
        show_error(exc, key="triage")
        return
    with st.container(border=True, key=BAR_KEY):
        _bar(book, queue, pos, case, n_cases, done)
    _keys(queue.id, case.note if case is not None else "")
    if not presenting():  # the view's item below the bar, as present mode brings it
        focus_evidence(EVIDENCE_PREFIX, nonce=f"{queue.id}:{pos}", key="tq_focus")


def name_input() -> None:
    """Who writes, asked once in this browser (a new case needs an author)."""
    st.text_input(
        "Your name", key="tq_author", value="", max_chars=200, width=220,
        label_visibility="collapsed", placeholder="Your name (needed to save)",
        on_change=remember_author, args=("tq_author",),
    )  # fmt: skip


def label_html(label: str) -> str:
    """An item's label ("model · benchmark · question 0 · trace 3 · token 2048") in one line
    where only its longest part gives way (cut with "…"): the short parts say which trace, node
    or step it is, the long one (a model's name, a question's text) is context. (A part that
    may shrink at all is drawn cut as soon as it loses a fraction of a pixel.)"""
    parts = label.split(" · ")
    widest = max(range(len(parts)), key=lambda i: len(parts[i]))
    gives = "overflow:hidden;text-overflow:ellipsis;min-width:0;flex:0 1 auto"
    return "<span style='flex:none'> · </span>".join(
        f"<span style='{gives if i == widest else 'flex:none'}'>{esc(part)}</span>"
        for i, part in enumerate(parts)
    )


def _head(queue: Queue, pos: int, n_cases: int, done: set[int], case: Case | None) -> str:
    item = queue.items[pos - 1]
    label = item.label or item.view
    cases = counted(n_cases, "case")
    # short, so the label keeps its room; none when there is none ("k of N have cases"); the
    # case the bar edits is named by its author, as the keys change that case
    whose = f"{case.author}'s case" if case is not None and case.author else cases
    tip = esc(f"{cases} on this item: the keys edit {whose if case is not None else 'it'}")
    mark = (
        f" · <span style='color:{CASE_ACCENT}' title='{tip}'>● {esc(whose)}"
        f"{f' (+{n_cases - 1})' if case is not None and n_cases > 1 else ''}</span>"
        if n_cases
        else ""
    )
    return (
        # one line too: a long queue name gives way, the count of cases stays whole
        f"<div style='display:flex;white-space:pre;min-width:0;font-size:0.8rem;"
        f"color:{CASE_ACCENT}' title='{esc(queue.origin)}'><span data-testid='tq-name' "
        f"style='overflow:hidden;text-overflow:ellipsis;min-width:0;flex:0 1 auto'>"
        f"Triage “{esc(queue.name)}”</span><span style='flex:none'> · {len(done):,} of "
        f"{queue.size:,} have cases</span></div>"
        # one line: the label gives way (cut with "…", whole in its tip), the position and the
        # case mark stay whole
        "<div style='display:flex;white-space:pre;min-width:0'>"
        f"<b data-testid='tq-position'>{pos:,} of {queue.size:,}</b> · "
        f"<span data-testid='tq-label' title='{esc(label)}' style='display:flex;"
        f"overflow:hidden;min-width:0;flex:0 1 auto'>{label_html(label)}</span>"
        f"<span style='flex:none'>{mark}</span></div>"
    )


def _bar(
    book: CaseStore,
    queue: Queue,
    pos: int,
    case: Case | None,
    n_cases: int,
    done: set[int],
) -> None:
    s = st.session_state
    item = queue.items[pos - 1]
    fid = subject_id(queue, pos, case)
    if form_key(fid, "loaded") not in s or form_key(fid, "base") not in s:
        blank = Case(id=fid, dataset=item.view, view=item.view)
        load_form(fid, case or blank, case.version if case else 0)
    ro = readonly()
    head, steps = st.columns([4, 1.7], vertical_alignment="center")
    head.html(_head(queue, pos, n_cases, done, case))
    with steps, st.container(horizontal=True, horizontal_alignment="right", gap="small"):
        st.button("k", key="tq_prev", icon=":material/arrow_back:", disabled=pos <= 1,
                  help="Previous item (k)", on_click=_step_to, args=(pos - 1,))  # fmt: skip
        st.button("j", key="tq_next", icon=":material/arrow_forward:",
                  disabled=pos >= queue.size, help="Next item (j)", on_click=_step_to,
                  args=(pos + 1,))  # fmt: skip
        end = st.button("End", key="tq_end", type="tertiary", help="Leave the queue here")
    if end:
        navigate(case_path(item.view, item.query) or view_href("casebook"))
    tags = tags_of(fid)
    suggested = list(tag_suggestions(item.view))[:9]
    with st.container(horizontal=True, key="tq_tags"):  # the bar's width: every chip in sight
        for n, tag in enumerate(suggested, start=1):
            st.button(
                f"{n} · {tag}", key=f"tq_tag_{n}", type="primary" if tag in tags else "secondary",
                icon=":material/check:" if tag in tags else None, disabled=ro,
                on_click=toggle_tag, args=(fid, tag),
            )  # fmt: skip
        for tag in (t for t in tags if t not in suggested):
            st.button(
                tag, key=f"tq_tag_x_{tag}", type="primary", icon=":material/check:", disabled=ro,
                on_click=toggle_tag, args=(fid, tag), help="Click to remove this tag",
            )  # fmt: skip
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        verdict = verdict_of(fid)
        st.button(
            f"Verdict (v): {verdict or '—'}", key="tq_verdict", disabled=ro,
            on_click=cycle_verdict, args=(fid,),
        )  # fmt: skip
        if not author() and case is None:
            name_input()
        st.text_area(
            "Note", value=str(_value(fid, "note") or ""), key=field_key(fid, "tq_note"),
            height=68, label_visibility="collapsed", disabled=ro,
            placeholder="Note (n) · Ctrl+Enter saves",
        )  # fmt: skip
        st.button(
            "Save (Enter)", key="tq_save", type="primary", disabled=ro,
            on_click=save_item, args=(book, queue, pos, case),
            help="Save the case and open the next item (on an item with no case and nothing "
            "set, no case is made: Enter just moves on)",
        )  # fmt: skip
    err = s.get("tq_error")
    if isinstance(err, MissingAuthor) and author():
        s.pop("tq_error")  # the name it asked for is given now
        err = None
    if isinstance(err, DataError):
        show_error(err, key="tq")
    saved = s.pop("tq_saved", None)
    at, what, edited = saved if saved is not None else (0, "", False)
    if saved is not None and not s.get("tq_done"):
        st.toast(
            f"{NOTHING_SET.format(at=at)}: moved on without a case."
            if edited is None
            else f"{'Updated' if edited else 'Saved'} the case on item {at}: {md_text(what, 80)}",
            icon=":material/skip_next:" if edited is None else ":material/check:",
        )
    if s.pop("tq_done", False):
        if saved is not None and edited is None:
            st.info(
                f"{NOTHING_SET.format(at=at)}, so no case was made. That was the last item of "
                "this queue.",
                icon=":material/done_all:",
            )
        else:
            st.success("Saved. That was the last item of this queue.", icon=":material/done_all:")
    if case is not None:
        conflict_block(book, case)
