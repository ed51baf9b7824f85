"""The note renderer loads nothing and links nowhere: no raw HTML, no image and no link (each stays
the text it was written as), line breaks kept, and no blank line in its output."""

from __future__ import annotations

import html
from html.parser import HTMLParser

import pytest

from cache.safe_html import esc, md_html


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(markup: str) -> list[tuple[str, dict[str, str | None]]]:
    p = _Tags()
    p.feed(markup)
    p.close()
    return p.tags


def _links(markup: str) -> list[str | None]:
    return [attrs.get("href") for tag, attrs in _tags(markup) if tag == "a"]


def test_formatting_is_kept_and_raw_html_is_text() -> None:
    out = md_html("**b** _i_ ~~s~~ `c` <script>alert(1)</script> <img src=x onerror=1>")
    assert {t for t, _ in _tags(out)} == {"p", "strong", "em", "s", "code"}
    assert "&lt;script&gt;" in out and "&lt;img src=x" in out
    assert md_html(None) == "" and esc(None) == ""


@pytest.mark.parametrize(
    "note",
    [
        "![i](https://evil.example/x.png)",
        "![a *b*][r]\n\n[r]: https://evil.example/y.png 'title'",
        "[![inner](https://evil.example/in.png)](https://ok.example/)",
        "![](https://evil.example/z.png)",
        "[a](https://ok.example/p?q=1)",
        "<http://ok.example> <mailto:a@b.example> <a@b.example>",
        "[x][r]\n\n[r]: https://ok.example/r",
    ],
)
def test_an_image_or_a_link_stays_the_text_it_was_written_as(note: str) -> None:
    out = md_html(note)
    assert {t for t, _ in _tags(out)} <= {"p", "br", "em"}, out  # formatting only
    # the addresses are still there to read and copy
    for url in ("evil.example/", "ok.example", "a@b.example"):
        if url in note:
            assert url in html.unescape(out)


@pytest.mark.parametrize(
    "url",
    [
        "https://ok.example/x",
        "mailto:a@b.example",
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "java&#x09;script:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>",
        "data:image/png;base64,AAAA",
        "file:///etc/passwd",
        "ftp://evil.example/x",
        "//evil.example/x",
        "/\\evil.example",
        "relative/path",
        "#fragment",
    ],
)
def test_no_address_becomes_a_link(url: str) -> None:
    for note in (f"[x]({url})", f"<{url}>", f"![x]({url})", f"[x][r]\n\n[r]: {url}"):
        out = md_html(note)
        assert _links(out) == [], (note, out)
        assert not [t for t, _ in _tags(out) if t not in ("p",)], (note, out)


def test_single_line_breaks_are_kept() -> None:
    out = md_html("first line\nsecond line")
    assert [t for t, _ in _tags(out)] == ["p", "br"]
    assert "first line<br />" in out


def test_output_has_no_blank_line_so_streamlit_keeps_it_one_html_block() -> None:
    note = "para\n\n```\ncode\n\n   \n![i](https://evil.example/b.png)\n```\n\n- a\n\n- b\n"
    out = md_html(note)
    assert "\n" not in out and "\r" not in out
    code = out[out.index("<code>") + 6 : out.index("</code>")]
    assert html.unescape(code) == "code\n\n   \n![i](https://evil.example/b.png)\n"
    assert "<img" not in out


def test_lone_surrogates_do_not_break_rendering() -> None:
    assert "\ufffd" in md_html("a\ud800b")


def test_note_maths_is_set_aside_from_the_markdown() -> None:
    note = "**b** $x<y$ and $**no** [l](http://evil)$ <img src=x onerror=alert(1)> `$c$`"
    out = md_html(note, maths=True)
    assert "<strong>b</strong>" in out  # Markdown outside maths as before
    assert out.count('class="rte-maths"') == 2
    assert 'data-tex="x&lt;y"' in out
    assert 'data-tex="**no** [l](http://evil)"' in out  # no Markdown read inside a formula
    assert "$**no** [l](http://evil)$</span>" in out and "<a " not in out
    assert "&lt;img src=x onerror=alert(1)&gt;" in out and "<img" not in out
    assert "<code>$c$</code>" in out  # a code span holds no maths
    assert md_html(note) == md_html(note, maths=False)
    assert "rte-maths" not in md_html(note)


def test_note_maths_beside_a_written_link_stays_text_around_it() -> None:
    out = md_html("[a](http://x/$y$) $z$", maths=True)
    assert _links(out) == [] and out.startswith("<p>[a](http://x/")


def test_note_holding_the_placeholder_characters_renders_without_maths() -> None:
    out = md_html("\ue0000\ue001 $x$", maths=True)
    assert "rte-maths" not in out and "\ue000" in out


def test_note_display_maths_stays_on_one_line() -> None:
    out = md_html("see\n\n$$\na\n\nb\n$$\n\nend", maths=True)
    assert "\n" not in out and 'data-display="1"' in out
