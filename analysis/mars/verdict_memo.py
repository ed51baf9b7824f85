"""A persistent memo of answer-grouping facts, shared by every build that reads the same store.

Why: grouping a MARS question asks math-verify three kinds of pure questions about normalised
answer strings: does it parse, what is its numeric fingerprint, and are two of them the same
value. The strings repeat across questions, files and rebuilds (probe garbage such as
`cases:forn=1weget` recurs in every pool of a model), and answering them the first time is the
dearest part of a cold build; the in-process caches of `analysis.mars.answers` forget them when
the process ends. This memo keeps the answers on disk so that the next build (another file, a
rebuild after a version bump, another session sharing the cache) does not import math-verify at
all when every question it asks is known.

Exactness: a fact is kept only under the versions that produced it (math-verify, its LaTeX
parser, sympy, and MEMO_VERSION of our own shortcuts), and only when its call finished well
before math-verify's 2 s alarm could fire (`MAX_RECORD_S`): a verdict cut short by a timeout reads
as False and must not outlive the load that caused it. A memo that cannot be read counts as
empty, with a log warning, and a corrupt one is replaced at the next save: it is a cache of pure
results, so nothing is lost.

File: SQLite (stdlib `sqlite3`), tables `parses(s, ok)`, `fingerprints(s, fp)`,
`verdicts(a, b, same)` and `meta(key)`, the version key its facts hold for. Strings are stored as
UTF-8 BLOBs with lone surrogates passed through (an answer may hold one). Why SQLite: a save
inserts only what the build learnt (`INSERT OR IGNORE`: two builds learning the same fact agree,
it is pure), in WAL mode with a busy timeout, so builds of several processes save at once without
a lock file and without rewriting the whole memo. A JSON memo of an earlier version beside it
(`LEGACY_SUFFIX`) is read once into the database, then removed.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

MEMO_FILE = "mars-answer-memo.sqlite"  # its name in the cache's derived folder
LEGACY_SUFFIX = ".json"  # the JSON memo an earlier version kept beside it (same stem)
MEMO_VERSION = 1  # bump when the grouping shortcuts of analysis.mars.answers change a verdict
MAX_RECORD_S = 1.9  # math-verify's alarm is 2 s (whole seconds): below this none fired
LOCK_WAIT_S = 30.0  # how long a save waits for another build's write (SQLite busy timeout)
MAX_ENTRIES = 500_000  # a memo grows with the distinct strings of every pool built
# what a save may raise: the caller logs it (a memo not saved costs only speed next time)
SAVE_ERRORS: tuple[type[Exception], ...] = (OSError, sqlite3.Error)
_PACKAGES = ("math-verify", "latex2sympy2_extended", "sympy")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS parses (s BLOB PRIMARY KEY, ok INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS fingerprints (s BLOB PRIMARY KEY, fp BLOB) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS verdicts (a BLOB NOT NULL, b BLOB NOT NULL, same INTEGER NOT NULL,"
    " PRIMARY KEY (a, b)) WITHOUT ROWID",
)
_TABLES = ("parses", "fingerprints", "verdicts")
_log = logging.getLogger(__name__)


def version_key() -> str:
    """The versions a fact depends on, read from package metadata (no import of sympy)."""
    parts = [f"rte{MEMO_VERSION}"]
    for name in _PACKAGES:
        try:
            parts.append(f"{name}{version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name}-")
    return "-".join(parts)


# parses, fingerprints and verdicts, as the items of the memo's dicts
Facts = tuple[
    list[tuple[str, bool]], list[tuple[str, str | None]], list[tuple[tuple[str, str], bool]]
]


@dataclass
class VerdictMemo:
    """The facts known for one version key, and those learnt since the last save (`learnt`)."""

    key: str
    parses: dict[str, bool] = field(default_factory=dict)
    fingerprints: dict[str, str | None] = field(default_factory=dict)
    verdicts: dict[tuple[str, str], bool] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _new: Facts = field(default_factory=lambda: ([], [], []), repr=False)

    @property
    def learnt(self) -> int:
        """Facts learnt since the last save."""
        return sum(len(x) for x in self._new)

    def add_parse(self, norm: str, ok: bool, seconds: float) -> None:
        if seconds < MAX_RECORD_S:
            self.learn([(norm, ok)], [], [])

    def add_fingerprint(self, norm: str, fp: str | None, seconds: float) -> None:
        if seconds < MAX_RECORD_S:
            self.learn([], [(norm, fp)], [])

    def add_verdict(self, a: str, b: str, same: bool, seconds: float) -> None:
        if seconds < MAX_RECORD_S:
            self.learn([], [], [((a, b), same)])

    def learn(
        self,
        parses: Iterable[tuple[str, bool]],
        fingerprints: Iterable[tuple[str, str | None]],
        verdicts: Iterable[tuple[tuple[str, str], bool]],
    ) -> int:
        """Add facts, as items of the memo's dicts (saved by the next `save`); returns how many."""
        p, f, v = list(parses), list(fingerprints), list(verdicts)
        with self.lock:
            self.parses.update(p)
            self.fingerprints.update(f)
            self.verdicts.update(v)
            self._new[0].extend(p)
            self._new[1].extend(f)
            self._new[2].extend(v)
        return len(p) + len(f) + len(v)

    def take_learnt(self) -> Facts:
        """The facts learnt since the last save, forgotten as new."""
        with self.lock:
            new, self._new = self._new, ([], [], [])
        return new

    def size(self) -> int:
        return len(self.parses) + len(self.fingerprints) + len(self.verdicts)


