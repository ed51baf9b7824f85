"""The playground's data notes and headline metrics.

Notes arrive typed from the engine (`analysis.playground.notes`); this module words the ones
the reader should see per question (data problems, a warning list) or once for all questions
(informational, an `st.info` line), by code. Every note stays in the "All notes" table."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
import streamlit as st

from analysis.playground import NoteCode, RunResult
from analysis.playground.params import DEFAULT_SETTINGS
from analysis.playground.uncertainty import Interval, bootstrap_interval
from components.common.formatting import DASH, fmt_interval, fmt_num
from components.common.lazy_expander import lazy_expander
from components.common.safe_text import esc
from components.common.stat_row import StatRow

# per-question explanations of data problems, in the order the list shows them
WARN_TEXT: dict[NoteCode, str] = {
    NoteCode.NO_ANSWER: (
        "no non-null answer: every iteration answers nothing (counted wrong, 0 tokens)"
    ),
    NoteCode.SMALL_POOL: "pool smaller than the warmup: the warmup set is the whole pool",
    NoteCode.NONFINITE_CONFS: (
        "NaN/inf confidences: the feature store ignores those tokens (the published simulator "
        "would let one poison every later window)"
    ),
    NoteCode.NONFINITE_FEATURES: (
        "non-finite confidence features: kept as the published simulator does (no DeepConf "
        "eligibility, no MARS stop)"
    ),
    NoteCode.NONFINITE_THRESHOLD: "NaN DeepConf threshold: no trace is eligible there",
    NoteCode.EMPTY_GRID: (
        "empty checkpoint grid (every trace shorter than 2,048 tokens): no early stop possible"
    ),
    NoteCode.GAMMA_FEW_WARMUP: "fewer than 4 warmup traces: gamma = 1",
}
# informational notes, one line for all questions: `where` (which questions), `budget`, `pool`
INFO_TEXT: dict[NoteCode, str] = {
    NoteCode.BUDGET_ABOVE_POOL: (
        "{where}: budget {budget} > pool of {pool} traces: sampled with replacement (allowed, as "
        "in the published simulator; some traces are drawn several times in an iteration)"
    ),
}


def _where(qids: list[int], n_total: int) -> str:
    if len(qids) == n_total and n_total > 1:
        return f"Every question ({n_total})"
    shown = ", ".join(f"Q{q}" for q in qids[:12])
    return shown + (f" and {len(qids) - 12} more" if len(qids) > 12 else "")


def show_notes(run: RunResult) -> None:
    """Say what happened on bad input, per question (our text; dataset text escaped), and the
    informational notes (budget above the pool) in one line each."""
    lines = []
    for r in run.questions:
        codes = {n.code for n in r.notes if not n.info}
        lines += [f"Q{r.qid}: {text}" for code, text in WARN_TEXT.items() if code in codes]
    for code, text in INFO_TEXT.items():
        hit = [r for r in run.questions if any(n.code == code for n in r.notes)]
        if not hit:
            continue
        lo, hi = min(r.n_pool for r in hit), max(r.n_pool for r in hit)
        st.info(
            text.format(
                where=_where([r.qid for r in hit], len(run.questions)),
                budget=run.settings.budget,
                pool=f"{lo}" if lo == hi else f"{lo}–{hi}",
            ),
            icon="ℹ️",
        )
    if lines:
        items = "".join(f"<li>{esc(x)}</li>" for x in lines[:30])
        more = f"<li>… and {len(lines) - 30} more</li>" if len(lines) > 30 else ""
        st.warning(f"{len(lines)} data notes affect this simulation (details below).", icon="⚠️")
        st.html(f"<ul style='margin-top:0'>{items}{more}</ul>")
    all_notes = [(r.qid, n.message) for r in run.questions for n in r.notes]
    if all_notes:
        with lazy_expander(f"All notes ({len(all_notes)})", (), "pg_notes_open") as draw:
            if draw:  # a closed data grid still costs a new tab its chunk and layout
                st.dataframe(
                    pd.DataFrame(all_notes, columns=["qid", "note"]),
                    hide_index=True,
                    width="stretch",
                    placeholder=DASH,
                )


def untruncated_savings(cur: RunResult, sc: RunResult) -> list[np.ndarray] | None:
    """Per question, each iteration's token savings (%) of `cur` against the *untruncated*
    cost of the same bootstrap sample: SC at full budget draws the same traces (same seed,
    budget, iterations), and its baseline is `sum_j len_j`. None when the two runs do not line
    up (other questions or iterations), so the page omits the number rather than show a wrong
    one."""
    by_q = {r.qid: r for r in sc.questions}
    out = []
    for r in cur.questions:
        s = by_q.get(r.qid)
        if s is None or not np.array_equal(s.iterations, r.iterations):
            return None
        if not r.tokens.size:
            continue
        base = s.baseline.astype(np.float64)
        frac = np.divide(
            base - r.tokens, base, out=np.zeros_like(base), where=base > 0
        )  # 0 where nothing was sampled, as the published accounting
        out.append(frac * 100)
    return out


def untruncated_savings_pct(cur: RunResult, sc: RunResult) -> float | None:
    """Mean over questions of the mean untruncated savings (%) (`untruncated_savings`)."""
    per_q = untruncated_savings(cur, sc)
    return float(np.mean([float(v.mean()) for v in per_q])) if per_q else None


def untruncated_text(cur: RunResult, sc: RunResult) -> str | None:
    """ "31.2 % (95 % CI [29.0, 33.1] %)", with the two-level bootstrap interval; None when
    the runs do not line up."""
    per_q = untruncated_savings(cur, sc)
    if not per_q:
        return None
    iv = bootstrap_interval(per_q)
    return f"{fmt_num(iv.estimate, '.1f')} % (95 % CI {fmt_interval(iv.lo, iv.hi, unit=' %')})"


def stopped_early(run: RunResult) -> tuple[int, int]:
    """(iterations stopped before the budget, all iterations) over every question."""
    n = int(sum((r.stopped_by != "budget").sum() for r in run.questions))
    return n, int(sum(r.stopped_by.shape[0] for r in run.questions))


CI_METHOD = (
    "95 % intervals: two-level bootstrap over the {n_q} questions and the {n_i} iterations of "
    "each (resample questions with replacement, then each drawn question's iterations with "
    "replacement; percentile interval of B = {b:,} replicates, seed {seed}). The difference "
    "with SC is paired: the same iterations draw the same traces under both policies."
)
PREVIEW_WIDE = (
    " **Quick preview: only {n_i} iterations per question, so the intervals carry the extra "
    "noise of so few iterations and are wider than a full run's**; turn the preview off for "
    "the published {full}."
)


def delta_color(diff: Interval) -> Literal["normal", "off"]:
    """Green/red only for a difference whose interval excludes 0; grey otherwise."""
    return "off" if diff.covers_zero else "normal"


def show_summary(cur: RunResult, sc: RunResult, preview: bool = False) -> None:
    """The headline figures, each with its 95 % interval, and the paired comparison with SC."""
    acc, sav = cur.accuracy_interval, cur.savings_interval
    cmp = cur.paired_with(sc)
    d = cmp.diff
    row = StatRow()  # wraps instead of cutting at 1024 px
    row.metric(
        f"accuracy · 95 % CI {fmt_interval(acc.lo, acc.hi, unit=' %')}",
        f"{fmt_num(acc.estimate, '.1f')}%",
        f"{fmt_num(d.estimate, '+.1f')} pp vs SC, 95 % CI {fmt_interval(d.lo, d.hi, '+.1f')}",
        delta_color=delta_color(d),
        delta_arrow="off" if d.covers_zero else "auto",
        help="mean over questions of each question's accuracy over the bootstrap iterations; "
        "the difference with SC is grey when its interval covers 0 (no clear win or loss)",
    )
    row.metric(
        f"mean token savings · 95 % CI {fmt_interval(sav.lo, sav.hi, unit=' %')}",
        f"{fmt_num(sav.estimate, '.1f')}%",
    )
    row.metric(
        "questions vs SC: better / worse / same",
        f"{cmp.wins} / {cmp.losses} / {cmp.ties}",
        help="per question, the policy's accuracy over the iterations against SC's on the same "
        "iterations: higher, lower or equal",
    )
    n, total = stopped_early(cur)
    row.metric(
        "stopped early",
        f"{n:,} / {total:,}",
        f"{fmt_num(100 * n / total, '.0f')}% of iterations" if total else None,
        delta_color="off",
        delta_arrow="off",
        help="bootstrap iterations (all questions) that a rule stopped before the full budget",
    )
    row.metric("iterations × questions", f"{cur.settings.iterations} × {len(cur.questions)}")
    row.draw("pg_summary", label="The run's headline figures")
    st.caption(
        CI_METHOD.format(n_q=acc.n_questions, n_i=acc.n_iterations, b=acc.b, seed=acc.seed)
        + (
            PREVIEW_WIDE.format(n_i=acc.n_iterations, full=DEFAULT_SETTINGS.iterations)
            if preview
            else ""
        )
    )
    if not cur.policy.voting.filter:
        return
    x = untruncated_text(cur, sc)
    if cur.policy.never_stops:  # DeepConf online
        st.info(
            "DeepConf online never stops early; its savings come from truncating low-confidence "
            "traces, and the published accounting measures savings against the truncated cost "
            "(baseline = Σ min(length, truncation)), so they read 0 %."
            + (f" Tokens saved against untruncated SC: **{x}**." if x is not None else ""),
            icon=":material/info:",
        )
    else:
        st.caption(
            "With DeepConf filtering, savings are measured against the *truncated* cost of the same "
            "sample (published accounting), so they only count what early stopping adds."
            + (f" Against untruncated SC: **{x}**." if x is not None else "")
        )
