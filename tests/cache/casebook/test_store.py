"""The casebook store on both backends (SQLite file, PostgreSQL server): cases, edits and
conflicts, soft delete, filters, search, badges, collections, exact text."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cache.casebook import (
    AlreadyExists,
    Case,
    CasebookReadOnly,
    CaseStore,
    EditConflict,
    InvalidCase,
    NotFound,
    deep_link,
    make_case,
    open_store,
)


def _case(**kw: Any) -> Case:
    args: dict[str, Any] = {"dataset": "parason", "view": "parason"}
    args.update(kw)
    return make_case(**args)


def test_add_get_and_duplicate_id(store: CaseStore) -> None:
    case = _case(
        query=[("subset", "sft-1x"), ("uuid", "u1"), ("tag", "a"), ("tag", "b")],
        source={
            "kind": "sample",
            "repo_id": "r",
            "revision": "main",
            "local_path": "",
            "file": "f",
        },
        item={"subset": "sft-1x", "uuid": "u1", "node": "n3"},
        title="Fork at stage 2",
        tags=["dag", "fork"],
        verdict="interesting",
        note="**bold**",
        author="ana",
        snapshot={"speedup": 1.5, "stages": [1, 2], "nested": {"nan": float("nan")}},
    )
    assert store.add(case) == case
    got = store.get(case.id)
    assert got == case
    assert got is not None and got.snapshot["nested"]["nan"] is None  # JSON has no NaN
    assert deep_link(case) == "parason?subset=sft-1x&uuid=u1&tag=a&tag=b"
    assert store.get("nope") is None
    with pytest.raises(AlreadyExists):
        store.add(case)
    assert store.count() == 1


def test_update_compare_and_set(store: CaseStore) -> None:
    case = store.add(_case(title="first"))
    saved = store.update(replace(case, title="second"), expected_version=1)
    assert (saved.version, saved.title, saved.created_at) == (2, "second", case.created_at)
    assert saved.updated_at >= case.updated_at
    # a second session still holding version 1 loses, and sees what is stored
    with pytest.raises(EditConflict) as err:
        store.update(replace(case, title="stale"), expected_version=1)
    assert err.value.current == saved and "version 2" in err.value.message
    assert store.get(case.id) == saved
    with pytest.raises(NotFound):
        store.update(_case(title="ghost"), expected_version=1)


def test_soft_delete_restore_purge(store: CaseStore) -> None:
    a, b = store.add(_case(title="a")), store.add(_case(title="b"))
    gone = store.delete(a.id)
    assert gone.deleted and gone.version == 2
    assert [c.id for c in store.list_cases()] == [b.id]
    assert {c.id for c in store.list_cases(include_deleted=True)} == {a.id, b.id}
    assert store.count() == 1 and store.count(include_deleted=True) == 2
    back = store.restore(a.id)
    assert not back.deleted and store.count() == 2
    assert store.purge(a.id) and not store.purge(a.id)
    assert store.get(a.id) is None
    with pytest.raises(NotFound):
        store.delete(a.id)


def test_list_filters_and_sorts(store: CaseStore) -> None:
    rows = [
        ("parason", "Zeta", ("x", "y"), "good", "ana", 100.0),
        ("mars", "alpha", ("x",), "bad", "bo", 200.0),
        ("fineproofs", "Mid", ("y",), None, "ana", 300.0),
        ("mars", "beta", (), "good", "", 400.0),
    ]
    for ds, title, tags, verdict, author, t in rows:
        store.add(
            _case(
                dataset=ds, view=ds, title=title, tags=tags, verdict=verdict, author=author, now=t
            )
        )
    titles = lambda cs: [c.title for c in cs]  # noqa: E731
    assert titles(store.list_cases()) == ["beta", "Mid", "alpha", "Zeta"]
    assert titles(store.list_cases(sort="created", descending=False)) == [
        "Zeta",
        "alpha",
        "Mid",
        "beta",
    ]
    assert titles(store.list_cases(sort="title", descending=False))[0] in ("Mid", "Zeta", "alpha")
    assert titles(store.list_cases(sort="dataset", descending=False)) == [
        "Mid",
        "beta",
        "alpha",
        "Zeta",
    ]
    assert titles(store.list_cases(dataset="mars")) == ["beta", "alpha"]
    assert titles(store.list_cases(tags=["x"])) == ["alpha", "Zeta"]
    assert titles(store.list_cases(tags=["x", "y"])) == ["Zeta"]
    assert titles(store.list_cases(verdict="good")) == ["beta", "Zeta"]
    assert titles(store.list_cases(author="ana")) == ["Mid", "Zeta"]
    assert titles(store.list_cases(limit=2)) == ["beta", "Mid"]
    assert titles(store.list_cases(tags=["y"], limit=1)) == ["Mid"]
    assert store.authors() == ["ana", "bo"]
    assert store.all_tags() == ["x", "y"]
    with pytest.raises(ValueError):
        store.list_cases(sort="nope")  # type: ignore[arg-type]  # the wrong value under test


def test_text_search_is_case_insensitive_and_literal(store: CaseStore) -> None:
    store.add(_case(title="Confidence DROP", note="n"))
    store.add(_case(title="t2", note="Größe ÉCOLE 100% done_now"))
    store.add(_case(title="t3", tags=["Needs-Review"]))
    store.add(_case(title="t4", note="100 percent, doneXnow"))
    hits = lambda q: sorted(c.title for c in store.list_cases(text=q))  # noqa: E731
    assert hits("confidence drop") == ["Confidence DROP"]
    assert hits("größe école") == ["t2"] and hits("GRÖSSE") == ["t2"]
    assert hits("needs-review") == ["t3"]
    assert hits("100%") == ["t2"] and hits("done_now") == ["t2"]  # % and _ are literal
    assert hits("nothing like it") == []
    assert len(store.list_cases(text="  ")) == 4


def test_badges_for_items(store: CaseStore) -> None:
    a = store.add(_case(item={"subset": "sft-1x", "uuid": "u1", "node": "n1"}))
    b = store.add(_case(item={"subset": "sft-1x", "uuid": "u1"}))
    store.add(_case(item={"subset": "sft-8x", "uuid": "u1"}))
    store.add(_case(item={"subset": "sft-1x", "uuid": "u2&x=y"}))
    m = store.add(_case(dataset="mars", view="mars", item={"file": "f", "qid": "3", "trace": "17"}))
    assert [c.id for c in store.cases_for_item("parason", subset="sft-1x", uuid="u1")] == [
        a.id,
        b.id,
    ]
    assert [c.id for c in store.cases_for_item("parason", uuid="u1", node="n1")] == [a.id]
    assert len(store.cases_for_item("parason", uuid="u2&x=y")) == 1
    assert store.cases_for_item("parason", uuid="u2") == []
    assert [c.id for c in store.cases_for_item("mars", qid=3)] == [m.id]
    assert store.cases_for_item("mars", qid=31) == []
    assert store.items_with_cases("parason", "uuid") == {"u1": 3, "u2&x=y": 1}
    assert store.items_with_cases("mars", "trace") == {"17": 1}
    store.delete(a.id)
    assert store.items_with_cases("parason", "uuid") == {"u1": 2, "u2&x=y": 1}


def test_collections_keep_their_order(store: CaseStore) -> None:
    ids = [store.add(_case(title=f"c{i}")).id for i in range(4)]
    col = store.create_collection("Demo", "for the team")
    for cid in ids[:3]:
        col = store.add_to_collection(col.id, cid)
    col = store.add_to_collection(col.id, ids[0])  # already there: no-op
    assert col.case_ids == tuple(ids[:3])
    col = store.move_in_collection(col.id, ids[2], 0)
    assert col.case_ids == (ids[2], ids[0], ids[1])
    col = store.move_in_collection(col.id, ids[2], 99)
    assert col.case_ids == (ids[0], ids[1], ids[2])
    col = store.remove_from_collection(col.id, ids[1])
    assert col.case_ids == (ids[0], ids[2])
    col = store.set_collection_cases(col.id, [ids[3], ids[0], ids[3]], col.version)
    assert col.case_ids == (ids[3], ids[0])
    with pytest.raises(EditConflict) as err:
        store.set_collection_cases(col.id, [], col.version - 1)
    assert err.value.current == col
    with pytest.raises(NotFound):
        store.set_collection_cases(col.id, ["missing"], col.version)
    with pytest.raises(NotFound):
        store.add_to_collection(col.id, "missing")
    other = store.create_collection("another")
    with pytest.raises(AlreadyExists):
        store.create_collection("Demo")
    with pytest.raises(AlreadyExists):
        store.rename_collection(other.id, "Demo")
    renamed = store.rename_collection(col.id, "Demo 2", description="new")
    assert (renamed.name, renamed.description, renamed.case_ids) == ("Demo 2", "new", col.case_ids)
    assert [c.name for c in store.collections()] == ["another", "Demo 2"]
    assert store.find_collection("demo 2") == store.get_collection(col.id)
    assert store.find_collection(col.id) is not None and store.find_collection("zz") is None
    store.purge(ids[3])  # purging a case takes it out of collections too
    assert store.get_collection(col.id).case_ids == (ids[0],)  # type: ignore[union-attr]  # present
    assert store.delete_collection(col.id) and store.get_collection(col.id) is None
    assert store.get(ids[0]) is not None  # cases outlive their collection


NOTES = {
    "html": "<b>bold</b> &amp; <img src=x onerror=alert(1)>",
    "script": "<script>alert('x')</script>",
    "markdown": "# Title\n\n- item\n\n```python\nprint('x')\n```\n| a | b |\n|---|---|\n",
    "latex": r"$\frac{a}{b}$ and \\ \(x^2\) $$\sum_{i=1}^n i$$ \u0041 \\u00e9",
    "astral": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀🧪 𠜎 \U0010ffff",
    "lone surrogate": "before \ud800 middle \udfff after \\ud800 \ud83d\ude00 pair-as-two",
    "nul and controls": "a\x00b\x01\r\n\tc",
    "1 MB": ("lorem ipsum ✓ \\ $x$ " * 60_000)[:1_000_000],
}


@pytest.mark.parametrize("kind", list(NOTES))
def test_note_round_trips_exactly(store: CaseStore, kind: str) -> None:
    note = NOTES[kind]
    case = store.add(_case(note=note))
    got = store.get(case.id)
    assert got is not None and got.note == note and len(got.note) == len(note)
    if kind == "lone surrogate":
        assert [c.id for c in store.list_cases(text="middle")] == [case.id]


def test_titles_tags_and_limits(store: CaseStore) -> None:
    c = store.add(
        _case(
            dataset="fineproofs",
            view="fineproofs",
            item={"problem": "P1", "sample": "2", "prefix": "5"},
        )
    )
    assert c.title == "fineproofs: problem P1 · sample 2 · prefix 5"
    assert _case(title="   ").title == "parason case"
    dup = store.add(_case(tags=[" a ", "a", "", "b", "  ", "a", "b "]))
    assert dup.tags == ("a", "b") and store.get(dup.id).tags == ("a", "b")  # type: ignore[union-attr]  # present
    many = [f"tag-{i:04d}-" + "x" * 180 for i in range(1000)]
    big = store.add(_case(tags=many))
    assert store.get(big.id).tags == tuple(many)  # type: ignore[union-attr]  # present
    assert len(store.list_cases(tags=[many[500]])) == 1
    with pytest.raises(InvalidCase):
        _case(tags=[*many, "one more"])
    with pytest.raises(InvalidCase):
        _case(tags=["x" * 201])
    with pytest.raises(InvalidCase):
        _case(note="x" * (2 * 1024 * 1024 + 1))
    with pytest.raises(InvalidCase):
        _case(dataset="nope")
    with pytest.raises(InvalidCase):
        _case(title="bad \ud800")
    with pytest.raises(InvalidCase):
        _case(id="has space")
    assert store.count() == 3


def test_read_only_store_refuses_writes(db_url: str) -> None:
    rw = open_store(db_url, readonly=False)
    case = rw.add(_case())
    col = rw.create_collection("c")
    rw.close()
    ro = open_store(db_url, readonly=True)
    try:
        assert ro.get(case.id) == case and ro.readonly
        for write in (
            lambda: ro.add(_case()),
            lambda: ro.update(case, 1),
            lambda: ro.delete(case.id),
            lambda: ro.purge(case.id),
            lambda: ro.create_collection("d"),
            lambda: ro.add_to_collection(col.id, case.id),
            lambda: ro.merge([_case()]),
        ):
            with pytest.raises(CasebookReadOnly) as err:
                write()
            assert "RTE_CASEBOOK" in err.value.hint
        assert ro.count() == 1
    finally:
        ro.close()


def test_readonly_defaults_from_the_environment(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(db_url, readonly=False).close()
    monkeypatch.setenv("RTE_CASEBOOK", "readonly")
    s = open_store(db_url)
    try:
        with pytest.raises(CasebookReadOnly):
            s.add(_case())
    finally:
        s.close()


def test_default_url_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RTE_DB_URL", raising=False)
    monkeypatch.delenv("RTE_CASEBOOK", raising=False)
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    s = open_store()
    assert Path(s.where) == tmp_path / "cache" / "casebook.sqlite" and not s.readonly
    s.close()
    monkeypatch.setenv("RTE_DB_URL", f"sqlite:///{tmp_path / 'elsewhere.sqlite'}")
    s = open_store()
    assert Path(s.where) == tmp_path / "elsewhere.sqlite"
    s.close()
