"""The search page's sections: the query bar, the filters, the counts and a page of results
grouped by item. Every control is bound to the URL, so a search is a link."""

from __future__ import annotations

import math
from dataclasses import replace

import polars as pl
import streamlit as st

from analysis.search import worker
from analysis.search.corpus import Corpus
from analysis.search.engine import Filters
from analysis.search.query import Compiled, Query, QueryError, compile_query
from analysis.search.queue import first_hits, queue_items
from analysis.search.results import (
    TRY_INSTEAD,
    Counts,
    Hit,
    LeftOut,
    Page,
    Stuck,
    counts,
    group_by_item,
    item_hits,
    no_correctness,
    page,
)
from cache.casebook.queue_items import QueueItem
from cache.datasets import view_names as dataset_view_names
from components.common.formatting import counted
from components.common.safe_text import esc, md_text
from components.common.search_marks import mark_pairs
from components.common.source_picker import source_pairs
from components.common.triage import start_queue, triage_button, triage_count_button
from components.common.url_keys import SearchKeys
from components.common.url_state import (
    Param,
    parse_bool,
    say_refused,
    url_multiselect,
    url_radio,
    url_switch,
    url_text,
)
from components.search.cached import grade
from components.search.hits import item_html

PAGE_SIZE = 25
ALL_TIME_LIMIT = 30.0  # seconds to list every match for "Triage all" (a click, with a spinner)
CORRECTNESS = ("correct", "wrong")
CORRECTNESS_CHOICES = ("all", *CORRECTNESS)
CORRECT = Param("ok", "all", choices=CORRECTNESS_CHOICES)  # the correctness filter's radio group
EXAMPLES = ("\\boxed{", "wait", "Therefore", "<here>")
CORRECTNESS_HELP = (
    "Texts the data marks correct or wrong: a Parason trajectory's correctness, a MARS probe's "
    "answer, a MARS extracted answer once its file is graded (the grade the MARS views show), "
    "a FineProofs trace by its endpoint grade (7/7 correct, less wrong). Texts without one (RL "
    "prompts, ground truths, problem statements, case notes) are left out, and the results "
    "say how many."
)
# the query bar's light controls, bound to the URL
QUERY = Param("q", "", parse=str)
REGEX = Param("rx", False, parse=parse_bool)
CASE = Param("cs", False, parse=parse_bool)
_COUNTS = "search_counts"  # session memo: the last full count (the same search reruns often)


def _first_page() -> None:
    """A changed query or filter starts again at page 1."""
    SearchKeys.PAGE.write(None)


def query_bar() -> Query:
    q = url_text(
        "Search every text",
        QUERY,
        placeholder="a word, a phrase or a regular expression",
        on_change=_first_page,
    )
    with st.container(horizontal=True, gap="medium"):
        regex = url_switch("Regular expression", REGEX, on_change=_first_page)
        case = url_switch("Match case", CASE, on_change=_first_page)
    if regex:
        worker.warm()  # the regex worker starts while the pattern is typed (none if one is idle)
    return Query(q or "", regex=bool(regex), case_sensitive=bool(case))


