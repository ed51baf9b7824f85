"""Database failures become `CasebookUnavailable` with a hint, never a raw driver error: a locked,
read-only or corrupt SQLite file, an unreachable or dropped PostgreSQL connection, a bad URL."""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
import time
from pathlib import Path

import psycopg
import pytest

from cache.casebook import CasebookUnavailable, make_case, open_store
from tests.cache.casebook.conftest import fresh_pg_url


def test_locked_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "casebook.sqlite"
    store = open_store(f"sqlite:///{path}", readonly=False, timeout=0.3)
    first = store.add(make_case("mars", "mars"))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        t = time.perf_counter()
        with pytest.raises(CasebookUnavailable) as err:
            store.add(make_case("mars", "mars"))
        assert time.perf_counter() - t < 5
        assert "locked" in err.value.message and "retry" in err.value.hint
        assert store.get(first.id) == first  # readers are not blocked (WAL)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store.add(make_case("mars", "mars"))  # and once the lock is gone, writes work again
    assert store.count() == 2
    store.close()


def test_read_only_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "casebook.sqlite"
    rw = open_store(f"sqlite:///{path}", readonly=False)
    case = rw.add(make_case("mars", "mars"))
    rw.close()
    # the driver's view of a file it may not write (root ignores chmod, so open it read-only)
    ro = open_store(f"sqlite:///file:{path}?mode=ro&uri=true", readonly=False)
    try:
        assert ro.get(case.id) == case
        with pytest.raises(CasebookUnavailable) as err:
            ro.add(make_case("mars", "mars"))
        assert "read-only" in err.value.message and "RTE_CASEBOOK=readonly" in err.value.hint
    finally:
        ro.close()
    if os.geteuid() != 0:  # a real read-only file and folder, where permissions apply
        path.chmod(stat.S_IRUSR)
        tmp_path.chmod(stat.S_IRUSR | stat.S_IXUSR)
        try:
            with pytest.raises(CasebookUnavailable):
                open_store(f"sqlite:///{path}", readonly=False).add(make_case("mars", "mars"))
        finally:
            tmp_path.chmod(stat.S_IRWXU)


@pytest.mark.parametrize(
    "content", [b"not a database at all\n" * 300, b"SQLite format 3\x00" + b"\xff" * 5000]
)
def test_corrupt_sqlite_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "casebook.sqlite"
    path.write_bytes(content)
    with pytest.raises(CasebookUnavailable) as err:
        open_store(f"sqlite:///{path}", readonly=False)
    assert "corrupt" in err.value.message and "move it away" in err.value.hint
    assert path.read_bytes() == content  # left for recovery
    path.rename(tmp_path / "casebook.sqlite.bad")  # what the hint says; then a new one works
    store = open_store(f"sqlite:///{path}", readonly=False)
    assert store.count() == 0
    store.close()


def test_unopenable_sqlite_path(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(CasebookUnavailable) as err:
        open_store(f"sqlite:///{tmp_path / 'a-file' / 'casebook.sqlite'}", readonly=False)
    assert "RTE_DB_URL" in err.value.hint


def test_unreachable_postgres_is_quick() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends
    for url in (
        f"postgresql+psycopg://u:secret@127.0.0.1:{port}/casebook",
        f"postgresql://u@127.0.0.1:{port}/casebook",  # the plain scheme uses psycopg too
    ):
        t = time.perf_counter()
        with pytest.raises(CasebookUnavailable) as err:
            open_store(url, readonly=False, timeout=2)
        assert time.perf_counter() - t < 5
        assert "cannot reach" in err.value.message and "RTE_DB_URL" in err.value.hint
        assert "secret" not in str(err.value)


def test_bad_urls() -> None:
    for url in ("sqlite:relative", "nosuchdb://x/y"):  # a plain path is a SQLite file
        with pytest.raises(CasebookUnavailable) as err:
            open_store(url, readonly=False)
        assert "RTE_DB_URL" in err.value.hint


def test_missing_postgres_database(pg_server: str) -> None:
    with pytest.raises(CasebookUnavailable) as err:
        open_store(f"{pg_server}/no_such_db", readonly=False)
    assert "does not exist" in err.value.message


def test_dropped_postgres_connections_are_replaced(pg_server: str) -> None:
    url = fresh_pg_url(pg_server)
    store = open_store(url, readonly=False)
    store.add(make_case("mars", "mars"))
    with store.engine.connect() as conn:  # the one pooled connection
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    plain = pg_server.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(f"{plain}/postgres", autocommit=True) as admin:
        killed = admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()
    assert killed == (True,)  # the server dropped the pooled connection
    assert store.count() == 1  # pool_pre_ping notices and reconnects
    store.close()
