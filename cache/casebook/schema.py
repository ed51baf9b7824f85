"""The casebook's tables and their migrations.

The schema is versioned in the `meta` table. `MIGRATIONS[i]` upgrades version i to i+1 (run by
`StoreBase.migrate`, each in its own transaction together with the version bump); to add v2,
append one function (v2 added the triage queues). A database of a newer version is refused and left untouched.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

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


def _v2_tables(md: sa.MetaData) -> sa.Table:
    """The table schema version 2 adds: triage queues. A queue's items are one JSON list (they
    are written once, when the queue starts, and read whole); its position is a column of its
    own, written on every step."""
    return sa.Table(
        "queues",
        md,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("origin", sa.Text, nullable=False),  # "search: ...", "collection: ..."
        sa.Column("items", sa.Text, nullable=False),  # JSON [{view, query, item, label, source}]
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),  # 0-based
        sa.Column("author", sa.Text, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False, index=True),
        sa.Column("version", sa.Integer, nullable=False),
    )


cases_t, collections_t, items_t = _v1_tables(metadata)
queues_t = _v2_tables(metadata)
CASE_COLS = [c for c in cases_t.c if c.name not in ("search", "item_key")]

Migration = Callable[[Connection], None]


def _migrate_to_v1(conn: Connection) -> None:
    """v0 (empty, or a database without our tables) -> v1: create the tables."""
    md = sa.MetaData()
    _v1_tables(md)
    md.create_all(conn)


def _migrate_to_v2(conn: Connection) -> None:
    """v1 -> v2: add the triage queues' table."""
    md = sa.MetaData()
    _v2_tables(md)
    md.create_all(conn)


MIGRATIONS: list[Migration] = [_migrate_to_v1, _migrate_to_v2]
SCHEMA_VERSION = len(MIGRATIONS)


def read_schema_version(conn: Connection) -> int:
    """0 for a database without the `meta` table (a new or foreign one)."""
    if not sa.inspect(conn).has_table("meta"):
        return 0
    value = conn.execute(
        sa.select(meta.c.value).where(meta.c.key == "schema_version")
    ).scalar_one_or_none()
    return int(value) if value is not None else 0


def set_schema_version(conn: Connection, version: int) -> None:
    conn.execute(sa.delete(meta).where(meta.c.key == "schema_version"))
    conn.execute(sa.insert(meta).values(key="schema_version", value=str(version)))
