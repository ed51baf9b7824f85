"""Journey J8 (docs/JOURNEYS.md), find a phrase everywhere: type it in Home's search box, land on
`/search?q=...` with the results grouped by dataset and item and their counts, open a Parason
hit and see its node selected with the phrase, then open a FineProofs hit and see its step.

The expected hits are computed here with the search engine on the sample's text tables (the
hit-for-hit tests check the engine against a plain Python scan), not read from the app. Each
step asserts with Playwright's auto-retrying `expect()`, at 1440x900 and 1024x768."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import Browser, expect

from analysis.search.corpus import load_corpus
from analysis.search.engine import Filters
from analysis.search.query import Query, compile_query
from analysis.search.results import Hit, counts, page
from cache.sources import SourceConfig
from components.search.view import PAGE_SIZE
from tests.e2e.journey_helpers import (
    VIEWPORTS,
    new_page,
    no_exception,
    open_url,
    settled,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]
PHRASE = "double-check"
# whether a range is wholly in sight: in the window, and not cut off by a box that scrolls or
# hides its overflow (a node's text scrolled elsewhere, a table cell cut short)
SEEN_JS = """(range) => {
  const r = range.getBoundingClientRect();
  if (!(r.width > 0 && r.top >= 0 && r.bottom <= window.innerHeight)) return false;
  if (r.left < 0 || r.right > window.innerWidth) return false;
  for (let el = range.startContainer.parentElement; el && el !== document.documentElement;
       el = el.parentElement || el.getRootNode().host) {
    const style = getComputedStyle(el);
    const b = el.getBoundingClientRect();
    if (/(auto|scroll|hidden)/.test(style.overflowY)) {
      if (r.top < b.top - 1 || r.bottom > b.bottom + 1) return false;
    }
    if (/(auto|scroll|hidden)/.test(style.overflowX)) {
      if (r.left < b.left - 1 || r.right > b.right + 1) return false;
    }
  }
  return true;
}"""
# a mark in sight (the view opened at the hit); the current mark ("Next mark") in sight
ANY_MARK_IN_SIGHT_JS = f"""() => [...(CSS.highlights.get('rte-search-mark') || [])]
  .some({SEEN_JS})"""
CURRENT_IN_SIGHT_JS = f"""() => [...(CSS.highlights.get('rte-search-mark-current') || [])]
  .some({SEEN_JS})"""
# each search mark on the page: its text, and whether it is in the trajectory's text component
MARKED_JS = """() => [...CSS.highlights.get('rte-search-mark')].map((r) => [
  r.toString(),
  !!(r.startContainer.getRootNode().host || {}).closest?.('[class*="st-key-pa_text"]'),
])"""
SLOW = 120_000  # the first search reads (and on a fresh cache builds) the text tables


@pytest.fixture(scope="module")
def expected(sample_root: Path) -> tuple[int, Hit, Hit]:
    """(total hits, the first Parason hit, the first FineProofs hit)."""
    corpus = load_corpus()
    compiled = compile_query(Query(PHRASE))
    total = counts(corpus, compiled).total
    parason = page(corpus, compiled, Filters(datasets=("parason",)), size=1).hits[0]
    proofs = page(corpus, compiled, Filters(datasets=("fineproofs",)), size=1).hits[0]
    return total, parason, proofs


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j8_find_a_phrase_and_open_it_where_it_is(
    browser: Browser, app_url: str, expected: tuple[int, Hit, Hit], viewport: dict[str, int]
) -> None:
    total, parason, proofs = expected
    pq = dict(parason.query)
    page_ = new_page(browser, viewport)
    # 1. Home's box: the phrase, Enter
    open_url(page_, f"{app_url}/", ready="Search every text")
    box = page_.get_by_label("Search every text")
    box.fill(PHRASE)
    box.press("Enter")
    expect(page_).to_have_url(re.compile(r"/search\?.*q=double-check"), timeout=SLOW)
    # 2. the results: the total, grouped by dataset and item, each item with its hit count
    expect(page_.get_by_text(f"{total:,} hits in", exact=False).first).to_be_visible(timeout=SLOW)
    first_item = page_.locator(".rte-search-item").first
    expect(first_item).to_contain_text(parason.label)
    expect(first_item).to_contain_text(re.compile(r"\d+ hits?"))
    expect(first_item.locator("mark").first).to_have_text(re.compile(PHRASE, re.I))
    # the hits of one text share one link: as many links as texts holding the item's hits
    shown = page(load_corpus(), compile_query(Query(PHRASE)), Filters(), size=PAGE_SIZE).hits
    mine = [h for h in shown if (h.dataset, h.item) == (parason.dataset, parason.item)]
    texts = {(h.row, h.field, h.locator, h.match.casefold()) for h in mine}
    assert len(texts) < len(mine), "the sample's first item should hold two hits in one text"
    expect(first_item.locator("a.rte-search-hit")).to_have_count(len(texts))
    expect(first_item).to_contain_text(re.compile(r"\d+ hits here"))
    settled(page_)
    # 3. the first Parason hit opens its trajectory at the node holding the phrase
    first_item.locator("a.rte-search-hit").first.click()
    expect(page_).to_have_url(re.compile(rf"uuid={pq['uuid']}.*node={re.escape(pq['node'])}"))
    expect(page_.get_by_text("Selected node", exact=True)).to_be_visible(timeout=SLOW)
    expect(page_.get_by_text(re.compile(PHRASE, re.I)).first).to_be_visible()
    # the phrase is marked where it occurs, in the trajectory's text too (not only the note
    # above the view that names it), and the marks can be cleared
    expect(page_).to_have_url(re.compile(rf"[?&]hl={re.escape(PHRASE)}(&|$)"))
    expect(page_.get_by_text("Marked: “double-check”")).to_be_visible()
    expect(page_.locator("html")).to_have_attribute(
        "data-rte-marks", re.compile(r"^([3-9]|\d\d+)$")
    )
    # the trajectory's text component fills its shadow root after the page's own text: its
    # marks come on a later look (auto-retried until there)
    page_.wait_for_function(f"() => ({MARKED_JS})().filter(([, inText]) => inText).length >= 2")
    marked = page_.evaluate(MARKED_JS)
    assert {t.lower() for t, _ in marked} == {PHRASE}
    # the view opened at the hit: a mark is in sight without scrolling for it
    page_.wait_for_function(ANY_MARK_IN_SIGHT_JS)  # auto-retried while the view draws
    # "Next mark" brings the marks into sight one by one, in the page's order: the node's own
    # text (which scrolls in its box) first, each in a stronger colour while it is the current
    step = page_.get_by_role("button", name=re.compile(r"^Next mark"))
    # the line naming the marks (above the view's title) stays pinned in sight at the hit
    expect(step).to_be_in_viewport()
    # it counts from the mark in sight on arrival ("k of N"), so a press moves on to the next
    label = re.compile(r"^Next mark \(([1-9]\d*) of (\d+)\) ↓$")
    expect(step).to_have_text(label)
    found = label.match(step.inner_text())
    assert found is not None
    k, n = int(found[1]), int(found[2])
    assert n >= 3 and 1 <= k <= n
    for i in (1, 2, 3):
        step.click()
        expect(step).to_have_text(f"Next mark ({(k + i - 1) % n + 1} of {n}) ↓")
        page_.wait_for_function(CURRENT_IN_SIGHT_JS)  # auto-retried: late content may move it
    page_.get_by_role("button", name="Clear marks").click()
    expect(page_.locator("html")).not_to_have_attribute("data-rte-marks", re.compile(".*"))
    expect(page_).not_to_have_url(re.compile(r"[?&]hl="))
    no_exception(page_)
    # 4. the FineProofs hits, ticked in the Datasets filter: the first opens its trace at the
    # step that holds the phrase
    fq = dict(proofs.query)
    open_url(page_, f"{app_url}/search?q={quote(PHRASE)}", ready="hits in")
    datasets = page_.locator(".rte-lc-k-multi").filter(has_text="Datasets")
    datasets.locator("summary").click()
    page_.get_by_role("checkbox", name="FineProofs", exact=True).check()
    page_.keyboard.press("Escape")
    expect(page_).to_have_url(re.compile(r"[?&]ds=FineProofs(&|$)"))
    expect(datasets.locator("summary")).to_have_text("FineProofs")
    expect(page_.locator(".rte-search-item").first).to_contain_text(proofs.label)
    settled(page_)
    page_.locator("a.rte-search-hit").first.click()
    expect(page_).to_have_url(re.compile(rf"problem={fq['problem']}.*prefix={fq['prefix']}"))
    expect(
        page_.get_by_text(re.compile(rf"Selected step · prefix {fq['prefix']} ·"))
    ).to_be_visible(timeout=SLOW)
    no_exception(page_)
    page_.context.close()


# the first mark in the selected node's own text box: (its offset from the top of the box's
# text, the box's height, whether it is in the box's sight); null until the box holds a mark
NODE_BOX_MARK_JS = """() => {
  const box = document.querySelector('.rte-node-text');
  const marks = [...(CSS.highlights.get('rte-search-mark') || [])]
    .filter((r) => box && box.contains(r.startContainer));
  if (!marks.length) return null;
  const b = box.getBoundingClientRect();
  const r = marks[0].getBoundingClientRect();
  return [r.top - b.top + box.scrollTop, box.clientHeight, r.bottom > b.top && r.top < b.bottom];
}"""


# the node's two headings wholly in the window, below the pinned line naming the marks
HEADINGS_UNCOVERED_JS = """() => {
  const line = document.querySelector('.st-key-rte_marks_line');
  const below = line ? line.getBoundingClientRect().bottom - 1 : 0;
  const find = (t) => [...document.querySelectorAll('[data-testid="stMarkdownContainer"] strong,'
    + ' [data-testid="stMarkdownContainer"] p')].find((e) => e.textContent.trim() === t);
  return ['Selected node', 'Whole trajectory'].every((t) => {
    const el = find(t);
    const r = el && el.getBoundingClientRect();
    return r && r.top >= below && r.bottom <= window.innerHeight;
  });
}"""


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j8_a_hit_deep_in_a_nodes_text_opens_that_text_at_the_mark(
    browser: Browser, app_url: str, viewport: dict[str, int]
) -> None:
    """A hit whose phrase lies below the first screen of its node's text (the text scrolls in its
    own box) opens that box at the mark: the reader sees the phrase without scrolling for it,
    and the node's headings above it, not under the pinned line naming the marks."""
    hits = page(
        load_corpus(), compile_query(Query(PHRASE)), Filters(datasets=("parason",)), size=40
    ).hits
    nodes = list(dict.fromkeys(h.query for h in hits))[:6]  # distinct nodes, in the hits' order
    page_ = new_page(browser, viewport)
    deep = 0
    for query in nodes:
        open_url(page_, f"{app_url}/parason?{urlencode([*query, ('hl', PHRASE)])}")
        expect(page_.get_by_text("Selected node", exact=True)).to_be_visible(timeout=SLOW)
        page_.wait_for_function(f"() => ({NODE_BOX_MARK_JS})() !== null")
        offset, height, _ = page_.evaluate(NODE_BOX_MARK_JS)
        if offset <= height:
            continue  # in sight without scrolling: not the case this test is about
        deep += 1
        page_.wait_for_function(f"() => ({NODE_BOX_MARK_JS})()[2]")  # auto-retried
        page_.wait_for_function(HEADINGS_UNCOVERED_JS)
        settled(page_)
        page_.wait_for_function(HEADINGS_UNCOVERED_JS)  # and still so once the view is drawn
        break
    assert deep, f"none of the nodes {nodes} holds the phrase below its text box's first screen"
    no_exception(page_)
    page_.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j8_next_mark_scrolls_a_wide_table_sideways_to_its_mark(
    browser: Browser, app_url: str, viewport: dict[str, int]
) -> None:
    """A MARS probe hit: the phrase is also in the probe table's raw_text column, beyond the
    table's right edge in a narrow window; each press of Next mark leaves the current mark
    wholly in sight, the table scrolled sideways to it."""
    (hit,) = page(
        load_corpus(), compile_query(Query(PHRASE)), Filters(datasets=("mars",)), size=1
    ).hits
    page_ = new_page(browser, viewport)
    open_url(page_, f"{app_url}/mars?{urlencode([*hit.query, ('hl', PHRASE)])}")
    step = page_.get_by_role("button", name=re.compile(r"^Next mark"))
    expect(step).to_have_text(re.compile(r"^Next mark \(\d+ of [2-9]\d*\)"), timeout=SLOW)
    found = re.search(r"of (\d+)", step.inner_text())
    assert found
    for _ in range(int(found.group(1))):
        step.click()
        page_.wait_for_function(CURRENT_IN_SIGHT_JS)
    no_exception(page_)
    page_.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j8_wrong_extracted_answers_after_their_grade(
    browser: Browser,
    app_url: str,
    sample_root: Path,
    tmp_path: Path,
    viewport: dict[str, int],
) -> None:
    """A MARS file nobody has opened yet: the wrong filter says its extracted answers wait for
    a grade; one click grades them, the wrong ones are listed, and one opens its trace, wrong."""
    rel = "Qwen3-32B/aime25.parquet"
    folder = tmp_path / "mars"
    (folder / rel).parent.mkdir(parents=True)
    shutil.copy(sample_root / "mars" / rel, folder / rel)
    source = {"src_mars_kind": "local", "src_mars_path": str(folder)}
    page_ = new_page(browser, viewport)
    url = f"{app_url}/search?{urlencode({'q': '9', 'ok': 'wrong', 'ds': 'MARS', **source})}"
    open_url(page_, url, ready="hits in")
    offer = page_.get_by_text(
        re.compile(r"[\d,]+ MARS texts \(extracted answer\) wait for a grade")
    )
    expect(offer).to_be_visible()
    expect(page_.locator("a.rte-search-hit", has_text="extracted answer")).to_have_count(0)
    page_.get_by_role("button", name="Grade the MARS extracted answers").click()
    expect(offer).to_have_count(0, timeout=SLOW)
    settled(page_)
    # the first wrong extracted answer, as the engine finds it on the graded file
    corpus = load_corpus(
        {"mars": SourceConfig(kind="local", local_path=str(folder))}, datasets=["mars"]
    )
    assert corpus.grading["mars"].pending == ()  # the click graded it
    hits = page(corpus, compile_query(Query("9")), Filters(correct=False), size=10_000).hits
    first = next(h for h in hits if h.field == "extracted answer")
    link = page_.locator("a.rte-search-hit", has_text="extracted answer").first
    expect(link).to_be_visible()
    expect(page_.locator(".rte-search-item", has=link).first).to_contain_text(first.label)
    link.click()
    q = dict(first.query)
    expect(page_).to_have_url(re.compile(rf"qid={q['qid']}&trace={q['trace']}"))
    expect(page_.get_by_text("Final answer (wrong):")).to_be_visible(timeout=SLOW)
    no_exception(page_)
    page_.context.close()


