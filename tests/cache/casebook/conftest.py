"""Fixtures for the casebook: a real, throwaway PostgreSQL server (Debian's binaries, a temp
cluster on a free port; never skipped: `tests/setup.sh` installs it) and a fresh store URL per
test on each backend (`sqlite` file, `postgres` database)."""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from cache.casebook import CaseStore, open_store

_counter = itertools.count()


def _pg_bin() -> Path:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4])
    )
    if not found:
        pytest.fail(
            "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb): "
            "run `bash tests/setup.sh`, which installs Debian's postgresql",
            pytrace=False,
        )
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(cmd: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the `postgres` system user then."""
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def _run(cmd: list[str], what: str) -> None:
    out = subprocess.run(_as_postgres(cmd), capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        pytest.fail(f"{what} failed: {out.stdout}\n{out.stderr}", pytrace=False)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A running server; yields the admin URL (database `postgres`, trust auth over TCP)."""
    bindir = _pg_bin()
    root = Path(tempfile.mkdtemp(prefix="rte-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    data, log = root / "data", root / "server.log"
    _run(
        [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"]
        + ["--no-locale", "--no-sync"],
        "initdb",
    )
    port = _free_port()
    opts = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    _run(
        [str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(log), "-w", "start"],
        "pg_ctl start",
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        _stop(data)
        shutil.rmtree(root, ignore_errors=True)


def _stop(data: Path) -> None:
    """Immediate shutdown: SIGQUIT to the postmaster, SIGKILL if it lingers (a throwaway
    cluster; its backends exit on their own once the postmaster is gone)."""
    try:
        pid = int((data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGQUIT)
    except (OSError, ValueError, IndexError):
        return
    for step in range(200):
        try:
            os.kill(pid, signal.SIGKILL if step == 10 else 0)
            if "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text():
                return  # exited; waiting for its parent to reap it
        except (ProcessLookupError, FileNotFoundError):
            return
        time.sleep(0.05)


def fresh_pg_url(server: str) -> str:
    """The URL of an empty casebook on the test server: a new schema (made the connection's
    search_path) in one shared database, which is instant where a database per test costs
    a copy of the template on disk."""
    name = f"t_{os.getpid()}_{next(_counter)}"
    plain = server.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(f"{plain}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = 'casebook'").fetchone()
        if not exists:
            conn.execute("CREATE DATABASE casebook")
    with psycopg.connect(f"{plain}/casebook", autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    return f"{server}/casebook?options=-csearch_path%3D{name}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of an empty casebook database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'casebook.sqlite'}"
    return fresh_pg_url(request.getfixturevalue("pg_server"))


@pytest.fixture
def store(db_url: str) -> Iterator[CaseStore]:
    s = open_store(db_url, readonly=False)
    yield s
    s.close()
