"""AppTest of /search: a query from the URL, the filters, the empty state, a bad regex, escaping,
Home's box, the correctness filter's left-out counts and a regex stopped on a row."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
from streamlit.testing.v1 import AppTest

from analysis.search.corpus import load_corpus
from cache.casebook.model import Case
from components.common import casebook
from components.home.search_box import ENTERED
from tests.pages.conftest import new_app, run_page
from tests.pages.controls import chosen, light_control, light_controls


def _html(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def _text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += (
        [e.value for e in at.error] + [i.value for i in at.info] + [w.value for w in at.warning]
    )
    return "\n".join(parts)


def test_empty_state_says_what_to_try(sample_root: Path, db: str) -> None:
    at = run_page("pages/search.py")
    assert not at.exception
    assert "Type a word or a phrase" in _text(at)
    assert "\\boxed{" in _text(at)


def test_the_filters_come_with_a_query(sample_root: Path, db: str) -> None:
    """Before a query there is nothing to narrow: no filter widget is drawn (they are most of
    what the empty page would cost to draw in a new tab); with one, all three are."""
    empty = run_page("pages/search.py")
    assert not empty.exception
    filters = {"Datasets", "Subset / file", "Correctness"}
    assert not [c for c in light_controls(empty) if c.label in filters]
    at = run_page("pages/search.py", q="boxed{9")
    assert not at.exception
    assert {c.label for c in light_controls(at)} >= filters
    assert not at.multiselect and not at.get("button_group")  # light controls, not Streamlit's


def test_query_from_url_groups_and_links(sample_root: Path, db: str) -> None:
    at = run_page("pages/search.py", q="boxed{9")
    assert not at.exception and not at.error
    html = _html(at)
    assert "hits in" in html and "MARS" in html and "Parason" in html
    assert "<mark" in html and "boxed{9" in html
    assert "href='parason?subset=sft-" in html and "&amp;node=" in html  # the node holding it
    assert "Page 1 of " in _text(at)
    assert chosen(at, "q") == "boxed{9"
    assert any(c.label == "Search every text" for c in light_controls(at))


def test_filters_narrow_the_results(sample_root: Path, db: str) -> None:
    at = run_page("pages/search.py", q="boxed{9", ds="Parason")
    assert not at.exception
    html = _html(at)
    assert "href='parason?" in html and "href='mars?" not in html
    at = run_page("pages/search.py", q="boxed{9", ds="MARS", ok="wrong")
    html = _html(at)
    assert "href='mars?" in html and "· wrong" in html and "· correct</span>" not in html
    assert "view=Single+trace" in html and "&amp;probe=" in html  # the trace at the probe


def test_fineproofs_hit_opens_its_step(sample_root: Path, db: str) -> None:
    at = run_page("pages/search.py", q="𝑛⁵ − 𝑛", ds="FineProofs")
    assert not at.exception
    html = _html(at)
    assert "href='fineproofs?problem=" in html and "prefix=" in html
    assert "𝑛⁵ − 𝑛" in html  # astral-plane characters intact


def test_bad_regex_is_a_message(sample_root: Path, db: str) -> None:
    at = run_page("pages/search.py", q="(unclosed", rx="true")
    assert not at.exception
    assert any("Not a valid regular expression" in e.value for e in at.error)


def test_a_regex_with_a_backslash_and_no_hit_explains_escapes(sample_root: Path, db: str) -> None:
    """`\\boxed` in a regular expression is a word boundary and "oxed": no hit, and the message
    says why and what to write instead; written as it says (`\\\\boxed`), it finds them."""
    at = run_page("pages/search.py", q="\\boxed\\{", rx="true")
    assert not at.exception
    (advice,) = [i.value for i in at.info if i.value.startswith("No hit")]
    assert "a backslash starts an escape" in advice and "`\\\\`" in advice
    at = run_page("pages/search.py", q="\\\\boxed\\{", rx="true")
    assert not any(i.value.startswith("No hit") for i in at.info)
    at = run_page("pages/search.py", q="zzqqxxnothing", rx="true")
    (plain,) = [i.value for i in at.info if i.value.startswith("No hit")]
    assert "backslash" not in plain  # no escape to explain
    # it names only what is set: neither Match case nor filters here, both below
    assert "Match case" not in plain and "filters" not in plain
    at = run_page("pages/search.py", q="zzqqxxnothing", cs="true", ds="MARS")
    (set_,) = [i.value for i in at.info if i.value.startswith("No hit")]
    assert "switch *Match case* off" in set_ and "clear the filters" in set_


def test_casebook_text_is_searched_and_escaped(sample_root: Path, db: str) -> None:
    store = casebook.store()
    store.add(
        Case(
            id="case1",
            dataset="mars",
            view="mars",
            title="<script>alert(1)</script> & 𝑥",
            note="a note with &amp; and <b>bold</b>",
            author="tester",
        )
    )
    at = run_page("pages/search.py", q="<script>", ds="Casebook")
    assert not at.exception
    html = _html(at)
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "href='casebook?case=case1&amp;hl=%3Cscript%3E'" in html  # the mark, URL-encoded
    at = run_page("pages/search.py", q="&amp;", ds="Casebook")
    assert "&amp;amp;" in _html(at)
    # one hit in one item is said in the singular (a walk read "1 hits in 1 items")
    assert "<b>1</b> hit in <b>1</b> item</div>" in _html(at)
    assert "Casebook</b>: 1 hit in 1 item" in _html(at)


def test_home_box_opens_the_search(sample_root: Path, db: str) -> None:
    at = new_app()
    at.run()
    assert any(c.label == "Search every text" for c in light_controls(at))
    at.session_state[ENTERED] = "boxed{9"  # what Enter or the button in the box sends
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Search"]
    assert at.query_params.get("q") in ("boxed{9", ["boxed{9"])
    assert "<mark" in _html(at)


def test_home_box_empty_opens_the_search_page_to_try_examples(sample_root: Path, db: str) -> None:
    """The button with nothing typed opens Search (its examples and empty state), not nothing."""
    at = new_app()
    at.run()
    at.session_state[ENTERED] = "   "
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Search"]
    assert not at.query_params.get("q")


def test_a_probe_hit_opens_the_single_trace_at_its_probe(sample_root: Path, db: str) -> None:
    at = run_page(
        "pages/mars.py",
        file="DeepSeek-8B/aime25_deepseek.parquet",
        qid="0",
        trace="5",
        view="Single trace",
        probe="4096",
    )
    assert not at.exception
    html = _html(at)
    assert "Probe at token <b>4096</b> (the probe the link names)" in html
    at = run_page(
        "pages/mars.py", file="DeepSeek-8B/aime25_deepseek.parquet", qid="0", trace="5",
        view="Single trace",
    )  # fmt: skip
    assert "Probe at token <b>2048</b>," in _html(at)  # no probe named: the first


def test_a_page_of_results_starts_a_triage_queue(sample_root: Path, db: str) -> None:
    from cache.casebook.store import open_store

    at = run_page("pages/search.py", q="boxed{9")
    btn = next(b for b in at.button if b.key == "search_triage")
    n = int(btn.label.split()[-2].replace(",", ""))
    assert n > 0 and not btn.disabled
    btn.click().run()
    (queue,) = open_store(db).queues()
    assert queue.size == n and queue.origin == "search: “boxed{9”, page 1"
    # one stop per item of the page, each opening a dataset's view (casebook hits are no item)
    assert len({(i.view, i.query) for i in queue.items}) == n
    assert {i.view for i in queue.items} <= {"parason", "mars", "fineproofs"}
    # each stop marks the text matched where it opens, as the hit's own link does
    assert all(dict(i.query).get("hl", "").lower() == "boxed{9" for i in queue.items), [
        dict(i.query).get("hl") for i in queue.items
    ]


def test_every_matching_item_starts_one_triage_queue(sample_root: Path, db: str) -> None:
    """A page may hold one item's many hits: "Triage all N matching items" queues every item
    the search matched (N from the full counts), one stop each, not only this page's."""
    from cache.casebook.store import open_store

    at = run_page("pages/search.py", q="double-check")
    page_btn = next(b for b in at.button if b.key == "search_triage")
    on_page = int(page_btn.label.split()[-2].replace(",", ""))
    btn = next(b for b in at.button if b.key == "search_triage_all")
    n = int(btn.label.split()[2].replace(",", ""))
    assert n > on_page and not btn.disabled
    btn.click().run()
    assert not at.exception
    (queue,) = open_store(db).queues()
    assert queue.size == n and queue.name.endswith(f"· all {n:,}")
    assert len({(i.view, i.query) for i in queue.items}) == n
    assert {i.view for i in queue.items} <= {"parason", "mars", "fineproofs"}


