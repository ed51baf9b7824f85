"""Run tiny BLAS/LAPACK work single-threaded, and leave the process as it was.

Why: the q-model fit is ~50 L-BFGS-B steps on a 6-parameter problem; with OpenBLAS threads on
a busy 2-core machine each tiny BLAS call waits on thread hand-offs.
We switch numpy's and scipy's BLAS (bundled OpenBLAS) to one thread around the fit (and the q
prediction), only there (`mars.py`), and restore the previous count. Results do not depend on
the thread count. No-op if no BLAS is found.

Process-wide state, and why it is safe: the OpenBLAS thread count belongs to the process, and
the app runs sessions in threads. A per-call save/restore would break when two calls overlap
(the second saves the first's "1" and restores it last, leaving the process single-threaded),
so overlapping sections share one save: the first to enter saves and sets 1, the last to leave
restores (a lock guards the depth). While any section runs, other threads' BLAS calls also run
single-threaded; sections are milliseconds long. `_controls` is memoised: the libraries are
found once (by threadpoolctl, on every platform), and the cache holds handles only, never a
thread count. scipy's OpenBLAS is loaded (by the compiled L-BFGS-B routine, `lbfgsb.py`) on the
first lookup, not at import: `simulate` of a method without a q-model never loads it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import numpy  # noqa: F401  (loads numpy's BLAS before the lookup)
from threadpoolctl import ThreadpoolController

from analysis.playground.lbfgsb import fast_path_available


@lru_cache(maxsize=1)
def _controls() -> tuple[Any, ...]:
    """threadpoolctl's controller of every BLAS loaded in the process (found once). scipy's is
    loaded first, by the L-BFGS-B routine that links it (else by scipy.optimize, the fallback)."""
    if not fast_path_available():
        import scipy.optimize  # noqa: F401  (why here: a slow import, only when needed)
    libs = ThreadpoolController().select(user_api="blas").lib_controllers
    return tuple(lib for lib in libs if lib.num_threads is not None)  # None: no count to set


def blas_libraries() -> list[str]:
    """The file of each BLAS library the switch controls (for tests and diagnostics)."""
    return [str(lib.filepath) for lib in _controls()]


class _Shared:
    """The one save of the thread counts while any single-thread section is open."""

    lock = threading.Lock()
    depth = 0
    saved: list[int] = []


def thread_counts() -> list[int]:
    """The current thread count of each BLAS library (for tests and diagnostics)."""
    return [int(lib.num_threads) for lib in _controls()]


@contextmanager
def single_thread_blas() -> Iterator[None]:
    ctl = _controls()
    with _Shared.lock:
        if _Shared.depth == 0:
            _Shared.saved = [int(lib.num_threads) for lib in ctl]
            _set_counts(ctl, [1] * len(ctl))
        _Shared.depth += 1
    try:
        yield
    finally:
        with _Shared.lock:
            _Shared.depth -= 1
            if _Shared.depth == 0:
                _set_counts(ctl, _Shared.saved)


def _set_counts(ctl: tuple[Any, ...], counts: list[int]) -> None:
    """Set each library's count (under `_Shared.lock`). threadpoolctl lets only one thread set
    a process-wide OpenBLAS pool and silently ignores the others; here the last section to
    leave may run on another thread than the first, so each setter releases that claim."""
    for lib, n in zip(ctl, counts, strict=True):
        lib.set_num_threads(n)
        release = getattr(type(lib), "clear_controlling_thread", None)
        if release is not None:
            release()
