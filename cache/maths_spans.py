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
import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_TEX = 4000  # a longer "formula" is far more likely a stray delimiter than maths
MATHS_CLASS = "rte-maths"
_OPENER = re.compile(r"[`\\$]")  # where a span, an escape or a code span can start


@dataclass(frozen=True)
class MathSpan:
    """`text[start:end]` (delimiters included) is maths; `tex` is what KaTeX typesets."""

    start: int
    end: int
    tex: str
    display: bool


class _Marks:
    """Where the closers of a text are, found once (a scan per opener would be quadratic on a
    text of prices or unclosed delimiters). A character is escaped when an odd run of
    backslashes precedes it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[str, list[int]] = {}
        self._blank: list[int] | None = None
        self._braces: dict[int, int] | None = None
        self._no_fence: dict[int, int] = {}  # fence length -> no closing run at or after this

    def escaped(self, j: int) -> bool:
        k = j
        while k > 0 and self.text[k - 1] == "\\":
            k -= 1
        return (j - k) % 2 == 1

    def _positions(self, closer: str) -> list[int]:
        if closer not in self._found:
            hits = (m.start() for m in re.finditer(f"(?={re.escape(closer)})", self.text))
            self._found[closer] = [j for j in hits if not self.escaped(j)]
        return self._found[closer]

    def closer(self, start: int, closer: str) -> int:
        """The first unescaped `closer` at or after `start`, within MAX_TEX, or -1."""
        found = self._positions(closer)
        k = bisect.bisect_left(found, start)
        return found[k] if k < len(found) and found[k] - start <= MAX_TEX else -1

    def _inline_closers(self) -> list[int]:
        if "inline" not in self._found:
            t = self.text
            self._found["inline"] = [
                j
                for j in self._positions("$")
                if j > 0 and not t[j - 1].isspace() and not (j + 1 < len(t) and t[j + 1].isdigit())
            ]
        return self._found["inline"]

    def _blank_lines(self) -> list[int]:
        if self._blank is None:
            self._blank = [
                m.start()
                for m in re.finditer(r"\n(?=[ \t\r]*\n)", self.text)
                if not self.escaped(m.start())
            ]
        return self._blank

    def inline_end(self, i: int) -> int:
        """For a `$` at `i`: the index of its closing `$` under Pandoc's rules, or -1."""
        t = self.text
        if i + 1 >= len(t) or t[i + 1].isspace():
            return -1
        found = self._inline_closers()
        k = bisect.bisect_right(found, i)
        if k == len(found) or found[k] - i > MAX_TEX:
            return -1
        j = found[k]
        blank = self._blank_lines()
        b = bisect.bisect_right(blank, i)
        return -1 if b < len(blank) and blank[b] < j else j

    def brace_end(self, i: int) -> int:
        """For a `{` at `i`: the index just past its matching `}` (escaped braces skipped)."""
        if self._braces is None:
            self._braces = {}
            stack: list[int] = []
            for m in re.finditer(r"\\[\s\S]|[{}]", self.text):
                c = m.group()
                if c == "{":
                    stack.append(m.start())
                elif c == "}" and stack:
                    self._braces[stack.pop()] = m.end()
        e = self._braces.get(i, -1)
        return e if e - i <= MAX_TEX else -1

    def code_end(self, i: int) -> int:
        """For a run of backticks at `i`: the index just past the same run closing it, or -1."""
        t = self.text
        k = i
        while k < len(t) and t[k] == "`":
            k += 1
        fence = t[i:k]
        if self._no_fence.get(len(fence), len(t) + 1) <= k:
            return -1
        j = k
        while True:
            j = t.find(fence, j)
            if j < 0:
                self._no_fence[len(fence)] = k
                return -1
            e = j + len(fence)
            if e < len(t) and t[e] == "`":  # a longer run does not close this one
                while e < len(t) and t[e] == "`":
                    e += 1
                j = e
                continue
            return e


def maths_spans(text: str) -> list[MathSpan]:
    """Every maths span of `text`, in order, none overlapping (see the module's rules)."""
    out: list[MathSpan] = []
    marks = _Marks(text)
    n = len(text)
    i = 0
    while i < n:
        hit = _OPENER.search(text, i)  # plain text in between: skipped in C
        if hit is None:
            break
        i = hit.start()
        c = text[i]
        if c == "`":
            e = marks.code_end(i)
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
                j = marks.closer(i + 2, closer)
                if j >= 0 and text[i + 2 : j].strip():
                    out.append(MathSpan(i, j + 2, text[i + 2 : j], nxt == "["))
                    i = j + 2
                    continue
            elif text.startswith("boxed", i + 1):
                k = i + 6
                while k < n and text[k] in " \t":
                    k += 1
                if k < n and text[k] == "{":
                    e = marks.brace_end(k)
                    if e > 0:
                        out.append(MathSpan(i, e, text[i:e], False))
                        i = e
                        continue
            i += 2  # any other escape (`\$`, `\\`, `\alpha`): the pair is text
            continue
        if c == "$":
            if text.startswith("$$", i):
                j = marks.closer(i + 2, "$$")
                if j >= 0 and text[i + 2 : j].strip():
                    out.append(MathSpan(i, j + 2, text[i + 2 : j], True))
                    i = j + 2
                    continue
                i += 2  # an unclosed or empty `$$` is text
                continue
            j = marks.inline_end(i)
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
