"""Shortcuts inside math-verify that cannot change a verdict (installed by
`analysis.mars.answers` when it first imports math-verify; this module imports sympy, so only
that import loads it).

Why: on realistic probe garbage almost every math-verify call returns False, and most of its
time goes into sympy `simplify` of two expressions that plainly differ in value, and into
`solve` of the same equation again and again (once per pair it appears in). Two shortcuts,
installed into math-verify's grader module (it calls both through its module globals, also in
its recursive comparisons of equation sides, set elements and solutions):
- `sympy_expr_eq` of two plain expressions (below) whose values at one fixed real point differ
  by far more than any of its tests tolerates is False without running them;
- `solve` remembers its answers (a pure function of its arguments).
Every other comparison runs math-verify's own code unchanged. `answers.FAST_VERIFY = False` turns
both off (tests/analysis/mars/test_answers.py compares the two on realistic probe garbage).
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
import sympy
from math_verify import grader

_CACHE_MAX = 50_000  # distinct expressions (a file has a few thousand answers)
_MV_VERSIONS = ("0.9.",)  # the math-verify versions whose grader this reasoning was checked on
_REL_TOL = 1e-4  # math-verify's loosest numeric test rounds to 6 decimals (float_rounding=6)
# symbol assumptions under which a real point is a valid evaluation point: none (complex), or
# the real, finite symbols latex2sympy makes; anything else (integer, positive) could let
# `simplify` use a fact a real point does not satisfy. latex2sympy makes every symbol of an answer
# that looks complex (`e^{i\\pi}`) non-real (`real=False`): those get a non-real point.
_REAL = sympy.Symbol("_rte_real", real=True, finite=True).assumptions0
_PLAIN_ASSUMPTIONS = (frozenset({"commutative": True}.items()), frozenset(_REAL.items()))
_NONREAL_ASSUMPTIONS = frozenset(sympy.Symbol("_rte_nonreal", real=False).assumptions0.items())
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


def install(mv: Any, enabled: Callable[[], bool]) -> None:
    """Wrap math-verify's grader `sympy_expr_eq` and `solve` (see the module doc), each shortcut
    taken only while `enabled()`; left alone for a math-verify version this was not checked on."""
    version = getattr(mv, "__version__", "") or _dist_version("math-verify")
    if getattr(grader, "_rte_shortcuts", False) or not version.startswith(_MV_VERSIONS):
        return
    numeric_eq, symbolic_eq, solve = grader.sympy_numeric_eq, grader.sympy_symbolic_eq, grader.solve
    compare_sets = grader.sympy_compare_sets

    def fast_numeric_eq(a: Any, b: Any, float_rounding: int, numeric_precision: int) -> bool:
        if enabled() and _values_differ(a, b):
            return False  # (never raises: an exception here would read as "not equal")
        return bool(numeric_eq(a, b, float_rounding, numeric_precision))

    def fast_symbolic_eq(a: Any, b: Any) -> bool:
        if enabled() and _values_differ(a, b):
            return False
        return bool(symbolic_eq(a, b))

    def fast_compare_sets(
        gold: Any, pred: Any, float_rounding: int, numeric_precision: int
    ) -> bool:
        if enabled() and _sets_differ(gold, pred):
            return False
        return bool(compare_sets(gold, pred, float_rounding, numeric_precision))

    def fast_solve(f: Any, *symbols: Any, **flags: Any) -> Any:
        if not enabled() or flags or len(symbols) != 1 or not isinstance(symbols[0], set):
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
    if isinstance(x, sympy.FiniteSet | sympy.Tuple):
        return list(x.args)
    if isinstance(x, sympy.Set):
        return None
    return [x]


def _never_set_equal(a: Any, ea: list, b: Any, eb: list) -> bool:
    """Can two collections of different sizes never be equal sets (see `_sets_differ`)?"""
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
    return sympy.Rational(6000 + zlib.crc32(name.encode()) % 10007, 10000)


def clear_caches() -> None:
    """Forget the remembered solutions and point values (tests start from nothing)."""
    _point_value_cached.cache_clear()
    _SOLVED.clear()
