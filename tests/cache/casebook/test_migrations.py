"""Schema versions on both backends: an older layout is upgraded by appending one migration, a
failing migration changes nothing, a newer database is refused and left untouched."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from cache.casebook import CasebookSchemaTooNew, make_case, open_store, schema
from cache.casebook.rows import row_values


def _old_layout(conn: Connection) -> None:
    """A fake first version: one `cases` table with three columns."""
    md = sa.MetaData()
    sa.Table(
        "cases",
        md,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
    )
    md.create_all(conn)


def _upgrade_old_layout(conn: Connection) -> None:
    """Old layout -> today's tables, keeping the rows (what a real v2 migration looks like)."""
    old_md = sa.MetaData()
    old = sa.Table("cases", old_md, autoload_with=conn)
    rows = conn.execute(sa.select(old)).all()
    old.drop(conn)
    new_md = sa.MetaData()
    schema._v1_tables(new_md)
    new_md.create_all(conn)
    for r in rows:
        case = make_case("parason", "parason", id=r.id, title=r.title, note=r.note, now=1.0)
        conn.execute(sa.insert(schema.cases_t).values(**row_values(case)))


def _state(url: str) -> tuple[list[str], list[tuple[str, str]], int]:
    eng = sa.create_engine(url)
    try:
        with eng.connect() as conn:
            tables = sorted(sa.inspect(conn).get_table_names())
            meta = sorted((k, v) for k, v in conn.execute(sa.select(schema.meta)))
            n = conn.execute(sa.select(sa.func.count()).select_from(schema.cases_t)).scalar_one()
        return tables, meta, int(n)
    finally:
        eng.dispose()


def test_old_layout_is_upgraded_by_appending_a_migration(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", [_old_layout])
    s = open_store(db_url, readonly=False)
    assert s.schema_version() == 1
    with s.engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO cases (id, title, note) VALUES ('old1', 'kept', '∑ note')")
        )
    s.close()

    monkeypatch.setattr(schema, "MIGRATIONS", [_old_layout, _upgrade_old_layout])
    s = open_store(db_url, readonly=False)
    try:
        assert s.schema_version() == 2
        got = s.get("old1")
        assert got is not None and (got.title, got.note) == ("kept", "∑ note")
        s.add(make_case("mars", "mars", title="new"))
        assert s.count() == 2
    finally:
        s.close()
    s = open_store(db_url, readonly=False)  # reopening at the current version does nothing
    assert s.schema_version() == 2 and s.count() == 2
    s.close()


def test_a_database_without_our_tables_is_version_0(db_url: str) -> None:
    eng = sa.create_engine(db_url)
    with eng.begin() as conn:
        conn.execute(sa.text("CREATE TABLE unrelated (x INTEGER)"))
    eng.dispose()
    s = open_store(db_url, readonly=False)
    try:
        assert s.schema_version() == schema.SCHEMA_VERSION == 2
    finally:
        s.close()
    assert "unrelated" in _state(db_url)[0]


def test_a_failing_migration_changes_nothing(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    open_store(db_url, readonly=False).close()
    before = _state(db_url)

    def broken(conn: Connection) -> None:
        conn.execute(sa.text("CREATE TABLE half_done (x INTEGER)"))
        raise RuntimeError("migration bug")

    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, broken])
    with pytest.raises(RuntimeError):
        open_store(db_url, readonly=False)
    assert _state(db_url) == before


def test_a_newer_database_is_refused_untouched(db_url: str, tmp_path: Path) -> None:
    s = open_store(db_url, readonly=False)
    s.add(make_case("mars", "mars", title="from the future"))
    s.close()
    eng = sa.create_engine(db_url)
    with eng.begin() as conn:
        conn.execute(
            sa.update(schema.meta).where(schema.meta.c.key == "schema_version").values(value="99")
        )
    eng.dispose()
    before = _state(db_url)
    db_file = Path(db_url.removeprefix("sqlite:///")) if db_url.startswith("sqlite") else None
    digest = hashlib.sha256(db_file.read_bytes()).hexdigest() if db_file else ""
    for readonly in (False, True):
        with pytest.raises(CasebookSchemaTooNew) as err:
            open_store(db_url, readonly=readonly)
        assert "99" in err.value.message and "not changed" in err.value.hint
    assert _state(db_url) == before
    if db_file:
        assert hashlib.sha256(db_file.read_bytes()).hexdigest() == digest


def test_a_v1_casebook_gains_the_queues_table_and_keeps_its_cases(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
    s = open_store(db_url, readonly=False)
    s.add(make_case("mars", "mars", id="v1case", title="from v1"))
    s.close()
    assert "queues" not in _state(db_url)[0]
    monkeypatch.undo()
    s = open_store(db_url, readonly=False)
    try:
        assert s.schema_version() == 2 and "queues" in _state(db_url)[0]
        got = s.get("v1case")
        assert got is not None and got.title == "from v1"
    finally:
        s.close()
