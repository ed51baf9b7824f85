"""Read the Markdown tables a page draws (`components.common.md_table`) back into rows, the
way a reader sees them: escapes undone, a dash read as empty."""

from __future__ import annotations

import re
from typing import Any

_ESCAPE = re.compile(r"\\(.)")
_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [_ESCAPE.sub(r"\1", c.strip()).replace("\u2060", "") for c in _SPLIT.split(inner)]


def parse(markdown: str) -> list[dict[str, str | None]]:
    lines = [ln for ln in markdown.splitlines() if ln.startswith("|")]
    head = _cells(lines[0])
    return [
        {h: (None if v == "–" else v) for h, v in zip(head, _cells(ln), strict=True)}
        for ln in lines[2:]
    ]


def md_tables(at: Any, first_column: str | None = None) -> list[list[dict[str, str | None]]]:
    """Every Markdown table on the page (optionally only those whose first column is named
    `first_column`), each as a list of row dicts."""
    out = []
    for m in at.markdown:
        text = str(m.value)
        if not text.startswith("| "):
            continue
        rows = parse(text)
        if first_column is None or text.startswith(f"| {first_column} |"):
            out.append(rows)
    return out


_FIGURE = re.compile(r"([A-Za-z][A-Za-z ]*?) \*\*(.+?)\*\*")


def figures(at: Any, first_label: str) -> list[tuple[str, str]]:
    """(label, value) of every "Label **value** · ..." line that starts with `first_label`, in
    page order (the home cards' figures)."""
    return [
        (label, value)
        for m in at.markdown
        if str(m.value).startswith(first_label + " **")
        for label, value in _FIGURE.findall(str(m.value))
    ]


def number(cell: str | None) -> int:
    """A whole-number cell as drawn (thousands separators) back to an int."""
    return int(str(cell).replace(",", ""))
