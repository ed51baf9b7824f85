"""The playground's data notes and headline metrics.

Notes arrive typed from the engine (`analysis.stopping.notes`); this module words the ones
the reader should see per question (data problems, a warning list) or once for all questions
(informational, an `st.info` line), by code. Every note stays in the "All notes" table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from analysis.stopping import NoteCode, RunResult
from components.common.formatting import fmt_num
from components.common.safe_text import esc

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
        with st.expander(f"All notes ({len(all_notes)})"):
            st.dataframe(
                pd.DataFrame(all_notes, columns=["qid", "note"]), hide_index=True, width="stretch"
            )


def untruncated_savings_pct(cur: RunResult, sc: RunResult) -> float | None:
    """Mean token savings (%) of `cur` against the *untruncated* cost of the same bootstrap
    sample: SC at full budget draws the same traces (same seed, budget, iterations), and its
    baseline is `sum_j len_j`. None when the two runs do not line up (other questions or
    iterations), so the page omits the number rather than show a wrong one."""
    by_q = {r.qid: r for r in sc.questions}
    per_q = []
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
        per_q.append(float(frac.mean()) * 100)
    return float(np.mean(per_q)) if per_q else None


def stopped_early(run: RunResult) -> tuple[int, int]:
    """(iterations stopped before the budget, all iterations) over every question."""
    n = int(sum((r.stopped_by != "budget").sum() for r in run.questions))
    return n, int(sum(r.stopped_by.shape[0] for r in run.questions))


def show_summary(cur: RunResult, sc: RunResult) -> None:
    o = cur.overall_frame().iloc[0]
    s = sc.overall_frame().iloc[0]
    row = st.container(horizontal=True, gap="large")  # wraps instead of cutting at 1024 px
    row.metric(
        "accuracy",
        f"{fmt_num(o['accuracy_pct'], '.1f')}%",
        f"{fmt_num(o['accuracy_pct'] - s['accuracy_pct'], '+.1f')} pp vs SC",
        width="content",
    )
    row.metric(
        "mean token savings", f"{fmt_num(o['mean_token_savings_pct'], '.1f')}%", width="content"
    )
    n, total = stopped_early(cur)
    row.metric(
        "stopped early",
        f"{n} / {total}",
        f"{fmt_num(100 * n / total, '.0f')}% of iterations" if total else None,
        delta_color="off",
        delta_arrow="off",
        help="bootstrap iterations (all questions) that a rule stopped before the full budget",
        width="content",
    )
    row.metric(
        "iterations × questions",
        f"{cur.settings.iterations} × {len(cur.questions)}",
        width="content",
    )
    if not cur.policy.voting.filter:
        return
    x = untruncated_savings_pct(cur, sc)
    if cur.policy.never_stops:  # DeepConf online
        st.info(
            "DeepConf online never stops early; its savings come from truncating low-confidence "
            "traces, and the published accounting measures savings against the truncated cost "
            "(baseline = Σ min(length, truncation)), so they read 0 %."
            + (f" Tokens saved against untruncated SC: **{x:.1f} %**." if x is not None else ""),
            icon=":material/info:",
        )
    else:
        st.caption(
            "With DeepConf filtering, savings are measured against the *truncated* cost of the same "
            "sample (published accounting), so they only count what early stopping adds."
            + (f" Against untruncated SC: **{x:.1f} %**." if x is not None else "")
        )
