"""The cheap side of answer grouping (`analysis.mars.answers`): the normal form of an answer
string, its grouping key (exact rationals, long text spans, anything else by its normal form),
and the strings that are equal only to themselves (bare words, placeholders, prose), which never
reach math-verify."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

LONG_ANSWER_CHARS = 120  # longer extracted answers are treated as text spans, not maths
_CACHE_MAX = 50_000  # distinct normalised answers (a file has a few thousand)

_INT_RE = re.compile(r"^[+-]?\d+$")
_THOUSANDS_RE = re.compile(r"^[+-]?\d{1,3}(,\d{3})+$")
_DEC_RE = re.compile(r"^[+-]?(\d+\.\d*|\.\d+)$")
_FRAC_RE = re.compile(r"^([+-]?)\\frac\{([+-]?\d+)\}\{([+-]?\d+)\}$")
_FRAC_SHORT_RE = re.compile(r"^([+-]?)\\frac(\d)(\d)$")
_SLASH_RE = re.compile(r"^([+-]?\d+)/([+-]?\d+)$")
_VAR_EQ_RE = re.compile(r"^[a-zA-Z]\s*=\s*(?!=)")
_TEXT_RE = re.compile(r"\\(?:text|textbf|mathrm|mbox|mathbf)\{([^{}]*)\}")
_PLAIN_RE = re.compile(r"[A-Za-z?./ ]+")
_PLACEHOLDERS = {"\\ldots", "\\cdots", "\\dots", "...", "?"}
_PROSE_CHARS_RE = re.compile(r"[A-Za-z,;:!?'\"()\-.]+")
# names a maths answer may spell without a backslash (longest first, so `sinh` beats `sin`)
_FUNCTION_RE = re.compile(
    r"arcsin|arccos|arctan|sinh|cosh|tanh|sqrt|infty|frac|binom|"
    r"sin|cos|tan|cot|sec|csc|log|exp|max|min|gcd|lcm|mod|det|deg|lim|ln|pi"
)
_WORD_RE = re.compile(r"[A-Za-z]{4,}")


def is_plain(norm: str) -> bool:
    """Bare words and placeholders ("answer", "TBD", "N/A", "x", "\\ldots"): equal only to
    themselves, so math-verify (and its sympy import) is never asked about them."""
    return norm in _PLACEHOLDERS or _PLAIN_RE.fullmatch(norm) is not None


def is_prose(norm: str) -> bool:
    """A fragment of prose (a probe that stopped mid-sentence, its spaces stripped by the
    normaliser: `Letmere-examinetheproblemstatement`): only letters and prose punctuation, with
    a run of four or more letters that is not a function name. Such a string is a product of
    free symbols to math-verify, so it equals neither a number nor other prose: it never
    reaches math-verify (there each comparison is slow, and every one is False). Prose with
    digits, `=` or LaTeX still goes there: math-verify reads `n=1weget3` partly as maths.
    tests/analysis/mars/test_answers.py checks that the grouping of realistic probe garbage is
    the one math-verify gives."""
    return (
        _PROSE_CHARS_RE.fullmatch(norm) is not None
        and _WORD_RE.search(_FUNCTION_RE.sub(" ", norm)) is not None
    )


@functools.lru_cache(maxsize=50_000)
def _cheap_only(norm: str) -> bool:
    """Equal only to itself: bare words, placeholders and prose. Cached: every question asks
    again about the same few hundred probe strings."""
    return is_plain(norm) or is_prose(norm)


def _last_boxed(s: str) -> str | None:
    """Content of the last \\boxed{...} (or \\fbox{...}) with balanced braces, else None."""
    for tag in ("\\boxed", "\\fbox"):
        i = s.rfind(tag + "{")
        if i >= 0:
            j = i + len(tag) + 1
            depth = 1
            k = j
            while k < len(s) and depth:
                if s[k] == "{":
                    depth += 1
                elif s[k] == "}":
                    depth -= 1
                k += 1
            return s[j : k - 1] if depth == 0 else s[j:]
    return None


def _strip_outer_braces(s: str) -> str:
    while len(s) >= 2 and s[0] == "{" and s[-1] == "}":
        depth = 0
        for i, ch in enumerate(s):
            depth += ch == "{"
            depth -= ch == "}"
            if depth == 0 and i < len(s) - 1:
                return s
        s = s[1:-1]
    return s


def normalize(answer: object) -> str | None:
    """Cheap canonical form: strips \\boxed, $, spaces, \\left/\\right, spacing commands,
    \\dfrac/\\tfrac -> \\frac, degrees, \\text{}, a leading `x =`, trailing dots; None if empty.
    Remembered per string: probe garbage repeats in every question of a file."""
    if answer is None:
        return None
    text = answer if isinstance(answer, str) else str(answer)
    if len(text) > 4 * LONG_ANSWER_CHARS:  # a long span: not kept (the cache stays small)
        return _normalize_str.__wrapped__(text)
    return _normalize_str(text)


@functools.lru_cache(maxsize=_CACHE_MAX)
def _normalize_str(answer: str) -> str | None:
    s = answer.strip()
    if not s:
        return None
    if len(s) > 4 * LONG_ANSWER_CHARS:
        s = s[: 4 * LONG_ANSWER_CHARS]
    boxed = _last_boxed(s)
    if boxed is not None:
        s = boxed
    s = s.replace("$", "")
    for a, b in (
        ("\\left", ""),
        ("\\right", ""),
        ("\\displaystyle", ""),
        ("\\dfrac", "\\frac"),
        ("\\tfrac", "\\frac"),
        ("\\!", ""),
        ("\\,", ""),
        ("\\;", ""),
        ("\\:", ""),
        ("\\ ", ""),
        ("~", ""),
        ("^{\\circ}", ""),
        ("^\\circ", ""),
        ("\\circ", ""),
        ("\\%", ""),
    ):
        s = s.replace(a, b)
    s = _TEXT_RE.sub(r"\1", s)
    s = "".join(s.split())
    s = _VAR_EQ_RE.sub("", s)
    s = s.rstrip(".,;:")
    s = _strip_outer_braces(s)
    if _THOUSANDS_RE.match(s):
        s = s.replace(",", "")
    return s or None


def exact_value(norm: str) -> Fraction | None:
    """Exact rational value of integers, decimals and simple fractions, else None."""
    try:
        if _INT_RE.match(norm):
            return Fraction(int(norm))
        if _DEC_RE.match(norm):
            return Fraction(norm)
        m = _FRAC_RE.match(norm) or _FRAC_SHORT_RE.match(norm)
        if m:
            sign, a, b = m.groups()
            if int(b) == 0:
                return None
            v = Fraction(int(a), int(b))
            return -v if sign == "-" else v
        m = _SLASH_RE.match(norm)
        if m and int(m.group(2)) != 0:
            return Fraction(int(m.group(1)), int(m.group(2)))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return None


@functools.lru_cache(maxsize=_CACHE_MAX)
def answer_key(norm: str | None) -> str | None:
    """Grouping key: `n:<p/q>` for exact rationals, `t:<text>` for long spans, else `s:<norm>`."""
    if norm is None:
        return None
    if len(norm) > LONG_ANSWER_CHARS:
        return "t:" + norm
    v = exact_value(norm)
    if v is not None:
        return f"n:{v.numerator}/{v.denominator}"
    return "s:" + norm
