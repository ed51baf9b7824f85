"""Triage queues in the casebook store, on SQLite and PostgreSQL: created at the first item,
stepped, resumed after the store is reopened, refused when they cannot open, and concurrent
steps from several sessions never fail and never lose the version count."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from cache.casebook import CaseStore, InvalidCase, NotFound, open_store
from cache.casebook.queue_items import QueueItem


def _items(n: int) -> list[QueueItem]:
    return [
        QueueItem(
            view="mars",
            query=(("file", "Qwen3-32B/aime25.parquet"), ("qid", str(i)), ("trace", "3")),
            item={"file": "Qwen3-32B/aime25.parquet", "qid": str(i), "trace": "3"},
            label=f"AIME q{i} · trace 3 <b>&</b> ∑ 😀",
            source={"kind": "local", "file": "Qwen3-32B/aime25.parquet"},
        )
        for i in range(n)
    ]


def test_a_queue_is_stored_whole_at_its_first_item(store: CaseStore) -> None:
    items = _items(5)
    q = store.create_queue("  wrong   traces ", "search: \\boxed{7}", items, author="ana")
    assert (q.name, q.position, q.size, q.version) == ("wrong traces", 0, 5, 1)
    got = store.get_queue(q.id)
    assert got is not None
    assert got.items == tuple(items) and got.origin == "search: \\boxed{7}"
    assert got.author == "ana" and got.position == 0
    assert store.get_queue("nope") is None


def test_the_position_is_clamped_and_resumes_after_reopening(db_url: str) -> None:
    s = open_store(db_url, readonly=False)
    q = s.create_queue("q", "lens: late flips", _items(4))
    assert s.set_queue_position(q.id, 2).position == 2
    assert s.set_queue_position(q.id, 99).position == 3
    assert s.set_queue_position(q.id, -5).position == 0
    moved = s.set_queue_position(q.id, 1)
    assert moved.version == 5
    s.close()
    again = open_store(db_url, readonly=False)
    try:
        got = again.get_queue(q.id)
        assert got is not None and got.position == 1 and got.items == q.items
        assert [x.id for x in again.queues()] == [q.id]
    finally:
        again.close()


def test_queues_list_newest_step_first_and_delete(store: CaseStore) -> None:
    a = store.create_queue("a", "collection: demo", _items(2))
    b = store.create_queue("b", "collection: demo", _items(2))
    store.set_queue_position(a.id, 1)
    assert [x.name for x in store.queues()] == ["a", "b"]
    assert store.delete_queue(b.id) and not store.delete_queue(b.id)
    with pytest.raises(NotFound):
        store.set_queue_position(b.id, 0)


@pytest.mark.parametrize(
    "items",
    [[], [QueueItem(view="javascript:alert(1)")], [QueueItem(view="mars", label="x" * 3000)]],
)
def test_a_queue_that_cannot_open_is_refused(store: CaseStore, items: list[QueueItem]) -> None:
    with pytest.raises(InvalidCase):
        store.create_queue("bad", "search: x", items)
    assert store.queues() == []


def test_concurrent_position_writes_all_count(store: CaseStore) -> None:
    """Two tabs stepping one queue: every write succeeds, the version counts each of them and the
    stored position is one that was written."""
    q = store.create_queue("busy", "search: x", _items(50))
    writes = [(t * 7 + i) % 50 for t in range(4) for i in range(15)]

    def step(positions: list[int]) -> None:
        for p in positions:
            store.set_queue_position(q.id, p)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(step, [writes[t * 15 : (t + 1) * 15] for t in range(4)]))
    got = store.get_queue(q.id)
    assert got is not None
    assert got.version == 1 + len(writes) and got.position in writes
