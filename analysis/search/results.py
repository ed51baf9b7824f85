"""What a search shows: a page of hits (each with its item, where it opens and a snippet) and
the counts per dataset, subset/file and item.

Snippets are raw text pieces (before, hit, after); the page escapes each piece and puts its own
highlight around the hit. A snippet's edges never split a combining sequence (an accent stays
on its letter) and never fall inside a character (Python strings hold code points, so an
astral-plane character is one).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace

import polars as pl

from analysis.search.corpus import Corpus
from analysis.search.engine import (
    NO_FILTERS,
    PAGE_TIME_LIMIT,
    TIME_LIMIT,
    Filters,
    Scan,
    count_in,
    narrow,
    row_counts,
    scan,
)
from analysis.search.query import Compiled
from cache.text_tables import pairs_of

CONTEXT = 60  # characters each side of a hit
PAGE_SIZE = 50
_JOINERS = {"\u200d", "\ufe0f", "\ufe0e"}  # zero-width joiner, variation selectors


def _glued(ch: str) -> bool:
    """A character that belongs to the one before it (a combining mark, a joiner)."""
    return bool(unicodedata.combining(ch)) or ch in _JOINERS or unicodedata.category(ch) == "Me"


def snippet(text: str, start: int, end: int, context: int = CONTEXT) -> tuple[str, str, str]:
    """(before, hit, after): up to `context` characters each side, edges moved outwards off a
    combining mark; an ellipsis where the text goes on."""
    lo = max(0, start - context)
    while lo > 0 and _glued(text[lo]):
        lo -= 1
    hi = min(len(text), end + context)
    while hi < len(text) and _glued(text[hi]):
        hi += 1
    before = ("…" if lo > 0 else "") + text[lo:start]
    after = text[end:hi] + ("…" if hi < len(text) else "")
    return before, text[start:end], after


@dataclass(frozen=True)
class Hit:
    dataset: str
    file: str
    group: str
    item: str
    label: str
    field: str
    locator: str
    correct: bool | None
    view: str
    query: tuple[tuple[str, str], ...]
    keys: tuple[tuple[str, str], ...]
    row: int
    start: int
    end: int
    before: str
    match: str
    after: str


@dataclass(frozen=True)
class Stuck:
    """The row a regular expression was stopped on: which text, how long."""

    dataset: str  # its title
    label: str
    field: str
    chars: int

    def message(self) -> str:
        return (
            f"This pattern took too long on {self.dataset} · {self.label} ({self.field}, "
            f"{self.chars:,} characters) and was stopped. {TRY_INSTEAD}"
        )


TRY_INSTEAD = (
    "Try a pattern that can match a text in only one way: no alternation or repeat whose parts "
    "overlap under another repeat (write `a+` for `(a|aa)+`), an anchor or a literal word it "
    "must contain, a dataset filter, or the plain text switched on instead of a regex."
)


def stuck_at(corpus: Corpus, row: int | None) -> Stuck | None:
    if row is None:
        return None
    r = corpus.frame.row(row, named=True)
    title = corpus.titles.get(r["dataset"], r["dataset"])
    return Stuck(title, r["label"], r["field"], len(r["text"]))


@dataclass(frozen=True)
class Page:
    hits: list[Hit]
    number: int  # 0-based
    size: int
    has_more: bool
    timed_out: bool
    stuck: Stuck | None = None  # the row a regex was stopped on


def hits_of(corpus: Corpus, found: Scan, lo: int = 0, hi: int | None = None) -> list[Hit]:
    """Hits `lo`..`hi` of a scan, with their rows' columns and snippets."""
    part = found.frame().slice(lo, None if hi is None else hi - lo)
    wanted = sorted(set(part["row"].to_list()))  # `row` is the frame's position
    by_row = {r["row"]: r for r in corpus.frame[wanted].iter_rows(named=True)}
    out = []
    for row, start, end in part.iter_rows():
        r = by_row[row]
        before, match, after = snippet(r["text"], start, end)
        out.append(
            Hit(
                dataset=r["dataset"],
                file=r["file"],
                group=r["group"],
                item=r["item"],
                label=r["label"],
                field=r["field"],
                locator=r["locator"],
                correct=r["correct"],
                view=r["view"],
                query=pairs_of(r["query"]),
                keys=pairs_of(r["keys"]),
                row=row,
                start=start,
                end=end,
                before=before,
                match=match,
                after=after,
            )
        )
    return out


