"""Search results as escaped HTML: an item's header (dataset, label, correctness, its hit count)
and one line per text and matched string (what the text is, where it opens), then each hit's
snippet with the hit marked.

Every piece of text is escaped on its own and the highlight is our markup around the escaped
hit; links come only from `view_href` (a view and its registered URL keys), never from text.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby

from analysis.search.results import Hit
from components.common import theme
from components.common.links import view_href
from components.common.safe_text import esc
from components.common.search_marks import mark_pairs

_SNIPPET = (
    "font-family:var(--font-mono, monospace);font-size:0.82rem;white-space:normal;"
    "overflow-wrap:anywhere;margin:2px 0 6px 0;line-height:1.45"
)


def hit_link(hit: Hit, extra: Mapping[str, str] | None = None) -> str | None:
    """The link that opens the hit in its view at the hit (None when the view does not read
    one of the keys, e.g. a dataset registered without URL keys for it)."""
    try:
        return view_href(hit.view, **dict(hit.query), **(extra or {}))
    except KeyError:
        return None


def snippet_html(hit: Hit) -> str:
    """The snippet: escaped context, the escaped hit inside our highlight."""
    shown = hit.match if hit.match else "\u2060"  # an empty match still marks its place
    mark = (
        f"<mark style='background:{theme.HIT_BG};color:inherit;padding:0 1px;border-radius:2px'>"
        f"{esc(shown)}</mark>"
    )
    return f"{esc(hit.before)}{mark}{esc(hit.after)}"


def _badge(correct: bool | None) -> str:
    """A text's own correctness, on its hit's line: an item's texts can differ (a MARS trace's
    probes are right or wrong each, whatever the trace's final answer), so the item's header
    carries none."""
    if correct is None:
        return ""
    colour, word = (theme.CORRECT, "correct") if correct else (theme.WRONG, "wrong")
    return (
        f" <span style='color:{colour};font-weight:600' title='the answer this text gives is "
        f"{word}'>· {word}</span>"
    )


def _same_text(hits: list[Hit], case_sensitive: bool) -> list[list[Hit]]:
    """Consecutive hits of one matched string in one text (in any case, unless the search
    matched case): they share a link (the view marks every occurrence there), so one line opens
    them all."""

    def key(h: Hit) -> tuple[int, str, str, str]:
        return (h.row, h.field, h.locator, h.match if case_sensitive else h.match.casefold())

    return [list(run) for _, run in groupby(hits, key)]


def _snippets(hits: list[Hit]) -> str:
    """Each hit's snippet; a snippet that reads exactly as the one before is shown once, with
    how many hits read so (repetitive texts otherwise fill the page with copies)."""
    out = []
    for html, same in groupby(snippet_html(h) for h in hits):
        n = sum(1 for _ in same)
        here = f"<span style='color:{theme.NO_ANSWER}'> (×{n} here)</span>" if n > 1 else ""
        out.append(f"<div style='{_SNIPPET}'>{html}{here}</div>")
    return "".join(out)


def item_html(
    first: Hit,
    hits: list[Hit],
    title: str,
    total: int | None,
    extra: Mapping[str, str] | None = None,
    case_sensitive: bool = False,
) -> str:
    """One item: its header and its hits on this page, one line per text holding them with a
    link to where they are (which marks the matched text there), then their snippets."""
    count = f"{total:,} hit{'s' if total != 1 else ''}" if total is not None else ""
    head = (
        f"<div style='font-size:0.92rem'><b>{esc(title)}</b> · {esc(first.label)}"
        f"<span style='color:{theme.NO_ANSWER};font-size:0.8rem'> · {esc(count)}</span></div>"
    )
    lines = []
    for run in _same_text(hits, case_sensitive):
        h = run[0]
        where = f"{h.field} · {h.locator}" if h.locator else h.field
        link = hit_link(h, {**(extra or {}), **mark_pairs(h.match, case_sensitive)})
        opener = (
            f"<a href='{esc(link)}' target='_self' class='rte-search-hit' "
            # below the underscores of field names such as raw_text, which it would hide
            f"style='text-underline-offset:0.25em'>{esc(where)} ↗</a>"
            if link
            else esc(where)
        )
        here = f" · {len(run)} hits here" if len(run) > 1 else ""
        lines.append(
            f"<div style='font-size:0.8rem;color:{theme.NO_ANSWER}'>{opener}{_badge(h.correct)}"
            f"{here}</div>{_snippets(run)}"
        )
    return (
        f"<div class='rte-search-item' style='border-left:3px solid {theme.PANEL_BORDER};"
        f"padding:2px 10px;margin:8px 0'>{head}{''.join(lines)}</div>"
    )
