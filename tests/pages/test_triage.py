"""AppTest of the triage bar over a view: where we are, the tags and verdict the keys toggle (the
bar's buttons: the keys click them), a save that writes a real case (a new one, or an edit of the
item's case with the Edit form's conflict rules), the resume point, and the two places a queue
starts from (a collection, Parason Browse)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from cache.casebook.model import make_case
from cache.casebook.queue_items import QueueItem
from cache.casebook.store import open_store
from components.casebook.triage_bar import next_verdict, toggled
from components.common import casebook
from components.parason.cases import queue_items
from tests.pages.conftest import run_page

FILE = "DeepSeek-8B/aime25_deepseek.parquet"


def _items(n: int = 3) -> list[QueueItem]:
    return [
        QueueItem(
            view="mars",
            query=(("file", FILE), ("qid", str(q))),
            item={"file": FILE, "qid": str(q)},
            label=f"AIME q{q} <script>alert(1)</script>",
            source={"kind": "sample", "file": FILE},
        )
        for q in range(n)
    ]


def _bar_script() -> None:
    from components.casebook.triage_bar import triage_bar

    triage_bar()


def bar_app(**params: str) -> AppTest:
    """The bar alone (its buttons rerun it; AppTest reruns a routed page without app.py)."""
    at = AppTest.from_function(_bar_script, default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def _html(at) -> str:  # type: ignore[no-untyped-def]
    return "".join(str(h.proto.body) for h in at.get("html"))


def _button(at, key: str):  # type: ignore[no-untyped-def]
    return next(b for b in at.button if b.key == key)


def _note_key(at) -> str:  # type: ignore[no-untyped-def]
    return next(t.key for t in at.text_area if "tq_note" in str(t.key))


def test_pure_steps_of_the_keys() -> None:
    assert toggled(["a"], "b") == ["a", "b"] and toggled(["a", "b"], "a") == ["b"]
    assert next_verdict(None) == "confirmed" and next_verdict("needs review") is None
    assert next_verdict("first error") is None  # a stored step verdict leaves the cycle after it


def test_the_bar_says_where_we_are_and_escapes_labels(db: str, sample_root: Path) -> None:
    q = open_store(db).create_queue("wrong ones", "search: <b>boxed</b>", _items())
    at = run_page("pages/mars.py", file=FILE, qid="1", triage=q.id, tpos="2")
    assert not at.exception
    html = _html(at)
    assert "2 of 3" in html and "0 of 3 have cases" in html
    assert "&lt;script&gt;" in html and "<script>alert" not in html
    assert "search: &lt;b&gt;boxed&lt;/b&gt;" in html
    want = [f"{n} · {t}" for n, t in enumerate(casebook.tag_suggestions("mars")[:9], 1)]
    assert want and [b.label for b in at.button if str(b.key).startswith("tq_tag_")] == want
    assert not _button(at, "tq_prev").disabled and not _button(at, "tq_next").disabled
    assert open_store(db).get_queue(q.id).position == 1  # the step shown is remembered


def test_keys_then_save_write_a_real_case_and_move_on(db: str, sample_root: Path) -> None:
    s = open_store(db)
    q = s.create_queue("t", "collection: demo", _items())
    at = bar_app(triage=q.id, tpos="1")
    tag2 = _button(at, "tq_tag_2")
    at = tag2.click().run()  # key 2
    at = _button(at, "tq_verdict").click().run()  # key v
    assert _button(at, "tq_verdict").label == "Verdict (v): confirmed"
    assert _button(at, "tq_tag_2").label.endswith(tag2.label.split(" · ", 1)[1])
    at.text_area(key=_note_key(at)).set_value("odd **vote** <b>x</b>")
    at = _button(at, "tq_save").click().run()  # Enter
    assert not at.exception
    cases = s.cases_for_item("mars", file=FILE, qid="0")
    assert len(cases) == 1
    c = cases[0]
    assert c.tags == (tag2.label.split(" · ", 1)[1],) and c.verdict == "confirmed"
    assert c.note == "odd **vote** <b>x</b>" and c.author == "tester"
    assert c.title == _items()[0].label and dict(c.query) == {"file": FILE, "qid": "0"}


def test_enter_on_an_item_with_nothing_set_moves_on_without_a_case(
    db: str, sample_root: Path
) -> None:
    """Enter is how a reader passes an item by: with no tag, verdict or note set and no case
    there, it makes no empty case, says so, and opens the next item; on the last item it says
    the queue is done without claiming a save."""
    s = open_store(db)
    q = s.create_queue("t", "lens: flips", _items())
    at = bar_app(triage=q.id, tpos="1")
    at = _button(at, "tq_save").click().run()  # Enter
    assert not at.exception and s.count() == 0
    assert "Opening…" in [c.value for c in at.caption]  # the next item's page (the toast: J13)
    at = bar_app(triage=q.id, tpos="3")
    at = _button(at, "tq_save").click().run()
    assert s.count() == 0 and not at.success
    (said,) = [i.value for i in at.info if "last item" in i.value]
    assert said.startswith("Nothing was set on item 3 (no tag, verdict or note), so no case")
    # a verdict alone is something: a case is made
    at = bar_app(triage=q.id, tpos="2")
    at = _button(at, "tq_verdict").click().run()
    at = _button(at, "tq_save").click().run()
    (c,) = s.list_cases()
    assert c.verdict == "confirmed" and c.item == _items()[1].item


def test_an_item_with_a_case_is_edited_and_a_conflict_shows_both(
    db: str, sample_root: Path
) -> None:
    s = open_store(db)
    item = _items()[1]
    mine = s.add(
        make_case("mars", "mars", query=item.query, item=item.item, tags=["x"], note="first",
                  author="ada")
    )  # fmt: skip
    q = s.create_queue("t", "lens: flips", _items())
    at = bar_app(triage=q.id, tpos="2")
    assert "1 of 3 have cases" in _html(at) and "1 case on this item" in _html(at)
    assert any(b.label == "x" for b in at.button if str(b.key).startswith("tq_tag_x"))
    at.text_area(key=_note_key(at)).set_value("second")
    s.update(make_case("mars", "mars", id=mine.id, item=item.item, note="theirs"), 1)
    at = _button(at, "tq_save").click().run()
    assert not at.exception
    assert any(b.label == "Keep mine" for b in at.button)
    assert s.get(mine.id).note == "theirs"  # nothing overwritten
    at = next(b for b in at.button if b.label == "Keep mine").click().run()
    got = s.get(mine.id)
    assert got.note == "second" and got.version == 3


def test_a_queue_resumes_where_it_stopped(db: str, sample_root: Path) -> None:
    s = open_store(db)
    q = s.create_queue("t", "search: x", _items())
    s.set_queue_position(q.id, 2)
    at = run_page("pages/mars.py", file=FILE, qid="2", triage=q.id)
    assert "3 of 3" in _html(at) and _button(at, "tq_next").disabled
    assert at.query_params["tpos"] in ("3", ["3"])


def test_a_gone_queue_says_so(db: str, sample_root: Path) -> None:
    at = run_page("pages/mars.py", file=FILE, qid="2", triage="nope")
    assert any("no longer in the casebook" in w.value for w in at.warning)


def test_a_collection_starts_a_queue(db: str, sample_root: Path) -> None:
    s = open_store(db)
    cases = [s.add(make_case("mars", "mars", query=i.query, item=i.item)) for i in _items(2)]
    col = s.create_collection("demo")
    for c in cases:
        s.add_to_collection(col.id, c.id)
    at = run_page("pages/casebook.py", tab="Collections", collection=col.id)
    assert not at.exception
    at = _button(at, "cb_triage").click().run()
    (queue,) = s.queues()
    assert queue.origin == "collection: demo" and queue.size == 2
    assert [i.item for i in queue.items] == [c.item for c in cases]


def test_parason_browse_starts_a_queue_of_its_filtered_rows(db: str, sample_root: Path) -> None:
    at = run_page("pages/parason.py", view="Browse", correct="incorrect")
    assert not at.exception
    btn = _button(at, "pa_triage")
    n = int(btn.label.split()[-1].replace(",", ""))
    at = btn.click().run()
    (queue,) = open_store(db).queues()
    assert queue.size == n > 0 and queue.origin.startswith("Parason Browse: sft-1x")
    assert "correct=incorrect" in queue.origin
    assert {i.item["subset"] for i in queue.items} == {"sft-1x"}


def test_browse_rows_as_queue_items() -> None:
    got = queue_items(
        "sft-8x", [("u1", "What is 2+2?")], {"file": "f"}, (("src_parason_kind", "x"),)
    )
    assert got == [
        QueueItem(
            view="parason",
            query=(("src_parason_kind", "x"), ("subset", "sft-8x"), ("uuid", "u1")),
            item={"subset": "sft-8x", "uuid": "u1"},
            label="sft-8x · What is 2+2?",
            source={"file": "f"},
        )
    ]


def test_a_new_case_needs_a_name_asked_in_the_bar(
    db: str, sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(casebook, "logged_in_name", lambda: None)
    q = open_store(db).create_queue("t", "search: x", _items())
    at = bar_app(triage=q.id, tpos="1")
    assert at.text_input(key="tq_author") is not None
    at = _button(at, "tq_verdict").click().run()  # something to save
    at = _button(at, "tq_save").click().run()
    errors = [e.value for e in at.error if "needs an author" in e.value]
    assert len(errors) == 1 and errors[0].startswith("**Who is writing?** "), errors
    assert open_store(db).count() == 0
    at.text_input(key="tq_author").set_value("Tess").run()
    # the name is given: the message that asked for it goes, before any save
    assert not [e.value for e in at.error if "needs an author" in e.value]
    at = _button(at, "tq_save").click().run()
    (c,) = open_store(db).list_cases()
    assert c.author == "Tess"


def test_the_collections_tab_lists_queues_to_resume(db: str, sample_root: Path) -> None:
    s = open_store(db)
    q = s.create_queue("wrong <b>ones</b>", "search: x", _items())
    s.set_queue_position(q.id, 1)
    at = run_page("pages/casebook.py", tab="Collections")
    assert not at.exception
    links = [m.value for m in at.markdown if "Resume" in m.value]
    assert len(links) == 1 and "2 of 3" in links[0] and "<b>" not in links[0]
    assert f"triage={q.id}&tpos=2" in links[0] and "qid=1" in links[0]


def _swap_script() -> None:
    import streamlit as st

    from cache.casebook.queue_items import QueueItem
    from components.common.triage import _swap_in_place
    from components.common.url_keys import ParasonKeys
    from components.common.url_state import url_radio

    # the Parason view's subset control, drawn as the page draws it (a light control), at its
    # default: the URL leaves it out
    url_radio("Subset", ["sft-1x", "sft-8x"], ParasonKeys.SUBSET)
    want = st.session_state["want"]
    item = QueueItem(view="parason", query=(("subset", want), ("uuid", "u2")), item={})
    st.session_state["swapped"] = _swap_in_place(item, 2)


@pytest.mark.parametrize(("want", "swapped"), [("sft-1x", True), ("sft-8x", False)])
def test_a_step_stays_in_the_page_when_widgets_already_hold_its_keys(
    want: str, swapped: bool
) -> None:
    """A widget at its default is not in the URL: a step to an item on that value swaps the
    URL keys in place (no reload, the key listener stays); another value needs a reload."""
    at = AppTest.from_function(_swap_script, default_timeout=30)
    at.session_state["want"] = want
    at.query_params["uuid"] = "u1"
    at.query_params["triage"] = "q1"
    at.run()
    assert not at.exception and at.session_state["swapped"] is swapped
    uuid = at.query_params["uuid"]
    assert (uuid in ("u2", ["u2"])) is swapped


def test_the_bars_counts_are_written_as_the_queues_name_writes_them(
    db: str, sample_root: Path
) -> None:
    """A walk saw "3 of 1756 have cases" beside "(1,756)": the bar's counts group thousands."""
    q = open_store(db).create_queue("big (1,001)", "lens: big", _items(1001))
    at = bar_app(triage=q.id, tpos="1000")
    assert not at.exception
    html = _html(at)
    assert "1,000 of 1,001</b>" in html and "0 of 1,001 have cases" in html