def page(
    corpus: Corpus,
    compiled: Compiled,
    filters: Filters = NO_FILTERS,
    number: int = 0,
    size: int = PAGE_SIZE,
    time_limit: float | None = None,
) -> Page:
    """Page `number` of the hits: the scan stops one hit after it (or at the time limit,
    `PAGE_TIME_LIMIT` unless given)."""
    first = number * size
    limit = PAGE_TIME_LIMIT if time_limit is None else time_limit
    found = scan(corpus, compiled, filters, limit=first + size + 1, time_limit=limit)
    hits = hits_of(corpus, found, first, first + size)
    stuck = stuck_at(corpus, found.stuck_row)
    return Page(hits, number, size, len(found) > first + size, found.timed_out, stuck)


@dataclass(frozen=True)
class Counts:
    total: int
    rows: int  # rows with a hit
    per_dataset: pl.DataFrame  # dataset, hits, items
    per_group: pl.DataFrame  # dataset, group, hits, items
    per_item: pl.DataFrame  # dataset, group, item, label, hits (most hits first)
    timed_out: bool
    stuck: Stuck | None = None  # the row a regex was stopped on


def counts(
    corpus: Corpus,
    compiled: Compiled,
    filters: Filters = NO_FILTERS,
    time_limit: float = TIME_LIMIT,
) -> Counts:
    """Every hit counted (up to the time limit): per dataset, subset/file and item."""
    per_row = row_counts(corpus, compiled, filters)
    timed_out, stuck = False, None
    if per_row is None:  # a regex: Python finds its hits
        found = scan(corpus, compiled, filters, time_limit=time_limit)
        per_row = found.frame().group_by("row").agg(pl.len().alias("hits"))
        timed_out, stuck = found.timed_out, stuck_at(corpus, found.stuck_row)
    joined = per_row.join(
        corpus.frame.select("row", "dataset", "group", "item", "label"), on="row", how="left"
    )
    per_item = (
        joined.group_by("dataset", "group", "item")
        .agg(pl.col("label").first(), pl.col("hits").sum(), pl.col("row").min().alias("first"))
        .sort(["hits", "first"], descending=[True, False])
    )
    sums = (pl.col("hits").sum(), pl.len().alias("items"), pl.col("first").min())
    per_group = per_item.group_by("dataset", "group").agg(*sums).sort("first").drop("first")
    per_dataset = per_item.group_by("dataset").agg(*sums).sort("first").drop("first")
    per_item = per_item.drop("first")
    total = int(per_row["hits"].sum()) if per_row.height else 0
    return Counts(total, per_row.height, per_dataset, per_group, per_item, timed_out, stuck)


def group_by_item(hits: list[Hit]) -> list[tuple[Hit, list[Hit]]]:
    """Consecutive hits of one item together: (the first hit, all its hits), in order."""
    out: list[tuple[Hit, list[Hit]]] = []
    for h in hits:
        if out and (out[-1][0].dataset, out[-1][0].item, out[-1][0].file) == (
            h.dataset,
            h.item,
            h.file,
        ):
            out[-1][1].append(h)
        else:
            out.append((h, [h]))
    return out


