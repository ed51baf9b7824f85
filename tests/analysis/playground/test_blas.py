"""The single-thread BLAS switch is scoped: nested and overlapping sections (the app runs
sessions in threads) leave the process's thread counts as they were."""

from __future__ import annotations

import threading
import time

import numpy as np

from analysis.playground.blas import blas_libraries, single_thread_blas, thread_counts


def test_numpy_and_scipy_blas_are_found() -> None:
    """Without a library found every check below would pass on an empty list."""
    files = blas_libraries()
    numpy_blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]  # type: ignore[no-untyped-call]
    assert len(files) >= 2, files  # numpy's and scipy's (each wheel bundles its own)
    assert any("numpy" in f for f in files) and any("scipy" in f for f in files), files
    assert numpy_blas and len(thread_counts()) == len(files)
    assert all(n >= 1 for n in thread_counts())


def test_nested_and_overlapping_sections_restore_the_counts() -> None:
    before = thread_counts()
    with single_thread_blas():
        assert all(n == 1 for n in thread_counts())
        with single_thread_blas():
            assert all(n == 1 for n in thread_counts())
        assert all(n == 1 for n in thread_counts())  # the outer section is still open
    assert thread_counts() == before

    started = threading.Event()

    def worker() -> None:
        with single_thread_blas():
            started.set()
            time.sleep(0.05)

    t = threading.Thread(target=worker)
    with single_thread_blas():
        t.start()
        started.wait(5)
    # the main section left first, while the worker's was open: still 1 there
    t.join(5)
    assert thread_counts() == before


def test_an_exception_inside_still_restores() -> None:
    before = thread_counts()
    try:
        with single_thread_blas():
            raise ValueError("x")
    except ValueError:
        pass
    assert thread_counts() == before
