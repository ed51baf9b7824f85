"""Where the casebook lives and how to talk to it: database URLs, SQLAlchemy engines, and what a
driver error means for a person.

`RTE_DB_URL` names the database (a plain path is a SQLite file), else
`<cache folder>/casebook.sqlite`. SQLite runs in WAL mode with a busy timeout, and write
transactions start with `BEGIN IMMEDIATE`, so several sessions and processes can write at once.
Every database failure becomes a `CasebookUnavailable` saying what is wrong and what to do.
"""

from __future__ import annotations

import os
import re
import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine

from cache.casebook.errors import CasebookUnavailable
from cache.paths import cache_root

DB_URL_ENV = "RTE_DB_URL"


def unavailable(exc: BaseException, where: str) -> CasebookUnavailable:
    """What a driver error means for a person, and what to do about it."""
    orig = getattr(exc, "orig", None) or exc
    text = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    low = text.lower()
    if "locked" in low or "busy" in low:
        return CasebookUnavailable(
            f"the casebook at {where} is locked by another process or session",
            "another process holds a lock: retry in a moment (close other writers if it persists)",
        )
    if "readonly" in low or "read-only" in low or "permission denied" in low:
        return CasebookUnavailable(
            f"the casebook at {where} is read-only ({text})",
            "fix the permissions of the file and its folder, point RTE_DB_URL elsewhere, "
            "or set RTE_CASEBOOK=readonly to browse it",
        )
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return CasebookUnavailable(
            f"the casebook file {where} is corrupt ({text})",
            "the file is corrupt: move it away (keep it for recovery); "
            "a new casebook will be created on the next start",
        )
    if "unable to open database" in low:
        return CasebookUnavailable(
            f"cannot open the casebook file {where}",
            "check that its folder exists and is writable, or set RTE_DB_URL / RTE_CACHE_DIR",
        )
    if "disk is full" in low or "no space" in low or "disk i/o" in low:
        return CasebookUnavailable(
            f"the disk holding the casebook at {where} failed ({text})",
            "free some space or check the disk, then retry",
        )
    if "password" in low or "authentication" in low or "role" in low and "exist" in low:
        return CasebookUnavailable(
            f"the database at {where} refused the login ({text})",
            "check the user and password in RTE_DB_URL",
        )
    if "database" in low and "does not exist" in low:
        return CasebookUnavailable(
            f"the database named in {where} does not exist",
            "create it (createdb) or fix RTE_DB_URL",
        )
    if any(
        s in low
        for s in ("connect", "timeout", "timed out", "server closed", "terminat", "host", "network")
    ):
        return CasebookUnavailable(
            f"cannot reach the casebook database at {where} ({text})",
            "check RTE_DB_URL and that the database server is running and reachable, then retry",
        )
    return CasebookUnavailable(
        f"the casebook database at {where} failed: {text}",
        "check RTE_DB_URL (or the casebook file) and retry",
    )


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def default_path() -> Path:
    """The casebook file when RTE_DB_URL is not set (the only folder the explorer creates)."""
    return cache_root() / "casebook.sqlite"


def _path_url(path: str | Path) -> str:
    """The SQLite URL of a file path (made absolute, so messages name the real folder)."""
    u = sa.engine.URL.create("sqlite", database=str(Path(path).expanduser().absolute()))
    return u.render_as_string(hide_password=False)


def as_url(value: str) -> str:
    """A database URL; a plain path (no `scheme:`), absolute or relative, is a SQLite file."""
    return value if _SCHEME.match(value) else _path_url(value)


def default_url() -> str:
    explicit = os.environ.get(DB_URL_ENV, "").strip()
    return as_url(explicit) if explicit else _path_url(default_path())


def parse_url(url: str | URL) -> URL:
    try:
        return sa.engine.make_url(url)
    except sa.exc.ArgumentError as exc:
        raise CasebookUnavailable(
            f"the casebook URL {url!r} is not a database URL",
            "set RTE_DB_URL to a file path, e.g. /srv/casebook.sqlite, or a URL, e.g. "
            "sqlite:////path/casebook.sqlite or postgresql+psycopg://user:pass@host/db",
        ) from exc


def make_engine(url: str | URL, timeout: float) -> Engine:
    u = parse_url(url)
    backend = u.get_backend_name()
    if backend == "postgresql" and u.drivername == "postgresql":
        u = u.set(drivername="postgresql+psycopg")  # the driver we depend on
    try:
        if backend == "sqlite":
            engine = sa.create_engine(
                u, connect_args={"timeout": timeout, "check_same_thread": False}
            )
            sqlite_events(engine, timeout)
        else:
            connect_args = (
                {"connect_timeout": max(1, round(timeout))} if backend == "postgresql" else {}
            )
            engine = sa.create_engine(u, pool_pre_ping=True, connect_args=connect_args)
    except (sa.exc.NoSuchModuleError, ModuleNotFoundError) as exc:
        raise CasebookUnavailable(
            f"no database driver for {u.drivername!r}",
            "use sqlite:///... or postgresql+psycopg://... in RTE_DB_URL",
        ) from exc
    return engine


def sqlite_events(engine: Engine, timeout: float) -> None:
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        try:
            cur.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            # a read-only file keeps its journal mode; a write then says it is read-only
            with suppress(sqlite3.OperationalError):
                cur.execute("PRAGMA journal_mode = WAL")
            cur.execute("PRAGMA foreign_keys = ON")
            cur.execute("PRAGMA synchronous = NORMAL")  # safe in WAL mode
        finally:
            cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # writers take the lock up front, so a reader never has to upgrade (no SQLITE_BUSY
        # without waiting); readers use a deferred snapshot
        write = conn.get_execution_options().get("casebook_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def sqlite_file(u: URL) -> Path | None:
    """The file a SQLite URL names (None for an in-memory database)."""
    db = u.database or ""
    if db in ("", ":memory:") or u.query.get("mode") == "memory":
        return None
    if db.startswith("file:"):
        db = unquote(urlsplit(db).path)
    return Path(db).expanduser().absolute()


def readonly_url(u: URL, path: Path) -> URL:
    """SQLite's own read-only mode, so a read-only store can never write (or create) the file."""
    if (u.database or "").startswith("file:"):
        return u  # a URI already: its own mode stands
    return sa.engine.URL.create(
        "sqlite", database=f"file:{quote(str(path))}", query={"mode": "ro", "uri": "true"}
    )
