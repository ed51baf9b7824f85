"""The static HTML report: every text escaped, notes rendered safely, no external asset."""

from __future__ import annotations

import re

from cache.casebook.model import make_case
from components.casebook.report import report_html


def _case(**kw: object):  # type: ignore[no-untyped-def]  # a test factory
    return make_case(
        "mars",
        "mars",
        query=[("file", "DeepSeek-8B/aime25_deepseek.parquet"), ("qid", "3")],
        item={"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": "3"},
        title=str(kw.get("title", "<img src=x onerror=alert(1)>")),
        tags=["<b>tag</b>"],
        note=str(kw.get("note", "**bold** <script>alert(1)</script> [x](javascript:alert(1)) $x$")),
        snapshot={"pass@1": 0.25, "majority": "<i>42</i>", "n": 1200},
    )


def test_everything_is_escaped_and_self_contained() -> None:
    html = report_html([_case()], "<Demo>", "for <the> team")
    assert "<script" not in html and "<img" not in html and "<i>42" not in html
    assert "&lt;script&gt;" in html and "&lt;img" in html and "&lt;b&gt;tag" in html
    assert "<strong>bold</strong>" in html and not re.search(r"href=['\"]javascript", html)
    assert "<title>&lt;Demo&gt;</title>" in html and "1,200" in html
    # no external asset: no src/href to another host, no @import, no url()
    assert not re.search(r"(src|href)=['\"](https?:)?//", html)
    assert "@import" not in html and "url(" not in html
    assert "mars?file=DeepSeek-8B%2Faime25_deepseek.parquet&amp;qid=3" in html


def test_absolute_links_with_a_base_url_and_an_empty_report() -> None:
    html = report_html([_case(title="t")], "r", base_url="https://explorer.example/")
    assert "https://explorer.example/mars?file=" in html
    assert "No cases." in report_html([], "empty")
