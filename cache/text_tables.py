"""The one schema of the text tables: every text a dataset holds, one row per searchable piece.

Why one schema: the search (`analysis/search`) reads every dataset's table the same way and
never names a dataset; each dataset's builder (`DatasetInfo.texts`, "module:function") fills
these columns. A row says where its text opens (`view` and that view's URL keys, `query`), what
a case captured on it names (`keys`), and how the results group it (`file`, `group`, `item`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from cache.progress import ProgressFn
from cache.sources import SourceConfig

_PAIRS = pa.list_(pa.struct([("k", pa.string()), ("v", pa.string())]))

TEXT_SCHEMA = pa.schema(
    [
        ("file", pa.string()),  # the dataset file it comes from (Hub-relative)
        ("group", pa.string()),  # subset or file label, for the filter
        ("item", pa.string()),  # the item's id within the file (uuid, "pid#sample", "q3 t17")
        ("label", pa.string()),  # how a result names the item
        ("field", pa.string()),  # what the text is: question, reasoning node, probe raw_text ...
        ("locator", pa.string()),  # where in the item: node id, step, probe position ("" none)
        ("correct", pa.bool_()),  # what the data says is right (the item; a probe: its answer)
        ("view", pa.string()),  # the explorer view that opens it
        ("query", _PAIRS),  # that view's URL keys opening it at the text
        ("keys", _PAIRS),  # a captured case's item keys
        ("text", pa.string()),
    ]
)


@dataclass
class TextRows:
    """Rows collected column by column (builders add thousands; a dict per row costs more)."""

    cols: dict[str, list] = field(default_factory=lambda: {n: [] for n in TEXT_SCHEMA.names})

    def add(self, **row: Any) -> None:
        """One row: every column of `TEXT_SCHEMA` by name (`locator` defaults to "",
        `correct` to None; `query` and `keys` are mappings, None values left out)."""
        row.setdefault("locator", "")
        row.setdefault("correct", None)
        unknown = set(row) - set(self.cols)
        if unknown:
            raise KeyError(f"not a text-table column: {sorted(unknown)}")
        for name, values in self.cols.items():
            v = row[name]
            values.append(_pairs(v) if name in ("query", "keys") else v)

    def table(self) -> pa.Table:
        return pa.table(self.cols, schema=TEXT_SCHEMA)


def _pairs(values: Mapping[str, object]) -> list[dict[str, str]]:
    return [{"k": str(k), "v": str(v)} for k, v in values.items() if v is not None]


def pairs_of(values: Sequence[Mapping[str, str]] | None) -> tuple[tuple[str, str], ...]:
    """A `query`/`keys` cell back as (key, value) pairs."""
    return tuple((p["k"], p["v"]) for p in values or ())


GRADE_SCHEMA = pa.schema(
    [("file", pa.string()), ("item", pa.string()), ("field", pa.string()), ("correct", pa.bool_())]
)


@dataclass(frozen=True)
class GradeState:
    """Which of a source's files are graded (their grading table, built) and which are not yet.
    Cheap to make (paths and file stats only), so it keys the search's caches."""

    ready: tuple[tuple[str, Path], ...]  # (file, the built table its grades are read from)
    pending: tuple[str, ...]  # files whose grades need a build first


@dataclass(frozen=True)
class TextGrader:
    """Correctness that some text rows get from another derived table, not from their own file.

    Why apart from the text table: the grade may need a costly build (MARS grades a trace's
    extracted answer with math-verify in its feature build). The text table stays cheap; the
    search fills `correct` from the grades of the files already graded, says how many texts
    wait for a build, and builds them when asked (`DatasetInfo.grades`, "module:attribute")."""

    fields: tuple[str, ...]  # the text fields it grades ("extracted answer")
    how: str  # how the grade is made, for the page ("graded against ... by ...")
    state: Callable[[SourceConfig], GradeState]
    read: Callable[[GradeState], pa.Table]  # GRADE_SCHEMA rows of the ready files
    # grade the pending files (only those named, when a sequence of files is given)
    build: Callable[[SourceConfig, ProgressFn | None, Sequence[str] | None], None]
