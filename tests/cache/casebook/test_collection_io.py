"""Collections travel in the JSONL export (lines with "type": "collection" after the cases) and
are merged by id on import, on both backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from cache.casebook import (
    Case,
    CaseStore,
    Collection,
    ImportRejected,
    collection_to_dict,
    export_casebook,
    import_cases,
    make_case,
    open_store,
)


@pytest.fixture
def source(tmp_path: Path) -> Iterator[CaseStore]:
    """A casebook with cases (one soft-deleted) and three collections (one empty)."""
    s = open_store(f"sqlite:///{tmp_path / 'source.sqlite'}", readonly=False)
    cases = [
        s.add(make_case(d, d, title=f"case {i}", now=1_700_000_000 + i))
        for i, d in enumerate(["mars", "parason", "fineproofs", "mars", "playground"])
    ]
    s.delete(cases[3].id)
    demo = s.create_collection("Friday demo", "for the team")
    s.set_collection_cases(demo.id, [cases[4].id, cases[0].id, cases[3].id], demo.version)
    talk = s.create_collection("talk")
    s.set_collection_cases(talk.id, [cases[2].id, cases[1].id], talk.version)
    s.create_collection("empty one")
    yield s
    s.close()


def _everything(s: CaseStore) -> tuple[list[Case], list[Collection]]:
    return s.list_cases(include_deleted=True, sort="created"), s.collections()


def _backup(s: CaseStore) -> bytes:
    cases, cols = _everything(s)
    return export_casebook(cases, cols)


def test_round_trip_into_a_fresh_casebook(source: CaseStore, store: CaseStore) -> None:
    data = _backup(source)
    lines = [json.loads(line) for line in data.splitlines()]
    assert ["type" in d for d in lines] == [False] * 5 + [True] * 3  # cases, then collections
    assert lines[5]["type"] == "collection" and {"id", "name", "case_ids"} <= set(lines[5])
    report = import_cases(store, data, "jsonl")
    assert (report.added, report.collections_added, report.collections_updated) == (5, 3, 0)
    assert _everything(store) == _everything(source)  # same cases, collections, order, times
    again = import_cases(store, data, "jsonl")
    assert (again.added, again.updated, again.unchanged) == (0, 0, 5)
    assert (again.collections_added, again.collections_updated) == (0, 0)
    assert (again.collections_unchanged, again.collections_kept) == (3, ())
    assert _everything(store) == _everything(source)


def test_a_collection_line_lists_only_the_cases_in_the_file(source: CaseStore) -> None:
    live = source.list_cases(sort="created")  # the soft-deleted case left out
    demo = next(c for c in source.collections() if c.name == "Friday demo")
    last = json.loads(export_casebook(live, [demo]).splitlines()[-1])
    assert last["case_ids"] == [i for i in demo.case_ids if i in {c.id for c in live}]
    assert last["description"] == "for the team"


def test_newer_copy_wins_older_copy_is_kept(source: CaseStore, store: CaseStore) -> None:
    import_cases(store, _backup(source), "jsonl")
    talk = next(c for c in source.collections() if c.name == "talk")
    newer = replace(talk, case_ids=talk.case_ids[::-1], name="talk v2", updated_at=2e9)
    cases, _ = _everything(source)
    report = import_cases(store, export_casebook(cases, [newer]), "jsonl")
    assert (report.collections_updated, report.collections_unchanged) == (1, 0)
    got = store.get_collection(talk.id)
    assert got is not None and got.case_ids == newer.case_ids and got.name == "talk v2"
    assert got.version == talk.version + 1  # an open editor sees a conflict
    older = replace(talk, case_ids=(), updated_at=1.0)
    report = import_cases(store, export_casebook(cases, [older]), "jsonl")
    assert report.collections_kept == (talk.id,) and store.get_collection(talk.id) == got


def test_a_name_taken_by_another_collection_is_refused(source: CaseStore, store: CaseStore) -> None:
    mine = store.create_collection("Friday demo")
    before = _everything(store)
    with pytest.raises(ImportRejected) as err:
        import_cases(store, _backup(source), "jsonl")
    # the collections are sorted by name: "Friday demo" is line 7 (after 5 cases and "empty one")
    assert err.value.message.startswith("line 7: another collection named 'Friday demo'")
    assert mine.id in err.value.message and "rename one of the two" in err.value.hint
    assert _everything(store) == before  # not even the cases were written


def test_cases_missing_from_file_and_casebook_name_the_line(
    source: CaseStore, store: CaseStore
) -> None:
    cases, cols = _everything(source)
    demo = next(c for c in cols if c.name == "Friday demo")
    gone = [c for c in cases if c.id == demo.case_ids[0]]
    rest = [c for c in cases if c.id != demo.case_ids[0]]
    data = export_casebook(rest) + json.dumps(collection_to_dict(demo)).encode() + b"\n"
    with pytest.raises(ImportRejected) as err:
        import_cases(store, data, "jsonl")
    assert err.value.message.startswith("line 5: collection 'Friday demo' lists 1 case(s)")
    assert gone[0].id in err.value.message and store.count(include_deleted=True) == 0
    import_cases(store, export_casebook(gone), "jsonl")  # once that case is here, it imports
    report = import_cases(store, data, "jsonl")
    assert (report.added, report.collections_added) == (4, 1)
    got = store.get_collection(demo.id)
    assert got is not None and got.case_ids == demo.case_ids


def test_a_file_of_collections_only(source: CaseStore, store: CaseStore) -> None:
    cases, cols = _everything(source)
    import_cases(store, export_casebook(cases), "jsonl")
    lines = b"".join(json.dumps(collection_to_dict(c)).encode() + b"\n" for c in cols)
    report = import_cases(store, lines, "jsonl")
    assert (report.added, report.collections_added) == (0, 3)
    assert store.collections() == cols


@pytest.mark.parametrize(
    ("line", "expect"),
    [
        ({"type": "comment"}, "line 2: unknown line type 'comment'"),
        ({"type": "collection", "id": "c1", "name": "x"}, "line 2: missing field 'case_ids'"),
        (
            {
                "type": "collection",
                "id": "c1",
                "name": " ",
                "case_ids": [],
                "created_at": 1,
                "updated_at": 1,
            },
            "line 2: a collection needs a name",
        ),  # fmt: skip
        (
            {
                "type": "collection",
                "id": "bad id",
                "name": "x",
                "case_ids": [],
                "created_at": 1,
                "updated_at": 1,
            },
            "line 2: collection id 'bad id' is not valid",
        ),  # fmt: skip
        (
            {
                "type": "collection",
                "id": "c1",
                "name": "x",
                "case_ids": ["a", "a"],
                "created_at": 1,
                "updated_at": 1,
            },
            "line 2: case a is listed twice",
        ),  # fmt: skip
        (
            {
                "type": "collection",
                "id": "c1",
                "name": "x",
                "case_ids": [1],
                "created_at": 1,
                "updated_at": 1,
            },
            "line 2: field 'case_ids' must be a list of case ids",
        ),  # fmt: skip
    ],
)
def test_bad_collection_lines(store: CaseStore, line: dict[str, object], expect: str) -> None:
    data = export_casebook([make_case("mars", "mars")]) + json.dumps(line).encode() + b"\n"
    with pytest.raises(ImportRejected) as err:
        import_cases(store, data, "jsonl")
    assert err.value.message.startswith(expect), err.value.message
    assert store.count(include_deleted=True) == 0


def test_the_same_collection_twice_in_a_file(source: CaseStore, store: CaseStore) -> None:
    cases, cols = _everything(source)
    data = export_casebook(cases, [cols[0], replace(cols[1], id=cols[0].id)])
    with pytest.raises(ImportRejected) as err:
        import_cases(store, data, "jsonl")
    assert err.value.message.startswith(f"line 7: a collection with id {cols[0].id!r}")
    data = export_casebook(cases, [cols[0], replace(cols[1], name=cols[0].name)])
    with pytest.raises(ImportRejected) as err:
        import_cases(store, data, "jsonl")
    assert err.value.message.startswith("line 7: a collection with name")
