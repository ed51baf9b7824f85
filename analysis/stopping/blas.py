"""Run tiny BLAS/LAPACK work single-threaded, and leave the process as it was.

Why: the q-model fit is ~50 L-BFGS-B steps on a 6-parameter problem; with OpenBLAS threads on
a busy 2-core machine each tiny BLAS call waits on thread hand-offs (measured 10x slower).
We switch numpy's and scipy's bundled OpenBLAS to one thread around the fit (and the q
prediction), only there (`mars.py`), and restore the previous count. Results do not depend on
the thread count. No-op if the symbols are missing.

Process-wide state, and why it is safe: the OpenBLAS thread count belongs to the process, and
the app runs sessions in threads. A per-call save/restore would break when two calls overlap
(the second saves the first's "1" and restores it last, leaving the process single-threaded),
so overlapping sections share one save: the first to enter saves and sets 1, the last to leave
restores (a lock guards the depth). While any section runs, other threads' BLAS calls also run
single-threaded; sections are milliseconds long. `_controls` is memoised: the libraries are
found once (from /proc/self/maps), and the cache holds handles only, never a thread count.
scipy's OpenBLAS is loaded (by the compiled L-BFGS-B routine, `lbfgsb.py`) on the first
lookup, not at import: `simulate` of a method without a q-model never loads it.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

import numpy  # noqa: F401  (loads numpy's OpenBLAS before the lookup)

from analysis.stopping.lbfgsb import fast_path_available

_NAMES = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
)

Control = tuple[Callable[[], int], Callable[[int], None]]


@lru_cache(maxsize=1)
def _controls() -> tuple[Control, ...]:
    """(get, set) of every OpenBLAS loaded in the process (found once). scipy's is loaded
    first, by the L-BFGS-B routine that links it (else by scipy.optimize, the fallback)."""
    if not fast_path_available():
        import scipy.optimize  # noqa: F401  (why here: a 0.6 s import only when needed)
    found: list[Control] = []
    try:
        with open("/proc/self/maps") as fh:
            libs = {line.split()[-1] for line in fh if "openblas" in line.lower() and "/" in line}
    except OSError:
        return ()
    for path in sorted(libs):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _NAMES:
            get = getattr(lib, get_name, None)
            setf = getattr(lib, set_name, None)
            if get is not None and setf is not None:
                get.restype = ctypes.c_int
                setf.argtypes = [ctypes.c_int]
                found.append((get, setf))
                break
    return tuple(found)


class _Shared:
    """The one save of the thread counts while any single-thread section is open."""

    lock = threading.Lock()
    depth = 0
    saved: list[int] = []


def thread_counts() -> list[int]:
    """The current OpenBLAS thread count of each library (for tests and diagnostics)."""
    return [get() for get, _set in _controls()]


@contextmanager
def single_thread_blas() -> Iterator[None]:
    ctl = _controls()
    with _Shared.lock:
        if _Shared.depth == 0:
            _Shared.saved = [get() for get, _set in ctl]
            for _get, setf in ctl:
                setf(1)
        _Shared.depth += 1
    try:
        yield
    finally:
        with _Shared.lock:
            _Shared.depth -= 1
            if _Shared.depth == 0:
                for (_get, setf), n in zip(ctl, _Shared.saved, strict=True):
                    setf(n)
