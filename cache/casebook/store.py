"""The casebook store: cases and collections in SQLite (default) or PostgreSQL, through one
SQLAlchemy Core code path.

- `open_store()` picks `RTE_DB_URL`, else `<cache folder>/casebook.sqlite`; `RTE_CASEBOOK=readonly`
  opens it read-only (every write raises `CasebookReadOnly`).
- The schema is versioned in the `meta` table. `MIGRATIONS[i]` upgrades version i to i+1, each in
  its own transaction together with the version bump; to add v2, append one function. A database
  of a newer version is refused (`CasebookSchemaTooNew`) and left untouched.
- Edits are compare-and-set on `version` inside the UPDATE's WHERE (`EditConflict` carries what
  is stored). SQLite runs in WAL mode with a busy timeout, and write transactions start with
  `BEGIN IMMEDIATE`, so several sessions and processes can write at once.
- Every database failure becomes a `CasebookUnavailable` saying what is wrong and what to do.
- A note is stored exactly: a note holding a NUL or a lone surrogate (which neither SQLite's
  UTF-8 nor PostgreSQL's text can hold) is stored backslash-escaped, flagged in `note_escaped`.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, unquote, urlsplit

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine, Row

from cache.casebook.errors import (
    AlreadyExists,
    CasebookReadOnly,
    CasebookSchemaTooNew,
    CasebookUnavailable,
    EditConflict,
    ImportRejected,
    NotFound,
)
from cache.casebook.model import (
    Case,
    Collection,
    ImportReport,
    check_collection_name,
    item_key,
    new_id,
    normalize_tags,
    same_collection,
    same_content,
    validate_case,
    validate_collection,
)
from cache.errors import DataError
from cache.paths import cache_root

DB_URL_ENV = "RTE_DB_URL"
MODE_ENV = "RTE_CASEBOOK"
DEFAULT_TIMEOUT = 10.0
RECHECK_SECONDS = 5.0  # how often a read-only stand-in looks for a casebook created since
Sort = Literal["updated", "created", "title", "dataset"]

# ------------------------------------------------------------------------------------ tables

metadata = sa.MetaData()

meta = sa.Table(
    "meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)


def _v1_tables(md: sa.MetaData) -> tuple[sa.Table, sa.Table, sa.Table]:
    """The layout of schema version 1. A later version that changes a table gets its own
    builder; this one stays as it is so that migration 1 keeps creating exactly v1."""
    cases = sa.Table(
        "cases",
        md,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("dataset", sa.String(32), nullable=False, index=True),
        sa.Column("view", sa.Text, nullable=False),
        sa.Column("query", sa.Text, nullable=False),  # JSON [[k, v], ...]
        sa.Column("source", sa.Text, nullable=False),  # JSON object
        sa.Column("item", sa.Text, nullable=False),  # JSON object
        sa.Column("item_key", sa.Text, nullable=False),  # canonical k=v&k=v, for badges
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("tags", sa.Text, nullable=False),  # JSON list
        sa.Column("verdict", sa.Text, nullable=True),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("note_escaped", sa.Boolean, nullable=False, default=False),
        sa.Column("search", sa.Text, nullable=False),  # casefolded title, tags, note
        sa.Column("author", sa.Text, nullable=False, index=True),
        sa.Column("created_at", sa.Double, nullable=False, index=True),
        sa.Column("updated_at", sa.Double, nullable=False, index=True),
        sa.Column("snapshot", sa.Text, nullable=False),  # JSON object
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("deleted_at", sa.Double, nullable=True),
    )
    collections = sa.Table(
        "collections",
        md,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, nullable=False, unique=True),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    items = sa.Table(
        "collection_items",
        md,
        sa.Column(
            "collection_id",
            sa.String(64),
            sa.ForeignKey("collections.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "case_id",
            sa.String(64),
            sa.ForeignKey("cases.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Index("ix_collection_items_order", "collection_id", "position"),
    )
    return cases, collections, items


cases_t, collections_t, items_t = _v1_tables(metadata)
_CASE_COLS = [c for c in cases_t.c if c.name not in ("search", "item_key")]

# -------------------------------------------------------------------------------- migrations

Migration = Callable[[Connection], None]


def _migrate_to_v1(conn: Connection) -> None:
    """v0 (empty, or a database without our tables) -> v1: create the tables."""
    md = sa.MetaData()
    _v1_tables(md)
    md.create_all(conn)


MIGRATIONS: list[Migration] = [_migrate_to_v1]
SCHEMA_VERSION = len(MIGRATIONS)


def read_schema_version(conn: Connection) -> int:
    """0 for a database without the `meta` table (a new or foreign one)."""
    if not sa.inspect(conn).has_table("meta"):
        return 0
    value = conn.execute(
        sa.select(meta.c.value).where(meta.c.key == "schema_version")
    ).scalar_one_or_none()
    return int(value) if value is not None else 0


def _set_schema_version(conn: Connection, version: int) -> None:
    conn.execute(sa.delete(meta).where(meta.c.key == "schema_version"))
    conn.execute(sa.insert(meta).values(key="schema_version", value=str(version)))


# ----------------------------------------------------------------------------- encoding rows

_NEEDS_ESCAPE = re.compile("[\x00\ud800-\udfff]")
_ESCAPE = re.compile("[\\\\\x00\ud800-\udfff]")
_UNESCAPE = re.compile(r"\\(\\|u[0-9a-f]{4})")


def encode_note(note: str) -> tuple[str, bool]:
    """(stored text, escaped?): plain when the database can hold it, else `\\` doubled and each
    NUL or lone surrogate as `\\uXXXX` (exactly reversible, no pairing of surrogates)."""
    if not _NEEDS_ESCAPE.search(note):
        return note, False
    return _ESCAPE.sub(
        lambda m: "\\\\" if m.group() == "\\" else f"\\u{ord(m.group()):04x}", note
    ), True


def decode_note(text: str, escaped: bool) -> str:
    if not escaped:
        return text
    return _UNESCAPE.sub(
        lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1)[1:], 16)), text
    )


def _fold(text: str) -> str:
    """Case-insensitive form for search, computed in Python so any script folds (SQLite's
    lower() only folds ASCII)."""
    return _NEEDS_ESCAPE.sub("", text).casefold()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def _row_values(case: Case) -> dict[str, Any]:
    note, escaped = encode_note(case.note)
    return {
        "id": case.id,
        "dataset": case.dataset,
        "view": case.view,
        "query": _json([list(p) for p in case.query]),
        "source": _json(case.source),
        "item": _json(case.item),
        "item_key": item_key(case.item),
        "title": case.title,
        "tags": _json(list(case.tags)),
        "verdict": case.verdict,
        "note": note,
        "note_escaped": escaped,
        "search": _fold("\n".join([case.title, *case.tags, case.note])),
        "author": case.author,
        "created_at": case.created_at,
        "updated_at": case.updated_at,
        "snapshot": _json(case.snapshot),
        "version": case.version,
        "deleted_at": case.deleted_at,
    }


_JSON_COLS = ("query", "source", "item", "tags", "snapshot")


def _cases(rows: Sequence[Row[Any]]) -> list[Case]:
    """Rows of `_CASE_COLS` as cases. Each JSON column is decoded for all rows in one
    `json.loads` of a joined array (10,000 rows: 5 calls instead of 50,000)."""
    if not rows:
        return []
    names = [c.name for c in _CASE_COLS]
    at = {n: i for i, n in enumerate(names)}
    decoded = {n: json.loads("[" + ",".join(r[at[n]] for r in rows) + "]") for n in _JSON_COLS}
    out = []
    for k, r in enumerate(rows):
        deleted = r[at["deleted_at"]]
        out.append(
            Case(
                id=r[at["id"]],
                dataset=r[at["dataset"]],
                view=r[at["view"]],
                query=tuple((q, v) for q, v in decoded["query"][k]),
                source=decoded["source"][k],
                item=decoded["item"][k],
                title=r[at["title"]],
                tags=tuple(decoded["tags"][k]),
                verdict=r[at["verdict"]],
                note=decode_note(r[at["note"]], bool(r[at["note_escaped"]])),
                author=r[at["author"]],
                created_at=float(r[at["created_at"]]),
                updated_at=float(r[at["updated_at"]]),
                snapshot=decoded["snapshot"][k],
                version=int(r[at["version"]]),
                deleted_at=None if deleted is None else float(deleted),
            )
        )
    return out


def _row_case(r: Row[Any]) -> Case:
    return _cases([r])[0]


def _parse_item_key(key: str) -> dict[str, str]:
    out = {}
    for part in key.split("&") if key else ():
        k, _, v = part.partition("=")
        out[unquote(k)] = unquote(v)
    return out


# ------------------------------------------------------------------------------------ errors


def _unavailable(exc: BaseException, where: str) -> CasebookUnavailable:
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


# ------------------------------------------------------------------------------------ engine


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


def _parse_url(url: str | URL) -> URL:
    try:
        return sa.engine.make_url(url)
    except sa.exc.ArgumentError as exc:
        raise CasebookUnavailable(
            f"the casebook URL {url!r} is not a database URL",
            "set RTE_DB_URL to a file path, e.g. /srv/casebook.sqlite, or a URL, e.g. "
            "sqlite:////path/casebook.sqlite or postgresql+psycopg://user:pass@host/db",
        ) from exc


def _make_engine(url: str | URL, timeout: float) -> Engine:
    u = _parse_url(url)
    backend = u.get_backend_name()
    if backend == "postgresql" and u.drivername == "postgresql":
        u = u.set(drivername="postgresql+psycopg")  # the driver we depend on
    try:
        if backend == "sqlite":
            engine = sa.create_engine(
                u, connect_args={"timeout": timeout, "check_same_thread": False}
            )
            _sqlite_events(engine, timeout)
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


def _sqlite_events(engine: Engine, timeout: float) -> None:
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


def _chunks(seq: Sequence[str], n: int = 500) -> Iterator[Sequence[str]]:
    for i in range(0, len(seq), n):
        yield seq[i : i + n]


def _missing_cases(conn: Connection, case_ids: Sequence[str]) -> list[str]:
    """The ids of `case_ids` that are not in the casebook, in their order."""
    found: set[str] = set()
    for chunk in _chunks(list(case_ids)):
        found.update(conn.execute(sa.select(cases_t.c.id).where(cases_t.c.id.in_(chunk))).scalars())
    return [c for c in case_ids if c not in found]


def _write_members(conn: Connection, cid: str, case_ids: Sequence[str]) -> None:
    conn.execute(sa.delete(items_t).where(items_t.c.collection_id == cid))
    if case_ids:
        conn.execute(
            sa.insert(items_t),
            [{"collection_id": cid, "case_id": c, "position": i} for i, c in enumerate(case_ids)],
        )


class _CollectionMerge:
    """An import's collections merged by id inside the import's transaction (see `merge`)."""

    def __init__(self, conn: Connection, where: Mapping[str, str]) -> None:
        self.conn = conn
        self.where = where

    def _label(self, col: Collection) -> str:
        return self.where.get(col.id) or f"collection {col.name!r}"

    def _check(self, col: Collection) -> None:
        missing = _missing_cases(self.conn, col.case_ids)
        if missing:
            raise ImportRejected(
                f"{self._label(col)}: collection {col.name!r} lists {len(missing)} case(s) that "
                f"are neither in the file nor in this casebook: {', '.join(missing[:5])}",
                "export the collection together with its cases; nothing was imported",
            )
        other = self.conn.execute(
            sa.select(collections_t.c.id).where(
                collections_t.c.name == col.name, collections_t.c.id != col.id
            )
        ).scalar_one_or_none()
        if other is not None:
            raise ImportRejected(
                f"{self._label(col)}: another collection named {col.name!r} (id {other}) is "
                "already in this casebook",
                "rename one of the two (in the Collections tab, or the name in the file) and "
                "import again; nothing was imported",
            )

    def _write(self, col: Collection, version: int, new: bool) -> None:
        values = {
            "name": col.name,
            "description": col.description,
            "created_at": col.created_at,
            "updated_at": col.updated_at,
            "version": version,
        }
        if new:
            self.conn.execute(sa.insert(collections_t).values(id=col.id, **values))
        else:
            q = sa.update(collections_t).where(collections_t.c.id == col.id)
            self.conn.execute(q.values(**values))
        _write_members(self.conn, col.id, col.case_ids)

    def run(self, cols: Sequence[Collection]) -> tuple[int, int, int, tuple[str, ...]]:
        """(added, updated, unchanged, kept ids), the same rules as for cases."""
        added = updated = unchanged = 0
        kept: list[str] = []
        for col in cols:
            old = CaseStore._collection(self.conn, col.id)
            if old is not None and same_collection(old, col):
                unchanged += 1
            elif old is not None and col.updated_at <= old.updated_at:
                unchanged += 1
                kept.append(col.id)
            else:
                self._check(col)
                self._write(col, col.version if old is None else old.version + 1, old is None)
                added, updated = (added + 1, updated) if old is None else (added, updated + 1)
        return added, updated, unchanged, tuple(kept)


# ------------------------------------------------------------------------------------- store


class CaseStore:
    """Cases and collections in one database. Thread-safe (one engine, pooled connections);
    several processes may open the same database. Open it with `open_store`."""

    def __init__(self, engine: Engine, readonly: bool = False, where: str | None = None) -> None:
        self.engine = engine
        self.readonly = readonly
        self._writer = engine.execution_options(casebook_write=True)
        self._keepalive: sqlite3.Connection | None = None  # see `_empty_store`
        self._reopen: Callable[[], CaseStore | None] | None = None  # ditto
        self._looked = time.monotonic()
        self._swap = threading.Lock()
        u = engine.url
        self.where = where or (
            (u.database or ":memory:")
            if u.get_backend_name() == "sqlite"
            else u.render_as_string(hide_password=True)
        )

    # ------------------------------------------------------------------ plumbing

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
            raise _unavailable(exc, self.where) from exc
        except sa.exc.SQLAlchemyError as exc:
            raise _unavailable(exc, self.where) from exc

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
        target = len(MIGRATIONS)
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
                        MIGRATIONS[version](conn)
                        _set_schema_version(conn, version + 1)
            except (sa.exc.SQLAlchemyError, sqlite3.Error) as exc:
                # a concurrent opener created the same table first (PostgreSQL): look again
                attempt += 1
                if attempt >= 5 or isinstance(exc, sa.exc.OperationalError | sqlite3.Error):
                    raise _unavailable(exc, self.where) from exc
                time.sleep(0.05 * attempt)

    def close(self) -> None:
        self.engine.dispose()
        if self._keepalive is not None:
            self._keepalive.close()

    def schema_version(self) -> int:
        with self._tx() as conn:
            return read_schema_version(conn)

    # ------------------------------------------------------------------ cases

    def add(self, case: Case) -> Case:
        """Insert a new case (validated and normalised); an id already present is refused."""
        case = validate_case(case)
        taken = AlreadyExists(
            f"a case with id {case.id} is already in the casebook",
            "edit that case, or capture a new one (a new id)",
        )
        with self._tx(write=True, integrity=taken) as conn:
            conn.execute(sa.insert(cases_t), _row_values(case))
        return case

    def get(self, case_id: str) -> Case | None:
        with self._tx() as conn:
            return self._get(conn, case_id)

    @staticmethod
    def _get(conn: Connection, case_id: str) -> Case | None:
        row = conn.execute(sa.select(*_CASE_COLS).where(cases_t.c.id == case_id)).first()
        return None if row is None else _row_case(row)

    def _must_get(self, conn: Connection, case_id: str) -> Case:
        case = self._get(conn, case_id)
        if case is None:
            raise NotFound(f"no case {case_id} in the casebook", "it may have been purged")
        return case

    def update(self, case: Case, expected_version: int) -> Case:
        """Save an edited case if the stored one is still at `expected_version`; else
        `EditConflict` carrying the stored case. Bumps version and updated_at."""
        case = validate_case(case)
        values = _row_values(case)
        for k in ("id", "created_at", "deleted_at", "version"):
            values.pop(k)
        values.update(version=expected_version + 1, updated_at=time.time())
        with self._tx(write=True) as conn:
            done = conn.execute(
                sa.update(cases_t)
                .where(cases_t.c.id == case.id, cases_t.c.version == expected_version)
                .values(**values)
            )
            stored = self._must_get(conn, case.id)
            if done.rowcount != 1:
                raise EditConflict(stored)
        return stored

    def _stamp(self, case_id: str, deleted_at: float | None) -> Case:
        now = time.time()
        with self._tx(write=True) as conn:
            conn.execute(
                sa.update(cases_t)
                .where(cases_t.c.id == case_id)
                .values(deleted_at=deleted_at, updated_at=now, version=cases_t.c.version + 1)
            )
            return self._must_get(conn, case_id)

    def delete(self, case_id: str) -> Case:
        """Soft delete (recoverable with `restore`)."""
        return self._stamp(case_id, time.time())

    def restore(self, case_id: str) -> Case:
        return self._stamp(case_id, None)

    def purge(self, case_id: str) -> bool:
        """Delete for good (also from collections); False when there was no such case."""
        with self._tx(write=True) as conn:
            conn.execute(sa.delete(items_t).where(items_t.c.case_id == case_id))
            return conn.execute(sa.delete(cases_t).where(cases_t.c.id == case_id)).rowcount > 0

    def list_cases(
        self,
        dataset: str | None = None,
        tags: Iterable[str] = (),
        verdict: str | None = None,
        author: str | None = None,
        text: str | None = None,
        include_deleted: bool = False,
        sort: Sort = "updated",
        descending: bool = True,
        limit: int | None = None,
    ) -> list[Case]:
        """Cases matching every filter given: all `tags`, `text` in title/note/tags (any case)."""
        order = {
            "updated": cases_t.c.updated_at,
            "created": cases_t.c.created_at,
            "title": cases_t.c.title,
            "dataset": cases_t.c.dataset,
        }.get(sort)
        if order is None:
            raise ValueError(f"unknown sort {sort!r}")
        want_tags = normalize_tags(tags)
        q = sa.select(*_CASE_COLS)
        if not include_deleted:
            q = q.where(cases_t.c.deleted_at.is_(None))
        if dataset is not None:
            q = q.where(cases_t.c.dataset == dataset)
        if verdict is not None:
            q = q.where(cases_t.c.verdict == verdict)
        if author is not None:
            q = q.where(cases_t.c.author == author)
        for t in want_tags:  # a cheap superset; exact below
            q = q.where(cases_t.c.tags.contains(_json(t), autoescape=True))
        if text and text.strip():
            q = q.where(cases_t.c.search.contains(_fold(text.strip()), autoescape=True))
        q = q.order_by(
            order.desc() if descending else order.asc(),
            cases_t.c.updated_at.desc(),
            cases_t.c.id,
        )
        if limit is not None and not want_tags:
            q = q.limit(limit)
        with self._tx() as conn:
            out = _cases(conn.execute(q).all())
        if want_tags:
            out = [c for c in out if all(t in c.tags for t in want_tags)]
        return out[:limit] if limit is not None else out

    def count(self, dataset: str | None = None, include_deleted: bool = False) -> int:
        q = sa.select(sa.func.count()).select_from(cases_t)
        if not include_deleted:
            q = q.where(cases_t.c.deleted_at.is_(None))
        if dataset is not None:
            q = q.where(cases_t.c.dataset == dataset)
        with self._tx() as conn:
            return int(conn.execute(q).scalar_one())

    def authors(self) -> list[str]:
        q = (
            sa.select(cases_t.c.author)
            .distinct()
            .where(cases_t.c.deleted_at.is_(None), cases_t.c.author != "")
        )
        with self._tx() as conn:
            return sorted(conn.execute(q).scalars(), key=str.casefold)

    def all_tags(self) -> list[str]:
        """Tags in use (live cases), most used first."""
        q = sa.select(cases_t.c.tags).where(cases_t.c.deleted_at.is_(None))
        counts: Counter[str] = Counter()
        with self._tx() as conn:
            for raw in conn.execute(q).scalars():
                counts.update(json.loads(raw))
        return sorted(counts, key=lambda t: (-counts[t], t.casefold()))

    def cases_for_item(self, dataset: str, **keys: str | int) -> list[Case]:
        """Live cases of `dataset` whose item holds all the given key/values (oldest first)."""
        want = {k: str(v) for k, v in keys.items()}
        q = sa.select(*_CASE_COLS).where(
            cases_t.c.dataset == dataset, cases_t.c.deleted_at.is_(None)
        )
        padded = sa.literal("&", sa.Text) + cases_t.c.item_key + sa.literal("&", sa.Text)
        for k, v in want.items():
            q = q.where(
                padded.contains(f"&{quote(k, safe='')}={quote(v, safe='')}&", autoescape=True)
            )
        with self._tx() as conn:
            rows = _cases(conn.execute(q.order_by(cases_t.c.created_at)).all())
        return [c for c in rows if all(c.item.get(k) == v for k, v in want.items())]

    def items_with_cases(self, dataset: str, key: str) -> dict[str, int]:
        """{value of item[key]: number of live cases} for one dataset (badges in tables)."""
        q = sa.select(cases_t.c.item_key).where(
            cases_t.c.dataset == dataset, cases_t.c.deleted_at.is_(None)
        )
        counts: Counter[str] = Counter()
        with self._tx() as conn:
            for raw in conn.execute(q).scalars():
                v = _parse_item_key(raw).get(key)
                if v is not None:
                    counts[v] += 1
        return dict(counts)

    def merge(
        self,
        incoming: Sequence[Case],
        collections: Sequence[Collection] = (),
        where: Mapping[str, str] | None = None,
    ) -> ImportReport:
        """Merge cases by id, then collections by id, in ONE transaction.

        A new id is added; an identical copy is left alone; a copy whose `updated_at` is newer
        replaces the stored one (its version becomes stored+1, so open editors see a conflict);
        an older copy loses. A collection must list cases that are in the casebook once the
        cases are merged, and may not take a name another collection holds (ImportRejected,
        nothing written). `where`: collection id -> where it came from ("line 7"), for messages.
        """
        todo = [validate_case(c) for c in incoming]
        cols = [validate_collection(c) for c in collections]
        raced = CasebookUnavailable(
            "another session added some of these cases during the import; nothing was imported",
            "retry the import",
        )
        with self._tx(write=True, integrity=raced) as conn:
            added, updated, unchanged, kept = self._merge_cases(conn, todo)
            col_counts = _CollectionMerge(conn, where or {}).run(cols)
        return ImportReport(added, updated, unchanged, tuple(kept), *col_counts)

    @staticmethod
    def _merge_cases(conn: Connection, todo: Sequence[Case]) -> tuple[int, int, int, list[str]]:
        added = updated = unchanged = 0
        kept: list[str] = []
        stored: dict[str, Case] = {}
        for chunk in _chunks([c.id for c in todo]):
            q = sa.select(*_CASE_COLS).where(cases_t.c.id.in_(chunk))
            stored.update((c.id, c) for c in _cases(conn.execute(q).all()))
        new = [_row_values(c) for c in todo if c.id not in stored]
        if new:
            conn.execute(sa.insert(cases_t), new)
            added = len(new)
        for c in todo:
            old = stored.get(c.id)
            if old is None:
                continue
            if same_content(old, c):
                unchanged += 1
            elif c.updated_at > old.updated_at:
                values = _row_values(replace(c, version=old.version + 1))
                conn.execute(sa.update(cases_t).where(cases_t.c.id == c.id).values(**values))
                updated += 1
            else:
                unchanged += 1
                kept.append(c.id)
        return added, updated, unchanged, kept

    # ------------------------------------------------------------------ collections

    @staticmethod
    def _collection(conn: Connection, cid: str) -> Collection | None:
        row = conn.execute(sa.select(collections_t).where(collections_t.c.id == cid)).first()
        if row is None:
            return None
        ids = conn.execute(
            sa.select(items_t.c.case_id)
            .where(items_t.c.collection_id == cid)
            .order_by(items_t.c.position)
        ).scalars()
        m = row._mapping
        return Collection(
            id=m["id"],
            name=m["name"],
            description=m["description"],
            case_ids=tuple(ids),
            created_at=float(m["created_at"]),
            updated_at=float(m["updated_at"]),
            version=int(m["version"]),
        )

    def _must_collection(self, conn: Connection, cid: str) -> Collection:
        col = self._collection(conn, cid)
        if col is None:
            raise NotFound(f"no collection {cid} in the casebook", "it may have been deleted")
        return col

    @staticmethod
    def _check_name(name: str) -> str:
        return check_collection_name(name)

    def _name_taken(self, name: str) -> AlreadyExists:
        return AlreadyExists(f"a collection named {name!r} exists", "choose another name")

    def create_collection(self, name: str, description: str = "") -> Collection:
        name = self._check_name(name)
        now = time.time()
        col = Collection(new_id(), name, description, (), now, now, 1)
        with self._tx(write=True, integrity=self._name_taken(name)) as conn:
            conn.execute(
                sa.insert(collections_t).values(
                    id=col.id,
                    name=name,
                    description=description,
                    created_at=now,
                    updated_at=now,
                    version=1,
                )
            )
        return col

    def collections(self) -> list[Collection]:
        """All collections, by name."""
        with self._tx() as conn:
            rows = conn.execute(sa.select(collections_t)).all()
            members: dict[str, list[str]] = {}
            for cid, case_id in conn.execute(
                sa.select(items_t.c.collection_id, items_t.c.case_id).order_by(
                    items_t.c.collection_id, items_t.c.position
                )
            ):
                members.setdefault(cid, []).append(case_id)
        out = [
            Collection(
                id=r.id,
                name=r.name,
                description=r.description,
                case_ids=tuple(members.get(r.id, ())),
                created_at=float(r.created_at),
                updated_at=float(r.updated_at),
                version=int(r.version),
            )
            for r in rows
        ]
        return sorted(out, key=lambda c: c.name.casefold())

    def get_collection(self, collection_id: str) -> Collection | None:
        with self._tx() as conn:
            return self._collection(conn, collection_id)

    def find_collection(self, name_or_id: str) -> Collection | None:
        """By id, else by name (exact, then ignoring case)."""
        found = self.get_collection(name_or_id)
        if found is not None:
            return found
        every = self.collections()
        for match in (
            lambda c: c.name == name_or_id,
            lambda c: c.name.casefold() == name_or_id.casefold(),
        ):
            hits = [c for c in every if match(c)]
            if hits:
                return hits[0]
        return None

    @contextmanager
    def _editing(
        self, cid: str, expected_version: int | None = None, integrity: DataError | None = None
    ) -> Iterator[Connection]:
        """A write transaction that first bumps the collection's version (which also locks its
        row on PostgreSQL, so concurrent edits of one collection serialise)."""
        with self._tx(write=True, integrity=integrity) as conn:
            q = sa.update(collections_t).where(collections_t.c.id == cid)
            if expected_version is not None:
                q = q.where(collections_t.c.version == expected_version)
            done = conn.execute(
                q.values(version=collections_t.c.version + 1, updated_at=time.time())
            )
            if done.rowcount != 1:
                current = self._must_collection(conn, cid)
                raise EditConflict(current)
            yield conn

    def _write_members(self, conn: Connection, cid: str, case_ids: Sequence[str]) -> None:
        _write_members(conn, cid, case_ids)

    def _check_cases(self, conn: Connection, case_ids: Sequence[str]) -> None:
        missing = _missing_cases(conn, case_ids)
        if missing:
            raise NotFound(
                f"{len(missing)} case(s) not in the casebook: {', '.join(missing[:5])}",
                "they may have been purged; reload the collection",
            )

    def rename_collection(
        self, collection_id: str, name: str, description: str | None = None
    ) -> Collection:
        name = self._check_name(name)
        values: dict[str, Any] = {"name": name}
        if description is not None:
            values["description"] = description
        with self._editing(collection_id, integrity=self._name_taken(name)) as conn:
            conn.execute(
                sa.update(collections_t).where(collections_t.c.id == collection_id).values(**values)
            )
            return self._must_collection(conn, collection_id)

    def delete_collection(self, collection_id: str) -> bool:
        """Remove the collection (its cases stay in the casebook)."""
        with self._tx(write=True) as conn:
            conn.execute(sa.delete(items_t).where(items_t.c.collection_id == collection_id))
            done = conn.execute(sa.delete(collections_t).where(collections_t.c.id == collection_id))
            return done.rowcount > 0

    def set_collection_cases(
        self, collection_id: str, case_ids: Sequence[str], expected_version: int
    ) -> Collection:
        """Replace the whole ordered list (duplicates dropped), compare-and-set on version."""
        ids = list(dict.fromkeys(case_ids))
        with self._editing(collection_id, expected_version) as conn:
            self._check_cases(conn, ids)
            self._write_members(conn, collection_id, ids)
            return self._must_collection(conn, collection_id)

    def add_to_collection(self, collection_id: str, case_id: str) -> Collection:
        """Append a case (no-op if it is already there)."""
        with self._editing(collection_id) as conn:
            self._check_cases(conn, [case_id])
            present = conn.execute(
                sa.select(items_t.c.case_id).where(
                    items_t.c.collection_id == collection_id, items_t.c.case_id == case_id
                )
            ).first()
            if present is None:
                last = conn.execute(
                    sa.select(sa.func.max(items_t.c.position)).where(
                        items_t.c.collection_id == collection_id
                    )
                ).scalar_one_or_none()
                conn.execute(
                    sa.insert(items_t).values(
                        collection_id=collection_id,
                        case_id=case_id,
                        position=0 if last is None else last + 1,
                    )
                )
            return self._must_collection(conn, collection_id)

    def remove_from_collection(self, collection_id: str, case_id: str) -> Collection:
        with self._editing(collection_id) as conn:
            conn.execute(
                sa.delete(items_t).where(
                    items_t.c.collection_id == collection_id, items_t.c.case_id == case_id
                )
            )
            return self._must_collection(conn, collection_id)

    def move_in_collection(self, collection_id: str, case_id: str, new_position: int) -> Collection:
        """Move a case to `new_position` (0-based, clamped to the list)."""
        with self._editing(collection_id) as conn:
            ids = list(self._must_collection(conn, collection_id).case_ids)
            if case_id not in ids:
                raise NotFound(f"case {case_id} is not in this collection", "reload it")
            ids.remove(case_id)
            ids.insert(max(0, min(new_position, len(ids))), case_id)
            self._write_members(conn, collection_id, ids)
            return self._must_collection(conn, collection_id)


def _sqlite_file(u: URL) -> Path | None:
    """The file a SQLite URL names (None for an in-memory database)."""
    db = u.database or ""
    if db in ("", ":memory:") or u.query.get("mode") == "memory":
        return None
    if db.startswith("file:"):
        db = unquote(urlsplit(db).path)
    return Path(db).expanduser().absolute()


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
    `reopen` looks for the real one (see `CaseStore._look_again`)."""
    name = f"file:rte-empty-casebook-{new_id()}"
    keep = sqlite3.connect(f"{name}?mode=memory&cache=shared", uri=True, check_same_thread=False)
    query = {"mode": "memory", "cache": "shared", "uri": "true"}
    engine = sa.create_engine(
        sa.engine.URL.create("sqlite", database=name, query=query),
        poolclass=sa.pool.QueuePool,
        connect_args={"timeout": timeout, "check_same_thread": False},
    )
    _sqlite_events(engine, timeout)
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