def item_hits(
    corpus: Corpus,
    compiled: Compiled,
    hits: list[Hit],
    filters: Filters = NO_FILTERS,
    time_limit: float = PAGE_TIME_LIMIT,
) -> dict[tuple[str, str, str], int]:
    """Every hit of the items on a page within the filters (a text the correctness filter
    leaves out is not counted, as it is not listed), counted over those items' rows alone (a
    page shows its items' counts without waiting for the full count); empty past the time
    limit."""
    keys = {(h.dataset, h.file, h.item) for h in hits}
    if not keys:
        return {}
    items = sorted({k[2] for k in keys})
    rows = filters.apply(
        corpus.frame.select("dataset", "group", "file", "item", "correct", "text").filter(
            pl.col("item").is_in(items)
        )
    ).select("dataset", "file", "item", "text")
    mine = [r for r in rows.iter_rows() if (r[0], r[1], r[2]) in keys]
    found = count_in(compiled, [r[3] for r in mine], time_limit)
    out: dict[tuple[str, str, str], int] = {}
    for r, n in zip(mine, found or (), strict=False):
        if n:
            out[(r[0], r[1], r[2])] = out.get((r[0], r[1], r[2]), 0) + n
    return out


@dataclass(frozen=True)
class LeftOut:
    """A dataset's texts the correctness filter leaves out because the data gives them none."""

    items: int  # items with at least one such text
    whole: int  # ... of which every text has none (the item is not searched at all)
    fields: tuple[str, ...]  # what those texts are (question, case note ...)
    waiting: int = 0  # such texts that have a correctness once their files are graded
    waiting_in: tuple[str, ...] = ()  # ... in these files (those the filters leave in scope)

    @property
    def waiting_files(self) -> int:
        return len(self.waiting_in)


def _rows_with_hits(frame: pl.DataFrame, compiled: Compiled) -> pl.Series:
    """The `row`s of `frame` whose text holds a hit (a regex past the page's time limit: every
    row that may hold one)."""
    found = narrow(frame, compiled)
    if compiled.exact is None and found.height:
        n = count_in(compiled, found["text"].to_list(), PAGE_TIME_LIMIT)
        if n is not None:
            found = found.filter(pl.Series(n) > 0)
    return found["row"]


def no_correctness(
    corpus: Corpus, filters: Filters, compiled: Compiled | None = None
) -> dict[str, LeftOut]:
    """dataset -> what the correctness filter leaves out for want of a correctness, within the
    other filters (datasets in corpus order); empty when the filter is off. With `compiled`,
    the items and fields counted are those whose left-out texts hold a hit of it (what a reader
    of the results misses); what waits for a grade is counted whatever the query."""
    if filters.correct is None:
        return {}
    scope = replace(filters, correct=None).apply(
        corpus.frame.select("row", "text", "dataset", "group", "file", "item", "field", "correct")
    )
    unknown = pl.col("correct").is_null()
    per_item = scope.group_by("dataset", "file", "item", maintain_order=True).agg(
        unknown.any().alias("some"), unknown.all().alias("all")
    )
    per_item = per_item.filter(pl.col("some"))
    missed = unknown
    if compiled is not None:
        rows = _rows_with_hits(scope.filter(unknown), compiled).implode()
        missed = unknown & pl.col("row").is_in(rows)
        hit = scope.filter(missed).select("dataset", "file", "item").unique()
        per_item = per_item.join(hit, on=["dataset", "file", "item"], how="semi")
    out = {}
    for d in per_item["dataset"].unique(maintain_order=True).to_list():
        mine = per_item.filter(pl.col("dataset") == d)
        fields = scope.filter((pl.col("dataset") == d) & missed)["field"].unique(
            maintain_order=True
        )
        grading = corpus.grading.get(d)
        waiting = pl.DataFrame()
        if grading is not None and grading.pending:
            waiting = scope.filter(
                (pl.col("dataset") == d)
                & unknown
                & pl.col("field").is_in(grading.fields)
                & pl.col("file").is_in(grading.pending)
            )
        out[d] = LeftOut(
            mine.height,
            int(mine["all"].sum()),
            tuple(fields.to_list()),
            waiting.height,
            tuple(waiting["file"].unique(maintain_order=True).to_list()) if waiting.height else (),
        )
    return out
