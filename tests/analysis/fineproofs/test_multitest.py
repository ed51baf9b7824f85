"""Multiple testing of the drop flags: BH against hand-worked examples, the p-values of the
z-tests, the BH option of `annotate`, and the count of chance flags the per-test rule allows."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from analysis.fineproofs.multitest import bh_reject, bh_reject_expr, flag_burden, two_sided_p
from analysis.fineproofs.values import SeriesParams, series_from_values

SE = 0.1 / math.sqrt(2)  # two such SEs give a z denominator of exactly 0.1


def test_bh_rejects_the_two_smallest_of_eight() -> None:
    # m = 8, q = 0.05: thresholds i * 0.00625 = .00625 .0125 .01875 .025 .03125 .0375 .04375 .05;
    # p_(1) = .001 and p_(2) = .008 are below theirs, no larger p is: reject exactly two
    p = np.array([0.041, 0.001, 0.205, 0.039, 0.008, 0.060, 0.042, 0.074])
    assert bh_reject(p, 0.05).tolist() == [False, True, False, False, True, False, False, False]


def test_bh_is_step_up_and_skips_missing_p() -> None:
    # q = 0.04, m = 4: p_(1) = .011 > .01 fails, but p_(4) = .04 <= .04: all four are rejected
    assert bh_reject(np.array([0.04, 0.011, 0.03, 0.02]), 0.04).tolist() == [True] * 4
    # a NaN is no test: m = 2, thresholds .02 and .04 (with m = 3, .015 would miss .0133)
    assert bh_reject(np.array([0.015, np.nan, 0.05]), 0.04).tolist() == [True, False, False]
    assert bh_reject(np.array([np.nan]), 0.05).tolist() == [False]


def test_bh_expression_per_group_matches_numpy() -> None:
    a = [0.041, 0.001, 0.205, 0.039, 0.008, 0.060, 0.042, 0.074]
    b = [0.04, 0.011, 0.03, None]  # m = 3 at q = 0.05: thresholds .0167 .0333 .05 -> all three
    df = pl.DataFrame({"t": [0] * 8 + [1] * 4, "p": a + b})
    got = df.select(bh_reject_expr(pl.col("p"), ["t"], 0.05)).to_series().to_list()
    assert got == [False, True, False, False, True, False, False, False, True, True, True, False]


def test_two_sided_p_values() -> None:
    got = two_sided_p(np.array([2.0, -3.0, np.inf, np.nan]))
    assert got[0] == pytest.approx(0.0455002638963584)
    assert got[1] == pytest.approx(0.0026997960632601)
    assert got[2] == 0.0 and math.isnan(got[3])


def test_annotate_with_bh_keeps_only_the_drop_that_survives() -> None:
    # changes -0.30, -0.21, +0.05 over a denominator of 0.1: z = -3, -2.1, +0.5;
    # two-sided p = .0027, .0357, .617; BH at q = .05, m = 3: .0027 <= .0167 yes, .0357 <= .0333
    # no, .617 <= .05 no. The per-test rule (z < -2 and d <= -0.15) flags both drops.
    vals = [0.9, 0.6, 0.39, 0.44]
    plain = series_from_values(vals, [SE] * 4)
    bh = series_from_values(vals, [SE] * 4, params=SeriesParams(correction="bh"))
    assert plain["z"].to_list()[1:] == pytest.approx([-3.0, -2.1, 0.5])
    assert plain["p_value"].to_list()[1:] == pytest.approx(
        [0.0026997961, 0.0357288411, 0.6170750775]
    )
    assert plain["sig_drop"].to_list() == [False, True, True, False]
    assert bh["sig_drop"].to_list() == [False, True, False, False]
    assert bh["flags"].to_list() == ["", "DROP first-error", "", ""]


def test_flag_burden_of_one_trace() -> None:
    b = flag_burden([None, -3.0, -2.1, 0.5, float("nan")])
    assert b.n_tests == 3
    assert b.alpha == pytest.approx(0.0455002638963584)
    assert b.expected_false == pytest.approx(0.1365007916890753)
    assert b.p_any == pytest.approx(0.1303841676591643)
    assert flag_burden([]).n_tests == 0 and flag_burden([]).p_any == 0.0
