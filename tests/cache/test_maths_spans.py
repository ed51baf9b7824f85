"""The maths splitter: which spans of a model's text are maths (delimiters, `\\boxed{}` braces,
escapes, prices, unclosed delimiters, code spans), and the HTML built from them keeps every
character of the text, escaped, with only whole spans wrapped."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cache.maths_spans import MAX_TEX, MathSpan, maths_html, maths_spans, text_maths_html


def found(text: str) -> list[tuple[str, str, bool]]:
    """(source as written, tex, display) of each span."""
    return [(text[s.start : s.end], s.tex, s.display) for s in maths_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("so $x^2$ holds", [("$x^2$", "x^2", False)]),
        ("$$\\int_0^1 x\\,dx$$", [("$$\\int_0^1 x\\,dx$$", "\\int_0^1 x\\,dx", True)]),
        ("a \\(y\\) b", [("\\(y\\)", "y", False)]),
        ("\\[\n z = 1\n\\]", [("\\[\n z = 1\n\\]", "\n z = 1\n", True)]),
        ("$a$ and $b$", [("$a$", "a", False), ("$b$", "b", False)]),
        ("$a$$b$", [("$a$", "a", False), ("$b$", "b", False)]),
        # a backslash escapes: `\$` is a dollar, inside maths too
        ("costs \\$5 and \\$6", []),
        ("$a \\$ b$", [("$a \\$ b$", "a \\$ b", False)]),
        ("\\\\(x\\\\)", []),  # an escaped backslash, then plain parentheses
        ("\\$x$ and $y$", [("$y$", "y", False)]),  # the dollar after x opens nothing
    ],
)
def test_delimiters(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "costs $5 and $6",
        "between $5 and $10.",
        "$5, $6, and $7",
        "$5/$6",
        "pay $ 5 now$",  # a space after the opening dollar
        "from $5 to 6 $",  # a space before the closing dollar
        "$x$5",  # a closing dollar followed by a digit
        "US$5",
    ],
)
def test_prices_are_not_maths(text: str) -> None:
    assert maths_spans(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "$x + 1",
        "$$x + 1",
        "\\(x + 1",
        "\\[x + 1",
        "x + 1$$",
        "\\boxed{12",
        "\\boxed{a{b}",
        "\\boxed 12",
        "$$$$",
        "\\(\\)",
        "\\[   \\]",
        "$a\n\nb$",  # inline maths never crosses a blank line
        "$a\n  \t\nb$",
    ],
)
def test_unclosed_or_empty_delimiters_are_text(text: str) -> None:
    assert maths_spans(text) == []


def test_unclosed_opener_leaves_later_maths_found() -> None:
    assert found("\\(open and $x$") == [("$x$", "x", False)]
    assert found("$$ open, then \\(y\\)") == [("\\(y\\)", "y", False)]
    assert found("$$ open\n\n$z$") == [("$z$", "z", False)]


def test_display_dollars_may_cross_lines() -> None:
    assert found("$$a\n\nb$$") == [("$$a\n\nb$$", "a\n\nb", True)]


@pytest.mark.parametrize(
    ("text", "tex"),
    [
        ("answer \\boxed{42}.", "\\boxed{42}"),
        ("\\boxed{\\frac{1}{2}}", "\\boxed{\\frac{1}{2}}"),
        ("\\boxed{a{b{c}}d}", "\\boxed{a{b{c}}d}"),
        ("\\boxed{\\{1,2\\}}", "\\boxed{\\{1,2\\}}"),  # escaped braces do not count
        ("\\boxed{ x \\} }", "\\boxed{ x \\} }"),
        ("\\boxed {7}", "\\boxed {7}"),
    ],
)
def test_boxed_takes_balanced_braces(text: str, tex: str) -> None:
    assert [s.tex for s in maths_spans(text)] == [tex]


def test_boxed_inside_maths_belongs_to_the_maths() -> None:
    assert found("$\\boxed{3}$") == [("$\\boxed{3}$", "\\boxed{3}", False)]
    assert found("\\[\\boxed{\\{x\\}}\\]") == [("\\[\\boxed{\\{x\\}}\\]", "\\boxed{\\{x\\}}", True)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("`$x$` and $y$", ["$y$"]),
        ("``a ` $x$ `` $y$", ["$y$"]),  # a double-backtick span holds a single backtick
        ("```\n$x$\n```\n$y$", ["$y$"]),  # a fence
        ("`unclosed $x$", ["$x$"]),  # an unclosed backtick is text
        ("``` $x$ `` $y$", ["$x$", "$y$"]),  # a run of three is not closed by two
        ("$a `b` c$", ["$a `b` c$"]),  # backticks inside maths stay maths
    ],
)
def test_code_spans_hold_no_maths(text: str, expected: list[str]) -> None:
    assert [t for t, _, _ in found(text)] == expected


def test_an_overlong_formula_is_text() -> None:
    assert maths_spans("$" + "x" * (MAX_TEX + 10) + "$") == []
    assert maths_spans("\\boxed{" + "x" * (MAX_TEX + 10) + "}") == []
    assert len(maths_spans("$" + "x" * (MAX_TEX - 10) + "$")) == 1


def test_non_ascii_and_astral_text() -> None:
    text = "𝔸 ≥ $𝔸 ≤ é$ — \\(π\\) 😀"
    assert [t for t, _, _ in found(text)] == ["$𝔸 ≤ é$", "\\(π\\)"]


# --- the HTML -------------------------------------------------------------------------------

_WRAPPED = re.compile(
    r'<span class="rte-maths" data-tex="([^"]*)" data-display="([01])">([^<]*)</span>'
)


def shown_text(out: str) -> str:
    """What a browser shows of `maths_html` before typesetting: the text with the tags gone."""
    return html.unescape(_WRAPPED.sub(lambda m: m.group(3), out))


def test_html_escapes_markup_inside_and_outside_maths() -> None:
    text = "<img src=x onerror=alert(1)> **bold** [link](http://evil) $<b>x</b> & **y**$"
    out = text_maths_html(text)
    assert "<img" not in out and "<b>" not in out
    assert out.startswith("&lt;img src=x onerror=alert(1)&gt; **bold** [link](http://evil) ")
    (tex, display, source) = _WRAPPED.findall(out)[0]
    assert html.unescape(tex) == "<b>x</b> & **y**" and display == "0"
    assert html.unescape(source) == "$<b>x</b> & **y**$"
    assert shown_text(out) == text


def test_quotes_cannot_leave_the_attribute() -> None:
    out = text_maths_html('$a" onmouseover="alert(1)$')
    assert 'data-tex="a&quot; onmouseover=&quot;alert(1)"' in out


def test_a_slice_wraps_only_whole_spans() -> None:
    text = "x $a$ y $b$ z"
    spans = maths_spans(text)
    assert maths_html(text, spans, 0, 4) == "x $a"  # `$a$` is cut: text
    assert maths_html(text, spans, 2, 7).count("rte-maths") == 1
    assert shown_text(maths_html(text, spans, 2, 7)) == text[2:7]
    # a piece never mistakes another piece's closing dollar for an opening one
    assert maths_html(text, spans, 4, 10).count("rte-maths") == 0
    assert maths_html(text, [], 3, 9) == html.escape(text[3:9])


def test_spans_of_the_whole_text_are_used_per_piece() -> None:
    text = "$a$ $b$ $c$"
    spans = maths_spans(text)
    pieces = [(0, 3), (3, 8), (8, 11)]
    joined = "".join(maths_html(text, spans, a, b) for a, b in pieces)
    assert joined == text_maths_html(text) and joined.count("rte-maths") == 3


_ALPHABET = st.sampled_from(
    list("ab $\\()[]{}`\n<>&\"'*_#") + ["\\boxed{", "$$", "\\(", "\\)", "\\[", "\\]", "𝔸", "é"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_any_text_comes_back_whole_and_escaped(text: str) -> None:
    spans = maths_spans(text)
    pos = 0
    for s in spans:
        assert isinstance(s, MathSpan)
        assert pos <= s.start < s.end <= len(text)  # ordered, not overlapping
        src = text[s.start : s.end]
        assert s.tex in src and s.tex.strip()
        assert src.startswith(("$", "\\(", "\\[", "\\boxed")), src
        pos = s.end
    out = text_maths_html(text)
    assert shown_text(out) == text
    assert "<" not in _WRAPPED.sub("", out)  # no tag but the wrappers
    # a slice at any point agrees with the whole
    cut = len(text) // 2
    halves = maths_html(text, spans, 0, cut) + maths_html(text, spans, cut, len(text))
    assert shown_text(halves) == text
