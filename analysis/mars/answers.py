"""Answer equivalence groups of one question: a cheap normaliser first, math-verify only between
distinct normalised strings.

Why this shape: a MARS question has ~4,096 final answers and ~25,000 probe answers but only a
few dozen distinct strings, most of them plain integers. Normalising and keying integers and
simple fractions exactly handles almost everything; math-verify (slow, sympy-based) is asked
only whether two *distinct* keys are the same value, and its results are kept in bounded
LRU caches (pure functions of the two strings, so sharing them between sessions is safe).

Group ids are deterministic: numbered 0, 1, ... in order of first appearance of the answers as
they are added (the feature builder adds final answers in `trace_idx` order, then probe answers),
as shared/spec/stopping.md requires for tie-breaks. A null or empty answer has no group (-1).

Timeout-safe path: math-verify's own timeouts use `signal.alarm`, which only works on the main
thread. On the main thread we pass short timeouts; elsewhere (Streamlit runs scripts in worker
threads) we disable them and instead never hand math-verify a string longer than
`VERIFY_MAX_CHARS`, or one with deep nesting or large exponents (the usual sympy blow-ups).
Any error or timeout counts as "not equivalent".
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from fractions import Fraction
from typing import Any

import numpy as np

LONG_ANSWER_CHARS = 120  # longer extracted answers are treated as text spans, not maths
VERIFY_MAX_CHARS = 60
LABEL_MAX_CHARS = 80

_INT_RE = re.compile(r"^[+-]?\d+$")
_THOUSANDS_RE = re.compile(r"^[+-]?\d{1,3}(,\d{3})+$")
_DEC_RE = re.compile(r"^[+-]?(\d+\.\d*|\.\d+)$")
_FRAC_RE = re.compile(r"^([+-]?)\\frac\{([+-]?\d+)\}\{([+-]?\d+)\}$")
_FRAC_SHORT_RE = re.compile(r"^([+-]?)\\frac(\d)(\d)$")
_SLASH_RE = re.compile(r"^([+-]?\d+)/([+-]?\d+)$")
_VAR_EQ_RE = re.compile(r"^[a-zA-Z]\s*=\s*(?!=)")
_TEXT_RE = re.compile(r"\\(?:text|textbf|mathrm|mbox|mathbf)\{([^{}]*)\}")
_BIG_POW_RE = re.compile(r"\^\{?\s*\d{4,}")
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
    reaches math-verify (there it cost ~24 ms a comparison, every one False). Prose with
    digits, `=` or LaTeX still goes there: math-verify reads `n=1weget3` partly as maths.
    tests/analysis/mars/test_answers.py checks that the grouping of realistic probe garbage is
    the one math-verify gives."""
    return (
        _PROSE_CHARS_RE.fullmatch(norm) is not None
        and _WORD_RE.search(_FUNCTION_RE.sub(" ", norm)) is not None
    )


