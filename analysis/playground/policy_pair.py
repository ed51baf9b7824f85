"""Two policies on the same bootstrap samples: per question the paired difference in accuracy
and tokens, overall the paired difference with its 95 % interval, and an exact McNemar test on
the per-iteration right/wrong pairs.

Why paired: iteration i of question q draws the same traces under every policy
(`bootstrap.bootstrap_rows`), so the two policies' outcomes on it differ only by the rule. The
McNemar test uses only the discordant pairs (A right and B wrong: `a_only`; the reverse:
`b_only`); under "no difference" each is equally likely, so the exact two-sided p-value is the
binomial tail of the smaller count, doubled and capped at 1. The pairs are iterations of a
bootstrap, which reuse a question's traces, so the test treats them as independent when they
are not: the paired interval, which resamples questions, is the figure to trust for the size of
the difference; the p-value says how surprising the split of discordant pairs is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.playground.results import RunResult
from analysis.playground.uncertainty import B_DEFAULT, SEED_DEFAULT, Interval, paired_comparison


@dataclass(frozen=True)
class McNemar:
    a_only: int  # iterations A gets right and B wrong
    b_only: int  # iterations B gets right and A wrong
    p_value: float  # exact two-sided; 1.0 when there is no discordant pair


@dataclass(frozen=True)
class PolicyPair:
    accuracy: Interval  # A - B, percentage points
    tokens: Interval  # A - B, tokens per iteration
    mcnemar: McNemar
    a_wins: int  # questions where A is more accurate over their iterations
    b_wins: int
    ties: int
    per_question: pd.DataFrame


def mcnemar_exact(a_only: int, b_only: int) -> McNemar:
    """Exact two-sided McNemar test from the discordant counts."""
    n = a_only + b_only
    if n == 0:
        return McNemar(a_only, b_only, 1.0)
    k = min(a_only, b_only)
    # exact integers, divided once: 2.0**n overflows a float past n = 1,023 discordant pairs
    # (512 questions x 64 iterations hold thousands); int / int is correctly rounded
    term = total = 1  # C(n, 0)
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    return McNemar(a_only, b_only, min(1.0, 2 * total / (1 << n)))


def _aligned(a: RunResult, b: RunResult) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(qid, A's row indices, B's row indices) for the iterations both runs have, by index."""
    b_by = {r.qid: r for r in b.questions}
    out = []
    for ra in sorted(a.questions, key=lambda r: r.qid):
        rb = b_by.get(ra.qid)
        if rb is None:
            continue
        common, ia, ib = np.intersect1d(ra.iterations, rb.iterations, return_indices=True)
        if common.size:
            out.append((ra.qid, ia, ib))
    return out


def compare_policies(
    a: RunResult, b: RunResult, n_boot: int = B_DEFAULT, seed: int = SEED_DEFAULT
) -> PolicyPair:
    """A against B on the iterations both ran (same question, same iteration index)."""
    a_by = {r.qid: r for r in a.questions}
    b_by = {r.qid: r for r in b.questions}
    acc_a, acc_b, tok_a, tok_b, rows = {}, {}, {}, {}, []
    a_only = b_only = 0
    for qid, ia, ib in _aligned(a, b):
        ra, rb = a_by[qid], b_by[qid]
        ca, cb = ra.correct[ia].astype(bool), rb.correct[ib].astype(bool)
        ta, tb = ra.tokens[ia].astype(np.float64), rb.tokens[ib].astype(np.float64)
        acc_a[qid], acc_b[qid] = 100.0 * ca, 100.0 * cb
        tok_a[qid], tok_b[qid] = ta, tb
        a_only += int((ca & ~cb).sum())
        b_only += int((cb & ~ca).sum())
        differ = np.flatnonzero(ca != cb)
        rows.append(
            {
                "qid": qid,
                "iterations": int(ia.size),
                "accuracy_a_pct": float(ca.mean() * 100),
                "accuracy_b_pct": float(cb.mean() * 100),
                "accuracy_diff_pp": float((ca.astype(float) - cb).mean() * 100),
                "tokens_a": float(ta.mean()),
                "tokens_b": float(tb.mean()),
                "tokens_diff": float((ta - tb).mean()),
                "a_only": int((ca & ~cb).sum()),
                "b_only": int((cb & ~ca).sum()),
                # the first iteration where one is right and the other wrong (the replay's `it`)
                "first_differing_iteration": int(ra.iterations[ia[differ[0]]])
                if differ.size
                else None,
            }
        )
    acc = paired_comparison(acc_a, acc_b, n_boot, seed)
    tok = paired_comparison(tok_a, tok_b, n_boot, seed)
    per_q = pd.DataFrame(rows)
    return PolicyPair(
        accuracy=acc.diff,
        tokens=tok.diff,
        mcnemar=mcnemar_exact(a_only, b_only),
        a_wins=acc.wins,
        b_wins=acc.losses,
        ties=acc.ties,
        per_question=per_q,
    )


def a_loses(pair: PolicyPair) -> pd.DataFrame:
    """The questions where A is less accurate than B, worst first."""
    df = pair.per_question
    if df.empty:
        return df
    lost = df[df["accuracy_diff_pp"] < -1e-9]
    return lost.sort_values(["accuracy_diff_pp", "qid"], kind="stable").reset_index(drop=True)
