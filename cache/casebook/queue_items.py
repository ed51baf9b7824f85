"""An item a triage queue steps through: where it opens (a view of the explorer and that view's
URL keys) and what a case captured on it names (its item keys). Search results, lenses,
filtered tables and collections all hand the queue lists of these, so the queue never needs to
know where its items came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class QueueItem:
    view: str  # an explorer view name (`cache.datasets.view_names()`), e.g. "mars"
    query: tuple[tuple[str, str], ...] = ()  # the view's URL keys that open the item
    item: dict[str, str] = field(default_factory=dict)  # a captured case's item keys
    label: str = ""  # how the queue names it ("… · AIME 2025 · Q3 · trace 17")
    source: dict[str, str] = field(default_factory=dict)  # the data source, as a case stores it
