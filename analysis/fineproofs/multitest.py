"""Multiple testing of the drop flags: p-values of the z-tests, Benjamini-Hochberg, and how many
false flags the per-test rule lets through.

Why: a trace of ~8 prefixes makes ~7 z-tests (one per change between consecutive valued
prefixes). At |z| > 2 each test flags a change by chance with probability 4.55 % when the value
does not change, so a trace with 7 tests has about a 28 % chance of at least one chance flag
(before the |d| >= min_drop floor). Benjamini-Hochberg (1995) controls the expected share of
false flags among the flagged changes of a trace (the false discovery rate) at q instead.
(docs/formats/prefix-values.md, "Multiple testing".)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.special import erfc

CORRECTIONS = ("none", "bh")


def two_sided_p(z: np.ndarray) -> np.ndarray:
    """P(|Z| >= |z|) for a standard normal Z; NaN stays NaN, ±inf gives 0."""
    a = np.abs(np.asarray(z, dtype=np.float64))
    return np.asarray(erfc(a / math.sqrt(2.0)), dtype=np.float64)


def p_value_expr(z: pl.Expr) -> pl.Expr:
    """The two-sided p-value of a z column as a polars expression (null z gives null)."""
    return (
        z.cast(pl.Float64)
        .map_batches(
            lambda s: pl.Series(two_sided_p(s.to_numpy()), dtype=pl.Float64),
            return_dtype=pl.Float64,
        )
        .fill_nan(None)
    )


def bh_reject(p: np.ndarray, q: float) -> np.ndarray:
    """Benjamini-Hochberg step-up: reject the k smallest p-values, k = max{i : p_(i) <= i·q/m}.

    NaN p-values are not tests (not counted in m, never rejected)."""
    p = np.asarray(p, dtype=np.float64)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    out = np.zeros(p.shape, dtype=bool)
    if m == 0:
        return out
    pv = p[ok]
    order = np.argsort(pv, kind="stable")
    below = pv[order] <= q * np.arange(1, m + 1) / m
    if not below.any():
        return out
    cutoff = pv[order][np.flatnonzero(below).max()]
    out[ok] = pv <= cutoff
    return out


def bh_reject_expr(p: pl.Expr, over: list[str] | tuple[str, ...], q: float) -> pl.Expr:
    """`bh_reject` per group (one family per trace) as a polars expression; null p is no test."""
    g = list(over)
    m = p.is_not_null().sum().over(g)
    rank = p.rank("ordinal").over(g)
    cutoff = pl.when(p <= rank * q / m).then(p).max().over(g)
    return (p <= cutoff).fill_null(False)


@dataclass(frozen=True)
class FlagBurden:
    """How many z-tests a trace makes and what the per-test rule means for chance flags."""

    n_tests: int
    alpha: float  # chance that one test flags a change (either way) when there is none
    expected_false: float  # n_tests · alpha
    p_any: float  # 1 - (1 - alpha)^n_tests (independent tests)


def flag_burden(z: pl.Series | list[float | None], z_threshold: float = 2.0) -> FlagBurden:
    """The z-tests of one trace (null z = no test) at |z| > z_threshold."""
    s = pl.Series(z, dtype=pl.Float64).fill_nan(None)
    n = int(s.is_not_null().sum())
    alpha = float(two_sided_p(np.array([z_threshold]))[0])
    return FlagBurden(n, alpha, n * alpha, 1.0 - (1.0 - alpha) ** n)
