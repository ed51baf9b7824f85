"""The Trace tab's sentences: an unclamped drop share, and the count of z-tests with what the
chosen rule means for chance flags (exact strings)."""

from __future__ import annotations

import re

import polars as pl

from analysis.fineproofs.multitest import flag_burden
from analysis.fineproofs.values import series_from_values, trace_summary
from components.fineproofs.phrases import (
    change_phrase,
    counts_phrase,
    drop_share_phrase,
    multiple_tests_note,
)
from components.fineproofs.tables import cell, formatted, styled


def test_a_drop_larger_than_the_whole_fall_reads_as_more_than_100_percent() -> None:
    # 0.83 -> 0.94 -> 0.025 -> 0.04: fell 0.790, largest single drop 0.915 = 115.8 % of it
    (r,) = trace_summary(series_from_values([0.83, 0.94, 0.025, 0.04], [0.02] * 4)).iter_rows(
        named=True
    )
    assert change_phrase(r["total_decline"]) == "value fell by 0.790 from first to last prefix"
    assert drop_share_phrase(r["largest_drop"], r["drop_share"]) == (
        "the largest single drop (0.915) is 115.8% of that first-to-last fall "
        "(more than all of it: the value also rose, before or after that drop)"
    )
    assert drop_share_phrase(0.5, 0.625) == (
        "the largest single drop (0.500) is 62.5% of that first-to-last fall"
    )
    assert drop_share_phrase(None, None) == ""
    assert counts_phrase(1, 1, 3) == "1 significant drop, 1 recovery, 3 bimodal prefixes"
    assert counts_phrase(0, 2, 1) == "0 significant drops, 2 recoveries, 1 bimodal prefix"


def test_the_note_counts_the_tests_and_the_chance_flags() -> None:
    b = flag_burden([None, -3.0, -2.1, 0.5, 0.1, 0.2, -0.4, 1.0])  # 7 tests
    assert multiple_tests_note(b, "none", 0.05) == (
        "This trace makes 7 z-tests, one per change between consecutive prefixes with a value. "
        "Each test alone flags a change with probability 4.6% (|z| > 2) when the value does not "
        "move, so about 0.32 chance flags per trace like this one and a 27.8% chance of at least "
        "one, before the |change| ≥ 0.15 floor. The Benjamini-Hochberg switch above corrects "
        "them together."
    )
    assert multiple_tests_note(b, "bh", 0.05) == (
        "This trace makes 7 z-tests, one per change between consecutive prefixes with a value. "
        "Benjamini-Hochberg is on: a change is flagged when its test survives the correction "
        "over these 7 z-tests at a false discovery rate of 5.0% (and |change| ≥ 0.15)."
    )
    assert multiple_tests_note(flag_burden([None]), "none", 0.05).startswith("No z-test")


def test_shown_tables_have_fixed_decimals_dashes_and_no_negative_zero() -> None:
    df = pl.DataFrame(
        {"z": [-41.33721, None, float("nan"), -0.0001, float("-inf")],
         "change": [-0.0002, 0.25, None, -0.5, 0.0], "ordinal": [1, 2, 3, 4, 5],
         "step": [1, None, 3, 4, 5], "span_issue": [None, "bad", None, None, None],
         "value": [0.12345, None, 1.0, 0.5, 0.25]}
    )  # fmt: skip
    out = formatted(df, {"z": "+.2f", "change": "+.3f", "absent": ".1f"})
    assert out["z"].to_list() == ["-41.34", "–", "–", "+0.00", "−∞"]
    assert out["change"].to_list() == ["+0.000", "+0.250", "–", "-0.500", "+0.000"]
    assert out["ordinal"].to_list() == [1, 2, 3, 4, 5]  # no nulls: stays a number
    assert out["step"].to_list() == ["1", "–", "3", "4", "5"]
    cells = re.findall(r"<td [^>]*>([^<]*)</td>", styled(df, {"z": "+.2f"}).to_html())
    assert cells[:6] == ["-41.34", "0.000", "1", "1", "–", "0.123"]  # row 0; no "-0.000"
    assert "None" not in cells and "nan" not in cells and cells.count("–") == 9
    assert out["span_issue"].to_list() == ["–", "bad", "–", "–", "–"]
    assert out["value"].to_list() == ["0.123", "–", "1.000", "0.500", "0.250"]  # unlisted: .3f
    assert cell(-0.004, ".2f") == "0.00" and cell(-0.001, ".0%") == "0%"
