"""What every casebook store does with its database: transactions (readers take a snapshot,
writers `BEGIN IMMEDIATE` on SQLite), driver errors turned into `CasebookUnavailable`, the schema
brought to `SCHEMA_VERSION`, and the read-only stand-in for a casebook not created yet, which
looks for the real one again. `CaseStore` (`cache.casebook.store`) adds cases and collections.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from cache.casebook import schema
from cache.casebook.engine import unavailable
from cache.casebook.errors import CasebookReadOnly, CasebookSchemaTooNew, CasebookUnavailable
from cache.casebook.schema import meta, read_schema_version, set_schema_version
from cache.errors import DataError

RECHECK_SECONDS = 5.0  # how often a read-only stand-in looks for a casebook created since


class StoreBase:
    """One database: its engine, transactions, driver errors and schema version. Thread-safe (one
    engine, pooled connections); several processes may open the same database."""

    def __init__(self, engine: Engine, readonly: bool = False, where: str | None = None) -> None:
        self.engine = engine
        self.readonly = readonly
        self._writer = engine.execution_options(casebook_write=True)
        self._keepalive: sqlite3.Connection | None = None  # see `store._empty_store`
        self._reopen: Callable[[], StoreBase | None] | None = None  # ditto
        self._looked = time.monotonic()
        self._swap = threading.Lock()
        u = engine.url
        self.where = where or (
            (u.database or ":memory:")
            if u.get_backend_name() == "sqlite"
            else u.render_as_string(hide_password=True)
        )

    @contextmanager
    def _errors(self, integrity: DataError | None = None) -> Iterator[None]:
        """Driver errors as DataErrors; `integrity`: what a constraint violation means here."""
        try:
            yield
        except sa.exc.IntegrityError as exc:
            raise (
                integrity
                or CasebookUnavailable(
                    "a change made meanwhile in another session conflicted with this one; "
                    "nothing was saved",
                    "reload and retry",
                )
            ) from exc
        except (sa.exc.DBAPIError, sa.exc.OperationalError, sqlite3.Error) as exc:
            raise unavailable(exc, self.where) from exc
        except sa.exc.SQLAlchemyError as exc:
            raise unavailable(exc, self.where) from exc

    @property
    def exists(self) -> bool:
        """False while this is a read-only stand-in for a casebook not created yet."""
        return self._reopen is None

    def _look_again(self) -> None:
        """A stand-in looks for the real casebook again (at most every RECHECK_SECONDS), so a
        read-only server shows the cases once someone creates it, without a restart."""
        with self._swap:
            reopen = self._reopen
            if reopen is None or time.monotonic() - self._looked < RECHECK_SECONDS:
                return
            real = reopen()  # raises as opening it would (a corrupt file, a newer schema)
            self._looked = time.monotonic()
            if real is None:
                return
            stand_in, keep = self.engine, self._keepalive
            self.engine, self._writer, self.where = real.engine, real._writer, real.where
            self._keepalive, self._reopen = None, None
        stand_in.dispose()  # reads still running keep the in-memory database until they end
        if keep is not None:
            keep.close()

    @contextmanager
    def _tx(self, write: bool = False, integrity: DataError | None = None) -> Iterator[Connection]:
        if self._reopen is not None:
            self._look_again()
        if write and self.readonly:
            raise CasebookReadOnly()
        with self._errors(integrity), (self._writer if write else self.engine).begin() as conn:
            yield conn

    def migrate(self) -> int:
        """Bring the schema to SCHEMA_VERSION (called by `open_store`); returns the version.
        Concurrent openers race harmlessly: each step re-reads the version inside its own
        transaction, and a step that lost the race is retried."""
        target = len(schema.MIGRATIONS)
        attempt = 0
        while True:
            with self._tx() as conn:
                version = read_schema_version(conn)
            if version > target:
                raise CasebookSchemaTooNew(
                    f"the casebook at {self.where} has schema version {version}, "
                    f"newer than this explorer's {target}",
                    "upgrade the explorer, or point RTE_DB_URL at another casebook; "
                    "the database was not changed",
                )
            if version == target or (self.readonly and version == 0):
                return version  # 0: nothing to read yet; `open_store` serves it empty
            if self.readonly:
                raise CasebookUnavailable(
                    f"the casebook at {self.where} is at schema version {version} (needs "
                    f"{target}) and is opened read-only",
                    "open it once without RTE_CASEBOOK=readonly to create or upgrade it",
                )
            try:
                with self._writer.begin() as conn:
                    version = read_schema_version(conn)
                    if 0 <= version < target:
                        if version == 0:
                            meta.create(conn, checkfirst=True)
                        schema.MIGRATIONS[version](conn)
                        set_schema_version(conn, version + 1)
            except (sa.exc.SQLAlchemyError, sqlite3.Error) as exc:
                # a concurrent opener created the same table first (PostgreSQL): look again
                attempt += 1
                if attempt >= 5 or isinstance(exc, sa.exc.OperationalError | sqlite3.Error):
                    raise unavailable(exc, self.where) from exc
                time.sleep(0.05 * attempt)

    def close(self) -> None:
        self.engine.dispose()
        if self._keepalive is not None:
            self._keepalive.close()

    def schema_version(self) -> int:
        with self._tx() as conn:
            return read_schema_version(conn)
