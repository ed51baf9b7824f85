"""The HTML report with "Render maths": the notes' formulas wrapped for KaTeX, Streamlit's KaTeX
embedded inline only when a note holds one, a strict policy allowing that one script by its hash,
every text still escaped, and nothing that loads from the network."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from cache.casebook import report as report_mod
from cache.casebook.links import PUBLIC_URL_ENV
from cache.casebook.model import Case, make_case
from cache.casebook.report import report_html
from cache.casebook.report_maths import inline_katex
from tests.cache.test_safe_html import _tags  # one tag reader for the HTML tests

NOTE = (
    "Sum $x^2 + y^2$ and <script>alert(1)</script> then \\boxed{42}; "
    "bad $\\frac{1}{$ and $\\href{https://evil.example/h}{x}$ and "
    "[ok](https://ok.example/) ![i](https://evil.example/i.png) <b>&amp;</b>"
)
SCRIPT = re.compile(r'<script type="module">(.*?)</script>', re.DOTALL)
URL = re.compile(r"https?://[^\s\"'`<>(){}\[\]]+")
W3C = ("http://www.w3.org/2000/svg", "http://www.w3.org/1998/Math/MathML")


@pytest.fixture(autouse=True)
def _no_public_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)


def _case(note: str = NOTE, title: str = "<i>t</i> $x$") -> Case:
    return make_case(
        "mars", "mars", query=[("qid", "1")], item={"qid": "1"}, title=title, note=note
    )


def _no_clock(html: str) -> str:
    return re.sub(r"exported \d{4}-\d\d-\d\d \d\d:\d\d UTC", "exported -", html)


@pytest.fixture(scope="module")
def html() -> str:
    assert inline_katex() is not None, "this Streamlit ships KaTeX (components/common/maths.py)"
    return report_html([_case()], "maths <report>", maths=True)


def test_formulas_are_wrapped_and_every_text_stays_escaped(html: str) -> None:
    spans = [a for t, a in _tags(html) if t == "span" and a.get("class") == "rte-maths"]
    assert [a["data-tex"] for a in spans] == [
        "x^2 + y^2",
        "\\boxed{42}",
        "\\frac{1}{",  # does not parse: the browser keeps it as written
        "\\href{https://evil.example/h}{x}",  # trust is off: shown as written
    ]
    assert ">$x^2 + y^2$</span>" in html  # the source stays inside, escaped, until typeset
    body = html[html.index("<body>") :]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script" not in body
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in body and "<b>" not in body
    assert "<h2>&lt;i&gt;t&lt;/i&gt; $x$</h2>" in body  # titles are not notes: as written
    assert "<title>maths &lt;report&gt;</title>" in html


def test_one_inline_script_allowed_by_hash_and_nothing_fetched(html: str) -> None:
    scripts = SCRIPT.findall(html)
    assert len(scripts) == 1 and html.count("<script") == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
    [csp] = [a["content"] for t, a in _tags(html) if t == "meta" and a.get("http-equiv")]
    assert csp is not None
    policy = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert policy == {
        "default-src": "'none'",
        "script-src": f"'sha256-{digest}'",
        "style-src": "'unsafe-inline'",
        "font-src": "data:",
        "base-uri": "'none'",
        "form-action": "'none'",
    }
    assert html.index("http-equiv") < html.index("<style>") < html.index("<script")
    # nothing that loads: no src/srcset/link/img/base/iframe, fonts only as data: URIs
    for tag, attrs in _tags(html):
        assert tag not in ("img", "link", "iframe", "object", "embed", "base", "form"), tag
        assert not {"src", "srcset", "action", "poster", "background"} & set(attrs), (tag, attrs)
    urls = re.findall(r"url\(([^)]{0,40})", html)
    assert urls and all(u.startswith("data:font/woff2;base64,") for u in urls)
    assert "@import" not in html and "import(" not in scripts[0]
    # every http(s) URL outside the script is the note's escaped text; inside the script only
    # XML namespace names (never fetched)
    outside = SCRIPT.sub("", html)
    assert sorted(set(URL.findall(outside))) == [
        "https://evil.example/h",
        "https://evil.example/i.png",
        "https://ok.example/",
    ]
    assert [a.get("href") for t, a in _tags(html) if t == "a"] == []  # not even a link
    assert set(URL.findall(scripts[0])) <= set(W3C)


def test_the_same_report_without_a_formula_or_without_maths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain, with_maths = _case(note="no maths here: costs $5 and $6 <b>x</b>"), _case()
    assert _no_clock(report_html([plain], "r", maths=True)) == _no_clock(report_html([plain], "r"))
    off = report_html([with_maths], "r")
    assert "<script" not in off and "rte-maths" not in off and "http-equiv" not in off
    assert "$x^2 + y^2$" in off
    # a Streamlit without KaTeX: the report is the one without maths
    monkeypatch.setattr(report_mod, "inline_katex", lambda: None)
    assert _no_clock(report_html([with_maths], "r", maths=True)) == _no_clock(off)


def _static(tmp_path: Path, module: str) -> Path:
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "katex.abc.js").write_text(module)
    (tmp_path / "css").mkdir()
    (tmp_path / "css" / "index.css").write_text(".katex{font:1em KaTeX_Main}.other{a:b}")
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "KaTeX_Main-Regular.x.woff2").write_bytes(b"\x00font")
    return tmp_path


FONT_B64 = base64.b64encode(b"\x00font").decode()


def test_inline_katex_from_a_folder(tmp_path: Path) -> None:
    find = inline_katex.__wrapped__  # uncached: a folder per call
    k = find(_static(tmp_path, "var Ta={render(){}};export{Ta as default};"))
    assert k is not None
    assert k.script.startswith("var Ta={render(){}};\n;((katex) =>")
    assert k.script.rstrip().endswith("})(Ta);") and "export" not in k.script
    assert k.style.startswith(
        "@font-face{font-family:KaTeX_Main;font-weight:400;font-style:normal;font-display:block;"
        f"src:url(data:font/woff2;base64,{FONT_B64})"
    )
    assert ".katex{font:1em KaTeX_Main}" in k.style and ".other" not in k.style


@pytest.mark.parametrize(
    "module",
    [
        "var a='</script>';export{a as default};",  # would end the element early
        "var a='<!--';export{a as default};",
        "var a=1;export{a as default};export{a as b};",  # another export: not one module's end
        "var a=1;export default a;",  # no named default export to hand over
    ],
)
def test_an_unsafe_or_unknown_module_is_not_embedded(tmp_path: Path, module: str) -> None:
    assert inline_katex.__wrapped__(_static(tmp_path, module)) is None
    assert inline_katex.__wrapped__(tmp_path / "nowhere") is None
