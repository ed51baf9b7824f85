"""The bounded map views keep values in between runs: least recently used dropped first, a read
counts as a use, and threads may share it."""

from __future__ import annotations

import threading

from cache.kept import Kept


def test_the_least_recently_used_goes_first_and_a_read_is_a_use() -> None:
    kept: Kept[str, int] = Kept(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "b" is now the oldest
    kept.put("c", 3)
    assert kept.keys() == ["a", "c"] and "b" not in kept and kept.get("b") is None
    kept.put("a", 4)  # a new value is a use too
    kept.put("d", 5)
    assert kept.keys() == ["a", "d"] and kept.get("a") == 4


def test_threads_share_it_within_its_limit() -> None:
    kept: Kept[tuple[int, int], int] = Kept(50)

    def work(n: int) -> None:
        for i in range(200):
            kept.put((n, i), i)
            kept.get((n, i // 2))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(kept.keys()) == 50
