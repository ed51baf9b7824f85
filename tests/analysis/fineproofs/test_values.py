"""Prefix-value analysis: binning, histogram stats, role mapping, drops/recoveries, summaries."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from analysis.fineproofs.overview import overview_cells, select_traces
from analysis.fineproofs.steptext import attach_step_text, text_segments
from analysis.fineproofs.values import (
    GRADE_BINS,
    SeriesParams,
    annotate,
    depth_distribution,
    grade_bin,
    grade_bin_expr,
    hist_stats,
    map_prefix_roles,
    normalise,
    series_from_values,
    shard_coverage,
    trace_summary,
)
from cache.errors import SchemaError

PID = "0123456789abcdef"


def comb(counts: dict[int, int]) -> list[int]:
    """A 20-bin histogram from {grade k (0..7): count}."""
    h = [0] * 20
    for k, c in counts.items():
        h[int(GRADE_BINS[k])] += c
    return h


# ---------------------------------------------------------------- binning
def test_binning_puts_015_in_bin_3_unlike_naive_floor() -> None:
    assert math.floor(0.15 / 0.05) == 2  # the pitfall
    assert grade_bin(0.15) == 3
    assert grade_bin(1.0) == 19 and grade_bin(0.0) == 0 and grade_bin(0.05) == 1
    assert grade_bin(float("nan")) == -1
    assert list(GRADE_BINS) == [0, 2, 5, 8, 11, 14, 17, 19]
    got = pl.DataFrame({"x": [0.15, 1.0, 0.999, None]}).select(grade_bin_expr(pl.col("x")))
    assert got["x"].to_list() == [3, 19, 19, None]


def test_histogram_stats_use_grade_levels() -> None:
    grades = np.array([0] * 10 + [7] * 20 + [3] * 2) / 7
    st = hist_stats(np.array([comb({0: 10, 7: 20, 3: 2})]))
    assert st["n"][0] == 32
    assert st["mean"][0] == pytest.approx(grades.mean())
    assert st["std"][0] == pytest.approx(grades.std(ddof=0))
    assert st["min"][0] == 0 and st["max"][0] == 1
    # bin centres would give a different (wrong) mean: grade 3/7 sits in bin 8 (centre 0.425)
    assert abs(st["mean"][0] - (10 * 0.025 + 20 * 0.975 + 2 * 0.425) / 32) > 1e-3


# ---------------------------------------------------------------- role mapping
def _table(names: dict[str, str], n: int = 3, hist: bool = True) -> pl.DataFrame:
    cols = {
        names.get("problem", "problem_id"): [PID] * n,
        names.get("sample", "sample_index"): [0] * n,
        names.get("step", "step_idx"): list(range(1, n + 1)),
        names.get("num_steps", "num_steps"): [n] * n,
        names.get("value", "mean_grade"): [0.8, 0.5, 0.2][:n],
        names.get("std", "std_grade"): [0.1] * n,
        names.get("count", "n_graded"): [32] * n,
        names.get("endpoint", "base_grade"): [2 / 7] * n,
    }
    if hist:
        cols[names.get("hist", "grade_hist")] = [comb({7: 32})] * n
    return pl.DataFrame(cols)


def test_roles_under_likely_names() -> None:
    roles = map_prefix_roles(_table({}).columns)
    assert roles["problem"] == "problem_id" and roles["step"] == "step_idx"
    assert roles["value"] == "mean_grade" and roles["hist"] == "grade_hist"
    assert roles["endpoint"] == "base_grade" and roles["count"] == "n_graded"


def test_roles_under_aliases_and_unknown_columns_kept() -> None:
    aliases = {
        "problem": "id", "step": "prefix_index", "std": "grade_std", "count": "n_continuations",
        "hist": "histogram", "endpoint": "final_grade",
    }  # fmt: skip
    df = _table(aliases).with_columns(judge_model=pl.lit("gpt-oss-120b"), value=pl.lit(9))
    norm = normalise(df)
    f = norm.frame
    assert f["problem_id"].to_list() == [PID] * 3
    assert f["step"].to_list() == [1, 2, 3] and f["value"].to_list() == [0.8, 0.5, 0.2]
    assert f["endpoint"][0] == pytest.approx(2 / 7)
    # unknown columns are carried as they are; a clash with a canonical name is renamed
    assert "judge_model" in f.columns and f["judge_model"][0] == "gpt-oss-120b"
    assert "value (extra)" in f.columns and set(norm.extra_columns) == {
        "judge_model",
        "value (extra)",
    }


def test_missing_required_role_names_the_column() -> None:
    df = _table({}).drop("problem_id")
    with pytest.raises(SchemaError) as err:
        normalise(df)
    assert "problem" in err.value.message and "problem_id" in err.value.message


def test_no_value_and_no_histogram_is_an_error() -> None:
    df = _table({}, hist=False).drop("mean_grade")
    with pytest.raises(SchemaError, match="histogram"):
        normalise(df)


def test_stats_derived_from_histogram_only() -> None:
    hists = [comb({7: 30, 0: 2}), comb({0: 16, 7: 16}), comb({0: 20, 1: 5})]
    df = pl.DataFrame(
        {"id": [PID] * 3, "sample_index": [1] * 3, "step_idx": [2, 4, 6], "grade_hist": hists}
    )
    norm = normalise(df)
    f = norm.frame
    assert any("derived from the 20-bin histogram" in n for n in norm.notes)
    assert f["value"].to_list() == pytest.approx([30 / 32, 0.5, 5 / 25 / 7])
    assert f["n"].to_list() == [32, 32, 25]
    g = np.array([0] * 16 + [1] * 16, dtype=float)
    assert f["std"][1] == pytest.approx(g.std(ddof=0))
    assert f["max_grade"][2] == pytest.approx(1 / 7)
    a = annotate(f)
    assert a["se"][1] == pytest.approx(g.std(ddof=0) / math.sqrt(32))
    assert a["bimodal"].to_list() == [False, True, False]


def test_bad_histograms_and_nan_grades_are_noted_not_fatal() -> None:
    df = pl.DataFrame(
        {
            "problem_id": [PID] * 4,
            "sample_index": [0] * 4,
            "step_idx": [1, 2, 3, 4],
            "mean_grade": [0.9, float("nan"), float("nan"), 0.1],
            "grade_hist": [comb({7: 32}), [1, 2, 3], comb({0: 32}), [0] * 19 + [-1]],
        }
    )
    norm = normalise(df)
    assert any("2 prefix rows have a histogram" in n for n in norm.notes)
    assert any("1 prefix rows have no usable grade" in n for n in norm.notes)
    f = norm.frame
    assert f["value"].to_list()[:3] == [
        0.9,
        None,
        0.0,
    ]  # row 3: NaN mean derived from its histogram
    assert f["hist"][1] is None and f["hist"][3] is None
    a = annotate(f)
    # the gap does not break the chain: change at row 3 is against row 1 (the last valid value)
    assert a["change"].to_list()[2] == pytest.approx(-0.9)
    assert "no-grade" in a["flags"][1]


# ---------------------------------------------------------------- drops and recoveries
def test_significant_drop_needs_z_and_size() -> None:
    s = series_from_values([0.8, 0.78, 0.3, 0.29], ses=[0.05] * 4)
    assert s["sig_drop"].to_list() == [False, False, True, False]
    assert s["change"][2] == pytest.approx(-0.48)
    assert s["z"][2] == pytest.approx(-0.48 / math.sqrt(2 * 0.05**2))
    assert s["first_error"].to_list() == [False, False, True, False]
    # a 0.1 drop is "significant" by z with tiny SEs, but under the 0.15 size floor
    small = series_from_values([0.8, 0.7], ses=[0.001, 0.001])
    assert not small["sig_drop"][1]
    assert series_from_values([0.8, 0.7], ses=[0.001] * 2, params=SeriesParams(min_drop=0.05))[
        "sig_drop"
    ][1]


def test_large_but_noisy_drop_is_not_significant() -> None:
    s = series_from_values([0.6, 0.4], ses=[0.09, 0.09])  # z = -0.2/0.127 = -1.57
    assert not s["sig_drop"][1] and s["flags"][1] == ""


def test_recovery_is_a_significant_rise_after_a_drop() -> None:
    s = series_from_values([0.8, 0.2, 0.25, 0.75, 0.8], ses=[0.04] * 5)
    assert s["sig_drop"].to_list() == [False, True, False, False, False]
    assert s["recovery"].to_list() == [False, False, False, True, False]
    # a rise with no earlier drop is not a recovery
    r = series_from_values([0.2, 0.8], ses=[0.04] * 2)
    assert r["sig_rise"][1] and not r["recovery"][1]


def test_zero_se_edge_cases() -> None:
    s = series_from_values([1.0, 0.0, 0.0], ses=[0.0, 0.0, 0.0])
    assert s["z"][1] == float("-inf") and s["sig_drop"][1]
    assert s["z"][2] == 0.0


def test_first_error_from_best_continuation_zero() -> None:
    hists = [comb({7: 32}), comb({7: 30, 6: 2}), comb({0: 32}), comb({0: 32})]
    # slow decline with large SEs (no significant drop), but prefix 3's best continuation is 0
    s = series_from_values([0.55, 0.5, 0.4, 0.35], ses=[0.2] * 4, hists=hists)
    assert not s["sig_drop"].any()
    assert s["best_zero"].to_list() == [False, False, True, True]
    assert s["first_error"].to_list() == [False, False, True, False]


def _frame_of(traces: dict[tuple[str, int], list[float]], se: float = 0.04) -> pl.DataFrame:
    rows = []
    for (pid, sample), vals in traces.items():
        for i, v in enumerate(vals):
            rows.append(
                {
                    "problem_id": pid,
                    "sample_index": sample,
                    "step_idx": 3 * (i + 1),
                    "num_steps": 3 * len(vals),
                    "mean_grade": v,
                    "std_grade": se * math.sqrt(32),
                    "n_graded": 32,
                    "base_grade": round(vals[-1] * 7) / 7,
                    "source": "aops" if sample % 2 else "olympiads",
                }  # fmt: skip
            )
    return pl.DataFrame(rows)


SHAPES = {
    ("a" * 16, 0): [0.85, 0.84, 0.86, 0.85, 0.83, 0.85, 0.84, 0.86],  # steady high
    ("b" * 16, 1): [0.85, 0.84, 0.86, 0.1, 0.08, 0.1, 0.09, 0.1],  # collapse at prefix 4
    ("c" * 16, 2): [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2],  # gradual
    ("d" * 16, 3): [0.8, 0.8, 0.15, 0.15, 0.7, 0.75, 0.8, 0.8],  # drop then recovery
    ("e" * 16, 4): [0.1, 0.12, 0.08, 0.1, 0.09, 0.11, 0.1, 0.1],  # low
}


def test_trace_summary_shapes_largest_drop_and_first_error() -> None:
    a = annotate(normalise(_frame_of(SHAPES)).frame)
    s = {r["problem_id"][0]: r for r in trace_summary(a).iter_rows(named=True)}
    assert s["a"]["shape"] == "steady" and s["a"]["first_error_depth"] is None
    assert s["b"]["shape"] == "one-step"
    assert s["b"]["largest_drop"] == pytest.approx(0.76)
    assert s["b"]["largest_drop_ordinal"] == 4 and s["b"]["largest_drop_depth"] == pytest.approx(
        0.5
    )
    # the value rose 0.84 -> 0.86 before the 0.76 drop: share of the 0.75 fall, not clamped
    assert s["b"]["first_error_ordinal"] == 4 and s["b"]["drop_share"] == pytest.approx(0.76 / 0.75)
    assert s["c"]["shape"] == "gradual" and s["c"]["drop_share"] == pytest.approx(0.1 / 0.7)
    assert s["d"]["shape"] == "drop then recovery" and s["d"]["n_recoveries"] == 1
    assert s["e"]["shape"] == "low throughout"
    assert s["b"]["n_prefixes"] == 8 and s["b"]["endpoint"] == pytest.approx(1 / 7)


def test_drop_share_is_not_clamped_when_the_value_rose_first() -> None:
    """0.83 -> 0.94 -> 0.025 -> 0.04: the value fell 0.79 from first to last, but the largest
    single drop is 0.915, 116 % of that fall (the value first rose to 0.94)."""
    a = series_from_values([0.83, 0.94, 0.025, 0.04], [0.02] * 4)
    (r,) = trace_summary(a).iter_rows(named=True)
    assert r["total_decline"] == pytest.approx(0.79)
    assert r["largest_drop"] == pytest.approx(0.915) and r["largest_drop_ordinal"] == 3
    assert r["drop_share"] == pytest.approx(0.915 / 0.79)  # 1.1582..., shown as 116 %
    assert r["shape"] == "one-step"


def test_depth_distribution_and_overview_cells() -> None:
    a = annotate(normalise(_frame_of(SHAPES)).frame)
    d = depth_distribution(a, n_bins=4)
    assert set(d["source"]) == {"aops", "olympiads"}
    assert d["count"].sum() == 40
    olymp_first = d.filter((pl.col("source") == "olympiads") & (pl.col("depth_bin") == 0))
    # olympiads = samples 0, 2, 4; bin 0 holds rel depths 1/8 (ordinal 1) -> (0.85+0.9+0.1)/3
    assert olymp_first["mean"][0] == pytest.approx((0.85 + 0.9 + 0.1) / 3)
    summ = trace_summary(a)
    picked = select_traces(summ, sort="largest_drop", descending=True)
    assert picked["problem_id"][0] == "b" * 16
    only = select_traces(summ, sources=["aops"], grade_range=(0.0, 0.2))
    assert only["problem_id"].to_list() == ["b" * 16]
    by_err = select_traces(summ, sort="first_error", descending=False)
    assert by_err["problem_id"].to_list()[:2] == ["d" * 16, "b" * 16]  # depth 3/8 then 4/8
    cells = overview_cells(a, picked.head(2), axis="ordinal")
    assert cells.height == 16 and cells["grid_row"].max() == 1
    # marked cells: trace b's collapse at prefix 4, trace d's drop at prefix 3 (0.8 -> 0.15)
    assert cells.filter(pl.col("sig_drop"))[["grid_row", "grid_col"]].rows() == [(0, 4), (1, 3)]
    dcells = overview_cells(a, picked.head(1), axis="depth", metric="change", n_depth_bins=4)
    assert dcells.height == 4
    assert dcells["val"].sum() == pytest.approx(0.1 - 0.85)


def test_attach_step_text_and_segments() -> None:
    x = "\U0001d465"
    parts = [f"Let {x} = 1.", "Wrong: 1 = 2.", f"So {x}\r\n= 1."]
    text = "\n\n".join(parts)

    def u(i: int) -> int:
        return len(text[:i].encode("utf-16-le")) // 2

    spans = []
    for k, p in enumerate(parts, start=1):
        i = text.index(p)
        spans.append((k, u(i), u(i + len(p))))
    spans.append((9, u(1), u(5) - 1))  # step 9: its end splits the pair of 𝑥
    series = series_from_values([0.8, 0.2, 0.2, 0.2]).with_columns(step=pl.Series([1, 2, 3, 9]))
    out = attach_step_text(series, text, spans)
    f = out.frame
    assert f["step_text"].to_list()[:3] == parts
    assert f["step_text"][3] is None and "surrogate pair" in f["span_issue"][3]
    assert any("1 of 4 step spans" in n for n in out.notes)
    segs = text_segments(text, f)
    assert "".join(text[a:b] for a, b, _, _ in segs) == text
    assert [text[a:b] for a, b, o, own in segs if own] == parts
    # the "\n\n" between two collected steps is the lead-in of the later prefix
    assert [(text[a:b], o) for a, b, o, own in segs if not own] == [("\n\n", 2), ("\n\n", 3)]


def test_shard_coverage() -> None:
    a = annotate(normalise(_frame_of(SHAPES)).frame)
    cov = shard_coverage(trace_summary(a), present={"aa", "cc"})
    assert cov["shard"].to_list() == ["aa", "bb", "cc", "dd", "ee"]
    assert cov["present"].to_list() == [True, False, True, False, False]
    assert cov["prefixes"].to_list() == [8] * 5


def test_relative_depth_sources() -> None:
    base = {"problem_id": [PID] * 4, "sample_index": [0] * 4, "mean_grade": [0.5] * 4}
    # stored relative depth wins
    f = normalise(
        pl.DataFrame({**base, "prefix_index": [0, 1, 2, 3], "rel_depth": [0.1, 0.4, 0.7, 1.0]})
    ).frame
    assert f["rel_depth"].to_list() == [0.1, 0.4, 0.7, 1.0] and f["step"].to_list() == [0, 1, 2, 3]
    # absolute depth with num_steps
    f = normalise(
        pl.DataFrame(
            {**base, "step_idx": [3, 6, 9, 12], "depth": [3, 6, 9, 12], "num_steps": [12] * 4}
        )
    ).frame
    assert f["rel_depth"].to_list() == [0.25, 0.5, 0.75, 1.0]
    # nothing but the step: the ordinal stands in, and a note says so
    norm = normalise(pl.DataFrame({**base, "step_index": [5, 1, 9, 7]}))
    assert norm.frame["step"].to_list() == [1, 5, 7, 9]  # ordered by step
    assert norm.frame["rel_depth"].to_list() == [0.25, 0.5, 0.75, 1.0]
    assert any("relative depth is the prefix ordinal" in n for n in norm.notes)
    assert any("assuming 32" in n for n in norm.notes)


# ---------------------------------------------------------------- one data set, two layouts
def test_std_column_or_histogram_only_give_the_same_flags() -> None:
    """The same grades stored with a std column (population std, as exported) and as histograms
    only: identical SE, z and drop/recovery flags. The third prefix's rise has z = 2.02 with the
    population std; a sample std (ddof=1) from the histogram made it 1.99, dropping the recovery."""
    hists = [comb({7: 32}), comb({4: 28, 7: 4}), comb({0: 7, 7: 25})]
    levels = np.arange(8) / 7
    grades = [
        np.repeat(levels, [h[int(b)] for b in GRADE_BINS]) for h in hists
    ]  # the grades the combs stand for
    keys = {"problem_id": [PID] * 3, "sample_index": [0] * 3, "step_idx": [2, 4, 6]}
    stored = pl.DataFrame(
        {
            **keys,
            "mean_grade": [g.mean() for g in grades],
            "std_grade": [g.std(ddof=0) for g in grades],
            "n_graded": [32] * 3,
            "grade_hist": hists,
        }
    )
    hist_only = pl.DataFrame({**keys, "grade_hist": hists})
    a = annotate(normalise(stored).frame)
    b = annotate(normalise(hist_only).frame)
    for col in ("value", "std", "n", "se", "change", "z"):
        assert b[col].to_list() == pytest.approx(a[col].to_list(), nan_ok=True), col
    for col in ("sig_drop", "sig_rise", "recovery", "first_error", "flags"):
        assert b[col].to_list() == a[col].to_list(), col
    assert a["recovery"].to_list() == [False, False, True]  # the case that used to flip
    assert 2.0 < a["z"][2] < 2.05
    sa, sb = trace_summary(a), trace_summary(b)
    assert sa["shape"].to_list() == sb["shape"].to_list() == ["drop then recovery"]
