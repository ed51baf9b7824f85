"""A casebook's triage queues: an ordered list of `QueueItem`s with a name, where it came from
("search: …", "collection: …") and the position reached, so a queue resumes where it stopped.

The items are written once, when the queue starts; only the position changes afterwards. A
position write is a single UPDATE that clamps to the queue and bumps the version, so concurrent
steps (two tabs on one queue) never fail: the last step written is where the queue resumes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import RowMapping

from cache.casebook.errors import InvalidCase, NotFound
from cache.casebook.links import is_case_view
from cache.casebook.model import MAX_SHORT_CHARS, Case, default_title, new_id
from cache.casebook.queue_items import QueueItem
from cache.casebook.schema import queues_t
from cache.casebook.store_base import StoreBase

MAX_QUEUE_ITEMS = 20_000
MAX_QUEUE_NAME = 300
MAX_QUEUE_ORIGIN = 1000


@dataclass(frozen=True)
class Queue:
    """A stored triage queue; `position` is 0-based (the URL and the bar count from 1)."""

    id: str
    name: str
    origin: str
    items: tuple[QueueItem, ...]
    position: int = 0
    author: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    version: int = 1

    @property
    def size(self) -> int:
        return len(self.items)

    def clamp(self, position: int) -> int:
        return max(0, min(int(position), self.size - 1))


def _short(value: object, what: str) -> str:
    text = str(value)
    if len(text) > MAX_SHORT_CHARS:
        raise InvalidCase(f"a queue item's {what} is too long", "shorten it")
    return text


def item_to_dict(item: QueueItem) -> dict[str, Any]:
    return {
        "view": item.view,
        "query": [[k, v] for k, v in item.query],
        "item": dict(item.item),
        "label": item.label,
        "source": dict(item.source),
    }


def item_from_dict(d: Mapping[str, Any]) -> QueueItem:
    """A stored item as it was written; odd values become strings, never code."""
    query = d.get("query") or []
    return QueueItem(
        view=str(d.get("view", "")),
        query=tuple((str(p[0]), str(p[1])) for p in query if isinstance(p, list) and len(p) == 2),
        item={str(k): str(v) for k, v in dict(d.get("item") or {}).items()},
        label=str(d.get("label", "")),
        source={str(k): str(v) for k, v in dict(d.get("source") or {}).items()},
    )


def check_items(items: Sequence[QueueItem]) -> tuple[QueueItem, ...]:
    """The items a queue can step through: each opens in one of the explorer's views."""
    out = tuple(items)
    if not out:
        raise InvalidCase("a triage queue needs at least one item", "pick a non-empty list")
    if len(out) > MAX_QUEUE_ITEMS:
        raise InvalidCase(
            f"a triage queue holds at most {MAX_QUEUE_ITEMS:,} items ({len(out):,} given)",
            "narrow the list with its filters first",
        )
    for it in out:
        if not is_case_view(it.view):
            raise InvalidCase(
                f"a queue item names a view the explorer does not have: {it.view[:80]!r}",
                "queue items open in the dataset views only",
            )
        for k, v in [*it.query, *it.item.items(), *it.source.items()]:
            _short(k, "key")
            _short(v, "value")
        _short(it.label, "label")
    return out


def _row_queue(m: RowMapping) -> Queue:
    raw = json.loads(m["items"])
    return Queue(
        id=m["id"],
        name=m["name"],
        origin=m["origin"],
        items=tuple(item_from_dict(d) for d in raw if isinstance(d, dict)),
        position=int(m["position"]),
        author=m["author"],
        created_at=float(m["created_at"]),
        updated_at=float(m["updated_at"]),
        version=int(m["version"]),
    )


class QueueOps(StoreBase):
    """The triage-queue part of `CaseStore`."""

    def create_queue(
        self, name: str, origin: str, items: Sequence[QueueItem], author: str = ""
    ) -> Queue:
        """Store a new queue at its first item."""
        name = " ".join(str(name).split())[:MAX_QUEUE_NAME] or "Triage"
        origin = str(origin).strip()[:MAX_QUEUE_ORIGIN]
        todo = check_items(items)
        now = time.time()
        q = Queue(new_id(), name, origin, todo, 0, str(author)[:200], now, now, 1)
        with self._tx(write=True) as conn:
            conn.execute(
                sa.insert(queues_t).values(
                    id=q.id,
                    name=q.name,
                    origin=q.origin,
                    items=json.dumps([item_to_dict(i) for i in todo], ensure_ascii=False),
                    size=len(todo),
                    position=0,
                    author=q.author,
                    created_at=now,
                    updated_at=now,
                    version=1,
                )
            )
        return q

    def get_queue(self, queue_id: str) -> Queue | None:
        with self._tx() as conn:
            row = conn.execute(sa.select(queues_t).where(queues_t.c.id == queue_id)).first()
        return None if row is None else _row_queue(row._mapping)

    def queues(self, limit: int = 20) -> list[Queue]:
        """The queues stepped through last, newest first."""
        q = sa.select(queues_t).order_by(queues_t.c.updated_at.desc(), queues_t.c.id).limit(limit)
        with self._tx() as conn:
            return [_row_queue(r._mapping) for r in conn.execute(q)]

    def set_queue_position(self, queue_id: str, position: int) -> Queue:
        """Remember the item reached (0-based, clamped to the queue)."""
        pos = max(0, int(position))
        clamped = sa.case((queues_t.c.size - 1 < pos, queues_t.c.size - 1), else_=pos)
        with self._tx(write=True) as conn:
            done = conn.execute(
                sa.update(queues_t)
                .where(queues_t.c.id == queue_id)
                .values(position=clamped, version=queues_t.c.version + 1, updated_at=time.time())
            )
            if done.rowcount != 1:
                raise NotFound(f"no triage queue {queue_id} in the casebook", "start it again")
            row = conn.execute(sa.select(queues_t).where(queues_t.c.id == queue_id)).one()
        return _row_queue(row._mapping)

    def delete_queue(self, queue_id: str) -> bool:
        """Forget a queue (the cases saved from it stay)."""
        with self._tx(write=True) as conn:
            return conn.execute(sa.delete(queues_t).where(queues_t.c.id == queue_id)).rowcount > 0


def items_of_cases(cases: Sequence[Case]) -> list[QueueItem]:
    """A collection's cases as queue items (in order; a case captured in a view the explorer
    does not have is left out: it cannot be opened)."""
    return [
        QueueItem(
            view=c.view,
            query=tuple(c.query),
            item=dict(c.item),
            label=c.title or default_title(c.dataset, c.item),
            source=dict(c.source),
        )
        for c in cases
        if is_case_view(c.view)
    ]
