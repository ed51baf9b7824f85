"""The one schema of the text tables: every text a dataset holds, one row per searchable piece.

Why one schema: the search (`analysis/search`) reads every dataset's table the same way and
never names a dataset; each dataset's builder (`DatasetInfo.texts`, "module:function") fills
these columns. A row says where its text opens (`view` and that view's URL keys, `query`), what
a case captured on it names (`keys`), and how the results group it (`file`, `group`, `item`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

_PAIRS = pa.list_(pa.struct([("k", pa.string()), ("v", pa.string())]))

TEXT_SCHEMA = pa.schema(
    [
        ("file", pa.string()),  # the dataset file it comes from (Hub-relative)
        ("group", pa.string()),  # subset or file label, for the filter
        ("item", pa.string()),  # the item's id within the file (uuid, "pid#sample", "q3 t17")
        ("label", pa.string()),  # how a result names the item
        ("field", pa.string()),  # what the text is: question, reasoning node, probe raw_text ...
        ("locator", pa.string()),  # where in the item: node id, step, probe position ("" none)
        ("correct", pa.bool_()),  # the item's correctness when the data says it (else null)
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

    def add(
        self,
        *,
        file: str,
        group: str,
        item: str,
        label: str,
        field: str,
        text: str,
        view: str,
        query: Mapping[str, object],
        keys: Mapping[str, object],
        locator: str = "",
        correct: bool | None = None,
    ) -> None:
        c = self.cols
        c["file"].append(file)
        c["group"].append(group)
        c["item"].append(item)
        c["label"].append(label)
        c["field"].append(field)
        c["locator"].append(locator)
        c["correct"].append(correct)
        c["view"].append(view)
        c["query"].append(_pairs(query))
        c["keys"].append(_pairs(keys))
        c["text"].append(text)

    def table(self) -> pa.Table:
        return pa.table(self.cols, schema=TEXT_SCHEMA)


def _pairs(values: Mapping[str, object]) -> list[dict[str, str]]:
    return [{"k": str(k), "v": str(v)} for k, v in values.items() if v is not None]


def pairs_of(values: Sequence[Mapping[str, str]] | None) -> tuple[tuple[str, str], ...]:
    """A `query`/`keys` cell back as (key, value) pairs."""
    return tuple((p["k"], p["v"]) for p in values or ())
