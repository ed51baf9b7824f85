"""A casebook's collections: ordered lists of cases with a unique name. Every edit of a
collection bumps its version first (which also locks its row on PostgreSQL, so concurrent edits of
one collection serialise); a whole-list edit is compare-and-set on that version."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from cache.casebook.errors import AlreadyExists, EditConflict, NotFound
from cache.casebook.model import Collection, check_collection_name, new_id
from cache.casebook.rows import chunks
from cache.casebook.schema import cases_t, collections_t, items_t
from cache.casebook.store_base import StoreBase
from cache.errors import DataError


def read_collection(conn: Connection, cid: str) -> Collection | None:
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


def missing_cases(conn: Connection, case_ids: Sequence[str]) -> list[str]:
    """The ids of `case_ids` that are not in the casebook, in their order."""
    found: set[str] = set()
    for chunk in chunks(list(case_ids)):
        found.update(conn.execute(sa.select(cases_t.c.id).where(cases_t.c.id.in_(chunk))).scalars())
    return [c for c in case_ids if c not in found]


def write_members(conn: Connection, cid: str, case_ids: Sequence[str]) -> None:
    conn.execute(sa.delete(items_t).where(items_t.c.collection_id == cid))
    if case_ids:
        conn.execute(
            sa.insert(items_t),
            [{"collection_id": cid, "case_id": c, "position": i} for i, c in enumerate(case_ids)],
        )


class CollectionOps(StoreBase):
    """The collection half of `CaseStore`."""

    def _must_collection(self, conn: Connection, cid: str) -> Collection:
        col = read_collection(conn, cid)
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
            return read_collection(conn, collection_id)

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

    def _check_cases(self, conn: Connection, case_ids: Sequence[str]) -> None:
        missing = missing_cases(conn, case_ids)
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
            write_members(conn, collection_id, ids)
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
            write_members(conn, collection_id, ids)
            return self._must_collection(conn, collection_id)
