"""The self-contained static HTML report of a set of cases: notes, tags, verdicts, key figures
and links, with its styles inline and no external asset (no script, font, image or CDN), so it
can be mailed or archived and opened offline.

Every piece of dataset and user text is escaped; notes are rendered by the one safe Markdown
renderer (`safe_text.md_html`), which emits no raw HTML.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from urllib.parse import urljoin

from cache.casebook.model import Case, deep_link, default_title
from components.common.formatting import fmt_num
from components.common.safe_text import esc, md_html
from components.common.theme import (
    CASE_ACCENT,
    CASE_META_FG,
    CASE_TAG_BG,
    REPORT_CASE_BG,
    REPORT_RULE,
    REPORT_TEXT,
)

_STYLE = f"""
body{{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:960px;margin:2rem auto;
padding:0 1rem;color:{REPORT_TEXT};line-height:1.45}}
h1{{font-size:1.6rem;margin-bottom:.2rem}} .sub{{color:{CASE_META_FG};margin-top:0}}
.case{{border-left:4px solid {CASE_ACCENT};padding:.4rem 1rem;margin:1.2rem 0;background:{REPORT_CASE_BG}}}
.case h2{{font-size:1.15rem;margin:.2rem 0}} .meta{{color:{CASE_META_FG};font-size:.85rem}}
.tag{{background:{CASE_TAG_BG};border-radius:10px;padding:0 8px;margin-right:4px;font-size:.8rem}}
table.fig{{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}}
table.fig td{{border:1px solid {REPORT_RULE};padding:2px 8px}} .note{{overflow-wrap:anywhere}}
.note pre{{white-space:pre-wrap}} a{{color:{CASE_ACCENT}}}
"""


def _figure(v: object) -> str:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return esc("–" if v is None else v)
    if isinstance(v, int):
        return esc(f"{v:,}")
    return esc(fmt_num(v, ".4g"))


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def case_section(case: Case, base_url: str = "") -> str:
    title = esc(case.title or default_title(case.dataset, case.item))
    link = deep_link(case)
    href = urljoin(base_url.rstrip("/") + "/", link) if base_url else link
    tags = "".join(f"<span class='tag'>{esc(t)}</span>" for t in case.tags)
    keys = " · ".join(f"{esc(k)} {esc(v)}" for k, v in case.item.items())
    figures = "".join(
        f"<tr><td>{esc(k)}</td><td>{_figure(v)}</td></tr>" for k, v in case.snapshot.items()
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
        + (f"<table class='fig'>{figures}</table>" if figures else "")
        + (f"<div class='note'>{md_html(case.note)}</div>" if case.note else "")
        + f"<div class='meta'>Open in the explorer: <a href='{esc(href)}'>{esc(link)}</a></div>"
        "</section>"
    )


def report_html(
    cases: Sequence[Case], title: str, description: str = "", base_url: str = ""
) -> str:
    """The whole report as one HTML document. `base_url` (e.g. the team server's address)
    makes the case links absolute; without it they are relative to the app's root."""
    body = "".join(case_section(c, base_url) for c in cases)
    now = dt.datetime.now(tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sub = f"{len(cases)} case(s) · exported {now}"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{esc(title)}</h1><p class='sub'>{esc(sub)}</p>"
        + (f"<p>{esc(description)}</p>" if description else "")
        + (body or "<p>No cases.</p>")
        + "</body></html>"
    )
