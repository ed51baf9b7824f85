"""Where the casebook opens: RTE_DB_URL as a plain path, a folder that does not exist, and a
read-only casebook that does not exist yet (empty and quiet, left uncreated)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa

from cache.casebook import (
    SCHEMA_VERSION,
    CasebookReadOnly,
    CasebookUnavailable,
    CaseStore,
    make_case,
    open_store,
    store_base,
)
from cache.casebook.store import default_url
from tests.cache.casebook.conftest import fresh_pg_url


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RTE_DB_URL", raising=False)
    monkeypatch.delenv("RTE_CASEBOOK", raising=False)


def _writes_and_reads(store: CaseStore, path: Path) -> None:
    case = store.add(make_case("mars", "mars", title="here"))
    assert store.get(case.id) == case and path.is_file() and Path(store.where) == path


@pytest.mark.parametrize("name", ["casebook.sqlite", "with space %20 and #.sqlite"])
def test_a_plain_absolute_path_is_a_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    path = tmp_path / name
    monkeypatch.setenv("RTE_DB_URL", str(path))
    assert default_url().startswith("sqlite:///")
    store = open_store()
    try:
        _writes_and_reads(store, path)
    finally:
        store.close()
    store = open_store(str(path))  # the same file, passed directly
    assert store.count() == 1
    store.close()


def test_a_plain_relative_path_is_a_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "db").mkdir()
    monkeypatch.chdir(tmp_path)
    for value, path in (
        ("db/c.sqlite", tmp_path / "db" / "c.sqlite"),
        ("c.sqlite", tmp_path / "c.sqlite"),
    ):
        monkeypatch.setenv("RTE_DB_URL", value)
        store = open_store()
        try:
            _writes_and_reads(store, path)
        finally:
            store.close()


@pytest.mark.parametrize("readonly", [False, True])
@pytest.mark.parametrize("form", ["url", "path"])
def test_a_missing_folder_is_named_not_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readonly: bool, form: str
) -> None:
    folder = tmp_path / "nonexistent" / "dir"
    target = folder / "c.sqlite"
    monkeypatch.setenv("RTE_DB_URL", f"sqlite:///{target}" if form == "url" else str(target))
    with pytest.raises(CasebookUnavailable) as err:
        open_store(readonly=readonly)
    assert f"the folder {folder} of the casebook file c.sqlite does not exist" in err.value.message
    assert f"mkdir -p {folder}" in err.value.hint and "RTE_DB_URL" in err.value.hint
    assert not (tmp_path / "nonexistent").exists()


def test_the_default_location_is_made_by_a_writer_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    ro = open_store(readonly=True)
    assert ro.count() == 0
    ro.close()
    assert not (tmp_path / "cache" / "casebook.sqlite").exists()
    rw = open_store(readonly=False)
    rw.add(make_case("mars", "mars"))
    rw.close()
    assert (tmp_path / "cache" / "casebook.sqlite").is_file()


def _assert_empty_and_read_only(store: CaseStore) -> None:
    assert store.readonly and store.schema_version() == SCHEMA_VERSION
    assert store.list_cases(include_deleted=True) == [] and store.count(include_deleted=True) == 0
    assert store.collections() == [] and store.find_collection("x") is None
    assert store.items_with_cases("mars", "qid") == {}
    assert store.cases_for_item("mars", qid="1") == []
    assert store.authors() == [] and store.all_tags() == [] and store.get("x") is None
    for write in (
        lambda: store.add(make_case("mars", "mars")),
        lambda: store.create_collection("c"),
        lambda: store.merge([make_case("mars", "mars")]),
    ):
        with pytest.raises(CasebookReadOnly):
            write()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_read_only_without_a_file_opens_empty_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "casebook.sqlite"
    store = open_store(f"sqlite:///{path}", readonly=True)
    try:
        _assert_empty_and_read_only(store)
        assert Path(store.where) == path and not store.exists
    finally:
        store.close()
    assert list(tmp_path.iterdir()) == []


def test_read_only_empty_or_foreign_file_opens_empty_untouched(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
    before = _digest(foreign)
    for path in (empty, foreign):
        store = open_store(str(path), readonly=True)
        try:
            _assert_empty_and_read_only(store)
        finally:
            store.close()
    assert empty.stat().st_size == 0 and _digest(foreign) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite", "foreign.sqlite"]


def test_two_empty_read_only_stores_are_separate(tmp_path: Path) -> None:
    a = open_store(str(tmp_path / "a.sqlite"), readonly=True)
    b = open_store(str(tmp_path / "b.sqlite"), readonly=True)
    a.close()  # closing one leaves the other readable
    assert b.count() == 0 and b.collections() == []
    b.close()


def test_read_only_existing_casebook_reads_it_and_never_writes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "casebook.sqlite"
    rw = open_store(str(path), readonly=False)
    case = rw.add(make_case("mars", "mars", tags=["t"], author="ana"))
    rw.close()
    before = _digest(path)
    ro = open_store(str(path), readonly=True)
    try:
        assert ro.get(case.id) == case and ro.all_tags() == ["t"] and ro.authors() == ["ana"]
        # SQLite itself refuses writes on this connection
        with ro.engine.connect() as conn, pytest.raises(sa.exc.OperationalError, match="readonly"):
            conn.exec_driver_sql("CREATE TABLE x (y INTEGER)")
    finally:
        ro.close()
    assert _digest(path) == before


def test_read_only_postgres_without_a_schema_is_empty(pg_server: str) -> None:
    url = fresh_pg_url(pg_server)
    store = open_store(url, readonly=True)
    try:
        _assert_empty_and_read_only(store)
        assert "postgresql" in store.where
    finally:
        store.close()
    schema = url.rsplit("%3D", 1)[1]
    plain = pg_server.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(f"{plain}/casebook") as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s", (schema,)
        ).fetchone()
    assert tables == (0,)  # nothing was created
    rw = open_store(url, readonly=False)  # and a writer later creates it as usual
    rw.add(make_case("mars", "mars"))
    rw.close()
    ro = open_store(url, readonly=True)
    assert ro.count() == 1
    ro.close()


def test_a_read_only_stand_in_reads_the_casebook_once_it_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only server started before the casebook was made (then, e.g., an import from the
    command line creates it) shows its cases without a restart."""
    path = tmp_path / "casebook.sqlite"
    ro = open_store(str(path), readonly=True)
    try:
        assert not ro.exists and ro.count() == 0
        rw = open_store(str(path), readonly=False)
        case = rw.add(make_case("mars", "mars", title="imported later"))
        rw.close()
        assert ro.count() == 0  # looked again only every RECHECK_SECONDS
        monkeypatch.setattr(store_base, "RECHECK_SECONDS", 0.0)
        assert ro.list_cases() == [case] and ro.exists and Path(ro.where) == path
        with pytest.raises(CasebookReadOnly):
            ro.add(make_case("mars", "mars"))
    finally:
        ro.close()


def test_a_stand_in_reports_a_casebook_that_became_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "casebook.sqlite"
    ro = open_store(str(path), readonly=True)
    path.write_bytes(b"not a database" * 500)
    monkeypatch.setattr(store_base, "RECHECK_SECONDS", 0.0)
    with pytest.raises(CasebookUnavailable) as err:
        ro.count()
    assert "corrupt" in err.value.message
    ro.close()
