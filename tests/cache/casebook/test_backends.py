"""The two backends are real: a throwaway PostgreSQL server runs, and both open a store."""

from __future__ import annotations

from cache.casebook import SCHEMA_VERSION, CaseStore


def test_store_opens_at_the_current_schema(store: CaseStore) -> None:
    assert store.schema_version() == SCHEMA_VERSION
    assert store.count() == 0
