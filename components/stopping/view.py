"""Sections of the stopping playground: notes, frontier, per-question table, replay, reference
diff and downloads. Computation lives in `analysis.stopping`; runs come through
`components.stopping.cached`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from analysis.stopping import (
    SC,
    AdaptiveConsistency,
    Consensus,
    DeepConfOnline,
    EarlyStoppingSC,
    FrontierPoint,
    Mars,
    Policy,
    RunResult,
    SelfConsistency,
    SimSettings,
    main_param,
    point_of,
    replay,
    with_main_param,
)
from analysis.stopping.compare import per_question_comparison, reference_comparison
from analysis.stopping.engine import BUDGET_NOTE
from cache.datasets import mars_reference_dir
from cache.sources import SourceConfig
from components.common.cached import st_progress
from components.common.safe_text import esc, md_text
from components.common.url_state import Param, int_in
from components.stopping import cached as pc
from components.stopping.controls import FRONTIER_BASELINES, published_policy
from components.stopping.figures import frontier_figure, per_question_figure, replay_figure

QID = Param("qid", None, parse=int_in(0, 10_000))
BASELINES = FRONTIER_BASELINES


class NoteKind(NamedTuple):
    """A kind of engine note the page explains: `key` is matched inside the note text.
    `info` kinds are not data problems: one `st.info` line for all questions, its text
    formatted with `where` (which questions), `budget` and `pool` (pool sizes)."""

    key: str
    text: str
    info: bool = False


NOTE_KINDS = (
    NoteKind(
        "no trace has a final answer",
        "no non-null answer: every iteration answers nothing (counted wrong, 0 tokens)",
    ),
    NoteKind("fewer than warmup", "pool smaller than the warmup: the warmup set is the whole pool"),
    NoteKind(
        "nonfinite_confs",
        "NaN/inf confidences: the feature store ignores those tokens (the published simulator "
        "would let one poison every later window)",
    ),
    NoteKind(
        "non-finite confidence features",
        "non-finite confidence features: kept as the published simulator does (no DeepConf "
        "eligibility, no MARS stop)",
    ),
    NoteKind("non-finite DeepConf threshold", "NaN DeepConf threshold: no trace is eligible there"),
    NoteKind(
        "empty checkpoint grid",
        "empty checkpoint grid (every trace shorter than 2,048 tokens): no early stop possible",
    ),
    NoteKind("calibration needs 4", "fewer than 4 warmup traces: gamma = 1"),
    NoteKind(
        BUDGET_NOTE,
        "{where}: budget {budget} > pool of {pool} traces: sampled with replacement (allowed, as "
        "in the published simulator; some traces are drawn several times in an iteration)",
        info=True,
    ),
)


def run_set(
    rel: str,
    src: SourceConfig,
    policy: Policy,
    settings: SimSettings,
    full: bool,
    others: Sequence[str] = (),
):
    """The current run, the frontier sweep, baselines and other policies (cached runs and
    cached frontier points, keyed by plain values)."""
    _name, label, values = main_param(policy)
    sweep_pols = [with_main_param(policy, v) for v in values]
    base_pols = [published_policy(m) for m in BASELINES]
    other_pols = [published_policy(m) for m in others if m != policy.method]
    todo = [policy, *base_pols]
    if full:
        with st_progress("Full run at the published setting…") as bar:
            runs = pc.run_with_progress(rel, src, [*todo, *sweep_pols, *other_pols], settings, bar)
        runs = runs[: len(todo)]
    else:
        runs = [pc.run(rel, src, p, settings) for p in todo]
    cur = runs[0]
    bases = dict(zip(BASELINES, runs[1:], strict=True))
    sweep_pts = [
        replace(pt, value=v)
        for pt, v in zip(pc.points(rel, src, sweep_pols, settings), values, strict=True)
    ]
    others_out = [
        (f"SC full budget ({bases['offline'].policy.method})", point_of(bases["offline"]))
    ]
    others_out.append(("DeepConf online (dco)", point_of(bases["dco"])))
    others_out += [(pt.method, pt) for pt in pc.points(rel, src, other_pols, settings)]
    return cur, bases, sweep_pts, label, others_out


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
        for kind in NOTE_KINDS:
            if not kind.info and any(kind.key in n for n in r.notes):
                lines.append(f"Q{r.qid}: {kind.text}")
    for kind in NOTE_KINDS:
        if not kind.info:
            continue
        hit = [r for r in run.questions if any(kind.key in n for n in r.notes)]
        if not hit:
            continue
        lo, hi = min(r.n_pool for r in hit), max(r.n_pool for r in hit)
        st.info(
            kind.text.format(
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
    all_notes = [(r.qid, n) for r in run.questions for n in r.notes]
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
    c = st.columns(4)
    c[0].metric(
        "accuracy",
        f"{o['accuracy_pct']:.1f}%",
        f"{o['accuracy_pct'] - s['accuracy_pct']:+.1f} pp vs SC",
    )
    c[1].metric("mean token savings", f"{o['mean_token_savings_pct']:.1f}%")
    n, total = stopped_early(cur)
    c[2].metric(
        "stopped early",
        f"{n} / {total}",
        f"{100 * n / total:.0f}% of iterations" if total else None,
        delta_color="off",
        delta_arrow="off",
        help="bootstrap iterations (all questions) that a rule stopped before the full budget",
    )
    c[3].metric("iterations × questions", f"{cur.settings.iterations} × {len(cur.questions)}")
    if isinstance(cur.policy, DeepConfOnline):
        x = untruncated_savings_pct(cur, sc)
        st.info(
            "DeepConf online never stops early; its savings come from truncating low-confidence "
            "traces, and the published accounting measures savings against the truncated cost "
            "(baseline = Σ min(length, truncation)), so they read 0 %."
            + (f" Tokens saved against untruncated SC: **{x:.1f} %**." if x is not None else ""),
            icon=":material/info:",
        )
    elif getattr(getattr(cur.policy, "voting", None), "filter", False):
        x = untruncated_savings_pct(cur, sc)
        st.caption(
            "With DeepConf filtering, savings are measured against the *truncated* cost of the same "
            "sample (published accounting), so they only count what early stopping adds."
            + (f" Against untruncated SC: **{x:.1f} %**." if x is not None else "")
        )


def show_frontier(policy: Policy, cur: RunResult, sweep_pts, label: str, others) -> None:
    st.subheader("Accuracy against token savings")
    if not sweep_pts:
        st.caption("This policy has no parameter to sweep; it is shown with the other policies.")
    fig = frontier_figure(sweep_pts, label, point_of(cur), others)
    st.plotly_chart(fig, key="frontier", width="stretch")
    st.caption(
        f"Line: {md_text(policy.method)} swept over {md_text(label) or '—'}; ring: current setting; "
        "markers: baselines and other policies at their published defaults; green band: Pareto front."
        + (
            " Along the gamma sweep, gamma is fixed (no calibration)."
            if isinstance(policy, Mars)
            else ""
        )
    )


def _new_pick(source: str, value: int | None) -> int | None:
    """`value` when this selection (table row or chart point) changed since the last run, else
    None: a new selection moves the replay's question picker once, and the picker stays free to
    change afterwards while the old selection is still highlighted."""
    key = f"_pg_last_pick_{source}"
    prev = st.session_state.get(key)
    st.session_state[key] = value
    return value if value is not None and value != prev else None


def show_per_question(rel: str, cur: RunResult, sc: RunResult) -> int | None:
    """Per-question table and chart; returns a newly selected question (for the replay).
    Selecting a row or a chart point drives the replay; the "open ↗" link column leads to the
    question in the MARS view."""
    st.subheader("Per question, next to self-consistency")
    cmp = per_question_comparison(cur, sc)
    if cmp.empty:
        st.info("No questions in this file.")
        return None
    lost = cmp[cmp["lost"]]
    if len(lost):
        st.markdown(
            f"**{len(lost)} question(s) lose accuracy** against SC: "
            + ", ".join(f"Q{q}" for q in lost["qid"])
        )
    else:
        st.markdown("No question loses accuracy against SC.")
    fig = per_question_figure(cmp)
    ev = st.plotly_chart(
        fig, key="perq_chart", on_select="rerun", selection_mode="points", width="stretch"
    )
    chart_q = None
    pts = (
        (ev or {}).get("selection", {}).get("points", [])
        if isinstance(ev, dict)
        else getattr(getattr(ev, "selection", None), "points", [])
    )
    if pts and pts[0].get("x") is not None:
        chart_q = int(pts[0]["x"])
    table = cmp.assign(flag=np.where(cmp["lost"], "🔻 lost", ""))
    table["open"] = [
        f"mars?{urlencode({'file': rel, 'qid': int(q)}, safe='/')}" for q in table["qid"]
    ]
    table["ground_truth"] = table["ground_truth"].map(lambda t: str(t)[:60])
    cols = [
        "flag",
        "qid",
        "accuracy_pct",
        "sc_accuracy_pct",
        "delta_pct",
        "savings_pct",
        "mean_position",
        "stop_reasons",
        "gamma",
        "ground_truth",
        "n_pool",
        "open",
    ]
    sel = st.dataframe(
        table[cols],
        hide_index=True,
        width="stretch",
        key="perq_table",
        on_select="rerun",
        selection_mode="single-row",
        column_config={
            "accuracy_pct": st.column_config.NumberColumn("accuracy %", format="%.1f"),
            "sc_accuracy_pct": st.column_config.NumberColumn("SC %", format="%.1f"),
            "delta_pct": st.column_config.NumberColumn("Δ pp", format="%+.1f"),
            "savings_pct": st.column_config.NumberColumn("savings %", format="%.1f"),
            "mean_position": st.column_config.NumberColumn("mean stop position", format="%.0f"),
            "gamma": st.column_config.NumberColumn("gamma", format="%.2f"),
            "ground_truth": st.column_config.TextColumn("ground truth"),
            "open": st.column_config.LinkColumn("MARS view", display_text="open ↗"),
        },
    )
    rows = sel.selection.rows if sel is not None and hasattr(sel, "selection") else []
    row_q = int(table.iloc[rows[0]]["qid"]) if rows and rows[0] < len(table) else None
    st.caption(
        "Select a row (or click the chart) to replay that question; “open ↗” shows it in the MARS view."
    )
    new_row, new_chart = _new_pick("table", row_q), _new_pick("chart", chart_q)
    return new_row if new_row is not None else new_chart


def show_replay(
    rel: str,
    src: SourceConfig,
    policy: Policy,
    settings: SimSettings,
    qids: list[int],
    picked: int | None,
) -> None:
    st.subheader("Replay one bootstrap iteration")
    if isinstance(policy, EarlyStoppingSC | AdaptiveConsistency):
        st.caption(
            "Sequential-arrival rules have no checkpoints; the replay shows checkpoint rules."
        )
        return
    if not qids:
        return
    if picked in qids:  # a new table/chart selection moves the picker
        st.session_state["replay_q"] = picked
    elif st.session_state.get("replay_q") not in qids:  # first run, or another file: URL first
        st.session_state["replay_q"] = QID.read() if QID.read() in qids else qids[0]
    c = st.columns(2)
    qid = c[0].selectbox("question", qids, key="replay_q")
    QID.write(qid)
    it = c[1].slider("bootstrap iteration", 0, max(settings.iterations - 1, 0), 0, key="replay_it")
    preps = {p.qid: p for p in pc.prepared(rel, src, settings.window)}
    res, diag = replay(preps[qid], policy, settings, it)
    proxy = vote_proxy(policy)
    if proxy is not None:  # same sample, same votes per checkpoint; `res` stays the policy's own
        _res, diag = replay(preps[qid], proxy, settings, it)
    ans = res.answer_text(0)
    ok = "correct" if res.correct[0] else "wrong"
    how = (
        f"stopped at {res.position[0]} tokens ({res.stopped_by[0]})"
        if res.stop_index[0] >= 0
        else "ran to the budget"
    )
    st.html(
        f"<p>Q{qid}, iteration {it}: {esc(how)}; answer <code>{esc(ans[:80]) or '—'}</code> ({ok}); "
        f"tokens {int(res.tokens[0]):,} of {int(res.baseline[0]):,}"
        + (f"; gamma {res.gamma:.2f}" if res.gamma is not None else "")
        + "</p>"
    )
    if diag is None or diag.votes.shape[-1] == 0 or diag.grid.shape[0] == 0:
        st.info(
            f"Nothing to replay for Q{qid}: no checkpoint (every sampled trace ended before "
            "2,048 tokens, or the question has no answer), so no rule could act before the "
            "final vote.",
            icon=":material/info:",
        )
        return
    rule = (
        "MARS margin vs threshold" if isinstance(policy, Mars) else "leader share of the vote (%)"
    )
    tau = policy.tau if isinstance(policy, Consensus) else None
    if proxy is not None:
        st.caption(
            "This policy never stops early; the chart shows how its vote stood at each checkpoint "
            "(the snapshot vote it would take if it stopped there)."
        )
    st.plotly_chart(replay_figure(diag, res, rule, tau), key="replay_fig", width="stretch")


def vote_proxy(policy: Policy) -> Policy | None:
    """For a policy that never stops (SC, DeepConf online), the engine records no
    per-checkpoint internals. They still vote at every checkpoint: a consensus rule with the
    same voting and tau = 2 (a share never reaches it) replays exactly those snapshot votes,
    tokens and leader shares, and never fires. None for policies with their own diagnostics."""
    if isinstance(policy, DeepConfOnline):
        return Consensus(voting=policy.voting, tau=2.0)
    if isinstance(policy, SelfConsistency):
        return Consensus(voting=SC, tau=2.0)
    return None


REFERENCE_TITLE = "Against the published reference"


def show_reference(rel: str, src: SourceConfig, cur: RunResult, full: bool) -> None:
    ref = pc.reference_csvs(rel, src, cur.policy.method)
    if ref is None:  # one line, no heading over it
        st.caption(
            f"**{REFERENCE_TITLE}:** this source holds no repro\\_reference CSVs for "
            f"{md_text(cur.policy.method)} on this file (the Hub copy has them; the bundled "
            "sample has them for the 7 published methods on DeepSeek-8B · AIME 2025 only)."
        )
        return
    st.subheader(REFERENCE_TITLE)
    per_q, overall = ref
    if src.kind == "sample":
        st.caption(
            "Bundled sample: the reference is the published MARS simulator's output on this generated "
            "file (budget 512, 64 iterations, warmup 16, seed 42; -cal with z = 1, gamma min 0.5), "
            "run through a transcription of its logic; see cache/sample/mars\\_reference/NOTE.md."
        )
    if not full:
        st.info(
            "The reference uses the published setting: turn off the quick preview to compare like with like."
        )
    source = f"{mars_reference_dir(rel, cur.policy.method)}/summary_per_question.csv"
    diff = reference_comparison(cur.per_question_frame(), per_q, source=source)
    dcols = [c for c in diff.columns if c.startswith("d_")]
    styled = diff.style.format(precision=2).map(
        lambda v: "background-color: #f8d7da" if isinstance(v, float) and abs(v) > 1e-6 else "",
        subset=dcols,
    )
    st.dataframe(styled, hide_index=True, width="stretch")
    if not overall.empty:
        st.dataframe(
            pd.concat(
                [cur.overall_frame().assign(source="ours"), overall.assign(source="reference")]
            ),
            hide_index=True,
        )


def show_downloads(cur: RunResult) -> None:
    c = st.columns(3)
    frames = (
        ("results.csv", cur.results_frame()),
        ("summary_per_question.csv", cur.per_question_frame()),
        ("summary_overall.csv", cur.overall_frame()),
    )
    for col, (name, df) in zip(c, frames, strict=True):
        col.download_button(
            f"⬇ {name}",
            df.to_csv(index=False).encode(),
            file_name=name,
            mime="text/csv",
            key=f"dl_{name}",
        )


__all__ = ["FrontierPoint", "replace"]
