"""Search hits handed to the triage queue (`cache.casebook.queue_items.QueueItem`): one item per
hit item (an item's several hits are one stop), in result order, opening at its first hit. The
data source is left empty: the queue takes the one the view has selected."""

from __future__ import annotations

from collections.abc import Iterable

from analysis.search.results import Hit
from cache.casebook.queue_items import QueueItem


def first_hits(hits: Iterable[Hit]) -> list[Hit]:
    """The first hit of each distinct (dataset, file, item), in result order."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for h in hits:
        key = (h.dataset, h.file, h.item)
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


def queue_items(hits: Iterable[Hit]) -> list[QueueItem]:
    """One `QueueItem` per distinct (dataset, file, item), at its first hit."""
    return [
        QueueItem(
            view=h.view,
            query=h.query,
            item=dict(h.keys),
            label=f"{h.label} · {h.locator}" if h.locator else h.label,
        )
        for h in first_hits(hits)
    ]
