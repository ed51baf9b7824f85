"""Start a triage queue from any list of items: store it in the casebook and open its first item.

Any list (a search's hits, a lens, a filtered table, a collection) is handed over as
`QueueItem`s (`cache.casebook.queue_items`); `triage_button(items, name, origin, key)` is the
control a view puts beside its list. The queue's URL keys (`?triage=<id>&tpos=<n>`) ride on the
item's own view URL, so a reload, a shared link or the back button land on the same item; the
bar that steps through it is drawn above every view (`components.casebook.triage_bar`).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

import streamlit as st

from cache.casebook.links import case_path, view_pairs
from cache.casebook.queue_items import QueueItem
from cache.casebook.queue_ops import MAX_QUEUE_ITEMS, Queue
from cache.errors import DataError
from components.common.browser import navigate
from components.common.casebook import author, readonly, store
from components.common.guards import show_error
from components.common.url_keys import widget_keys
from components.common.url_state import Param, int_in, query_pairs, safe_token, shown_key

TRIAGE = Param("triage", None, parse=safe_token(64))
TPOS = Param("tpos", None, parse=int_in(1, MAX_QUEUE_ITEMS))  # 1-based, as the bar counts


def item_path(queue_id: str, item: QueueItem, pos: int) -> str | None:
    """The item's view URL (relative to the app's root) with the queue's keys; None when the
    item's view is not one of ours."""
    path = case_path(item.view, item.query)
    if path is None:
        return None
    keys = urlencode({"triage": queue_id, "tpos": str(pos)})
    return f"{path}{'&' if '?' in path else '?'}{keys}"


def open_position(queue: Queue, pos: int, here: str | None = None) -> None:
    """Open item `pos` (1-based, clamped) of the queue. In the view `here` already shows, when
    only keys no widget is bound to change (a question, a trace, a trajectory), the URL keys
    are swapped in place and the view reruns; otherwise the item's URL is loaded, as a shared
    link would be (Streamlit refuses to set a widget's key from Python, see `browser`)."""
    pos = queue.clamp(pos - 1) + 1
    item = queue.items[pos - 1]
    if here == item.view and _swap_in_place(item, pos):
        st.rerun()
    path = item_path(queue.id, item, pos)
    if path is not None:
        navigate(path)


def _swap_in_place(item: QueueItem, pos: int) -> bool:
    """Put the item's keys in the URL if that needs no widget-bound key changed."""
    widgets = widget_keys(item.view)
    now = query_pairs()
    want = view_pairs(item.query)
    for key in widgets | {k for k, _ in want if k.startswith("src_")}:
        wanted = [v for k, v in want if k == key]
        if wanted not in ([], [v for k, v in now if k == key], _widget_value(key)):
            return False
    for key in {k for k, _ in now} - widgets - {"triage"}:
        if not key.startswith("src_"):
            del st.query_params[key]
    for key in {k for k, _ in want} - widgets:
        if not key.startswith("src_"):
            st.query_params[key] = [v for k, v in want if k == key]
    st.query_params["tpos"] = str(pos)
    return True


def _widget_value(key: str) -> list[str] | None:
    """A URL-bound control's value as its URL would spell it, when the URL leaves it out (a
    control at its default, e.g. the first subset, is not written): a step to an item on that
    value needs no reload. The value a light control showed on the last run (`shown_key`; the
    bar runs before the view draws its controls), else a Streamlit widget's; None when neither
    is kept or the value is not a plain one (a stale value only costs a reload-free step to the
    view's own default)."""
    if key in st.query_params:
        return None
    state = st.session_state
    value = state.get(shown_key(key), state.get(key))
    return [str(value)] if isinstance(value, str | int) and not isinstance(value, bool) else None


def start_queue(name: str, origin: str, items: Sequence[QueueItem]) -> None:
    """Store a queue of `items` and open its first item (an error box when it cannot be)."""
    try:
        queue = store().create_queue(name, origin, items, author=author())
    except DataError as exc:
        show_error(exc, key="triage_start")
        return
    open_position(queue, 1)


def triaging() -> bool:
    """A queue is open on this page: its bar owns the plain letter keys (`j`, `k`, `v`, `n`), so
    a view's own shortcuts stand down."""
    return TRIAGE.read() is not None


def triage_button(
    items: Sequence[QueueItem], name: str, origin: str, key: str, label: str | None = None
) -> None:
    """The "Triage these N" control of a list: a click stores the queue and opens its first
    item."""
    if triage_count_button(len(items), key, label or f"Triage these {len(items):,}"):
        start_queue(name, origin, items)


def triage_count_button(n: int, key: str, label: str) -> bool:
    """A triage control for `n` items listed only once it is clicked (its caller then starts
    the queue); disabled, saying why, for none, too many or a read-only casebook."""
    too_many = n > MAX_QUEUE_ITEMS
    why = (
        "The casebook is read-only here"
        if readonly()
        else f"At most {MAX_QUEUE_ITEMS:,} items: narrow the list first"
        if too_many
        else "Step through these items one by one with their view on screen: j / k next / "
        "previous, 1-9 tags, v verdict, n note, Enter saves the case and moves on"
    )
    return st.button(
        label,
        key=key,
        icon=":material/checklist:",
        disabled=n == 0 or too_many or readonly(),
        help=why,
    )