def test_the_query_box_follows_back_and_escape(browser: Browser, app_url: str) -> None:
    """The search box is a light text box: Back shows the earlier query in it (the cursor still
    in the box), and Escape, which empties it, clears the search."""
    page_ = new_page(browser, {"width": 1440, "height": 900})
    open_url(page_, f"{app_url}/search", ready="Search every text")
    box = page_.get_by_role("searchbox", name="Search every text")
    for word in ("wait", "Therefore"):
        box.fill(word)
        box.press("Enter")
        expect(page_).to_have_url(re.compile(rf"q={word}"))
        settled(page_)
    box.focus()
    page_.go_back()
    expect(page_).to_have_url(re.compile(r"q=wait"))
    expect(box).to_have_value("wait")
    settled(page_)
    box.focus()
    page_.keyboard.press("Escape")
    expect(page_).not_to_have_url(re.compile(r"q="))
    no_exception(page_)
    page_.context.close()


@pytest.mark.parametrize("viewport", VIEWPORTS[:1])
def test_every_matching_item_opens_as_one_queue(
    browser: Browser, app_url: str, viewport: dict[str, int]
) -> None:
    """More hits than a page: "Triage all N matching items" opens a queue of every matching
    item at its first one (the bar says "1 of N"), not only the page's few, with the phrase
    marked there."""
    corpus = load_corpus()
    n = counts(corpus, compile_query(Query(PHRASE))).per_item.height
    page_ = new_page(browser, viewport)
    open_url(page_, f"{app_url}/search?q={PHRASE}", ready="Triage this page")
    button = page_.get_by_role("button", name=re.compile(r"^Triage all [\d,]+ matching items"))
    expect(button).to_be_enabled(timeout=SLOW)
    shown = int(re.findall(r"[\d,]+", button.inner_text())[0].replace(",", ""))
    assert 1 < shown <= n  # case notes are hits, but no item to step to
    button.click()
    expect(page_.get_by_test_id("tq-position")).to_have_text(f"1 of {shown:,}", timeout=SLOW)
    # the item opens with the phrase marked, as the hit's own link opens it
    expect(page_.locator(".st-key-rte_marks_line")).to_contain_text("Marked:")
    no_exception(page_)
    page_.context.close()
