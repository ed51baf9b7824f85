"""AppTest of the casebook page: empty state, a stored case listed, opened, edited, deleted with
undo, a collection created and presented, read-only mode, a broken database."""

from __future__ import annotations

from pathlib import Path

import pytest

from cache.casebook.model import make_case
from cache.casebook.store import open_store
from components.common import casebook as cb
from tests.pages.conftest import new_app, run_page
from tests.pages.controls import choose, chosen, light_control, light_controls


def _case(url: str, **kw: object):
    s = open_store(url)
    case = make_case(
        "mars",
        "mars",
        query=[("file", "DeepSeek-8B/aime25_deepseek.parquet"), ("qid", "3")],
        source={"kind": "sample", "file": "DeepSeek-8B/aime25_deepseek.parquet"},
        item={"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": "3"},
        title=str(kw.get("title", "DCO stops on the wrong answer")),
        tags=list(kw.get("tags", ["premature commit"])),  # type: ignore[call-overload]
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
    (empty,) = [i.value for i in at.info if i.value.startswith("No cases match")]
    # it names the buttons as the views label them
    for label in ("Add question", "Add trace", "Add run", "Add to casebook"):
        assert f"*{label}*" in empty


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


def test_the_filter_bar_is_light_and_filters_by_tag_verdict_and_text(
    db: str, sample_root: Path
) -> None:
    """The filter bar's controls are light controls bound to the URL: a link's tags, verdict
    and text filter the list; a tag no case carries is left out of the link's filter."""
    _case(db)
    _case(db, title="another one", note="plain", tags=["late flip", "premature commit"])
    at = run_page("pages/casebook.py", tag=["late flip", "no such tag"])
    assert at.dataframe[0].value["title"].to_list() == ["another one"]
    assert chosen(at, "tag") == ("late flip",)
    tags = light_control(at, "Tags (all of)")
    assert tags.kind == "multi" and sorted(tags.options) == ["late flip", "premature commit"]
    assert {c.kind for c in light_controls(at) if c.label in ("Dataset", "Verdict", "Author")} == {
        "select"
    }
    at = choose(at, "tag", ())
    assert len(at.dataframe[0].value) == 2
    at = choose(at, "q", "another")
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


def test_the_case_link_is_plain_text_with_a_copy_button(db: str, sample_root: Path) -> None:
    case = _case(db)
    at = run_page("pages/casebook.py", case=case.id)
    assert not at.exception
    # st.code: the exact link (no Markdown escapes like `qid=3\&`), with Streamlit's copy button
    links = [c.value for c in at.code]
    assert "mars?file=DeepSeek-8B%2Faime25_deepseek.parquet&qid=3" in links


def test_the_case_link_is_absolute_with_a_public_url(
    db: str, sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = _case(db)
    monkeypatch.setenv("RTE_PUBLIC_URL", "https://explorer.example.org/")
    at = run_page("pages/casebook.py", case=case.id)
    assert "https://explorer.example.org/mars?file=DeepSeek-8B%2Faime25_deepseek.parquet&qid=3" in [
        c.value for c in at.code
    ]


def test_the_list_tells_cases_apart(db: str, sample_root: Path) -> None:
    s = open_store(db)
    for trace, ok, length in ((36, False, 1005), (37, True, 2210)):
        s.add(
            make_case(
                "mars", "mars",
                query=[("qid", "0"), ("trace", str(trace))],
                item={"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": "0",
                      "trace": str(trace)},
                title="DeepSeek-R1-0528-Qwen3-8B · AIME 2025 · Q0 · a very long title that is cut",
                snapshot={"final_correct": ok, "length": length},
                author="ada",
            )
        )  # fmt: skip
    at = run_page("pages/casebook.py")
    assert sorted(at.dataframe[0].value["case"].to_list()) == [
        "Q0 · trace 36 · wrong · 1,005 tok",
        "Q0 · trace 37 · right · 2,210 tok",
    ]
    # what tells cases apart comes before the long title, so it stays on screen at 1024 px
    columns = list(at.dataframe[0].value.columns)
    assert columns.index("verdict") < columns.index("title")
    assert columns.index("author") < columns.index("title")
    # "deleted" only when deleted cases are listed
    assert columns[-2:] == ["title", "tags"] and "deleted" not in columns


def _edit_note(at):  # type: ignore[no-untyped-def]  # an AppTest text area
    """The open case's Edit form note (its key changes with each load of the form)."""
    return next(t for t in at.text_area if t.label == "Note (Markdown)")


def test_a_conflicting_save_shows_both_versions_and_loses_nothing(
    db: str, sample_root: Path
) -> None:
    case = _case(db)
    mine = run_page("pages/casebook.py", case=case.id)
    # someone else saves while "mine" has the form open
    from dataclasses import replace

    s = open_store(db)
    s.update(replace(case, note="their note"), expected_version=case.version)
    _edit_note(mine).set_value("my note")
    mine.button(key=f"FormSubmitter:cb_edit_{case.id}-Save changes").click().run()
    assert not mine.exception
    assert any("Someone saved this case" in e.value for e in mine.error)
    assert open_store(db).get(case.id).note == "their note"  # nothing overwritten
    next(b for b in mine.button if b.label == "Merge by hand").click().run()
    merged = _edit_note(mine).value
    assert "my note" in merged and "their note" in merged
    mine.button(key=f"FormSubmitter:cb_edit_{case.id}-Save changes").click().run()
    stored = open_store(db).get(case.id)
    assert "my note" in stored.note and "their note" in stored.note
    assert stored.version == case.version + 2


def test_keep_theirs_drops_only_my_unsaved_edit(db: str, sample_root: Path) -> None:
    case = _case(db)
    mine = run_page("pages/casebook.py", case=case.id)
    from dataclasses import replace

    open_store(db).update(replace(case, note="their note"), expected_version=case.version)
    _edit_note(mine).set_value("my note")
    mine.button(key=f"FormSubmitter:cb_edit_{case.id}-Save changes").click().run()
    next(b for b in mine.button if b.label == "Keep theirs").click().run()
    assert _edit_note(mine).value == "their note"
    assert open_store(db).get(case.id).note == "their note"


def test_saving_the_same_case_twice_warns_and_saves_once(db: str, sample_root: Path) -> None:
    rel = "DeepSeek-8B/aime25_deepseek.parquet"
    key = f"cb_mars_q_{rel}_3"
    at = run_page("pages/mars.py", qid="3")
    for n in range(2):
        at.text_input(key=f"{key}_title").set_value("same finding")
        at.text_area(key=f"{key}_note").set_value("the same note")
        at.button(key=f"{key}_save").click().run()
        assert not at.exception
        if n == 0:  # the form is gone: a confirmation, and a way to capture another
            assert any("Saved “same finding” to the casebook" in s.value for s in at.success)
            assert not [b for b in at.button if b.key == f"{key}_save"]
            at.button(key=f"{key}_again").click().run()
    assert [c.title for c in open_store(db).list_cases()] == ["same finding"]
    assert any("An identical case is already on this item" in w.value for w in at.warning)


def test_saving_without_an_author_asks_for_one(
    db: str, sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cb, "logged_in_name", lambda: None)  # AppTest's default user is logged in
    rel = "DeepSeek-8B/aime25_deepseek.parquet"
    key = f"cb_mars_q_{rel}_3"
    at = run_page("pages/mars.py", qid="3")
    at.text_area(key=f"{key}_note").set_value("who wrote this?")
    at.button(key=f"{key}_save").click().run()
    assert not at.exception
    assert [c.author for c in open_store(db).list_cases()] == []
    assert any("needs an author" in e.value for e in at.error)
    assert at.text_area(key=f"{key}_note").value == "who wrote this?"  # nothing lost


def test_a_readonly_casebook_on_a_fresh_store_opens_empty_and_quiet(
    tmp_path: Path, sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """app.json's defaults (RTE_CASEBOOK=readonly) on an empty cache: no error, no file made."""
    where = tmp_path / "casebook.sqlite"
    monkeypatch.setenv("RTE_DB_URL", f"sqlite:///{where}")
    monkeypatch.setenv("RTE_CASEBOOK", "readonly")
    cb.reset_store()
    at = run_page("pages/casebook.py")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Add to casebook" in i.value for i in at.info)
    mars = run_page("pages/mars.py", qid="3")  # the views' badges read the empty casebook
    assert not mars.exception
    assert not any("Casebook" in c.value and "hidden" in c.value for c in mars.caption)
    assert not where.exists()
    cb.reset_store()


def test_a_trace_whose_evidence_cannot_be_read_at_save_is_a_message(
    db: str, sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Single trace tab's evidence is made when the case is saved: a file gone by then is
    the form's message (nothing stored, the typed note kept), not a traceback."""
    from cache.errors import SourceNotFound
    from components.mars import cases as mars_cases

    def gone(ref: object) -> None:
        raise SourceNotFound("aime25_deepseek.parquet does not exist", "check the source")

    at = run_page("pages/mars.py", qid="3", view="Single trace")
    saves = [
        b.key
        for b in at.button
        if b.key.startswith("cb_mars_zoom_trace_") and b.key.endswith("_save")
    ]
    assert len(saves) == 1, [b.key for b in at.button]
    key = saves[0].removesuffix("_save")
    monkeypatch.setattr(mars_cases, "_confs", gone)
    at.text_area(key=f"{key}_note").set_value("the curve dips here")
    at.button(key=f"{key}_save").click().run()
    assert not at.exception
    assert open_store(db).list_cases() == []
    assert any("does not exist" in e.value for e in at.error)
    assert at.text_area(key=f"{key}_note").value == "the curve dips here"
