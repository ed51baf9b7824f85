"""The static HTML report: every text escaped, notes rendered safely, no external asset, and case
links built only from the explorer's own views and URL-encoded keys."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser

import pytest

from cache.casebook.links import PUBLIC_URL_ENV
from cache.casebook.model import Case, make_case
from cache.casebook.report import report_base, report_html
from tests.crafted_views import CRAFTED_VIEWS

BASE = "https://explorer.example"


@pytest.fixture(autouse=True)
def _no_public_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)


def _case(**kw: object) -> Case:
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


class _Refs(HTMLParser):
    """Every tag, every URL-bearing attribute and every style text of a document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_style = tag == "style"
        for name, value in attrs:
            if name in ("href", "src", "srcset", "action", "formaction", "poster", "data",
                        "xlink:href", "background"):  # fmt: skip
                self.urls.append((tag, name, value or ""))
            if name == "style":
                self.styles.append(value or "")

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def _refs(html: str) -> _Refs:
    p = _Refs()
    p.feed(html)
    p.close()
    return p


def _assert_loads_nothing(p: _Refs) -> None:
    loading = {"img", "script", "link", "iframe", "object", "embed", "video", "audio", "source",
               "image", "use", "frame", "base", "form", "meta"} & set(p.tags)  # fmt: skip
    # `<meta charset>` / viewport is the only meta; it loads nothing, but refresh would
    assert loading <= {"meta"}
    assert not [u for u in p.urls if u[1] != "href"], p.urls
    assert not any("url(" in s or "@import" in s for s in p.styles)


def test_everything_is_escaped_and_self_contained() -> None:
    html = report_html([_case()], "<Demo>", "for <the> team")
    assert "<script" not in html and "<img" not in html and "<i>42" not in html
    assert "&lt;script&gt;" in html and "&lt;img" in html and "&lt;b&gt;tag" in html
    assert "<strong>bold</strong>" in html and not re.search(r"href=['\"]javascript", html)
    assert "<title>&lt;Demo&gt;</title>" in html and "1,200" in html
    p = _refs(html)
    _assert_loads_nothing(p)
    assert p.urls == []  # no base: no live link at all
    assert "@import" not in html and "url(" not in html
    assert "http-equiv" not in html


def test_without_a_base_the_path_is_plain_text_and_the_report_says_how_to_link() -> None:
    html = report_html([_case(title="t")], "r")
    assert (
        "<code class='path'>mars?file=DeepSeek-8B%2Faime25_deepseek.parquet&amp;qid=3</code>"
        in html
    )
    assert PUBLIC_URL_ENV in html and "<a " not in html
    assert "No cases." in report_html([], "empty") and PUBLIC_URL_ENV not in report_html([], "e")


def test_links_are_live_under_the_base_url_or_the_public_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    want = f"{BASE}/mars?file=DeepSeek-8B%2Faime25_deepseek.parquet&amp;qid=3"
    html = report_html([_case(title="t")], "r", base_url=BASE + "/")
    assert f"<a href='{want}'>" in html and PUBLIC_URL_ENV not in html
    monkeypatch.setenv(PUBLIC_URL_ENV, "https://team.example/rte/")
    html = report_html([_case(title="t")], "r")
    assert "<a href='https://team.example/rte/mars?file=" in html
    # a base that is not http(s) with a host is ignored (the public address is used)
    assert report_base("javascript:alert(1)//") == "https://team.example/rte"
    assert report_base("//evil.example") == "https://team.example/rte"
    monkeypatch.setenv(PUBLIC_URL_ENV, "ftp://team.example")
    assert report_base("") == "" and report_base("data:text/html,x") == ""


CRAFTED = list(CRAFTED_VIEWS)


@pytest.mark.parametrize("base", ["", BASE])
@pytest.mark.parametrize("crafted", CRAFTED)
def test_a_crafted_view_or_query_never_becomes_a_link_outside_the_explorer(
    crafted: str, base: str
) -> None:
    good = _case(title="good")
    as_view = dataclasses.replace(good, id="v", view=crafted)
    as_key = dataclasses.replace(good, id="k", query=((crafted, "1"), ("qid", crafted)))
    as_value = dataclasses.replace(good, id="q", query=(("file", crafted),))
    html = report_html([as_view, as_key, as_value], "crafted", base_url=base)
    p = _refs(html)
    _assert_loads_nothing(p)
    for _tag, _attr, href in p.urls:
        assert href.startswith(BASE + "/mars?"), href
        assert re.fullmatch(r"[A-Za-z0-9_.~%&=?/:\-+]*", href), href  # encoded, no raw crafted text
    # the view that is not ours is shown as escaped plain text, with no link
    section = html[html.index("id='case-v'") : html.index("id='case-k'")]
    assert "<a " not in section and "not one of the explorer" in section
    assert "<script>" not in html
    # the crafted value is carried only URL-encoded inside our own path
    assert len(p.urls) == (2 if base else 0)


def test_a_stage_reads_as_the_views_count_it() -> None:
    """Regression (a walk): a Parason stage case's title said "stage 1" and the report "stage 0":
    the item stores the stage from 0, the views count from 1 (the casebook's list: in
    tests/components/casebook/test_exports.py)."""
    from cache.casebook.model import shown_value

    case = make_case(
        "parason", "parason", item={"subset": "sft-1x", "uuid": "b4db827a-x", "stage": "0"},
        title="sft-1x b4db827a · stage 1",
    )  # fmt: skip
    html = report_html([case], "r")
    assert "stage 1" in html and "stage 0" not in html
    assert case.item["stage"] == "0"  # stored as before: links and old exports still match
    assert shown_value("stage", "x", "parason") == "x" and shown_value("qid", "0", "mars") == "0"
    assert shown_value("stage", "0", "mars") == "0"  # another view's key is its own


def test_a_node_reads_as_its_title_and_link_write_it() -> None:
    """Regression (a walk): a Parason node case's title and link said "2.2", the case list and
    the report "node b1t1"."""
    from cache.casebook.model import shown_value

    case = make_case(
        "parason", "parason", item={"subset": "sft-1x", "uuid": "b4db827a-x", "node": "b1t1"},
        title="sft-1x · trial 2.2 · Find x",
    )  # fmt: skip
    html = report_html([case], "r")
    assert "node 2.2" in html and "b1t1" not in html
    assert shown_value("node", "s0", "parason") == "s0"  # a segment keeps its id
