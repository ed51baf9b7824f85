"""The self-contained static HTML report of a set of cases: notes, tags, verdicts, key figures,
the picture of each case's evidence (inline SVG, `cache.casebook.evidence_svg`) and links, with
its styles inline and no external asset (no script, font, image or CDN), so it can be mailed or
archived and opened offline. Pure (no Streamlit): the app's export tab and the
CLI (`python -m cache casebook export --format html`) both call `report_html`.

Every piece of dataset and user text is escaped; notes are rendered by the one safe Markdown
renderer (`cache.safe_html.md_html`), which emits no raw HTML and loads nothing. A case's link is
built only from the explorer's own views and URL-encoded keys (`cache.casebook.links`): under the
explorer's public address (`base_url`, else `RTE_PUBLIC_URL`) it is a live link; without one the
path is shown as plain text, since a relative link does not work from a saved file; a case whose
view is not the explorer's gets no link at all.

With `maths` (the app's "Render maths" switch, URL key `maths`), the notes' formulas are wrapped
for typesetting (`md_html(maths=True)`), and a report that holds one embeds Streamlit's KaTeX
inline under a strict Content-Security-Policy (`cache.casebook.report_maths`): still one file
that loads nothing. Without a formula, or without KaTeX, the report is the same as without
`maths` (no script).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence

from cache.casebook.evidence import EVIDENCE_KEY, snapshot_figures
from cache.casebook.evidence_svg import evidence_svg
from cache.casebook.links import PUBLIC_URL_ENV, absolute, case_path, public_base
from cache.casebook.model import Case, default_title, shown_value
from cache.casebook.palette import (
    CASE_ACCENT,
    CASE_META_FG,
    CASE_TAG_BG,
    EVIDENCE_BG,
    REPORT_CASE_BG,
    REPORT_RULE,
    REPORT_TEXT,
)
from cache.casebook.report_maths import FORMULA_MARK, inline_katex, maths_head
from cache.safe_html import esc, md_html

_STYLE = f"""
body{{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:960px;margin:2rem auto;
padding:0 1rem;color:{REPORT_TEXT};line-height:1.45}}
h1{{font-size:1.6rem;margin-bottom:.2rem}} .sub{{color:{CASE_META_FG};margin-top:0}}
.case{{border-left:4px solid {CASE_ACCENT};padding:.4rem 1rem;margin:1.2rem 0;background:{REPORT_CASE_BG}}}
.case h2{{font-size:1.15rem;margin:.2rem 0}} .meta{{color:{CASE_META_FG};font-size:.85rem}}
.tag{{background:{CASE_TAG_BG};border-radius:10px;padding:0 8px;margin-right:4px;font-size:.8rem}}
table.fig{{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}}
table.fig td{{border:1px solid {REPORT_RULE};padding:2px 8px}} .note{{overflow-wrap:anywhere}}
.note pre{{white-space:pre-wrap}} a{{color:{CASE_ACCENT}}} code.path{{overflow-wrap:anywhere}}
figure.evidence{{margin:.5rem 0}} svg.evidence{{max-width:100%;height:auto;background:{EVIDENCE_BG}}}
"""
DASH = "–"


def _figure(v: object) -> str:
    if v is None:
        return DASH
    if isinstance(v, (bool, str)):
        return esc(v)
    if isinstance(v, int):
        return esc(f"{v:,}")
    if isinstance(v, float):
        if math.isnan(v):
            return DASH
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return esc(format(v, ".4g"))
    return esc(v)


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def report_base(base_url: str = "") -> str:
    """The explorer's address the report links under: `base_url` when it is an http(s) URL with
    a host, else `RTE_PUBLIC_URL` (same check), else "" (links shown as plain paths)."""
    if base_url:
        given = public_base({PUBLIC_URL_ENV: base_url})
        if given:
            return given
    return public_base()


def case_link(case: Case, base: str) -> str:
    """The "Open in the explorer" line: a live link under `base`, the plain path without a base,
    the view as plain text when it is not one of the explorer's."""
    path = case_path(case.view, case.query)
    if path is None:
        return f"View {esc(case.view)} (not one of the explorer's views; no link)"
    href = absolute(path, base)
    if base and href:
        return f"Open in the explorer: <a href='{esc(href)}'>{esc(href)}</a>"
    return f"In the explorer: <code class='path'>{esc(path)}</code>"


def picture(case: Case) -> str:
    """The case's evidence as inline SVG, or a note that none was stored at capture."""
    svg = evidence_svg(case.snapshot.get(EVIDENCE_KEY))
    if svg:
        return f"<figure class='evidence'>{svg}</figure>"
    return "<p class='meta'>No picture stored at capture.</p>"


def case_section(case: Case, base: str = "", maths: bool = False) -> str:
    """One case's section. `base` is an already checked explorer address (see `report_base`);
    with `maths` the note's formulas are wrapped for the typesetter."""
    title = esc(case.title or default_title(case.dataset, case.item))
    tags = "".join(f"<span class='tag'>{esc(t)}</span>" for t in case.tags)
    keys = " · ".join(f"{esc(k)} {esc(shown_value(k, v, case.view))}" for k, v in case.item.items())
    figures = "".join(
        f"<tr><td>{esc(k)}</td><td>{_figure(v)}</td></tr>"
        for k, v in snapshot_figures(case.snapshot).items()
    )
    src = case.source
    source = esc(
        " · ".join(x for x in (src.get("kind"), src.get("repo_id"), src.get("revision"),
                               src.get("local_path"), src.get("file")) if x)
    )  # fmt: skip
    verdict = f" · <b>{esc(case.verdict)}</b>" if case.verdict else ""
    return (
        f"<section class='case' id='case-{esc(case.id)}'>"
        f"<h2>{title}</h2>"
        f"<div class='meta'>{esc(case.dataset)} · {keys}{verdict}</div>"
        f"<div class='meta'>{esc(case.author or 'anonymous')} · {esc(_when(case.updated_at))}"
        f" · source {source or 'sample'}</div>"
        f"<div>{tags}</div>"
        + picture(case)
        + (f"<table class='fig'>{figures}</table>" if figures else "")
        + (f"<div class='note'>{md_html(case.note, maths=maths)}</div>" if case.note else "")
        + f"<div class='meta'>{case_link(case, base)}</div>"
        "</section>"
    )


def report_html(
    cases: Sequence[Case],
    title: str,
    description: str = "",
    base_url: str = "",
    maths: bool = False,
) -> str:
    """The whole report as one HTML document. Case links are live under `base_url` (e.g. the
    team server's address) or, without it, `RTE_PUBLIC_URL`; with neither they are plain paths.
    `maths` typesets the notes' formulas (KaTeX inline, only when a note holds one)."""
    base = report_base(base_url)
    katex = inline_katex() if maths else None
    body = "".join(case_section(c, base, maths=katex is not None) for c in cases)
    head = maths_head(katex) if katex is not None and FORMULA_MARK in body else ""
    now = dt.datetime.now(tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sub = f"{len(cases)} case{'s' * (len(cases) != 1)} · exported {now}"
    hint = (
        ""
        if base or not cases
        else f"<p class='meta'>Case links are shown as paths in the explorer; set {PUBLIC_URL_ENV}"
        " to the explorer's address (http or https) when exporting to make them live links.</p>"
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        + head
        + f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{esc(title)}</h1><p class='sub'>{esc(sub)}</p>"
        + (f"<p>{esc(description)}</p>" if description else "")
        + hint
        + (body or "<p>No cases.</p>")
        + "</body></html>"
    )
