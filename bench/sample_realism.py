"""How realistic the bundled sample is: the statistics the sample generators are tuned to.

Builds the sample (once, in the cache folder) and its derived tables, then prints:

- MARS: per confidence signal of the feature table (`min_group`, `bottom_10`, `tail_conf`,
  `mean_conf`), the distribution of the per-question AUROC of right vs wrong traces (a trace
  without a final answer counts as wrong), over the questions with both classes: n, min,
  quartiles, median, max, share < 0.5, share == 1.0, over all 9 files (all drawn in the
  overlapping style); the share of traces whose probed answer flips, and of traces that converge
  late;
- FineProofs: traces with a recovery, with a flagged drop, and flagged drops on traces that end
  right (false drops);
- Parason: 1x/8x pairs whose 8x row has extra Trials, by whether its critical path C is longer.

    python bench/sample_realism.py

The statistic functions are pure (`cache/sample/realism.py`); tests/cache/test_sample_realism.py
holds the same figures in range.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from analysis.fineproofs.store import traces_table  # noqa: E402
from analysis.mars.store import load_features  # noqa: E402
from analysis.parason.store import metrics_table  # noqa: E402
from cache.sample import ensure_sample  # noqa: E402
from cache.sample.mars import FILES  # noqa: E402
from cache.sample.realism import (  # noqa: E402
    DropOutcomes,
    PathChanges,
    ProbeDynamics,
    Spread,
    drop_outcomes,
    path_changes,
    per_question_auroc,
    probe_dynamics,
    spread,
)

SIGNALS = ("min_group", "bottom_10", "tail_conf", "mean_conf")
_COLUMNS = ["qid", "final_correct", "final_group", "probe_group", *SIGNALS]


@dataclass(frozen=True)
class MarsRealism:
    """Per-signal AUROC spreads over all 9 files, and probe dynamics."""

    all_files: dict[str, Spread]
    dynamics: ProbeDynamics


def mars_realism(mars_root: Path) -> MarsRealism:
    """The MARS statistics from the feature tables of the 9 sample files."""
    every: dict[str, list[float]] = {s: [] for s in SIGNALS}
    groups: list[list[int]] = []
    finals: list[int] = []
    for rel, *_ in FILES:
        f = load_features(mars_root / rel, with_lows=False, columns=_COLUMNS).features
        qid = f["qid"].to_numpy()
        right = f["final_correct"].fill_null(False).to_numpy()
        for s in SIGNALS:
            every[s] += list(per_question_auroc(qid, right, f[s].to_numpy()).values())
        groups += f["probe_group"].to_list()
        finals += f["final_group"].to_list()
    return MarsRealism(
        all_files={s: spread(v) for s, v in every.items()},
        dynamics=probe_dynamics(groups, finals),
    )


def fineproofs_realism(fineproofs_root: Path) -> DropOutcomes:
    """Recoveries and false drops from the FineProofs trace summary."""
    t = traces_table(fineproofs_root / "data" / "prefix_values.parquet")
    return drop_outcomes(
        t["n_sig_drops"].to_list(), t["n_recoveries"].to_list(), t["endpoint"].to_list()
    )


def parason_realism(parason_root: Path) -> PathChanges:
    """1x/8x pairs (same uuid) whose 8x row has more branches, by C_8x > C_1x or not; and over
    every pair, the verdicts that changed."""

    def side(sub: str) -> pl.DataFrame:
        t = metrics_table(parason_root / sub / "train.parquet")
        return t.select("uuid", "C", "correctness", n_branches=pl.col("branches").list.sum())

    pairs = side("sft-1x").join(side("sft-8x"), on="uuid", suffix="_8x")
    grown = pairs.filter(pl.col("n_branches_8x") > pl.col("n_branches"))
    counts = path_changes(grown["C"].to_numpy(), grown["C_8x"].to_numpy())
    flips = path_changes(
        pairs["C"].to_numpy(),
        pairs["C_8x"].to_numpy(),
        pairs["correctness"].fill_null(False).to_list(),
        pairs["correctness_8x"].fill_null(False).to_list(),
    )
    return PathChanges(
        counts.n_pairs,
        counts.n_longer,
        counts.n_not_longer,
        flips.n_right_to_wrong,
        flips.n_wrong_to_right,
    )


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f} %"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def _spread_lines(title: str, spreads: dict[str, Spread]) -> list[str]:
    out = [
        title,
        f"  {'signal':<10} {'n':>4} {'min':>5} {'q1':>5} {'median':>6} {'q3':>5} {'max':>5}"
        f" {'<0.5':>6} {'==1.0':>6}",
    ]
    for s, v in spreads.items():
        out.append(
            f"  {s:<10} {v.n:>4} {_num(v.min):>5} {_num(v.q1):>5} {_num(v.median):>6} "
            f"{_num(v.q3):>5} {_num(v.max):>5} {_pct(v.share_below_half):>6} {_pct(v.share_one):>6}"
        )
    return out


def report(root: Path | None = None) -> str:
    """The realism statistics of the sample under `root` (default: build/read the cached one)."""
    roots = {d: (root / d if root else ensure_sample(d)) for d in ("mars", "fineproofs", "parason")}
    m = mars_realism(roots["mars"])
    fp = fineproofs_realism(roots["fineproofs"])
    pc = parason_realism(roots["parason"])
    d = m.dynamics
    lines = [
        *_spread_lines(
            "MARS per-question AUROC (right vs wrong traces), all 9 files:", m.all_files
        ),
        f"MARS answer flips: {d.n_flip} of {d.n_traces} traces with >= 2 answered probes "
        f"({_pct(d.n_flip / d.n_traces if d.n_traces else None)})",
        f"MARS late convergence: {d.n_late} of {d.n_final} traces with a final answer and >= 4 "
        f"probes ({_pct(d.n_late / d.n_final if d.n_final else None)}) hold it only from the "
        "second-to-last probe on",
        f"FineProofs: {fp.n_traces} traces, {fp.n_recovery} with a recovery, {fp.n_dropped} with a "
        f"flagged drop, {fp.n_false_drop} of them ending right (endpoint grade >= 0.5)",
        f"Parason: {pc.n_pairs} 1x/8x pairs with extra Trials: C_8x > C_1x on {pc.n_longer}, "
        f"not on {pc.n_not_longer}; over every pair, right -> wrong on {pc.n_right_to_wrong}, "
        f"wrong -> right on {pc.n_wrong_to_right}",
    ]
    return "\n".join(lines)


def main() -> int:
    np.seterr(all="ignore")
    print(report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
