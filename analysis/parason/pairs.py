"""The 1x vs 8x comparison as pure functions: one pair's headline and stage rows, and the
subset-level distribution of ΔC, ΔT and correctness changes over every paired row.

Why the ratios: a speedup T/C rises when extra Trials inflate T even if they lengthen the critical
path C, so "speedup 1.25× → 1.61×" alone rewards wasted work. The latency that matters is C, so
the table shows C_8x / C_1x (above 1: the 8x row is slower) and T_1x / C_8x (the 8x row's latency
against the 1x row's sequential work); a change of a ratio is itself a ratio (8x / 1x), never a
difference of ratios.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from analysis.parason.metrics import Metrics
from analysis.parason.parse import Trajectory

Z95 = 1.959963984540054  # two-sided 95 % normal quantile (Wilson interval)


@dataclass(frozen=True, slots=True)
class PairRow:
    """One headline figure of both rows. `style`: "tokens", "x" (a ratio) or "%"; `change` is
    the 8x/1x ratio when `change_kind` is "ratio", the 8x − 1x difference when "diff" (points
    for "%" figures); `verdict` says which way a latency moved ("slower", "faster", "same")."""

    metric: str
    one: float | None
    eight: float | None
    style: str
    change: float | None
    change_kind: str
    verdict: str = ""


def _ratio(a: float | None, b: float | None) -> float | None:
    """a / b, None when undefined (a missing value or b = 0)."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def latency_verdict(c_ratio: float | None) -> str:
    """What C_8x / C_1x says about the 8x row's latency."""
    if c_ratio is None:
        return ""
    if c_ratio > 1:
        return "slower"
    return "faster" if c_ratio < 1 else "same"


def pair_rows(m1: Metrics, m8: Metrics) -> list[PairRow]:
    """The headline rows of the 1x vs 8x table (definitions in docs/formats/parason.md)."""
    c_ratio = _ratio(m8.C, m1.C)
    lat1, lat8 = _ratio(m1.T, m1.C), _ratio(m1.T, m8.C)
    return [
        PairRow("tokens T (compute)", m1.T, m8.T, "tokens", _diff(m1.T, m8.T), "diff"),
        PairRow(
            "critical path C (latency)",
            m1.C,
            m8.C,
            "tokens",
            c_ratio,
            "ratio",
            latency_verdict(c_ratio),
        ),
        PairRow(
            "speedup T / C (own row)",
            m1.speedup,
            m8.speedup,
            "x",
            _ratio(m8.speedup, m1.speedup),
            "ratio",
        ),
        PairRow(
            "T_1x / C (vs 1x work)",
            lat1,
            lat8,
            "x",
            _ratio(lat8, lat1),
            "ratio",
            latency_verdict(_ratio(lat1, lat8)),
        ),
        PairRow(
            "parallel ratio",
            m1.parallel_ratio,
            m8.parallel_ratio,
            "%",
            _diff(m1.parallel_ratio, m8.parallel_ratio),
            "diff",
        ),  # fmt: skip
        PairRow(
            "trial ratio",
            m1.trial_ratio,
            m8.trial_ratio,
            "%",
            _diff(m1.trial_ratio, m8.trial_ratio),
            "diff",
        ),  # fmt: skip
        PairRow("stages", m1.stages, m8.stages, "n", float(m8.stages - m1.stages), "diff"),
        PairRow(
            "total branches",
            float(sum(m1.branches)),
            float(sum(m8.branches)),
            "n",
            float(sum(m8.branches) - sum(m1.branches)),
            "diff",
        ),
    ]


@dataclass(frozen=True, slots=True)
class PairStage:
    """One stage (`<Parallel>` block, 0-based `stage`) of both rows; a 1x figure is None where
    the 1x row has no such stage. Costs are s_b + the longest thread's critical tokens."""

    stage: int
    kind: str
    join: str
    branches_1x: int | None
    branches_8x: int
    added: int
    cost_1x: float | None
    cost_8x: float
    longest_1x: float | None
    longest_8x: float
    speedup_1x: float | None
    speedup_8x: float

    @property
    def speedup_change(self) -> float | None:
        """Stage speedup 8x / 1x."""
        return _ratio(self.speedup_8x, self.speedup_1x)

    @property
    def cost_change(self) -> float | None:
        """Stage cost (its share of C) 8x / 1x."""
        return _ratio(self.cost_8x, self.cost_1x)


def pair_stages(m1: Metrics, m8: Metrics, traj8: Trajectory, added: set[str]) -> list[PairStage]:
    """Per 8x stage: branches, added branches, stage cost, longest thread and stage speedup
    (s + Σt) / (s + max t) of both rows."""
    out = []
    for k, s8 in enumerate(m8.stage_stats):
        s1 = m1.stage_stats[k] if k < len(m1.stage_stats) else None
        threads = traj8.blocks[k].threads if k < len(traj8.blocks) else []
        out.append(
            PairStage(
                stage=k,
                kind=s8.kind,
                join=s8.join_type,
                branches_1x=s1.branches if s1 else None,
                branches_8x=s8.branches,
                added=sum(t.node in added for t in threads),
                cost_1x=s1.critical if s1 else None,
                cost_8x=s8.critical,
                longest_1x=max(s1.thread_tokens, default=0.0) if s1 else None,
                longest_8x=max(s8.thread_tokens, default=0.0),
                speedup_1x=s1.block_speedup if s1 else None,
                speedup_8x=s8.block_speedup,
            )
        )
    return out


