"""`md_text` and `md_label` leave Streamlit's Markdown nothing to auto-link (bare URLs, `www.`
names, e-mail addresses), while the text the reader sees stays the same. The browser check is
tests/e2e/test_safe_text_e2e.py."""

from __future__ import annotations

import re

import pytest

from components.common.safe_text import WORD_JOINER, md_label, md_text, no_autolink

# what remark-gfm auto-links in text (after unescaping): the literal patterns of
# mdast-util-gfm-autolink-literal, ASCII word characters as in JavaScript
_GFM_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE | re.ASCII)
_GFM_EMAIL = re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.ASCII)


def _unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize(
    "text",
    [
        "this view has no (https://evil.example/x) in it",
        "www.evil.example and WWW.EVIL.EXAMPLE",
        "write to a@evil.example or ex-a@ex-ample.co.uk",
        "HTTP://EVIL.example/y http://e ftp://x.y hf://datasets/a",
        "[x](http://e) ![i](http://e/i.png) <https://evil.example>",
    ],
)
def test_md_text_leaves_nothing_to_auto_link_and_reads_the_same(text: str) -> None:
    out = md_text(text)
    plain = _unescaped(out)
    assert not _GFM_URL.search(plain) and not _GFM_EMAIL.search(plain), plain
    assert plain.replace(WORD_JOINER, "") == text


def test_plain_text_is_left_alone() -> None:
    for text in ("pass@1 = 0.25", "repo@main", "a: b // c", "awww", "qid 3 · sample 2"):
        assert WORD_JOINER not in md_text(text)
    assert md_text("a.b") == "a\\.b" and md_text(None) == ""


def test_md_label_does_not_auto_link_either() -> None:
    out = md_label("https://evil.example/k www.evil.example")
    assert not _GFM_URL.search(out) and out.replace(WORD_JOINER, "") == (
        "https://evil.example/k www.evil.example"
    )


def test_no_autolink_breaks_each_pattern_once() -> None:
    assert no_autolink("https://a.b") == f"https:{WORD_JOINER}//a.b"
    assert no_autolink("www\\.a") == f"www{WORD_JOINER}\\.a"
    assert no_autolink("x@a\\.b") == f"x@{WORD_JOINER}a\\.b"
