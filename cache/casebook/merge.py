"""An import merged into a casebook, by id, inside the import's one transaction (see
`CaseOps.merge`): cases first, then collections, by the same rules. A collection must list cases
that are in the casebook once the cases are merged, and may not take a name another collection
holds (`ImportRejected`, nothing written)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from cache.casebook.collection_ops import missing_cases, read_collection, write_members
from cache.casebook.errors import ImportRejected
from cache.casebook.model import Case, Collection, same_collection, same_content
from cache.casebook.rows import cases_from_rows, chunks, row_values
from cache.casebook.schema import CASE_COLS, cases_t, collections_t


def merge_cases(conn: Connection, todo: Sequence[Case]) -> tuple[int, int, int, list[str]]:
    """(added, updated, unchanged, kept ids): a new id is added, an identical copy left alone, a
    newer copy replaces the stored one (version stored+1), an older one loses (kept)."""
    added = updated = unchanged = 0
    kept: list[str] = []
    stored: dict[str, Case] = {}
    for chunk in chunks([c.id for c in todo]):
        q = sa.select(*CASE_COLS).where(cases_t.c.id.in_(chunk))
        stored.update((c.id, c) for c in cases_from_rows(conn.execute(q).all()))
    new = [row_values(c) for c in todo if c.id not in stored]
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
            values = row_values(replace(c, version=old.version + 1))
            conn.execute(sa.update(cases_t).where(cases_t.c.id == c.id).values(**values))
            updated += 1
        else:
            unchanged += 1
            kept.append(c.id)
    return added, updated, unchanged, kept


class CollectionMerge:
    """An import's collections merged by id inside the import's transaction (see `CaseOps.merge`)."""

    def __init__(self, conn: Connection, where: Mapping[str, str]) -> None:
        self.conn = conn
        self.where = where

    def _label(self, col: Collection) -> str:
        return self.where.get(col.id) or f"collection {col.name!r}"

    def _check(self, col: Collection) -> None:
        missing = missing_cases(self.conn, col.case_ids)
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
        write_members(self.conn, col.id, col.case_ids)

    def run(self, cols: Sequence[Collection]) -> tuple[int, int, int, tuple[str, ...]]:
        """(added, updated, unchanged, kept ids), the same rules as for cases."""
        added = updated = unchanged = 0
        kept: list[str] = []
        for col in cols:
            old = read_collection(self.conn, col.id)
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
