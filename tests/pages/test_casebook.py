"""AppTest of the casebook page: empty state, a stored case listed, opened, edited, deleted with
undo, a collection created and presented, read-only mode, a broken database."""

from __future__ import annotations

from pathlib import Path

import pytest

from cache.casebook.model import make_case
from cache.casebook.store import open_store
from components.common import casebook as cb
from tests.pages.conftest import new_app, run_page


def _case(url: str, **kw: object):
    s = open_store(url)
    case = make_case(
        "mars",
        "mars",
        query=[("file", "DeepSeek-8B/aime25_deepseek.parquet"), ("qid", "3")],
        source={"kind": "sample", "file": "DeepSeek-8B/aime25_deepseek.parquet"},
        item={"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": "3"},
        title=str(kw.get("title", "DCO stops on the wrong answer")),
        tags=["premature commit"],
        note=str(kw.get("note", "**Look** at <script>alert(1)</script> $x^2$")),
        author="ada",
        snapshot={"pass@1": 0.25, "majority": "42"},
    )
    s.add(case)
    return case


def _html(at) -> str:  # type: ignore[no-untyped-def]  # AppTest element tree
    return "\n".join(str(h.proto.body) for h in at.get("html"))


def test_empty_casebook_says_what_to_do(db: str, sample_root: Path) -> None:
    at = run_page("pages/casebook.py")
    assert not at.exception
    assert any("Add to casebook" in i.value for i in at.info)


def test_a_case_is_listed_and_opened_safely(db: str, sample_root: Path) -> None:
    case = _case(db)
    at = run_page("pages/casebook.py", case=case.id)
    assert not at.exception
    assert at.dataframe[0].value["title"].to_list() == ["DCO stops on the wrong answer"]
    html = _html(at)
    assert "<strong>Look</strong>" in html and "&lt;script&gt;" in html and "<script>" not in html
    assert any(b.label == "Open the view" for b in at.button)


def test_filters_narrow_the_list(db: str, sample_root: Path) -> None:
    _case(db)
    _case(db, title="another one", note="plain")
    at = run_page("pages/casebook.py", q="another")
    assert at.dataframe[0].value["title"].to_list() == ["another one"]


def test_delete_then_undo(db: str, sample_root: Path) -> None:
    case = _case(db)
    at = run_page("pages/casebook.py", case=case.id)
    next(b for b in at.button if b.label == "Delete").click().run()
    assert not at.exception
    assert open_store(db).get(case.id).deleted
    next(b for b in at.button if b.label == "Undo").click().run()
    assert not open_store(db).get(case.id).deleted


def test_collection_created_and_listed(db: str, sample_root: Path) -> None:
    case = _case(db)
    s = open_store(db)
    col = s.create_collection("Friday demo")
    s.add_to_collection(col.id, case.id)
    at = run_page("pages/casebook.py", collection=col.id)
    assert not at.exception
    assert any(
        "Friday demo" in str(sb.value) or "Friday demo" in str(sb.options) for sb in at.selectbox
    )
    assert any(b.label == "Present" and not b.disabled for b in at.button)


def test_readonly_disables_writes(
    db: str, sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _case(db)
    monkeypatch.setenv("RTE_CASEBOOK", "readonly")
    cb.reset_store()
    at = run_page("pages/casebook.py", case=case.id)
    assert not at.exception
    assert next(b for b in at.button if b.label == "Delete").disabled


def test_a_corrupt_database_is_a_message_not_a_traceback(
    tmp_path: Path, sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("RTE_DB_URL", f"sqlite:///{bad}")
    cb.reset_store()
    at = run_page("pages/casebook.py")
    assert not at.exception
    assert at.error and "corrupt" in at.error[0].value.lower()
    # the other views keep working
    home = new_app().run()
    assert not home.exception
    cb.reset_store()


def test_present_mode_banner_over_the_saved_view(db: str, sample_root: Path) -> None:
    first = _case(db, title="first step")
    second = _case(db, title="second step")
    s = open_store(db)
    col = s.create_collection("demo")
    for c in (first, second):
        s.add_to_collection(col.id, c.id)
    at = run_page("pages/mars.py", **dict(first.query), present=col.id, step="1")
    assert not at.exception
    html = _html(at)
    assert "step 1 of 2" in html and "first step" in html and "<strong>Look</strong>" in html
    prev = next(b for b in at.button if b.label == "Previous")
    assert prev.disabled
    assert not next(b for b in at.button if b.label == "Next").disabled


def test_present_mode_says_when_a_step_is_gone(db: str, sample_root: Path) -> None:
    s = open_store(db)
    gone = make_case(
        "mars", "mars",
        query=[("qid", "3")],
        source={"kind": "sample", "file": "DeepSeek-8B/aime25_deepseek.parquet"},
        item={"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": "99999"},
        title="a question that is no longer there",
        snapshot={"pass@1": 0.5},
    )  # fmt: skip
    s.add(gone)
    col = s.create_collection("gone")
    s.add_to_collection(col.id, gone.id)
    at = run_page("pages/mars.py", qid="3", present=col.id, step="1")
    assert not at.exception
    assert any("cannot be shown as it was captured" in w.value for w in at.warning)
    assert any(
        "pass@1" in df.value["figure"].to_list() for df in at.dataframe if "figure" in df.value
    )
