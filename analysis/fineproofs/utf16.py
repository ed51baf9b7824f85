"""UTF-16 code-unit offsets -> Python string indices (FineProofs trace files).

Why: the trace export stores offsets in UTF-16 code units (what JavaScript counts), while Python
indexes code points. A character above U+FFFF (maths letters such as U+1D465, most emoji) is two
UTF-16 units but one Python character, so using the offsets directly drifts by one per astral
character before the offset. Recipe (docs/formats/prefix-values.md, "UTF-16 offset mapping"): build `cum[i]` = UTF-16 units
before character i once per text, and map an offset `u` to the `i` with `cum[i] == u` by binary
search. An offset with no exact match splits a surrogate pair or is out of range: it is
*reported* (never raised, never silently sliced). Text is never normalised or stripped, and line
endings are left alone (CRLF counts as two units and two characters).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

IssueKind = Literal["surrogate_split", "out_of_range", "not_integer", "reversed"]


@dataclass(frozen=True)
class OffsetIssue:
    """One offset that cannot be mapped to a Python index (or a span whose ends are reversed)."""

    offset: object
    kind: IssueKind
    message: str


@dataclass(frozen=True)
class MappedSpan:
    """A UTF-16 span mapped to Python indices; `start`/`end` are None when unmappable."""

    utf16_start: object
    utf16_end: object
    start: int | None
    end: int | None
    issues: tuple[OffsetIssue, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.issues and self.start is not None and self.end is not None


def utf16_len(text: str) -> int:
    """Number of UTF-16 code units of `text` (JavaScript's `length`)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _is_bmp(text: str) -> bool:
    """True when no character is above U+FFFF (then offsets equal indices: the fast path)."""
    if text.isascii():
        return True
    # utf-16 encodes BMP chars in 2 bytes and astral chars in 4 (surrogate pair)
    return len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text)


class Utf16Index:
    """Maps UTF-16 offsets of one text to Python indices; build once per trace, query many times."""

    __slots__ = ("text", "n_chars", "n_units", "_cum")

    def __init__(self, text: str) -> None:
        self.text = text
        self.n_chars = len(text)
        if _is_bmp(text):
            self._cum: np.ndarray | None = None  # fast path: offset == index
            self.n_units = self.n_chars
        else:
            codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
            widths = np.where(codes > 0xFFFF, 2, 1).astype(np.int64)
            cum = np.empty(self.n_chars + 1, dtype=np.int64)
            cum[0] = 0
            np.cumsum(widths, out=cum[1:])
            self._cum = cum
            self.n_units = int(cum[-1])

    @property
    def fast_path(self) -> bool:
        """True when the text has no astral character, so offsets equal indices."""
        return self._cum is None

    def check(self, offset: object) -> OffsetIssue | None:
        """The problem with `offset`, or None when it maps exactly to a character boundary."""
        if isinstance(offset, bool) or not isinstance(offset, int | np.integer):
            return OffsetIssue(offset, "not_integer", f"offset {offset!r} is not an integer")
        u = int(offset)
        if u < 0 or u > self.n_units:
            return OffsetIssue(
                u,
                "out_of_range",
                f"UTF-16 offset {u} is outside the text (0..{self.n_units} units)",
            )
        if self._cum is None:
            return None
        i = int(np.searchsorted(self._cum, u, side="left"))
        if i <= self.n_chars and self._cum[i] == u:
            return None
        return OffsetIssue(
            u,
            "surrogate_split",
            f"UTF-16 offset {u} falls inside a surrogate pair "
            f"(character {i - 1}, U+{ord(self.text[i - 1]):04X})",
        )

    def to_py(self, offset: object) -> int | None:
        """Python index for a UTF-16 offset, or None when it splits a pair or is out of range."""
        if self.check(offset) is not None:
            return None
        u = int(offset)  # type: ignore[call-overload]  # check() accepted it as an integer
        if self._cum is None:
            return u
        return int(np.searchsorted(self._cum, u, side="left"))

    def to_py_many(self, offsets: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised mapping: (indices int64 with -1 where invalid, valid bool mask)."""
        u = np.asarray(offsets, dtype=np.int64)
        in_range = (u >= 0) & (u <= self.n_units)
        if self._cum is None:
            return np.where(in_range, u, -1), in_range
        idx = np.searchsorted(self._cum, np.clip(u, 0, self.n_units), side="left")
        idx = np.minimum(idx, self.n_chars)
        valid = in_range & (self._cum[idx] == u)
        return np.where(valid, idx, -1), valid

    def span(self, utf16_start: object, utf16_end: object) -> MappedSpan:
        """Map one [start, end) span; issues list every bad end and a reversed span."""
        issues = [i for i in (self.check(utf16_start), self.check(utf16_end)) if i is not None]
        start = self.to_py(utf16_start)
        end = self.to_py(utf16_end)
        if start is not None and end is not None and end < start:
            issues.append(
                OffsetIssue(
                    (utf16_start, utf16_end),
                    "reversed",
                    f"span end {utf16_end} is before its start {utf16_start}",
                )
            )
            start = end = None
        return MappedSpan(utf16_start, utf16_end, start, end, tuple(issues))

    def slice(self, utf16_start: object, utf16_end: object) -> str | None:
        """Text of a UTF-16 span, or None when it cannot be mapped exactly."""
        m = self.span(utf16_start, utf16_end)
        return self.text[m.start : m.end] if m.ok else None


def map_spans(text: str, spans: Iterable[tuple[object, object]]) -> list[MappedSpan]:
    """Map many (utf16_start, utf16_end) spans of one text (builds the index once)."""
    index = Utf16Index(text)
    return [index.span(s, e) for s, e in spans]


def py_to_utf16(text: str, index: int) -> int:
    """Inverse mapping (used by the sample generator and tests): UTF-16 units before `index`."""
    return utf16_len(text[:index])
