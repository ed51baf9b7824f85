"""A case's view is one of the explorer's own (and fits its dataset) on every write and import;
rows stored earlier with another view still load, and get no link."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sqlalchemy as sa

from cache.casebook import (
    CaseStore,
    ImportRejected,
    InvalidCase,
    deep_link,
    export_cases,
    import_cases,
    make_case,
    rows,
    schema,
)
from tests.crafted_views import CRAFTED_VIEWS

HOSTILE_VIEWS = list(CRAFTED_VIEWS)


@pytest.mark.parametrize("view", HOSTILE_VIEWS)
def test_a_foreign_view_is_refused_on_write(store: CaseStore, view: str) -> None:
    with pytest.raises(InvalidCase) as err:
        make_case("mars", view)
    assert "is not one of the explorer's views" in err.value.message
    assert "parason, mars, playground, fineproofs" in err.value.hint
    ok = store.add(make_case("mars", "mars"))
    for write in (
        lambda: store.add(replace(ok, id="other", view=view)),
        lambda: store.update(replace(ok, view=view), ok.version),
        lambda: store.merge([replace(ok, id="other", view=view)]),
    ):
        with pytest.raises(InvalidCase):
            write()
    assert store.list_cases() == [ok]


@pytest.mark.parametrize("view", HOSTILE_VIEWS)
def test_an_import_with_a_foreign_view_names_the_line(store: CaseStore, view: str) -> None:
    good = [make_case("mars", "mars", title=f"case {i}") for i in range(3)]
    bad = replace(good[1], view=view)  # what a hand-edited file may hold
    data = export_cases([good[0], bad, good[2]], "jsonl")
    with pytest.raises(ImportRejected) as err:
        import_cases(store, data, "jsonl")
    assert err.value.message.startswith("line 2: view ")
    assert "is not one of the explorer's views" in err.value.message
    assert store.count(include_deleted=True) == 0
    for fmt in ("csv", "parquet"):
        with pytest.raises(ImportRejected) as err:
            import_cases(store, export_cases([good[0], bad], fmt), fmt)
        assert ("line 3: view" if fmt == "csv" else "row 2: view") in err.value.message


def test_the_dataset_must_fit_the_view(store: CaseStore) -> None:
    with pytest.raises(InvalidCase) as err:
        make_case("parason", "mars")
    assert "a parason case cannot come from the mars view" in err.value.message
    case = make_case("mars", "mars")
    with pytest.raises(ImportRejected) as rejected:
        import_cases(store, export_cases([replace(case, dataset="fineproofs")], "jsonl"), "jsonl")
    assert rejected.value.message.startswith("line 1: a fineproofs case cannot come from the mars")
    for view in ("parason", "mars", "playground", "fineproofs"):
        store.add(make_case(view, view))
    assert store.count() == 4


def test_stored_rows_with_odd_views_still_load(store: CaseStore) -> None:
    """Written before views were checked: readable, listed, no link; deleting still works."""
    case = make_case("mars", "mars", title="old row")
    row = rows.row_values(replace(case, view="javascript:alert(1)//"))
    with store.engine.begin() as conn:
        conn.execute(sa.insert(schema.cases_t).values(**row))
    got = store.get(case.id)
    assert got is not None and got.view == "javascript:alert(1)//"
    assert deep_link(got) == ""
    assert [c.id for c in store.list_cases()] == [case.id]
    assert store.delete(case.id).deleted
    with pytest.raises(InvalidCase):  # an edit is a write: it asks for a real view
        store.update(replace(got, title="edited"), got.version)


def test_a_case_link_drops_the_keys_of_how_it_was_opened() -> None:
    """A case captured on a page opened from another case (`focus=true`), a presentation or a
    queue keeps only the view's own state: its link would otherwise carry `focus=true` twice
    once opened again (a review found it)."""
    from cache.casebook.links import case_path, view_pairs

    query = [("qid", "3"), ("focus", "true"), ("present", "c1"), ("step", "2"), ("tpos", "4")]
    assert view_pairs(query) == [("qid", "3")]
    assert case_path("mars", query) == "mars?qid=3"
