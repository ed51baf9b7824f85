"""8 writer processes add 100 cases each at once, on SQLite and on PostgreSQL: afterwards exactly
800 cases, none lost or doubled, no error."""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from cache.casebook import CaseStore, EditConflict, make_case, open_store
from tests.cache.casebook._workers import add_many

WORKERS, EACH = 8, 100


def test_parallel_writer_processes(db_url: str) -> None:
    # fresh processes forked from a clean server that has imported the store once (spawning 8
    # interpreters that each import it costs seconds); no engine or connection is inherited
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["tests.cache.casebook._workers"])
    barrier, results = ctx.Barrier(WORKERS), ctx.Queue()
    procs = [
        ctx.Process(target=add_many, args=(db_url, w, EACH, barrier, results))
        for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    reports = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    errors = [e for _, _, errs in reports for e in errs]
    assert errors == []
    assert sorted(w for w, n, _ in reports if n == EACH) == list(range(WORKERS))
    store: CaseStore = open_store(db_url, readonly=False)
    try:
        ids = [c.id for c in store.list_cases()]
        assert store.count() == len(ids) == WORKERS * EACH == len(set(ids))
        assert set(ids) == {f"w{w}-{j:04d}" for w in range(WORKERS) for j in range(EACH)}
        assert store.list_cases(tags=["worker-3"], limit=1000)[0].tags == ("worker-3", "concurrent")
    finally:
        store.close()


def test_threads_editing_one_case_never_lose_an_edit(db_url: str) -> None:
    """Sessions of one server share a store: compare-and-set makes every increment count."""
    store = open_store(db_url, readonly=False)
    case = store.add(make_case("mars", "mars", snapshot={"n": 0}))

    def bump(times: int) -> int:
        conflicts = 0
        for _ in range(times):
            while True:
                cur = store.get(case.id)
                assert cur is not None
                try:
                    store.update(replace(cur, snapshot={"n": cur.snapshot["n"] + 1}), cur.version)
                    break
                except EditConflict:
                    conflicts += 1
        return conflicts

    try:
        with ThreadPoolExecutor(6) as pool:
            sum(pool.map(bump, [20] * 6))
        final = store.get(case.id)
        assert final is not None and final.snapshot["n"] == 120 and final.version == 121
    finally:
        store.close()
