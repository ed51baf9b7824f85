"""Worker processes for the concurrency test (a module of its own: spawned children import it)."""

from __future__ import annotations

from typing import Any

from cache.casebook import make_case, open_store


def add_many(url: str, worker: int, n: int, barrier: Any, results: Any) -> None:
    """Open the store, wait for the others, add `n` cases; report (worker, added, errors)."""
    errors: list[str] = []
    added = 0
    try:
        store = open_store(url, readonly=False)
    except Exception as exc:  # reported to the parent, which fails the test
        barrier.abort()
        results.put((worker, 0, [f"open: {type(exc).__name__}: {exc}"]))
        return
    try:
        barrier.wait(timeout=60)
        for j in range(n):
            case = make_case(
                "mars",
                "mars",
                id=f"w{worker}-{j:04d}",
                item={"file": "f.parquet", "qid": str(j % 7), "trace": str(worker)},
                tags=[f"worker-{worker}", "concurrent"],
                note=f"case {j} from worker {worker}",
            )
            try:
                store.add(case)
                added += 1
            except Exception as exc:  # reported to the parent, which fails the test
                errors.append(f"{case.id}: {type(exc).__name__}: {exc}")
    finally:
        store.close()
        results.put((worker, added, errors))