def _b(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


def _s(b: bytes) -> str:
    return bytes(b).decode("utf-8", "surrogatepass")


def _connect(path: Path) -> sqlite3.Connection:
    """The memo database at `path` (created with its tables), WAL, waiting `LOCK_WAIT_S` for
    another writer. Autocommit: each save is one explicit transaction."""
    con = sqlite3.connect(str(path), timeout=LOCK_WAIT_S, isolation_level=None)
    try:
        _to_wal(con, time.monotonic() + LOCK_WAIT_S)
        for stmt in _SCHEMA:
            con.execute(stmt)
    except BaseException:
        con.close()
        raise
    return con


def _to_wal(con: sqlite3.Connection, deadline: float) -> None:
    """Switch a new file to WAL. Two processes creating the file at once can get "database is
    locked" here at once, without SQLite's busy wait (a journal-mode change cannot wait on a
    reader), so the switch is tried again until `deadline`."""
    pause = 0.005
    while True:
        try:
            con.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def _read_db(con: sqlite3.Connection, key: str) -> VerdictMemo:
    memo = VerdictMemo(key)
    row = con.execute("SELECT key FROM meta").fetchone()
    if row is None or row[0] != key:
        return memo  # empty, or other versions: their facts may differ
    memo.parses = {_s(s): bool(ok) for s, ok in con.execute("SELECT s, ok FROM parses")}
    memo.fingerprints = {
        _s(s): (None if fp is None else _s(fp))
        for s, fp in con.execute("SELECT s, fp FROM fingerprints")
    }
    memo.verdicts = {
        (_s(a), _s(b)): bool(same) for a, b, same in con.execute("SELECT a, b, same FROM verdicts")
    }
    return memo


def _read_json(path: Path, key: str) -> VerdictMemo | None:
    """The facts of a JSON memo of an earlier version (None if there is none, or it is corrupt
    or of other versions)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        _log.warning("old answer memo %s unreadable (%s): not migrated", path, exc)
        return None
    try:
        if doc.get("key") != key:
            return None
        memo = VerdictMemo(key)
        memo.learn(
            ((str(k), bool(v)) for k, v in doc["parses"].items()),
            ((str(k), None if v is None else str(v)) for k, v in doc["fingerprints"].items()),
            (((str(a), str(b)), bool(v)) for a, b, v in doc["verdicts"]),
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        _log.warning("old answer memo %s is corrupt (%s): not migrated", path, exc)
        return None
    return memo


def load(path: Path) -> VerdictMemo:
    """The memo stored at `path` for the installed versions (empty if none). A JSON memo of an
    earlier version beside it is migrated first (`LEGACY_SUFFIX`)."""
    path = Path(path)
    key = version_key()
    legacy = path.with_suffix(LEGACY_SUFFIX)
    old = _read_json(legacy, key) if legacy != path else None
    if old is not None:
        try:
            save(old, path)
            legacy.unlink(missing_ok=True)
        except SAVE_ERRORS as exc:
            _log.warning("old answer memo %s not migrated (%s): used as it is", legacy, exc)
            return old
    if not path.exists():
        return VerdictMemo(key)
    try:
        with closing(_connect(path)) as con:
            return _read_db(con, key)
    except SAVE_ERRORS as exc:
        _log.warning("answer memo %s unreadable or corrupt (%s): grouping recomputes", path, exc)
        return VerdictMemo(key)


def save(memo: VerdictMemo, path: Path) -> None:
    """Insert what `memo` learnt since its last save into the database at `path` (other builds
    may insert theirs at the same time). A corrupt database is replaced."""
    if memo.learnt == 0:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    new = memo.take_learnt()
    try:
        _insert(path, memo.key, new)
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError):
            raise  # locked, read-only, no such folder: not the file's fault
        _log.warning("answer memo %s is corrupt (%s): replaced", path, exc)
        for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            p.unlink(missing_ok=True)
        _insert(path, memo.key, new)


def _insert(path: Path, key: str, new: Facts) -> None:
    parses, fingerprints, verdicts = new
    with closing(_connect(path)) as con:
        con.execute("BEGIN IMMEDIATE")
        try:
            row = con.execute("SELECT key FROM meta").fetchone()
            count = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in _TABLES)  # noqa: S608 - fixed names
            if row is None or row[0] != key or count + sum(len(x) for x in new) > MAX_ENTRIES:
                # other versions' facts, or bounded: start again from this build's facts
                for t in ("meta", *_TABLES):
                    con.execute(f"DELETE FROM {t}")  # noqa: S608 - fixed names
                con.execute("INSERT INTO meta (key) VALUES (?)", (key,))
            con.executemany(
                "INSERT OR IGNORE INTO parses VALUES (?, ?)", ((_b(s), ok) for s, ok in parses)
            )
            con.executemany(
                "INSERT OR IGNORE INTO fingerprints VALUES (?, ?)",
                ((_b(s), None if fp is None else _b(fp)) for s, fp in fingerprints),
            )
            con.executemany(
                "INSERT OR IGNORE INTO verdicts VALUES (?, ?, ?)",
                ((_b(a), _b(b), same) for (a, b), same in verdicts),
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
