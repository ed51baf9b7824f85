"""Where the maths is in a model's text: the one splitter every "render maths" view shares.

Model text writes LaTeX between `$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]`, and final answers
as a bare `\\boxed{...}`. `maths_spans` finds those spans; `maths_html` escapes a text (or a slice
of it, as the views draw a text in pieces) and wraps each whole span in a placeholder element
that the browser's KaTeX typesets (`components.common.maths`). Everything else stays escaped text:
the splitter never interprets HTML or Markdown, and a span the browser cannot typeset keeps its
escaped source, so it shows as written.

The rules follow Pandoc's `tex_math_dollars` so prose with prices is left alone: an opening `$`
has a non-space on its right, a closing `$` a non-space on its left and no digit after it, and
inline maths never crosses a blank line ("costs $5 and $6" holds no maths). A backslash escapes
the next character (`\\$` is a dollar), code spans in backticks hold no maths, an unclosed
delimiter is plain text, and `\\boxed{}` needs balanced braces.
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Sequence
from dataclasses import dataclass

MAX_TEX = 4000  # a longer "formula" is far more likely a stray delimiter than maths
MATHS_CLASS = "rte-maths"


@dataclass(frozen=True)
class MathSpan:
    """`text[start:end]` (delimiters included) is maths; `tex` is what KaTeX typesets."""

    start: int
    end: int
    tex: str
    display: bool


def _find_closer(text: str, i: int, closer: str, blank_line_ends: bool) -> int:
    """Index of the first `closer` at or after `i` not escaped by a backslash, or -1 (also -1
    when a blank line comes first and `blank_line_ends`, or past MAX_TEX characters)."""
    n = len(text)
    limit = min(n, i + MAX_TEX + len(closer))
    j = i
    while j < limit:
        c = text[j]
        if text.startswith(closer, j):
            return j
        if c == "\\":
            j += 2
            continue
        if blank_line_ends and c == "\n" and _blank_line_at(text, j):
            return -1
        j += 1
    return -1


def _blank_line_at(text: str, j: int) -> bool:
    """Whether the newline at `j` is followed by a line of only spaces and tabs."""
    k = j + 1
    while k < len(text) and text[k] in " \t\r":
        k += 1
    return k < len(text) and text[k] == "\n"


def _inline_dollar_end(text: str, i: int) -> int:
    """For a `$` at `i`: the index of its closing `$` under Pandoc's rules, or -1."""
    n = len(text)
    if i + 1 >= n or text[i + 1].isspace():
        return -1
    j = i + 1
    limit = min(n, i + 1 + MAX_TEX)
    while j < limit:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n" and _blank_line_at(text, j):
            return -1
        if c == "$":
            if text[j - 1].isspace() or (j + 1 < n and text[j + 1].isdigit()):
                j += 1
                continue
            return j
        j += 1
    return -1


def _brace_end(text: str, i: int) -> int:
    """For a `{` at `i`: the index just past its matching `}` (escaped braces skipped), or -1."""
    depth = 0
    j = i
    limit = min(len(text), i + MAX_TEX)
    while j < limit:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def _code_end(text: str, i: int) -> int:
    """For a run of backticks at `i`: the index just past the same run closing it, or -1."""
    k = i
    while k < len(text) and text[k] == "`":
        k += 1
    fence = text[i:k]
    j = k
    while True:
        j = text.find(fence, j)
        if j < 0:
            return -1
        e = j + len(fence)
        if e < len(text) and text[e] == "`":  # a longer run does not close this one
            while e < len(text) and text[e] == "`":
                e += 1
            j = e
            continue
        return e


def maths_spans(text: str) -> list[MathSpan]:
    """Every maths span of `text`, in order, none overlapping (see the module's rules)."""
    out: list[MathSpan] = []
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c == "`":
            e = _code_end(text, i)
            if e < 0:
                while i < n and text[i] == "`":  # an unclosed run is plain text
                    i += 1
                continue
            i = e
            continue
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "([":
                closer = "\\)" if nxt == "(" else "\\]"
                j = _find_closer(text, i + 2, closer, blank_line_ends=False)
                if j >= 0 and text[i + 2 : j].strip():
                    out.append(MathSpan(i, j + 2, text[i + 2 : j], nxt == "["))
                    i = j + 2
                    continue
            elif text.startswith("boxed", i + 1):
                k = i + 6
                while k < n and text[k] in " \t":
                    k += 1
                if k < n and text[k] == "{":
                    e = _brace_end(text, k)
                    if e > 0:
                        out.append(MathSpan(i, e, text[i:e], False))
                        i = e
                        continue
            i += 2  # any other escape (`\$`, `\\`, `\alpha`): the pair is text
            continue
        if c == "$":
            if text.startswith("$$", i):
                j = _find_closer(text, i + 2, "$$", blank_line_ends=False)
                if j >= 0 and text[i + 2 : j].strip():
                    out.append(MathSpan(i, j + 2, text[i + 2 : j], True))
                    i = j + 2
                    continue
                i += 2  # an unclosed or empty `$$` is text
                continue
            j = _inline_dollar_end(text, i)
            if j >= 0:
                out.append(MathSpan(i, j + 1, text[i + 1 : j], False))
                i = j + 1
                continue
        i += 1
    return out


def esc(text: str) -> str:
    """`cache.safe_html.esc` for a string (repeated here: that module renders notes with this one)."""
    return html.escape(text, quote=True)


def _wrap(text: str, span: MathSpan) -> str:
    display = "1" if span.display else "0"
    return (
        f'<span class="{MATHS_CLASS}" data-tex="{esc(span.tex)}" data-display="{display}">'
        f"{esc(text[span.start : span.end])}</span>"
    )


def maths_html(text: str, spans: Sequence[MathSpan], start: int = 0, end: int | None = None) -> str:
    """`text[start:end]` escaped, each span lying wholly inside it wrapped for the typesetter
    (a span cut by the slice's edges stays plain text). `spans` come from `maths_spans(text)`:
    found on the whole text, so a piece never mistakes another piece's closing `$` for an
    opening one."""
    stop = len(text) if end is None else end
    if not spans:
        return esc(text[start:stop])
    starts = [s.start for s in spans]
    k = bisect.bisect_left(starts, start)
    out: list[str] = []
    pos = start
    while k < len(spans) and spans[k].start < stop:
        s = spans[k]
        k += 1
        if s.end > stop:
            break
        out.append(esc(text[pos : s.start]))
        out.append(_wrap(text, s))
        pos = s.end
    out.append(esc(text[pos:stop]))
    return "".join(out)


def text_maths_html(text: str) -> str:
    """A whole text escaped with its maths wrapped: `maths_html(text, maths_spans(text))`."""
    return maths_html(text, maths_spans(text))