def filter_bar(corpus: Corpus) -> Filters:
    by_title = {title: name for name, title in corpus.titles.items()}
    # the third column holds three radio buttons on one line at 1024 px
    c1, c2, c3 = st.columns([1.8, 2.4, 2.8], vertical_alignment="bottom")
    with c1:  # the URL holds the titles (as the earlier bound multiselect wrote them)
        titles = url_multiselect(
            "Datasets", list(by_title), "ds", placeholder="all datasets", on_change=_first_page
        )
    chosen = [by_title[t] for t in titles if t in by_title]
    frame = corpus.frame
    if chosen:
        frame = frame.filter(pl.col("dataset").is_in(chosen))
    groups = frame["group"].unique(maintain_order=True).to_list()
    # each choice names its dataset: a FineProofs source "hmmt" beside a MARS file of HMMT
    owner = dict(frame.select("group", "dataset").unique(subset="group", keep="first").iter_rows())
    with c2:
        picked = url_multiselect(
            "Subset / file",
            groups,
            "grp",
            lambda g: f"{corpus.titles.get(owner.get(g, ''), owner.get(g, ''))} · {g}",
            placeholder="every subset and file",
            on_change=_first_page,
        )
    with c3:
        ok = url_radio(
            "Correctness",
            CORRECTNESS_CHOICES,
            CORRECT,
            help=CORRECTNESS_HELP,
            on_change=_first_page,
        )
    return Filters(
        datasets=tuple(chosen),
        groups=tuple(g for g in picked if g in groups),
        correct=None if ok not in CORRECTNESS else ok == "correct",
    )


def empty_state() -> None:
    tries = " · ".join(f"`{t}`" for t in EXAMPLES)
    st.info(
        "Type a word or a phrase to find it in every question, reasoning step, answer, RL "
        f"prompt, proof step, probe text and case note. Try {tries}; switch on *Regular "
        "expression* for a pattern such as `\\\\boxed\\{\\d+\\}`.",
        icon=":material/search:",
    )


def compiled_or_message(query: Query) -> Compiled | None:
    try:
        return compile_query(query)
    except QueryError as exc:
        st.error(str(exc), icon=":material/error:")
        return None


def full_counts(corpus: Corpus, compiled: Compiled, filters: Filters) -> Counts:
    """Every hit counted, memoised for the session's last search (paging reruns the page)."""
    key = (id(corpus), compiled.query, filters)
    memo = st.session_state.get(_COUNTS)
    if memo is not None and memo[0] == key:
        return memo[1]
    found = counts(corpus, compiled, filters)
    st.session_state[_COUNTS] = (key, found)
    return found


def too_slow(stuck: Stuck) -> None:
    """Which text a regex was stopped on, and what to try (dataset text escaped)."""
    st.warning(
        f"This pattern took too long on {md_text(stuck.dataset)} · {md_text(stuck.label)} "
        f"({md_text(stuck.field)}, {stuck.chars:,} characters) and was stopped; the hits shown "
        f"are those found before it. {TRY_INSTEAD}",
        icon=":material/timer_off:",
    )


def left_out(corpus: Corpus, filters: Filters, compiled: Compiled) -> None:
    """The hits the correctness filter leaves out for want of a correctness, per dataset."""
    lines, waiting = [], []
    for name, out in no_correctness(corpus, filters, compiled).items():
        title = md_text(corpus.titles.get(name, name))
        fields = ", ".join(md_text(f) for f in out.fields)
        items = counted(out.items, "item")
        if out.whole == out.items:
            lines.append(
                f"- {title}: hits in {items} with no correctness ({fields}); those items are "
                "not shown"
            )
        else:
            lines.append(
                f"- {title}: hits in {items}' texts with no correctness ({fields}); those "
                "texts are not shown"
            )
        if out.waiting:
            waiting.append((name, out))
    if lines:
        st.caption("Left out by the correctness filter:\n" + "\n".join(lines))
    for name, out in waiting:
        grade_offer(corpus, name, out)


def grade_offer(corpus: Corpus, name: str, out: LeftOut) -> None:
    """Texts that have a correctness once their files are graded: how many, how the grade is
    made, and a button that grades them (a build: the page shows its progress)."""
    grading = corpus.grading[name]
    title = md_text(corpus.titles.get(name, name))
    fields = ", ".join(md_text(f) for f in grading.fields)
    with st.container(border=True, key=f"search_grade_{name}"):
        st.markdown(
            f"**{out.waiting:,} {title} texts ({fields}) wait for a grade**, in "
            f"{out.waiting_files:,} of {grading.files:,} files. They are {md_text(grading.how)}: "
            "seconds per file on the sample, minutes at full size."
        )
        files = "1 file" if out.waiting_files == 1 else f"{out.waiting_files:,} files"
        if st.button(
            f"Grade the {title} {fields}s ({files})",
            key=f"search_grade_go_{name}",
            icon=":material/grading:",
        ):
            grade(name, out.waiting_in)
            st.rerun()


