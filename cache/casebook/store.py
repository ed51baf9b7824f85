"""The casebook store: cases and collections in SQLite (default) or PostgreSQL, through one
SQLAlchemy Core code path.

`open_store()` picks `RTE_DB_URL`, else `<cache folder>/casebook.sqlite`; `RTE_CASEBOOK=readonly`
opens it read-only (every write raises `CasebookReadOnly`). Opening creates or upgrades the schema
(`cache.casebook.schema`); a read-only casebook that does not exist yet opens empty.

The store is assembled from one module per concern: `engine` (URLs, engines, driver errors),
`schema` (tables, migrations), `rows` (a case as a row), `store_base` (transactions, migration,
the read-only stand-in), `case_ops` (cases), `collection_ops` (collections), `queue_ops`
(triage queues), `merge` (imports).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL

from cache.casebook.case_ops import CaseOps, Sort
from cache.casebook.collection_ops import CollectionOps
from cache.casebook.engine import (
    DB_URL_ENV,
    as_url,
    default_path,
    default_url,
    make_engine,
    parse_url,
    readonly_url,
    sqlite_events,
    sqlite_file,
)
from cache.casebook.errors import CasebookUnavailable
from cache.casebook.model import new_id
from cache.casebook.queue_ops import QueueOps
from cache.casebook.rows import decode_note, encode_note
from cache.casebook.schema import MIGRATIONS, SCHEMA_VERSION, read_schema_version

__all__ = [
    "DB_URL_ENV",
    "DEFAULT_TIMEOUT",
    "MIGRATIONS",
    "MODE_ENV",
    "SCHEMA_VERSION",
    "CaseStore",
    "Sort",
    "as_url",
    "decode_note",
    "default_path",
    "default_url",
    "encode_note",
    "open_store",
    "read_schema_version",
]

MODE_ENV = "RTE_CASEBOOK"
DEFAULT_TIMEOUT = 10.0


class CaseStore(CaseOps, CollectionOps, QueueOps):
    """Cases, collections and triage queues in one database. Thread-safe (one engine, pooled connections);
    several processes may open the same database. Open it with `open_store`."""


def _check_folder(path: Path, readonly: bool) -> None:
    """Only the default location's folder is created (by a writer): a folder named in
    RTE_DB_URL that does not exist is a typo or an unmounted volume, so it is reported."""
    folder = path.parent
    if folder.is_dir():
        return
    if path == default_path().expanduser().absolute():
        if not readonly:
            with suppress(OSError):  # if it cannot be made, opening says so
                folder.mkdir(parents=True, exist_ok=True)
        return
    raise CasebookUnavailable(
        f"the folder {folder} of the casebook file {path.name} does not exist (or is not a folder)",
        f"create it first (mkdir -p {folder}) or set RTE_DB_URL to a file in an existing "
        "folder; the explorer creates no folder named in RTE_DB_URL",
    )


def _empty_store(where: str, reopen: Callable[[], CaseStore | None], timeout: float) -> CaseStore:
    """A read-only casebook that does not exist yet: it reads as empty and is not created. Its
    reads go to an empty schema in a shared in-memory database, kept alive by one connection;
    `reopen` looks for the real one (see `StoreBase._look_again`)."""
    name = f"file:rte-empty-casebook-{new_id()}"
    keep = sqlite3.connect(f"{name}?mode=memory&cache=shared", uri=True, check_same_thread=False)
    query = {"mode": "memory", "cache": "shared", "uri": "true"}
    engine = sa.create_engine(
        sa.engine.URL.create("sqlite", database=name, query=query),
        poolclass=sa.pool.QueuePool,
        connect_args={"timeout": timeout, "check_same_thread": False},
    )
    sqlite_events(engine, timeout)
    store = CaseStore(engine, readonly=False, where=where)
    store._keepalive = keep
    try:
        store.migrate()
    except BaseException:
        store.close()
        raise
    store.readonly = True
    store._reopen = reopen
    return store


def _open_existing(u: URL, path: Path | None, readonly: bool, timeout: float) -> CaseStore | None:
    """The casebook at `u` (created or upgraded unless read-only), or None when it is read-only
    and does not exist yet."""
    if path is not None and readonly:
        if not path.is_file() or path.stat().st_size == 0:
            return None
        u = readonly_url(u, path)
    where = None if path is None else str(path)
    store = CaseStore(make_engine(u, timeout), readonly=readonly, where=where)
    try:
        version = store.migrate()
    except BaseException:
        store.close()
        raise
    if version == 0:  # read-only, and no casebook there yet
        store.close()
        return None
    return store


def open_store(
    url: str | None = None, readonly: bool | None = None, *, timeout: float = DEFAULT_TIMEOUT
) -> CaseStore:
    """Open (creating or upgrading the schema) the casebook at `url` (default `RTE_DB_URL`, else
    SQLite in the cache folder; a plain path is a SQLite file). `readonly` defaults to
    `RTE_CASEBOOK == "readonly"`; a read-only casebook that does not exist yet (no file, an
    empty one, a database without our tables) opens empty, is left uncreated, and is read
    once it exists. `timeout`: seconds to wait for a lock (SQLite) or a connection (PostgreSQL)."""
    if readonly is None:
        readonly = os.environ.get(MODE_ENV, "").strip().lower() == "readonly"
    u = parse_url(as_url(url or default_url()))
    path = sqlite_file(u) if u.get_backend_name() == "sqlite" else None
    if path is not None:
        _check_folder(path, readonly)
    store = _open_existing(u, path, readonly, timeout)
    if store is not None:
        return store
    where = str(path) if path is not None else u.render_as_string(hide_password=True)
    return _empty_store(where, lambda: _open_existing(u, path, True, timeout), timeout)