def test_triage_all_names_the_cases_it_leaves_out_and_the_query_as_typed(
    sample_root: Path, db: str
) -> None:
    """Regression: "Triage all" counted one item fewer than the header above it, which counts a
    matching case, and the queue's name doubled a regex's backslashes (it was the query's repr)."""
    from cache.casebook.store import open_store

    casebook.store().add(
        Case(id="case-all", dataset="mars", view="mars", title="double-check", author="tester")
    )
    at = run_page("pages/search.py", q="double\\-check", rx="1")
    assert not at.exception
    btn = next(b for b in at.button if b.key == "search_triage_all")
    n = int(btn.label.split()[2].replace(",", ""))
    assert btn.label.endswith("matching items (not the 1 case)"), btn.label
    assert f"in <b>{n + 1:,}</b> items" in "".join(h.proto.body for h in at.get("html"))
    btn.click().run()
    (queue,) = open_store(db).queues()
    assert queue.name == f"Search “double\\-check” · all {n:,}", queue.name


def test_the_correctness_filter_keeps_fineproofs_and_says_what_it_leaves_out(
    sample_root: Path, db: str
) -> None:
    casebook.store().add(
        Case(id="case2", dataset="mars", view="mars", title="boxed in a case", author="tester")
    )
    at = run_page("pages/search.py", q="𝑥³", ok="correct")
    assert not at.exception
    html = _html(at)
    assert "href='fineproofs?problem=" in html and "· correct" in html  # graded 7/7
    assert "· wrong" not in html
    left = _text(at)
    # what is said left out is the hits a reader misses: items whose texts with no correctness
    # hold the phrase, by a plain scan of the texts the page searches
    corpus = load_corpus()
    missed = corpus.frame.filter(
        pl.col("correct").is_null() & pl.col("text").str.contains("𝑥³", literal=True)
    )
    assert missed.height, "the sample should hold the phrase in a text with no correctness"
    assert "Left out by the correctness filter:" in left
    for d in missed["dataset"].unique().to_list():
        mine = missed.filter(pl.col("dataset") == d)
        n = mine.select("file", "item").unique().height
        assert f"{corpus.titles[d]}: hits in {n:,} item" in left, (d, n, left)
    assert "Casebook" not in left  # its case title does not hold the phrase
    at = run_page("pages/search.py", q="𝑥³", ok="wrong", ds="FineProofs")
    html = _html(at)
    assert "href='fineproofs?problem=" in html and "· wrong" in html
    assert "· correct</span>" not in html
    assert "Casebook" not in _text(at)  # the dataset filter bounds what is said left out
    correctness = light_control(at, "Correctness")
    assert (correctness.kind, correctness.shown) == ("radio", "wrong")
    assert light_control(at, "Datasets").kind == "multi" and chosen(at, "ds") == ("FineProofs",)
    # each subset or file names its dataset (FineProofs sources beside MARS files of one name)
    groups = light_control(at, "Subset / file").options
    assert groups and all(g.startswith("FineProofs · ") for g in groups), groups
    help_text = correctness.help
    assert "7/7 correct" in help_text  # the rule is named where the filter is