# ---------------------------------------------------------------- every paired row
CHANGES = ("right → wrong", "wrong → right", "same", "unknown")


def correctness_change(one: object, eight: object) -> str:
    """How the verdict moved from the 1x to the 8x row; "unknown" when either is missing."""
    if not isinstance(one, bool) or not isinstance(eight, bool):
        return "unknown"
    if one == eight:
        return "same"
    return "right → wrong" if one else "wrong → right"


def paired_table(t1: pl.DataFrame, t8: pl.DataFrame) -> pl.DataFrame:
    """One row per uuid present in both metrics tables: T, C and correctness of both rows, ΔT,
    ΔC, C_8x / C_1x and the correctness change (first row of a uuid when one repeats)."""
    cols = ["uuid", "T", "C", "correctness"]
    a = t1.select(cols).unique("uuid", keep="first", maintain_order=True)
    b = t8.select(cols).unique("uuid", keep="first", maintain_order=True)
    j = a.join(b, on="uuid", suffix="_8x").rename(
        {"T": "T_1x", "C": "C_1x", "correctness": "correct_1x", "correctness_8x": "correct_8x"}
    )
    return j.with_columns(
        (pl.col("T_8x") - pl.col("T_1x")).alias("dT"),
        (pl.col("C_8x") - pl.col("C_1x")).alias("dC"),
        pl.when(pl.col("C_1x") > 0)
        .then(pl.col("C_8x") / pl.col("C_1x"))
        .otherwise(None)
        .alias("C_ratio"),
        pl.struct("correct_1x", "correct_8x")
        .map_elements(
            lambda r: correctness_change(r["correct_1x"], r["correct_8x"]), return_dtype=pl.String
        )
        .alias("change"),
    )


def median_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """Exact distribution-free interval for the median from order statistics: [x_(k), x_(n+1-k)]
    with the largest k whose binomial(n, 1/2) tail P(B < k) is at most (1 - level) / 2, so the
    coverage is at least `level`. None when n is too small for any such k (n < 6 at 95 %)."""
    xs = sorted(v for v in values if v is not None and math.isfinite(v))
    n = len(xs)
    if n == 0:
        return None
    alpha = (1.0 - level) / 2
    tail = 0.0
    k = 0
    for i in range(n):  # tail = P(B <= i)
        tail += math.comb(n, i) / 2.0**n
        if tail > alpha:
            break
        k = i + 1
    if k == 0:
        return None
    return xs[k - 1], xs[n - k]


def wilson(successes: int, n: int) -> tuple[float, float] | None:
    """95 % Wilson score interval of a proportion; None when n = 0."""
    if n <= 0:
        return None
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class Spread:
    """n, median and the exact 95 % interval of the median of one paired difference."""

    name: str
    style: str  # "tokens" | "x"
    n: int
    median: float | None
    low: float | None
    high: float | None
    share_up: float | None  # share of pairs above 0 (a difference) or above 1 (a ratio)


def _spread(name: str, style: str, values: list[float], pivot: float) -> Spread:
    xs = sorted(v for v in values if v is not None and math.isfinite(v))
    n = len(xs)
    med = None
    if n:
        med = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    ci = median_ci(xs)
    return Spread(
        name,
        style,
        n,
        med,
        ci[0] if ci else None,
        ci[1] if ci else None,
        (sum(v > pivot for v in xs) / n) if n else None,
    )


def pair_spreads(pairs: pl.DataFrame) -> list[Spread]:
    """ΔC (latency added), C_8x / C_1x and ΔT (compute added) over the paired rows."""
    return [
        _spread("ΔC = C_8x − C_1x", "tokens", pairs["dC"].to_list(), 0.0),
        _spread("C_8x / C_1x", "x", pairs["C_ratio"].to_list(), 1.0),
        _spread("ΔT = T_8x − T_1x", "tokens", pairs["dT"].to_list(), 0.0),
    ]


@dataclass(frozen=True, slots=True)
class ChangeCount:
    """How many pairs moved one way, over the pairs whose verdicts are both known."""

    change: str
    count: int
    n: int
    low: float | None
    high: float | None


def change_counts(pairs: pl.DataFrame) -> list[ChangeCount]:
    """Right → wrong, wrong → right and same, each with its 95 % Wilson interval over the
    pairs with both verdicts known; "unknown" counts the rest (no interval)."""
    counts = dict.fromkeys(CHANGES, 0)
    for c in pairs["change"].to_list():
        counts[c if c in counts else "unknown"] += 1
    known = pairs.height - counts["unknown"]
    out = []
    for c in CHANGES:
        ci = wilson(counts[c], known) if c != "unknown" else None
        out.append(
            ChangeCount(
                c, counts[c], known if c != "unknown" else pairs.height, *(ci or (None, None))
            )
        )
    return out
