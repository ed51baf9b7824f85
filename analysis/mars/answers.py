"""Answer equivalence groups of one question: a cheap normaliser first, math-verify only between
distinct normalised strings.

Why this shape: a MARS question has ~4,096 final answers and ~25,000 probe answers but only a
few dozen distinct strings, most of them plain integers. Normalising and keying integers and
simple fractions exactly handles almost everything; math-verify (slow, sympy-based) is asked
only whether two *distinct* keys are the same value, and its results are kept in bounded
LRU caches (pure functions of the two strings, so sharing them between sessions is safe).

Group ids are deterministic: numbered 0, 1, ... in order of first appearance of the answers as
they are added (the feature builder adds final answers in `trace_idx` order, then probe answers),
as docs/formats/stopping.md ("Checkpoints and answers") requires for tie-breaks. A null or
empty answer has no group (-1). An
answer the normaliser empties (a probe cut after `n=`, a lone `.` or `$`) is still an answer,
as in the published simulator, where only null and "" are no answer: it gets a group of its own
(keyed by its raw text, equal only to itself), so it votes and its switch probability counts.

The published simulator's cap: a question with more than SYMBOLIC_PAIRWISE_MAX distinct
non-numeric answers (`max_symbolic_pairwise` there; realistic probe garbage gives 139-183) has
them compared with nothing but the ground truth: each stays a group of its own, unless its
normal form or numeric value matches. `compares_symbolic` decides it for a whole question
(answers with a numeric value still merge; bare words, prose and text spans count as
non-numeric, as does anything math-verify reads only with free symbols). Why: it is the published
grouping, and those comparisons were half the cold cost of a realistic pool.

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
import time
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from analysis.mars.verdict_memo import VerdictMemo

LONG_ANSWER_CHARS = 120  # longer extracted answers are treated as text spans, not maths
RAW_KEY = "r:"  # grouping key prefix of an answer the normaliser empties (`n=`): its raw text
VERIFY_MAX_CHARS = 60
SYMBOLIC_PAIRWISE_MAX = 50  # the published simulator's `max_symbolic_pairwise`
LABEL_MAX_CHARS = 80
_CACHE_MAX = 50_000  # distinct normalised answers (a file has a few thousand)

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


# ---------------------------------------------------------------------------------------------
# math-verify, cached and guarded


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
    # why here: math-verify imports sympy (slow), and most files never need it
    import math_verify

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    _install_shortcuts(math_verify)
    return math_verify


def preload() -> None:
    """Import math-verify now (`_math_verify`), in a process that is sure to need it."""
    _math_verify()


# ---------------------------------------------------------------------------------------------
# shortcuts inside math-verify that cannot change a verdict
#
# Why: on realistic probe garbage almost every math-verify call returns False, and most of its
# time goes into sympy `simplify` of two expressions that plainly differ in value, and into
# `solve` of the same equation again and again (once per pair it appears in). Two shortcuts,
# installed into math-verify's grader module (it calls both through its module globals, also in
# its recursive comparisons of equation sides, set elements and solutions):
# - `sympy_expr_eq` of two plain expressions (below) whose values at one fixed real point differ
#   by far more than any of its tests tolerates is False without running them;
# - `solve` remembers its answers (a pure function of its arguments).
# Every other comparison runs math-verify's own code unchanged. FAST_VERIFY = False turns both
# off (tests/analysis/mars/test_answers.py compares the two on realistic probe garbage).

FAST_VERIFY = True
_MV_VERSIONS = ("0.9.",)  # the math-verify versions whose grader this reasoning was checked on
_REL_TOL = 1e-4  # math-verify's loosest numeric test rounds to 6 decimals (float_rounding=6)
# symbol assumptions under which a real point is a valid evaluation point: none (complex), or
# the real, finite symbols latex2sympy makes; anything else (integer, positive) could let
# `simplify` use a fact a real point does not satisfy. latex2sympy makes every symbol of an answer
# that looks complex (`e^{i\\pi}`) non-real (`real=False`): those get a non-real point.
_PLAIN_ASSUMPTIONS: tuple[frozenset, ...] = ()
_NONREAL_ASSUMPTIONS: frozenset = frozenset()
_PLAIN_HEADS: frozenset = frozenset()


def _install_shortcuts(mv: Any) -> None:
    """Wrap math-verify's grader `sympy_expr_eq` and `solve` (see the block comment above);
    left alone for a math-verify version this was not checked on."""
    global _PLAIN_ASSUMPTIONS, _NONREAL_ASSUMPTIONS, _PLAIN_HEADS
    from math_verify import grader  # why: lazy, a slow import

    version = getattr(mv, "__version__", "") or _dist_version("math-verify")
    if getattr(grader, "_rte_shortcuts", False) or not version.startswith(_MV_VERSIONS):
        return
    import sympy  # why: lazy, a slow import

    real = sympy.Symbol("_rte_real", real=True, finite=True).assumptions0
    _PLAIN_ASSUMPTIONS = (frozenset({"commutative": True}.items()), frozenset(real.items()))
    nonreal = sympy.Symbol("_rte_nonreal", real=False).assumptions0
    _NONREAL_ASSUMPTIONS = frozenset(nonreal.items())
    _PLAIN_HEADS = frozenset(
        {
            sympy.Add,
            sympy.Mul,
            sympy.Pow,
            sympy.exp,
            sympy.log,
            sympy.sin,
            sympy.cos,
            sympy.tan,
            sympy.cot,
            sympy.sec,
            sympy.csc,
            sympy.asin,
            sympy.acos,
            sympy.atan,
            sympy.sinh,
            sympy.cosh,
            sympy.tanh,
            sympy.binomial,
            sympy.factorial,
            sympy.Abs,
        }
    )
    numeric_eq, symbolic_eq, solve = grader.sympy_numeric_eq, grader.sympy_symbolic_eq, grader.solve
    compare_sets = grader.sympy_compare_sets

    def fast_numeric_eq(a: Any, b: Any, float_rounding: int, numeric_precision: int) -> bool:
        if FAST_VERIFY and _values_differ(a, b):
            return False  # (never raises: an exception here would read as "not equal")
        return bool(numeric_eq(a, b, float_rounding, numeric_precision))

    def fast_symbolic_eq(a: Any, b: Any) -> bool:
        if FAST_VERIFY and _values_differ(a, b):
            return False
        return bool(symbolic_eq(a, b))

    def fast_compare_sets(
        gold: Any, pred: Any, float_rounding: int, numeric_precision: int
    ) -> bool:
        if FAST_VERIFY and _sets_differ(gold, pred):
            return False
        return bool(compare_sets(gold, pred, float_rounding, numeric_precision))

    def fast_solve(f: Any, *symbols: Any, **flags: Any) -> Any:
        if not FAST_VERIFY or flags or len(symbols) != 1 or not isinstance(symbols[0], set):
            return solve(f, *symbols, **flags)
        found = _solved(f, frozenset(symbols[0]), solve)
        # a fresh list of fresh dicts per call, as solve gives (callers may not mutate ours)
        return [dict(x) if isinstance(x, dict) else x for x in found]

    grader.sympy_numeric_eq = fast_numeric_eq
    grader.sympy_symbolic_eq = fast_symbolic_eq
    grader.sympy_compare_sets = fast_compare_sets
    grader.solve = fast_solve
    grader._rte_shortcuts = True


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version  # why: only on this rare path

    try:
        return version(name)
    except PackageNotFoundError:
        return ""


_SOLVED: dict[tuple, list] = {}
_SOLVED_MAX = 4096


def _solved(f: Any, symbols: frozenset, solve: Any) -> list:
    """`solve(f, symbols)`, remembered (bounded: dropped wholesale when full)."""
    key = (f, symbols)
    hit = _SOLVED.get(key)
    if hit is None:
        hit = list(solve(f, set(symbols)))
        if len(_SOLVED) >= _SOLVED_MAX:
            _SOLVED.clear()
        _SOLVED[key] = hit
    return hit


def _values_differ(a: Any, b: Any) -> bool:
    """True only when math-verify's `sympy_expr_eq(a, b)` (strict) is certainly False.

    Both must be plain expressions: a sympy `Expr` built only from numbers, pi/e/i, symbols of
    the assumptions above and the elementary functions of _PLAIN_HEADS, not itself a symbol (a
    symbol is compared by name) and with no percentage (`UnevaluatedExpr`, 9% equals 9). For two
    such expressions, each of its tests implies equal values at every point the symbols'
    assumptions allow (a real point for real or unassumed symbols, a non-real one for non-real
    symbols): structural equality; equality after rounding to 6 decimals or after `doit`;
    `(a - b).evalf(chop=True) == 0` (only a constant below ~1e-15 is chopped, never a coefficient
    of a symbol); `simplify(a - b).is_zero` (valid for every value the assumptions allow). So
    values that differ at one such point by more than _REL_TOL * max(1, |a|, |b|) decide it."""
    try:
        va, vb = _point_value(a), _point_value(b)
        if va is None or vb is None:
            return False
        return abs(va - vb) > _REL_TOL * max(1.0, abs(va), abs(vb))
    except Exception:  # noqa: BLE001 - math-verify would read an exception as "not equal"
        return False


def _sets_differ(a: Any, b: Any) -> bool:
    """True only when math-verify's `sympy_compare_sets(a, b)` is certainly False (a non-set
    counts as the set of itself, as there).

    - Two finite sets or tuples of plain elements: each of its tests that can pass (structural
      equality, an empty symmetric difference, element-by-element `sympy_expr_eq`) needs every
      element of one to have an element of the other of the same value at the real point of
      `_values_differ`; one element without such a partner decides it.
    - Two of different sizes, where a tuple is one of them or only one of them holds a truth
      value (an equation such as `n=2needs`, which prose with `=` parses to): of its tests only
      set equality could pass (structural, or an empty symmetric difference; the
      element-by-element one needs equal sizes), a tuple is no set, and a truth value equals no
      number.
    - A real interval with numeric ends, not a point, against a finite set or tuple of other than
      two elements: an interval is never equal to a finite set, and its only other test pairs
      its two ends with a two-element set.
    Anything else (unions, symbolic intervals, elements that are symbols, equations or sets) is
    left to math-verify."""
    try:
        ea, eb = _finite_elements(a), _finite_elements(b)
        if ea is not None and eb is not None:
            if len(ea) != len(eb) and _never_set_equal(a, ea, b, eb):
                return True
            pa = [_point_value(x) for x in ea]
            pb = [_point_value(x) for x in eb]
            va = [v for v in pa if v is not None]
            vb = [v for v in pb if v is not None]
            if len(va) < len(pa) or len(vb) < len(pb):
                return False
            return not (_all_matched(va, vb) and _all_matched(vb, va))
        for iv, other in ((a, eb), (b, ea)):
            if other is not None and len(other) != 2 and _proper_interval(iv):
                return True
    except Exception:  # noqa: BLE001 - math-verify would read an exception as "not equal"
        return False
    return False


def _finite_elements(x: Any) -> list | None:
    """The elements of a finite set or tuple, [x] for a non-set, None for other sets."""
    import sympy  # why: lazy, a slow import

    if isinstance(x, sympy.FiniteSet | sympy.Tuple):
        return list(x.args)
    if isinstance(x, sympy.Set):
        return None
    return [x]


def _never_set_equal(a: Any, ea: list, b: Any, eb: list) -> bool:
    """Can two collections of different sizes never be equal sets (see `_sets_differ`)?"""
    import sympy  # why: lazy, a slow import

    if isinstance(a, sympy.Tuple) or isinstance(b, sympy.Tuple):
        return True
    truth_a = any(isinstance(x, sympy.logic.boolalg.Boolean) for x in ea)
    truth_b = any(isinstance(x, sympy.logic.boolalg.Boolean) for x in eb)
    numbers_a = all(isinstance(x, sympy.Expr) for x in ea)
    numbers_b = all(isinstance(x, sympy.Expr) for x in eb)
    return (truth_a and numbers_b) or (truth_b and numbers_a)


def _all_matched(va: list[complex], vb: list[complex]) -> bool:
    return all(any(abs(x - y) <= _REL_TOL * max(1.0, abs(x), abs(y)) for y in vb) for x in va)


def _proper_interval(x: Any) -> bool:
    """A sympy Interval with numeric (symbol-free) ends, the end well above the start."""
    import sympy  # why: lazy, a slow import

    if not isinstance(x, sympy.Interval):
        return False
    lo, hi = x.start, x.end
    if not (lo.is_number and hi.is_number):
        return False
    if lo.is_infinite or hi.is_infinite:
        return bool(lo != hi)
    vlo, vhi = _point_value(lo), _point_value(hi)
    if vlo is None or vhi is None or vlo.imag or vhi.imag:
        return False
    return vhi.real - vlo.real > _REL_TOL * max(1.0, abs(vlo), abs(vhi))


def _point_value(e: Any) -> complex | None:
    try:
        return _point_value_cached(e)
    except TypeError:  # unhashable (a list of solutions, a matrix)
        return None


@functools.lru_cache(maxsize=_CACHE_MAX)
def _point_value_cached(e: Any) -> complex | None:
    """Value of a plain expression (see `_values_differ`) at the fixed real point, else None."""
    import sympy  # why: lazy, a slow import

    if not isinstance(e, sympy.Expr) or isinstance(e, sympy.Symbol | sympy.MatrixExpr):
        return None
    point: dict = {}
    for node in sympy.preorder_traversal(e):
        if node.is_Number or node is sympy.I or isinstance(node, sympy.NumberSymbol):
            continue
        if isinstance(node, sympy.Symbol):
            kind = frozenset(node.assumptions0.items())
            if kind in _PLAIN_ASSUMPTIONS:
                point[node] = _coordinate(node.name)
            elif kind == _NONREAL_ASSUMPTIONS:  # a non-real point: imaginary part in (0.6, 1.6)
                point[node] = _coordinate(node.name) + sympy.I * _coordinate(node.name + "'")
            else:
                return None
        elif node.func not in _PLAIN_HEADS:
            return None
    try:
        v = e.xreplace(point).evalf(30)
        if not v.is_Number and not v.is_number:
            return None
        z = complex(v)
    except Exception:  # noqa: BLE001 - not a finite number there: undecided
        return None
    if not (np.isfinite(z.real) and np.isfinite(z.imag)):
        return None
    return z


def _coordinate(name: str) -> Any:
    """A fixed rational in (0.6, 1.6) per symbol name (distinct names, distinct values)."""
    import zlib  # why: only on this rare path

    import sympy  # why: lazy, a slow import

    return sympy.Rational(6000 + zlib.crc32(name.encode()) % 10007, 10000)


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


# the persistent memo of the current build (`use_memo`), consulted before math-verify
_MEMO: VerdictMemo | None = None


def use_memo(memo: VerdictMemo | None) -> VerdictMemo | None:
    """Let grouping read and record its math-verify facts in `memo` (None: stop); returns the
    memo used before. Why: see `analysis.mars.verdict_memo`. Not with FAST_VERIFY off (the test
    comparing the shortcuts with math-verify's own code must run math-verify)."""
    global _MEMO
    before, _MEMO = _MEMO, memo
    return before


def current_memo() -> VerdictMemo | None:
    return _MEMO


def asks_math_verify(norm: str | None) -> bool:
    """Could grouping ask math-verify about this normalised answer? (not for empty answers,
    exact rationals, long text spans, bare words, placeholders and prose)."""
    key = answer_key(norm)
    return key is not None and key[0] == "s" and norm is not None and not _cheap_only(norm)


def memo_knows(memo: VerdictMemo, norm: str) -> bool:
    """Does the memo hold the fact grouping asks first about `norm` (its fingerprint)?"""
    return norm in memo.fingerprints


def clear_caches() -> None:
    """Forget every in-process fact (tests and the cold benchmark start from nothing)."""
    for f in (
        _parse,
        _parses,
        _fingerprint,
        _verified,
        _cheap_only,
        _point_value_cached,
        _normalize_str,
        answer_key,
    ):
        f.cache_clear()
    _SOLVED.clear()


def _memo() -> VerdictMemo | None:
    return _MEMO if FAST_VERIFY else None


@functools.lru_cache(maxsize=_CACHE_MAX)
def _parses(norm: str) -> bool:
    """Does math-verify parse `norm` to anything (memoised like `_fingerprint`)?"""
    memo = _memo()
    if memo is not None:
        hit = memo.parses.get(norm)
        if hit is not None:
            return hit
    t = time.perf_counter()
    ok = bool(_parse(norm))
    if memo is not None:
        memo.add_parse(norm, ok, time.perf_counter() - t)
    return ok


@functools.lru_cache(maxsize=_CACHE_MAX)
def _fingerprint(norm: str) -> str | None:
    """`_numeric_fingerprint` of a normalised answer, cached like `_parse` (evalf is slow) and
    kept in the persistent memo when one is in use."""
    memo = _memo()
    if memo is not None and norm in memo.fingerprints:
        return memo.fingerprints[norm]
    t = time.perf_counter()
    fp = _numeric_fingerprint(_parse(norm))
    if memo is not None:
        memo.add_fingerprint(norm, fp, time.perf_counter() - t)
    return fp


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
    """math-verify's verdict on two normalised answers (`a <= b`), cached like `_parse` and
    kept in the persistent memo when one is in use; any error or timeout is "not
    equivalent"."""
    memo = _memo()
    if memo is not None:
        hit = memo.verdicts.get((a, b))
        if hit is not None:
            return hit
    t = time.perf_counter()
    same = _verify(a, b)
    if memo is not None:
        memo.add_verdict(a, b, same, time.perf_counter() - t)
    return same


def _verify(a: str, b: str) -> bool:
    pa_, pb_ = _parse(a), _parse(b)
    if not (pa_ and pb_):
        return False
    try:
        return bool(_math_verify().verify(pa_, pb_, timeout_seconds=_timeouts()))
    except Exception:  # noqa: BLE001
        return False


def compares_symbolic(answers: Iterable[object], limit: int = SYMBOLIC_PAIRWISE_MAX) -> bool:
    """May a question's non-numeric answers be compared pairwise (the published cap, see the
    module docstring)? Counts its distinct answers (null and "" are none) that have no numeric
    value: no exact rational, no symbol-free math-verify reading. Bare words, prose, text spans
    and answers the normaliser empties are counted without asking math-verify, and counting
    stops as soon as it passes `limit`."""
    distinct = {a for a in answers if a is not None and a != ""}
    count = 0
    maybe_numeric: list[str] = []
    for a in distinct:
        norm = normalize(a)
        if norm is not None and asks_math_verify(norm):
            maybe_numeric.append(norm)
        elif (key := answer_key(norm)) is None or key[0] != "n":
            count += 1  # text, prose, a bare word, an emptied `n=`: never numeric
    if count > limit:
        return False
    for norm in sorted(maybe_numeric):
        count += _fingerprint(norm) is None
        if count > limit:
            return False
    return True


class AnswerGrouper:
    """Assigns group ids to the answers of one question in order of first appearance.

    A group's label is its most common member (normal form; first seen wins a tie), so a group
    reads `116` rather than the rare full-width `１１６` that happened to come first.

    `symbolic_pairwise=False` (a question over the published cap, `compares_symbolic`): an
    answer without a numeric value is compared with no other group, only with the ground
    truth."""

    def __init__(
        self, ground_truth: object, *, cheap_reject: bool = True, symbolic_pairwise: bool = True
    ) -> None:
        self.ground_truth = "" if ground_truth is None else str(ground_truth)
        self._cheap = cheap_reject
        self._pairwise = symbolic_pairwise
        self._gt_norm = normalize(self.ground_truth)
        self._key_to_group: dict[str, int] = {}
        self._raw_to_group: dict[object, tuple[int, str | None]] = {}
        self._members: list[dict[str, int]] = []  # per group: display form -> occurrences
        self._norms: list[str] = []
        self._fps: list[str | None] = []
        self._symbolic: list[int] = []  # groups without a numeric fingerprint (math-verify only)
        self.long_groups: set[int] = set()
        self._correct: list[bool] = []

    def add(self, answer: object, times: int = 1) -> int:
        """Group id of `answer` (new id if unseen), -1 for null and ""; it counts `times`
        towards its group's label."""
        if answer is None:
            return -1
        hit = self._raw_to_group.get(answer)
        if hit is None:
            norm = normalize(answer)
            if norm is None and str(answer) != "":
                g = self._raw_group(str(answer))
                shown: str | None = " ".join(str(answer).split()) or "(blank)"
            else:
                g = self._group_of(norm, answer)
                shown = self._display(norm, g, answer)
            hit = (g, shown)
            self._raw_to_group[answer] = hit
        g, shown = hit
        if g >= 0 and shown is not None:
            counts = self._members[g]
            counts[shown] = counts.get(shown, 0) + times
        return g

    def add_many(self, answers: list[object]) -> np.ndarray:
        """`add` of each answer in turn, done once per distinct answer with its count (a
        realistic question has ~3,700 answers, ~230 distinct): the same ids, in order of first
        appearance, and the same label counts."""
        ids = {a: self.add(a, n) for a, n in Counter(answers).items()}
        return np.fromiter(map(ids.__getitem__, answers), dtype=np.int32, count=len(answers))

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

    def _raw_group(self, raw: str) -> int:
        """The group of an answer with an empty normal form: its own, by its exact text (a wrong
        answer: it never matches the ground truth)."""
        key = RAW_KEY + raw
        g = self._key_to_group.get(key)
        if g is None:
            g = self._key_to_group[key] = self._new_group(key, key)
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
        if self._pairwise and key[0] == "s" and _parses(norm):
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
        if gt is None or key[0] in ("t", RAW_KEY[0]):
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
