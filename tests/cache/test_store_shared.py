"""Shared derived tables: two processes on one cache folder build a table once; a killed build
leaves nothing that passes for a finished table; a read-only or full cache folder says so."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest

from cache import store
from cache.errors import CacheUnwritable

REPO = Path(__file__).resolve().parents[2]

# Runs in a child process: waits for a go file, then asks for the Parason metrics table of one
# file; every call of the real build is logged, and so is each progress message the child saw.
_CHILD = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from cache import store

    src, go, log, out = (Path(a) for a in sys.argv[1:5])
    real = store.derived_table

    def counting(name, version, sources, build, **kw):
        def logged(progress):
            with open(log, "a") as fh:
                fh.write(f"{os.getpid()} {name}\\n")
            time.sleep(1.5)  # keep the build open long enough for the other process to arrive
            return build(progress)
        return real(name, version, sources, logged, **kw)

    store.derived_table = counting  # read_derived looks it up in the module at call time
    from analysis.parason.store import metrics_table

    seen = []
    while not go.exists():
        time.sleep(0.01)
    df = metrics_table(src, progress=lambda f, m="": seen.append(m))
    out.write_text(json.dumps({"rows": df.height, "hash": int(df.hash_rows().sum()),
                               "messages": seen}))
    """
)


def _env(cache: Path) -> dict[str, str]:
    return dict(os.environ, RTE_CACHE_DIR=str(cache), PYTHONPATH=str(REPO))


def test_two_processes_build_one_table_once_and_both_read_it(
    sample_root: Path, tmp_path: Path
) -> None:
    from analysis.parason.store import compute_table

    src = sample_root / "parason" / "sft-1x" / "train.parquet"
    cache, go, log = tmp_path / "shared-cache", tmp_path / "go", tmp_path / "builds.log"
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(src), str(go), str(log), str(out)],
            cwd=REPO,
            env=_env(cache),
        )
        for out in outs
    ]
    time.sleep(3.0)  # both children imported and are polling for the go file
    go.touch()
    for p in procs:
        assert p.wait(timeout=120) == 0
    builds = log.read_text().splitlines()
    assert len(builds) == 1, builds  # built once ...
    a, b = (json.loads(o.read_text()) for o in outs)
    expected = compute_table(src, "estimate")
    assert a["rows"] == b["rows"] == expected.height > 0  # ... both read it ...
    assert a["hash"] == b["hash"] == int(expected.hash_rows().sum())  # ... and it is correct
    waiter = a if not any("another session" in m for m in b["messages"]) else b
    assert any("another session is building parason-metrics" in m for m in waiter["messages"])
    derived = cache / "derived"
    assert len(list(derived.glob("parason-*.parquet"))) == 1
    assert not list(derived.glob(".*.tmp"))


# A child that holds the build lock and dies mid-write (half a parquet in its temp file).
_DYING = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import polars as pl
    import pyarrow.parquet as pq
    from cache import store

    src, ready = Path(sys.argv[1]), Path(sys.argv[2])

    def half_then_hang(table, where, **kw):
        Path(where).write_bytes(b"PAR1 half a table")
        ready.touch()
        time.sleep(600)

    pq.write_table = half_then_hang
    store.derived_table("t-killed", 1, [src], lambda p: pl.DataFrame({"x": [1, 2, 3]}))
    """
)


def test_killed_build_leaves_nothing_that_passes_for_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src.txt"
    src.write_text("v1")
    cache, ready = tmp_path / "cache", tmp_path / "ready"
    child = subprocess.Popen(
        [sys.executable, "-c", _DYING, str(src), str(ready)], cwd=REPO, env=_env(cache)
    )
    try:
        deadline = time.time() + 60
        while not ready.exists():
            assert child.poll() is None and time.time() < deadline
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    monkeypatch.setenv("RTE_CACHE_DIR", str(cache))
    dest = store.table_path("t-killed", 1, [src])
    assert not dest.exists()  # the half write never got the table's name
    leftovers = list(dest.parent.glob(f".{dest.name}.*.tmp"))
    assert leftovers and all(not p.name.endswith(".parquet") for p in leftovers)
    calls: list[int] = []

    def build(progress: object = None) -> pl.DataFrame:
        calls.append(1)
        return pl.DataFrame({"x": [1, 2, 3]})

    t0 = time.monotonic()
    got = store.read_derived("t-killed", 1, [src], build)
    assert time.monotonic() - t0 < 5  # the dead builder's lock went with it
    assert calls == [1] and got["x"].to_list() == [1, 2, 3]


def test_waiter_sees_the_builders_progress(tmp_path: Path) -> None:
    """In one process, a second thread waits on the lock and shows the builder's own progress."""
    import threading

    src = tmp_path / "src.txt"
    src.write_text("v1")
    started, release = threading.Event(), threading.Event()

    def slow(progress):  # type: ignore[no-untyped-def]
        progress(0.4, "step 4 of 10")
        started.set()
        release.wait(10)
        return pl.DataFrame({"x": [7]})

    result: list[pl.DataFrame] = []
    builder = threading.Thread(
        target=lambda: result.append(store.read_derived("t-wait", 1, [src], slow))
    )
    builder.start()
    assert started.wait(10)
    seen: list[tuple[float, str]] = []

    def never(progress: object = None) -> pl.DataFrame:
        raise AssertionError("the waiter must not build")

    waiter = threading.Thread(
        target=lambda: result.append(
            store.read_derived(
                "t-wait", 1, [src], never, progress=lambda f, m="": seen.append((f, m))
            )
        )
    )
    waiter.start()
    time.sleep(1.5)
    release.set()
    builder.join(10)
    waiter.join(10)
    assert len(result) == 2 and all(r["x"].to_list() == [7] for r in result)
    assert seen[0][1].startswith("another session is building t-wait")
    assert any(f == pytest.approx(0.4) and "step 4 of 10" in m for f, m in seen)


@pytest.mark.parametrize("err", [errno.EROFS, errno.ENOSPC, errno.EACCES])
def test_unwritable_cache_is_a_clear_error_and_built_tables_stay_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, err: int
) -> None:
    src = tmp_path / "src.txt"
    src.write_text("v1")
    built = store.read_derived("t-ro-old", 1, [src], lambda p: pl.DataFrame({"x": [1]}))

    def refuse(*a: object, **k: object) -> None:
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(store.pq, "write_table", refuse)
    with pytest.raises(CacheUnwritable) as exc:
        store.read_derived("t-ro-new", 1, [src], lambda p: pl.DataFrame({"x": [2]}))
    assert "t-ro-new" in exc.value.message and "RTE_CACHE_DIR" in exc.value.hint
    word = "full" if err == errno.ENOSPC else "not writable"
    assert word in exc.value.message
    # a table built before still reads
    assert store.read_derived("t-ro-old", 1, [src], lambda p: pl.DataFrame())["x"].to_list() == [1]
    assert built.equals(pl.DataFrame({"x": [1]}))


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_cache_folder_for_real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src.txt"
    src.write_text("v1")
    ro = tmp_path / "ro"
    ro.mkdir()
    monkeypatch.setenv("RTE_CACHE_DIR", str(ro))
    ro.chmod(0o555)
    try:
        with pytest.raises(CacheUnwritable):
            store.read_derived("t-ro", 1, [src], lambda p: pl.DataFrame({"x": [1]}))
    finally:
        ro.chmod(0o755)