def _cheap_only(norm: str) -> bool:
    """Equal only to itself: bare words, placeholders and prose."""
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
    \\dfrac/\\tfrac -> \\frac, degrees, \\text{}, a leading `x =`, trailing dots; None if empty."""
    if answer is None:
        return None
    s = str(answer).strip()
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


# ---------------------------------------------------------------------------------------------
# math-verify, cached and guarded

_CACHE_MAX = 50_000  # distinct normalised answers (a file has a few thousand)


def _mv_allowed(norm: str) -> bool:
    if len(norm) > VERIFY_MAX_CHARS or _BIG_POW_RE.search(norm):
        return False
    return norm.count("{") <= 12


@functools.lru_cache(maxsize=1)
def _math_verify() -> Any:
    """The math-verify module, imported on first need, its log notices silenced: it warns once
    that timeouts are off (we run it off the main thread on purpose, with our own guards) and
    once per timeout (a timeout already counts as "not equivalent"), which only cluttered the
    terminal."""
    # why here: math-verify imports sympy (seconds), and most files never need it
    import math_verify

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    return math_verify


def _timeouts() -> int | None:
    return 2 if threading.current_thread() is threading.main_thread() else None


@functools.lru_cache(maxsize=_CACHE_MAX)
def _parse(norm: str) -> Any:
    """math-verify parse of a normalised answer; [] when refused or failed. Cached (bounded,
    least recently used out): the same few answers recur across questions and files."""
    if not _mv_allowed(norm):
        return []
    try:
        return _math_verify().parse("$" + norm + "$", parsing_timeout=_timeouts())
    except Exception:  # noqa: BLE001 - any parser failure means "not comparable"
        return []


@functools.lru_cache(maxsize=_CACHE_MAX)
def _fingerprint(norm: str) -> str | None:
    """`_numeric_fingerprint` of a normalised answer, cached like `_parse` (evalf is slow)."""
    return _numeric_fingerprint(_parse(norm))


def _numeric_fingerprint(parsed: Any) -> str | None:
    """A rounded numeric value of a parsed, symbol-free expression (for candidate matching)."""
    if not parsed:
        return None
    expr = parsed[0]
    try:
        if getattr(expr, "free_symbols", None):
            return None
        val = complex(expr.evalf(15))
    except Exception:  # noqa: BLE001
        return None
    if not (np.isfinite(val.real) and np.isfinite(val.imag)):
        return None
    return f"{val.real:.9g},{val.imag:.9g}"


def equivalent(a: str, b: str, *, cheap_reject: bool = True) -> bool:
    """Are two normalised answers the same value? (exact keys, then cached math-verify).

    `cheap_reject=False` sends prose to math-verify too: only the test proving that the
    shortcut changes no grouping uses it."""
    if a == b:
        return True
    ka, kb = answer_key(a), answer_key(b)
    if ka == kb:
        return True
    if ka is None or kb is None or ka[0] == "t" or kb[0] == "t":
        return False
    if ka[0] == "n" and kb[0] == "n":
        return False
    if is_plain(a) or is_plain(b):
        return False
    if cheap_reject and (is_prose(a) or is_prose(b)):
        return False
    return _verified(a, b) if a <= b else _verified(b, a)


@functools.lru_cache(maxsize=_CACHE_MAX)
def _verified(a: str, b: str) -> bool:
    """math-verify's verdict on two normalised answers (`a <= b`), cached like `_parse`; any
    error or timeout is "not equivalent"."""
    pa_, pb_ = _parse(a), _parse(b)
    if not (pa_ and pb_):
        return False
    try:
        return bool(_math_verify().verify(pa_, pb_, timeout_seconds=_timeouts()))
    except Exception:  # noqa: BLE001
        return False


class AnswerGrouper:
    """Assigns group ids to the answers of one question in order of first appearance.

    A group's label is its most common member (normal form; first seen wins a tie), so a group
    reads `116` rather than the rare full-width `１１６` that happened to come first."""

    def __init__(self, ground_truth: object, *, cheap_reject: bool = True) -> None:
        self.ground_truth = "" if ground_truth is None else str(ground_truth)
        self._cheap = cheap_reject
        self._gt_norm = normalize(self.ground_truth)
        self._key_to_group: dict[str, int] = {}
        self._raw_to_group: dict[object, tuple[int, str | None]] = {}
        self._members: list[dict[str, int]] = []  # per group: display form -> occurrences
        self._norms: list[str] = []
        self._fps: list[str | None] = []
        self._symbolic: list[int] = []  # groups without a numeric fingerprint (math-verify only)
        self.long_groups: set[int] = set()
        self._correct: list[bool] = []

    def add(self, answer: object) -> int:
        """Group id of `answer` (new id if unseen), -1 for null/empty."""
        if answer is None:
            return -1
        hit = self._raw_to_group.get(answer)
        if hit is None:
            norm = normalize(answer)
            g = self._group_of(norm, answer)
            shown = self._display(norm, g, answer)
            hit = (g, shown)
            self._raw_to_group[answer] = hit
        g, shown = hit
        if g >= 0 and shown is not None:
            counts = self._members[g]
            counts[shown] = counts.get(shown, 0) + 1
        return g

    def add_many(self, answers: list[object]) -> np.ndarray:
        out = np.empty(len(answers), dtype=np.int32)
        for i, a in enumerate(answers):
            out[i] = self.add(a)
        return out

    def _display(self, norm: str | None, g: int, raw: object) -> str | None:
        """How a member shows in a label: text spans keep their words (the normaliser drops
        spaces), maths shows its normal form; cut to LABEL_MAX_CHARS."""
        if g < 0 or norm is None:
            return None
        label = " ".join(str(raw).split()) if g in self.long_groups else norm
        if len(label) > LABEL_MAX_CHARS:
            label = label[: LABEL_MAX_CHARS - 1] + "…"
        return label

    @property
    def labels(self) -> list[str]:
        """The label of each group id: its most common member (dicts keep first-seen order,
        and `max` keeps the first of equal counts)."""
        return [max(m, key=m.__getitem__) for m in self._members]

    def _group_of(self, norm: str | None, raw: object = None) -> int:
        key = answer_key(norm)
        if key is None or norm is None:
            return -1
        g = self._key_to_group.get(key)
        if g is not None:
            return g
        g = self._match_existing(norm, key)
        if g is None:
            g = self._new_group(norm, key)
        self._key_to_group[key] = g
        return g

    def _equivalent(self, a: str, b: str) -> bool:
        return equivalent(a, b, cheap_reject=self._cheap)

    def _only_itself(self, norm: str) -> bool:
        return _cheap_only(norm) if self._cheap else is_plain(norm)

    def _match_existing(self, norm: str, key: str) -> int | None:
        if key[0] == "t":
            return None
        if key[0] == "n":
            v = exact_value(norm)
            fp = f"{float(v):.9g},0" if v is not None else None
        elif self._only_itself(norm):
            return None  # distinct keys, and a bare word or prose equals only itself
        else:
            fp = _fingerprint(norm)
        if fp is not None:
            for g, gfp in enumerate(self._fps):
                if gfp != fp:
                    continue
                if key[0] == "n" and self._norm_key(g)[0] == "n":
                    continue  # two distinct exact rationals are never equal
                if self._equivalent(self._norms[g], norm):
                    return g
            return None
        if key[0] == "s" and _parse(norm):
            for g in self._symbolic[:20]:
                if self._equivalent(self._norms[g], norm):
                    return g
        return None

    def _norm_key(self, g: int) -> str:
        return answer_key(self._norms[g]) or ""

    def _new_group(self, norm: str, key: str) -> int:
        g = len(self._members)
        self._members.append({})
        self._norms.append(norm)
        if key[0] == "n":
            v = exact_value(norm)
            fp = f"{float(v):.9g},0" if v is not None else None
        elif key[0] == "s" and not self._only_itself(norm):
            fp = _fingerprint(norm)
        else:
            fp = None
        self._fps.append(fp)
        if fp is None and key[0] == "s" and not self._only_itself(norm):
            self._symbolic.append(g)
        if key[0] == "t":
            self.long_groups.add(g)
        self._correct.append(self._is_gt(norm, key))
        return g

    def _is_gt(self, norm: str, key: str) -> bool:
        gt = self._gt_norm
        if gt is None or key[0] == "t":
            return False
        gt_key = answer_key(gt)
        if gt_key == key:
            return True
        if self._cheap and gt_key is not None and gt_key[0] != "t":
            # two numeric values that differ are not the same answer (the rule
            # `_match_existing` already applies between groups): no math-verify call per
            # question for every LaTeX form among the probe answers
            fp = self._fps[-1] if self._norms and self._norms[-1] == norm else None
            gt_fp = self._value_fp(gt, gt_key)
            if fp is not None and gt_fp is not None and fp != gt_fp:
                return False
        return self._equivalent(gt, norm)

    def _value_fp(self, norm: str, key: str) -> str | None:
        if key[0] == "n":
            v = exact_value(norm)
            return f"{float(v):.9g},0" if v is not None else None
        if key[0] == "s" and not self._only_itself(norm):
            return _fingerprint(norm)
        return None

    @property
    def n_groups(self) -> int:
        return len(self._members)

    @property
    def group_correct(self) -> np.ndarray:
        return np.array(self._correct, dtype=bool)

    def correct_of(self, groups: np.ndarray) -> np.ndarray:
        """Correctness of each group id in `groups` (-1 -> False)."""
        table = np.concatenate([self.group_correct, np.zeros(1, dtype=bool)])
        g = np.asarray(groups, dtype=np.int64)
        return table[np.where(g < 0, table.shape[0] - 1, g)]
