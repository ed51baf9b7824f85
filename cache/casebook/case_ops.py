"""A casebook's cases: add, read, edit (compare-and-set on `version`: `EditConflict` carries what
is stored), soft delete and restore, purge, the filtered list, the badges of a table, and the
merge of an import (`cache.casebook.merge`)."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from cache.casebook.errors import AlreadyExists, CasebookUnavailable, EditConflict, NotFound
from cache.casebook.merge import CollectionMerge, merge_cases
from cache.casebook.model import (
    Case,
    Collection,
    ImportReport,
    normalize_tags,
    validate_case,
    validate_collection,
)
from cache.casebook.rows import cases_from_rows, fold, parse_item_key, row_case, row_values, to_json
from cache.casebook.schema import CASE_COLS, cases_t, items_t
from cache.casebook.store_base import StoreBase

Sort = Literal["updated", "created", "title", "dataset"]


class CaseOps(StoreBase):
    """The case half of `CaseStore`."""

    def add(self, case: Case) -> Case:
        """Insert a new case (validated and normalised); an id already present is refused."""
        case = validate_case(case)
        taken = AlreadyExists(
            f"a case with id {case.id} is already in the casebook",
            "edit that case, or capture a new one (a new id)",
        )
        with self._tx(write=True, integrity=taken) as conn:
            conn.execute(sa.insert(cases_t), row_values(case))
        return case

    def get(self, case_id: str) -> Case | None:
        with self._tx() as conn:
            return self._get(conn, case_id)

    @staticmethod
    def _get(conn: Connection, case_id: str) -> Case | None:
        row = conn.execute(sa.select(*CASE_COLS).where(cases_t.c.id == case_id)).first()
        return None if row is None else row_case(row)

    def _must_get(self, conn: Connection, case_id: str) -> Case:
        case = self._get(conn, case_id)
        if case is None:
            raise NotFound(f"no case {case_id} in the casebook", "it may have been purged")
        return case

    def update(self, case: Case, expected_version: int) -> Case:
        """Save an edited case if the stored one is still at `expected_version`; else
        `EditConflict` carrying the stored case. Bumps version and updated_at."""
        case = validate_case(case)
        values = row_values(case)
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
        q = sa.select(*CASE_COLS)
        if not include_deleted:
            q = q.where(cases_t.c.deleted_at.is_(None))
        if dataset is not None:
            q = q.where(cases_t.c.dataset == dataset)
        if verdict is not None:
            q = q.where(cases_t.c.verdict == verdict)
        if author is not None:
            q = q.where(cases_t.c.author == author)
        for t in want_tags:  # a cheap superset; exact below
            q = q.where(cases_t.c.tags.contains(to_json(t), autoescape=True))
        if text and text.strip():
            q = q.where(cases_t.c.search.contains(fold(text.strip()), autoescape=True))
        q = q.order_by(
            order.desc() if descending else order.asc(),
            cases_t.c.updated_at.desc(),
            cases_t.c.id,
        )
        if limit is not None and not want_tags:
            q = q.limit(limit)
        with self._tx() as conn:
            out = cases_from_rows(conn.execute(q).all())
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
        q = sa.select(*CASE_COLS).where(
            cases_t.c.dataset == dataset, cases_t.c.deleted_at.is_(None)
        )
        padded = sa.literal("&", sa.Text) + cases_t.c.item_key + sa.literal("&", sa.Text)
        for k, v in want.items():
            q = q.where(
                padded.contains(f"&{quote(k, safe='')}={quote(v, safe='')}&", autoescape=True)
            )
        with self._tx() as conn:
            rows = cases_from_rows(conn.execute(q.order_by(cases_t.c.created_at)).all())
        return [c for c in rows if all(c.item.get(k) == v for k, v in want.items())]

    def items_with_cases(self, dataset: str, key: str) -> dict[str, int]:
        """{value of item[key]: number of live cases} for one dataset (badges in tables)."""
        q = sa.select(cases_t.c.item_key).where(
            cases_t.c.dataset == dataset, cases_t.c.deleted_at.is_(None)
        )
        counts: Counter[str] = Counter()
        with self._tx() as conn:
            for raw in conn.execute(q).scalars():
                v = parse_item_key(raw).get(key)
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
            added, updated, unchanged, kept = merge_cases(conn, todo)
            col_counts = CollectionMerge(conn, where or {}).run(cols)
        return ImportReport(added, updated, unchanged, tuple(kept), *col_counts)
