"""The FineProofs lenses' rules, exact on a hand-built prefix table: significant drops and
recoveries under Benjamini-Hochberg per trace (not the per-test |z| > 2 rule), and bimodal
prefixes (both ends of the continuations' grades hold 25 %, the middle less than either)."""

from __future__ import annotations

import math

import polars as pl
from scipy.stats import norm

from analysis.fineproofs.lenses import LENSES, bimodal, recoveries, sharpest_drops
from analysis.fineproofs.values import N_CONTINUATIONS, annotate
from cache.lenses import item_query, run

Prefix = tuple[float | None, float, list[int] | None]  # value, SE, 20-bin histogram


def _table(traces: dict[tuple[str, int], list[Prefix]]) -> pl.DataFrame:
    rows = []
    for (pid, sample), prefixes in traces.items():
        for k, (value, se, hist) in enumerate(prefixes, start=1):
            rows.append(
                {
                    "problem_id": pid,
                    "sample_index": sample,
                    "step": k,
                    "ordinal": k,
                    "n_prefixes": len(prefixes),
                    "rel_depth": k / len(prefixes),
                    "value": value,
                    "std": se * math.sqrt(N_CONTINUATIONS),
                    "n": float(N_CONTINUATIONS),
                    "hist": hist,
                    "min_grade": None,
                    "max_grade": None,
                }
            )
    schema = {
        "problem_id": pl.String,
        "sample_index": pl.Int64,
        "step": pl.Int64,
        "ordinal": pl.Int64,
        "n_prefixes": pl.Int64,
        "rel_depth": pl.Float64,
        "value": pl.Float64,
        "std": pl.Float64,
        "n": pl.Float64,
        "hist": pl.List(pl.Int64),
        "min_grade": pl.Float64,
        "max_grade": pl.Float64,
    }
    return annotate(pl.DataFrame(rows, schema=schema))  # per-test flags; the lenses apply BH


SE = 0.03
BH_SE = 0.2 / (2.2 * math.sqrt(2))  # a fall of 0.2 at this SE has z = -2.2 (p 0.028)


def _changes() -> pl.DataFrame:
    return _table(
        {
            ("a", 0): [(0.9, SE, None), (0.2, SE, None)],  # a sharp fall
            ("b", 0): [(0.9, SE, None), (0.8, SE, None)],  # significant, but under 0.15
            # z = -2.2 passes |z| > 2 alone, not BH over the trace's 5 tests (0.028 > 0.05/5)
            ("c", 0): [(0.5, BH_SE, None)] * 5 + [(0.3, BH_SE, None)],
            ("d", 1): [(0.9, SE, None), (0.3, SE, None), (0.85, SE, None)],  # fall, recovery
            ("e", 0): [(0.2, SE, None), (0.9, SE, None)],  # a rise with no fall before it
        }
    )


def test_sharpest_drops_are_bh_significant_falls_of_at_least_0_15_largest_first() -> None:
    a = _changes()
    c = a.filter(pl.col("problem_id") == "c")
    assert c["sig_drop"].any()  # the per-test rule flags c; the lens does not
    out = sharpest_drops(a)
    assert out.select("problem_id", "sample_index", "ordinal").rows() == [("a", 0, 2), ("d", 1, 2)]
    p = 2 * norm.sf(0.7 / (SE * math.sqrt(2)))  # an independent two-sided p
    assert out["why"][0] == f"value 0.9 → 0.2 (-0.7), z -16.5, p {p:.1e}"
    assert out["label"][0] == "a #0 · prefix 2"


def test_recoveries_are_bh_significant_rises_after_a_significant_drop() -> None:
    out = recoveries(_changes())
    assert out.select("problem_id", "sample_index", "ordinal").rows() == [("d", 1, 3)]


def _hist(low: int, mid: int, high: int) -> list[int]:
    h = [0] * 20
    h[0], h[11], h[19] = low, mid, high  # grades 0, 4/7, 1
    return h


def test_bimodal_needs_both_ends_at_25_percent_and_a_valley_between() -> None:
    a = _table(
        {
            ("p", 0): [
                (0.5, SE, _hist(12, 8, 12)),  # 37.5 / 25 / 37.5: found
                (0.5, SE, _hist(8, 16, 8)),  # 25 / 50 / 25: both ends, no valley
                (0.3, SE, _hist(16, 10, 6)),  # high end 18.75 %: not
                (0.5, SE, None),  # no histogram: not looked at
                (0.6, SE, _hist(10, 6, 16)),  # 31 / 19 / 50: found, less even
            ]
        }
    )
    out = bimodal(a)
    assert out["ordinal"].to_list() == [1, 5]
    assert out["why"].to_list() == [
        "32 continuations: 38 % below 0.25, 38 % from 0.75, 25 % between",
        "32 continuations: 31 % below 0.25, 50 % from 0.75, 19 % between",
    ]
    lens = next(x for x in LENSES.lenses if x.id == "fineproofs-bimodal")
    items, n = run(lens, a)
    assert (items.height, n) == (2, 4)


def test_the_items_open_the_trace_tab_at_the_prefix_with_the_bh_flags() -> None:
    lens = next(x for x in LENSES.lenses if x.id == "fineproofs-sharpest-drops")
    items, n = run(lens, _changes())
    assert n == 1 + 1 + 5 + 2 + 1  # every change between valued prefixes is a test
    assert item_query(lens, items.row(0, named=True)) == (
        ("view", "Trace"),
        ("fdr", "true"),
        ("problem", "a"),
        ("sample", "0"),
        ("prefix", "2"),
    )
