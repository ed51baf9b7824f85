"""Lenses: ready-made candidate lists, each a rule anyone can read, with its count.

A lens is declared once, in its dataset's slice (`analysis/<slice>/lenses.py`), as a pure
function from the dataset's derived tables to the items it finds, one row each: the columns its
links and case items are made of, a `label` and a `why` (the figure that put it there). Each
dataset names its lenses in its `cache.datasets.DatasetInfo` (`lenses`, "module:attribute"),
loaded only when asked for, so this module never names a dataset and `cache/` imports nothing
above it. `queue_items` hands a lens's items to the triage queue (`cache.casebook.queue_items`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from cache.casebook.queue_items import QueueItem
from cache.datasets import DATASETS, load_declared
from cache.progress import ProgressFn

# every lens's items carry these, besides the columns its `query` and `item` name
ITEM_COLUMNS = ("label", "why")


@dataclass(frozen=True)
class Lens:
    """One lens: what it is called, its rule in plain words (the text the page shows), the view
    its items open in, and `find`: (the dataset's tables) -> its items, best first."""

    id: str  # the URL's `?lens=` (short, lower case, unique over every dataset)
    dataset: str
    title: str
    rule: str
    view: str
    find: Callable[[Any], pl.DataFrame]
    count: Callable[[Any], int]  # n: how many candidates the rule looked at
    of: str  # what n counts ("traces", "changes tested")
    query: tuple[tuple[str, str], ...]  # (URL key of the view, items column) of each link
    item: tuple[tuple[str, str], ...]  # (case item key, items column)
    fixed: tuple[tuple[str, str], ...] = ()  # URL keys every link carries (the view's tab)
    empty: str = ""  # why a source can give nothing, and what to try


@dataclass(frozen=True)
class DatasetLenses:
    """A dataset's lenses and how they get their tables. A lens runs on one `part` (a file of
    the dataset: a MARS file, a Parason subset); `files(part)` are the dataset files the part's
    tables are derived from and `load(paths, part, progress)` returns those tables, building the
    derived tables once (never a re-read of the raw data when they exist)."""

    parts: tuple[str, ...]
    files: Callable[[str], tuple[str, ...]]
    load: Callable[[Sequence[Path], str, ProgressFn | None], Any]
    lenses: tuple[Lens, ...]
    part_label: str = "file"  # how the page names a part
    part_title: Callable[[str], str] = str  # a part as the page shows it


@dataclass(frozen=True)
class LensResult:
    """A lens run on one part of a source: its items, n, and the source as a case stores it."""

    lens: Lens
    items: pl.DataFrame
    n: int
    part: str = ""
    source: Mapping[str, str] = field(default_factory=dict)


def declared() -> dict[str, DatasetLenses]:
    """dataset -> its lenses, for the datasets that declare some (read at call time: tests
    register toy datasets)."""
    out: dict[str, DatasetLenses] = {}
    for name, info in DATASETS.items():
        spec = getattr(info, "lenses", "")
        if not spec:
            continue
        kit = load_declared(spec)
        if not isinstance(kit, DatasetLenses):
            raise TypeError(f"{spec} is not a DatasetLenses")
        out[name] = kit
    return out


def all_lenses() -> tuple[Lens, ...]:
    """Every lens, in dataset order."""
    return tuple(lens for kit in declared().values() for lens in kit.lenses)


def lens_by_id(lens_id: str) -> Lens | None:
    return next((lens for lens in all_lenses() if lens.id == lens_id), None)


def missing_columns(lens: Lens, items: pl.DataFrame) -> list[str]:
    """The columns a lens's items must carry and do not (a programming error in the lens)."""
    need = {*ITEM_COLUMNS, *(c for _k, c in lens.query), *(c for _k, c in lens.item)}
    return sorted(need - set(items.columns))


def run(lens: Lens, tables: Any) -> tuple[pl.DataFrame, int]:
    """(items, n) of a lens on its tables; raises when the lens forgot a column."""
    items = lens.find(tables)
    missing = missing_columns(lens, items)
    if missing:
        raise ValueError(f"lens {lens.id!r} gives no column {missing}")
    return items, int(lens.count(tables))


def _text(value: object) -> str:
    return "" if value is None else str(value)


def item_query(lens: Lens, row: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The URL keys that open one item in its view (the tab first, then the item's keys)."""
    pairs = [*lens.fixed, *((k, _text(row[c])) for k, c in lens.query)]
    return tuple((k, v) for k, v in pairs if v != "")


def item_keys(lens: Lens, row: Mapping[str, Any]) -> dict[str, str]:
    """What a case captured on the item names (`Case.item`)."""
    return {k: _text(row[c]) for k, c in lens.item if row[c] is not None}


def queue_items(result: LensResult) -> list[QueueItem]:
    """The lens's items as the triage queue takes them, in the lens's order."""
    lens = result.lens
    return [
        QueueItem(
            view=lens.view,
            query=item_query(lens, row),
            item=item_keys(lens, row),
            label=_text(row["label"]),
            source=dict(result.source),
        )
        for row in result.items.iter_rows(named=True)
    ]


def cases_on(items: Sequence[Mapping[str, str]], cases: Iterable[Mapping[str, str]]) -> list[int]:
    """Per item, how many of the cases (their `item` dicts, same view) hold every key/value of
    it: a case on the item itself or on a finer item of it (a step of a trace)."""
    case_list = [dict(c) for c in cases]
    return [
        sum(1 for c in case_list if all(c.get(k) == v for k, v in item.items())) if item else 0
        for item in items
    ]
