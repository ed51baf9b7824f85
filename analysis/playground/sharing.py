"""What the runs of one frontier sweep share, held for the length of the sweep.

Why: a sweep runs one policy at 11 values of its main parameter on the same bootstrap sample.
Most of each run does not depend on that value: the DeepConf thresholds and truncation of the
sample, the snapshot votes and leaders at every checkpoint, and for the rules whose parameter
is a threshold on one per-checkpoint number (stability's run length, consensus' leader share,
Parallel-Probe's stable count; `PolicyRules.block_scores`) that number itself; for
Adaptive-Consistency the sorted prefix counts. `sweep` opens a `sharing()` scope; inside it the
engine computes such parts once per question and reads them back for the other values. Outside
a sweep nothing is kept (a single run stops most iterations early, which a shared full grid
could not). Each run still goes through the app's cached `_run`, so every point is an ordinary,
cached RunResult; the results are the same with or without sharing (test_sweep_sharing.py).

The memo lives in a context variable, so concurrent sweeps (the app's sessions run in threads)
each have their own, and it is dropped when the sweep ends.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar, cast

T = TypeVar("T")

_MEMO: ContextVar[dict[Hashable, Any] | None] = ContextVar("stopping_sweep_memo", default=None)


@contextmanager
def sharing() -> Iterator[None]:
    """A scope in which `shared` computes each key once (nested scopes use the outer one)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def active() -> bool:
    return _MEMO.get() is not None


def shared(key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()` once per key inside a `sharing()` scope; outside one, every time."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return cast(T, memo[key])