def counts_summary(corpus: Corpus, total: Counts) -> None:
    if total.stuck is not None:
        too_slow(total.stuck)
    elif total.timed_out:
        st.warning(
            "The count stopped at its time limit: the figures below are a lower bound. "
            "Narrow the search with a filter or a longer phrase.",
            icon=":material/timer:",
        )
    lines = []
    for d in total.per_dataset.iter_rows(named=True):
        groups = total.per_group.filter(pl.col("dataset") == d["dataset"])
        parts = " · ".join(
            f"{esc(g['group'])} <b>{g['hits']:,}</b>" for g in groups.iter_rows(named=True)
        )
        lines.append(
            f"<div style='font-size:0.88rem;margin:2px 0'><b>{esc(corpus.titles.get(d['dataset'], d['dataset']))}</b>: "
            f"{counted(d['hits'], 'hit')} in {counted(d['items'], 'item')}"
            f"<span style='font-size:0.8rem'> ({parts})</span></div>"
        )
    st.html(
        f"<div class='rte-search-counts'><div style='font-size:0.95rem;margin-bottom:4px'>"
        f"<b>{total.total:,}</b> hit{'s' * (total.total != 1)} in <b>{total.per_item.height:,}</b> "
        f"item{'s' * (total.per_item.height != 1)}</div>"
        f"{''.join(lines)}</div>"
    )


def _go(number: int) -> None:
    SearchKeys.PAGE.write(number)


def _page(corpus: Corpus, compiled: Compiled, filters: Filters, number: int) -> Page:
    """The page asked for; past the last one (a link's `page=`), the first, and a note says so.
    A `page` that is no page number is said by `results`."""
    shown = page(corpus, compiled, filters, number=number, size=PAGE_SIZE)
    if not shown.hits and number > 0 and shown.stuck is None:
        _go(1)
        shown = page(corpus, compiled, filters, number=0, size=PAGE_SIZE)
        if shown.hits:
            say_refused(
                SearchKeys.PAGE.key, str(number + 1), "Page", "1", "a page these results have"
            )
    return shown


def no_hit_advice(query: Query, filters: Filters | None = None) -> str:
    """What to try when nothing matched, from what is set (a switch that is off is not named);
    a regular expression with a backslash is the usual surprise (`\\b` is a word boundary, not
    a backslash and a "b")."""
    tries = ["fewer words"]
    if query.case_sensitive:
        tries.append("switch *Match case* off")
    if filters is not None and (filters.datasets or filters.groups or filters.correct is not None):
        tries.append("clear the filters")
    advice = (
        f"No hit. Try {', '.join(tries[:-1])} or {tries[-1]}."
        if len(tries) > 1
        else ("No hit. Try fewer words, or other words.")
    )
    if query.regex and "\\" in query.text:
        advice += (
            " With *Regular expression* on, a backslash starts an escape (`\\b` is a word "
            "boundary, `\\d` a digit): write `\\\\` for a backslash itself, or switch *Regular "
            "expression* off to search the text as written."
        )
    return advice


