"""Run tiny BLAS/LAPACK work single-threaded.

Why: the q-model fit is ~50 L-BFGS-B steps on a 6-parameter problem; with OpenBLAS threads on
a busy 2-core machine each tiny BLAS call waits on thread hand-offs (measured 10x slower).
We switch numpy's and scipy's bundled OpenBLAS to one thread around the fit and restore the
previous count. Results do not depend on the thread count. No-op if the symbols are missing.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

_NAMES = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
)


@lru_cache(maxsize=1)
def _controls() -> tuple:
    import numpy  # noqa: F401  (loads the libraries)
    import scipy.optimize  # noqa: F401

    found = []
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


@contextmanager
def single_thread_blas() -> Iterator[None]:
    ctl = _controls()
    before = [get() for get, _set in ctl]
    for _get, setf in ctl:
        setf(1)
    try:
        yield
    finally:
        for (_get, setf), n in zip(ctl, before, strict=True):
            setf(n)