def _readonly_url(u: URL, path: Path) -> URL:
    """SQLite's own read-only mode, so a read-only store can never write (or create) the file."""
    if (u.database or "").startswith("file:"):
        return u  # a URI already: its own mode stands
    return sa.engine.URL.create(
        "sqlite", database=f"file:{quote(str(path))}", query={"mode": "ro", "uri": "true"}
    )


def _open_existing(u: URL, path: Path | None, readonly: bool, timeout: float) -> CaseStore | None:
    """The casebook at `u` (created or upgraded unless read-only), or None when it is read-only
    and does not exist yet."""
    if path is not None and readonly:
        if not path.is_file() or path.stat().st_size == 0:
            return None
        u = _readonly_url(u, path)
    where = None if path is None else str(path)
    store = CaseStore(_make_engine(u, timeout), readonly=readonly, where=where)
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
    u = _parse_url(as_url(url or default_url()))
    path = _sqlite_file(u) if u.get_backend_name() == "sqlite" else None
    if path is not None:
        _check_folder(path, readonly)
    store = _open_existing(u, path, readonly, timeout)
    if store is not None:
        return store
    where = str(path) if path is not None else u.render_as_string(hide_password=True)
    return _empty_store(where, lambda: _open_existing(u, path, True, timeout), timeout)