def results(corpus: Corpus, compiled: Compiled, filters: Filters, extra: dict[str, str]) -> None:
    """The page of hits first (fast), then the full counts above it and the pager below. A
    regex stopped on a row says so, and is not counted again (it would stop there again)."""
    refused = SearchKeys.PAGE.refused()
    if refused is not None:
        _go(1)
        say_refused(SearchKeys.PAGE.key, refused, "Page", "1", "a page number")
    shown = _page(corpus, compiled, filters, int(SearchKeys.PAGE.read()) - 1)
    number = shown.number
    if shown.stuck is not None:
        too_slow(shown.stuck)
    left_out(corpus, filters, compiled)
    if not shown.hits:
        if shown.stuck is None:
            st.info(no_hit_advice(compiled.query, filters), icon=":material/search_off:")
        return
    counts_at = st.container()
    per_item = item_hits(corpus, compiled, shown.hits, filters)
    html = [
        item_html(
            first,
            hits,
            corpus.titles.get(first.dataset, first.dataset),
            per_item.get((first.dataset, first.file, first.item)),
            extra,
            compiled.query.case_sensitive,
        )
        for first, hits in group_by_item(shown.hits)
    ]
    st.html("".join(html))
    total = None
    if shown.stuck is not None:
        pages = number + 1 + int(shown.has_more)
    else:
        with counts_at, st.spinner("Counting every hit…"):
            total = full_counts(corpus, compiled, filters)
            counts_summary(corpus, total)
        pages = max(1, math.ceil(total.total / PAGE_SIZE))
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            "Previous",
            disabled=number == 0,
            on_click=_go,
            args=(number,),
            icon=":material/chevron_left:",
        )
        st.caption(f"Page {number + 1} of {pages:,}", width="content")
        st.button(
            "Next",
            disabled=not shown.has_more,
            on_click=_go,
            args=(number + 2,),
            icon=":material/chevron_right:",
        )
        query_label = f"“{compiled.query.text[:60]}”"  # as typed: repr() doubles backslashes
        items = _queue_of(shown.hits, compiled.query.case_sensitive)
        triage_button(
            items,
            f"Search {query_label} · page {number + 1} ({len(items):,})",
            f"search: {query_label}, page {number + 1}",
            key="search_triage",
            label=f"Triage this page's {counted(len(items), 'item')}",
        )
        if total is not None and pages > 1:
            _triage_all(corpus, compiled, filters, total, query_label)


def _queue_of(hits: list[Hit], case_sensitive: bool) -> list[QueueItem]:
    """One queue stop per dataset item of `hits`, each carrying the sidebar's sources and, as
    the hit's own link does, the text matched at its first hit, marked where the item opens."""
    views = dataset_view_names()
    firsts = first_hits(hits)
    return [
        replace(i, query=(*i.query, *mark_pairs(h.match, case_sensitive).items(), *source_pairs()))
        for i, h in zip(queue_items(firsts), firsts, strict=True)
        if i.view in views
    ]


def _triage_all(
    corpus: Corpus, compiled: Compiled, filters: Filters, total: Counts, query_label: str
) -> None:
    """Every matching item in one queue (a page may hold one item's many hits): the hits are
    listed only on the click, the count comes from the counts already made."""
    views = dataset_view_names()
    n = total.per_item.filter(pl.col("dataset").is_in(list(views))).height  # a case is no item
    cases = total.per_item.height - n  # counted above, so the button says why it has fewer
    label = f"Triage all {n:,} matching items" + (
        f" (not the {cases:,} case{'s' * (cases != 1)})" if cases else ""
    )
    if not triage_count_button(n, "search_triage_all", label):
        return
    with st.spinner(f"Listing the {n:,} matching items…"):
        every = page(corpus, compiled, filters, size=max(total.total, 1), time_limit=ALL_TIME_LIMIT)
    items = _queue_of(every.hits, compiled.query.case_sensitive)
    cut = every.timed_out or every.stuck is not None
    if cut:  # said here and in the queue's name, which its bar shows
        st.warning(
            f"Listing every match took too long: the queue holds the first {len(items):,} "
            "items. Narrow the search (a filter, more words) to queue the rest.",
            icon=":material/timer:",
        )
    which = f"first {len(items):,} of {n:,}" if cut else f"all {len(items):,}"
    start_queue(f"Search {query_label} · {which}", f"search: {query_label}", items)
