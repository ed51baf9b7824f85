"""What a search shows: a page of hits (each with its item, where it opens and a snippet) and
the counts per dataset, subset/file and item.

Snippets are raw text pieces (before, hit, after); the page escapes each piece and puts its own
highlight around the hit. A snippet's edges never split a combining sequence (an accent stays
on its letter) and never fall inside a character (Python strings hold code points, so an
astral-plane character is one).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import polars as pl

from analysis.search.corpus import Corpus
from analysis.search.engine import NO_FILTERS, Filters, Scan, row_counts, scan
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
class Page:
    hits: list[Hit]
    number: int  # 0-based
    size: int
    has_more: bool
    timed_out: bool


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
) -> Page:
    """Page `number` of the hits: the scan stops one hit after it."""
    first = number * size
    found = scan(corpus, compiled, filters, limit=first + size + 1)
    hits = hits_of(corpus, found, first, first + size)
    return Page(hits, number, size, len(found) > first + size, found.timed_out)


@dataclass(frozen=True)
class Counts:
    total: int
    rows: int  # rows with a hit
    per_dataset: pl.DataFrame  # dataset, hits, items
    per_group: pl.DataFrame  # dataset, group, hits, items
    per_item: pl.DataFrame  # dataset, group, item, label, hits (most hits first)
    timed_out: bool


def counts(corpus: Corpus, compiled: Compiled, filters: Filters = NO_FILTERS) -> Counts:
    """Every hit counted (up to the time limit): per dataset, subset/file and item."""
    per_row = row_counts(corpus, compiled, filters)
    timed_out = False
    if per_row is None:  # a regex: Python finds its hits
        found = scan(corpus, compiled, filters)
        per_row = found.frame().group_by("row").agg(pl.len().alias("hits"))
        timed_out = found.timed_out
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
    return Counts(total, per_row.height, per_dataset, per_group, per_item, timed_out)


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
    corpus: Corpus, compiled: Compiled, hits: list[Hit]
) -> dict[tuple[str, str, str], int]:
    """Every hit of the items on a page, counted over those items' rows alone (a page shows
    its items' counts without waiting for the full count)."""
    keys = {(h.dataset, h.file, h.item) for h in hits}
    if not keys:
        return {}
    items = sorted({k[2] for k in keys})
    rows = corpus.frame.select("dataset", "file", "item", "text").filter(
        pl.col("item").is_in(items)
    )
    out: dict[tuple[str, str, str], int] = {}
    finditer = compiled.pattern.finditer
    for r in rows.iter_rows():
        if (r[0], r[1], r[2]) not in keys:
            continue
        n = sum(1 for _ in finditer(r[3]))
        if n:
            out[(r[0], r[1], r[2])] = out.get((r[0], r[1], r[2]), 0) + n
    return out
