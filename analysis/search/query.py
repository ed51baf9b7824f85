"""A search query: plain text or a Python regular expression, with a case switch, compiled once.

The hits are always Python's `re.finditer` of the compiled pattern (plain text: `re.escape`);
polars only narrows the rows to scan, with patterns whose matches are provably Python's:
- a regex: a literal every match contains (`required_literal`), found as a plain substring;
- plain text: the text itself (case on), or (case off) the text with each cased character
  spelled as the class of every character `re` takes for it under IGNORECASE (`char_class`:
  what CPython's `_sre` compares, its lower-case mapping plus `_EXTRA_CASES`), matched by polars
  without case folding. A fixed-length sequence of single characters has the same leftmost,
  non-overlapping matches in both engines, so polars also counts a plain query's hits.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from dataclasses import dataclass

try:  # CPython's own parser of patterns: what `re` compiles, read for the literal and the guard
    import _sre
    import re._compiler as sre_compiler
    import re._constants as sre_c
    import re._parser as sre_parse
except ImportError:  # another Python: no narrowing, no nesting guard (the scan stays exact)
    sre_parse = None

MAX_PATTERN = 1000  # characters
MIN_LITERAL = 2  # a shorter literal narrows too little to be worth a pass


class QueryError(ValueError):
    """A query that cannot run, with the message the page and the CLI show."""


@dataclass(frozen=True)
class Query:
    text: str
    regex: bool = False
    case_sensitive: bool = False

    @property
    def flags(self) -> int:
        return 0 if self.case_sensitive else re.IGNORECASE

    @property
    def source(self) -> str:
        return self.text if self.regex else re.escape(self.text)


@dataclass(frozen=True)
class Exact:
    """A polars pattern whose matches in a text are exactly the query's (plain text only)."""

    pattern: str
    literal: bool  # a plain substring (case on) or a regex of character classes (case off)


@dataclass(frozen=True)
class Compiled:
    query: Query
    pattern: re.Pattern[str]
    literal: str | None  # every hit contains it (None: no such literal known)
    exact: Exact | None = None  # plain text: the same matches in polars


@functools.cache
def _lower_inverse() -> dict[int, tuple[int, ...]]:
    """Lower-case code point (as `_sre` maps it) -> every code point mapping to it."""
    inv: dict[int, list[int]] = defaultdict(list)
    for x in range(0x110000):
        if not 0xD800 <= x <= 0xDFFF:  # surrogates never occur in UTF-8 text
            inv[_sre.unicode_tolower(x)].append(x)
    return {k: tuple(v) for k, v in inv.items()}


def char_class(ch: str) -> tuple[int, ...]:
    """Every code point `re` matches for the literal `ch` under IGNORECASE (Unicode): `ch`
    itself when uncased, else those whose lower case is `ch`'s or one of its extra cases
    (`re._compiler._EXTRA_CASES`, e.g. s ~ ſ, k ~ K (Kelvin), µ ~ μ)."""
    c = ord(ch)
    if not _sre.unicode_iscased(c):
        return (c,)
    lo = _sre.unicode_tolower(c)
    lowers = (lo, *sre_compiler._EXTRA_CASES.get(lo, ()))
    inv = _lower_inverse()
    return tuple(sorted({x for low in lowers for x in inv.get(low, ())}))


def _rust_char(c: int) -> str:
    return f"\\x{{{c:X}}}"


def exact_pattern(query: Query) -> Exact | None:
    """The polars pattern with exactly the query's matches (None: a regex, or no `_sre`)."""
    if query.regex or sre_parse is None:
        return None
    if query.case_sensitive:
        return Exact(query.text, literal=True)
    if not any(_sre.unicode_iscased(ord(ch)) for ch in query.text):
        return Exact(query.text, literal=True)  # no cased character: the text as it is
    parts = []
    for ch in query.text:
        members = char_class(ch)
        inner = "".join(_rust_char(c) for c in members)
        parts.append(inner if len(members) == 1 else f"[{inner}]")
    return Exact("".join(parts), literal=False)


def _repeats(items: object, inside: bool = False) -> bool:
    """True when an unbounded repeat holds another repeat (`(a+)+`, `(a|aa)*b*`): the shapes
    whose backtracking grows exponentially."""
    found = False
    for op, av in items:  # type: ignore[attr-defined]  # re._parser's items are untyped
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, sub = av
            unbounded = hi == sre_c.MAXREPEAT or hi > 1000
            if inside and unbounded:
                return True
            found = found or _repeats(sub, inside or unbounded)
        elif op == sre_c.SUBPATTERN:
            found = found or _repeats(av[-1], inside)
        elif op == sre_c.BRANCH:
            found = found or any(_repeats(b, inside) for b in av[1])
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            found = found or _repeats(av[1], inside)
        if found:
            return True
    return found


def required_literal(parsed: object, ignore_case: bool) -> str | None:
    """The longest run of adjacent top-level literal characters of a parsed pattern: every
    match contains it. Under IGNORECASE only characters `re` compiles as exact (uncased: digits,
    punctuation, `\\`, `{`) count, so the run is found with a plain substring test."""
    best = ""
    run: list[str] = []
    for op, av in parsed:  # type: ignore[attr-defined]  # re._parser's items are untyped
        ok = op == sre_c.LITERAL and (not ignore_case or not _sre.unicode_iscased(av))
        if ok:
            run.append(chr(av))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    if len(run) > len(best):
        best = "".join(run)
    return best if len(best) >= MIN_LITERAL else None


def compile_query(query: Query) -> Compiled:
    """The compiled pattern, or a `QueryError` saying what is wrong with the query."""
    if not query.text:
        raise QueryError("Type a word or a phrase to search for.")
    if len(query.text) > MAX_PATTERN:
        raise QueryError(f"The query is {len(query.text):,} characters; at most {MAX_PATTERN:,}.")
    try:
        pattern = re.compile(query.source, query.flags)
    except (re.error, OverflowError, RecursionError) as exc:
        raise QueryError(
            f"Not a valid regular expression: {exc}. Switch regex off to search the text as "
            "written."
        ) from None
    literal = None
    if sre_parse is not None:
        parsed = sre_parse.parse(query.source, query.flags)
        if query.regex and _repeats(parsed):
            raise QueryError(
                "This pattern nests unbounded repeats (like `(a+)+`), which can take exponential "
                "time on a long text; write it without the nested repeat."
            )
        literal = required_literal(parsed, bool(parsed.state.flags & re.IGNORECASE))
    return Compiled(query, pattern, literal, exact_pattern(query))