def test_a_catastrophic_regex_is_stopped_with_a_message(
    sample_root: Path, db: str, monkeypatch
) -> None:
    from analysis.search import results

    monkeypatch.setattr(results, "PAGE_TIME_LIMIT", 1.0)
    casebook.store().add(
        Case(id="case3", dataset="mars", view="mars", title="a" * 80 + "!", author="tester")
    )
    t = time.monotonic()
    at = run_page("pages/search.py", q="(a|aa)+$", rx="true", ds="Casebook")
    assert time.monotonic() - t < 30  # the page's scan stops at 1 s; the rest is the app
    assert not at.exception
    (warning,) = [w.value for w in at.warning]
    assert "This pattern took too long on Casebook ·" in warning
    assert "81 characters" in warning and "Try a pattern" in warning
    assert not at.get("html") or "<mark" not in _html(at)
    assert "No hit" not in _text(at)


def test_extracted_answers_wait_for_a_grade_and_the_button_grades_them(
    sample_root: Path, db: str, tmp_path: Path
) -> None:
    """A MARS file whose features are not built: the wrong filter says how many extracted
    answers wait for a grade; the button builds it, and they are searched as graded."""
    rel = "Qwen3-32B/aime25.parquet"
    folder = tmp_path / "mars"
    (folder / rel).parent.mkdir(parents=True)
    shutil.copy(sample_root / "mars" / rel, folder / rel)
    params = {"q": "9", "ok": "wrong", "ds": "MARS", "src_mars_kind": "local"}
    at = run_page("pages/search.py", src_mars_path=str(folder), **params)
    assert not at.exception and not at.error
    n = sum(
        1 for a in pq.read_table(folder / rel, columns=["extracted_answer"])[0].to_pylist() if a
    )
    offer = _text(at)
    assert f"**{n:,} MARS texts (extracted answer) wait for a grade**, in 1 of 1 files." in offer
    assert "feature build \\(math\\-verify\\)" in offer  # escaped Markdown
    assert "extracted answer" not in _html(at)  # no answer hit before its grade
    at.button(key="search_grade_go_mars").click().run()
    assert not at.exception and not at.error
    assert "wait for a grade" not in _text(at)
    assert not [b for b in at.button if b.key == "search_grade_go_mars"]
    html = _html(at)
    assert "extracted answer" in html and "· wrong" in html and "· correct</span>" not in html
    left = _text(at)
    assert "ground truth" in left and "extracted answer)" not in left


def test_an_rl_prompt_hit_opens_the_prompt_itself(sample_root: Path, db: str) -> None:
    import html as html_lib
    import re
    from urllib.parse import parse_qsl, urlsplit

    at = run_page("pages/search.py", q="MISSISSIPPI", ds="Parason")
    assert not at.exception and not at.error
    hrefs = re.findall(r"href='(parason\?[^']*view=RL[^']*)'", _html(at))
    assert hrefs, _html(at)[:2000]
    params = dict(parse_qsl(urlsplit(html_lib.unescape(hrefs[0])).query))
    assert params["view"] == "RL" and params["rlp"].isdigit() and params["rlq"]
    at = run_page("pages/parason.py", **params)  # the link, followed
    assert not at.exception and not at.error
    assert f"<b>Prompt {params['rlp']}</b>" in _html(at)
