"""The playground's casebook controls: a run (policy, parameters, settings) next to its
summary, one replayed bootstrap iteration next to the replay, and the per-question table's
case marks.

A run case is keyed by the file, the method and `params_key` (the policy's parameters and the
bootstrap settings as one short canonical string), so the same run, opened again with the same
link, finds its cases. A replay case adds the question and the iteration; the replayed
question's inline cases are every playground case on that question of the file.

Each snapshot carries the evidence the HTML report draws (`cache.casebook.evidence`): a run's
accuracy and token savings beside self-consistency's; a replayed iteration's vote share per
answer over the checkpoints (the replay chart's top panel) with the stop highlighted."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analysis.playground import Diagnostics, Policy, QuestionResult, RunResult, SimSettings
from analysis.playground.compare import per_question_comparison
from cache.casebook.evidence import bar_evidence, line_evidence, with_evidence
from cache.datasets import MARS_FILES
from cache.sources import SourceConfig
from components.common.casebook import capture, cases_here, qid_counts
from components.playground.summary import stopped_early, untruncated_savings_pct

DATASET = "playground"
VIEW = "playground"
CASE_MARK = "●"
EVIDENCE_ANSWERS = 5  # answer groups drawn in a replay's evidence (the most voted at any point)


# ---------------------------------------------------------------- item keys
def _canon(value: object) -> str:
    """One spelling per value: floats without float noise (0.75, not 0.7500000001)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float | np.floating):
        return format(float(value), ".6g")
    return str(value)


def params_key(policy: Policy, settings: SimSettings) -> str:
    """`tau=0.75 budget=512 iters=8 warmup=16 window=2048 seed=42`: the policy's parameters
    (its own widget list, URL key names) and the bootstrap settings, in a fixed order."""
    words = []
    for spec in policy.ui_params():
        obj: object = policy
        for part in spec.field.split("."):
            obj = getattr(obj, part)
        words.append(f"{spec.key}={_canon(obj)}")
    s = settings
    words += [
        f"budget={s.budget}",
        f"iters={s.iterations}",
        f"warmup={s.warmup}",
        f"window={s.window}",
        f"seed={s.seed}",
    ]
    return " ".join(words)


def run_item(rel: str, policy: Policy, settings: SimSettings) -> dict[str, str]:
    return {"file": rel, "policy": policy.method, "params": params_key(policy, settings)}


def replay_item(
    rel: str, policy: Policy, settings: SimSettings, qid: int, iteration: int
) -> dict[str, str]:
    return {**run_item(rel, policy, settings), "qid": str(qid), "iteration": str(iteration)}


def _file_label(rel: str) -> str:
    return MARS_FILES[rel][2] if rel in MARS_FILES else rel


def _num(value: Any, digits: int = 2) -> float | None:
    """A rounded float, None for NaN/inf (the snapshot stays JSON)."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return round(f, digits) if np.isfinite(f) else None


def _row() -> DeltaGenerator:
    """The popover button, then the inline cases filling the rest of the line."""
    return st.container(horizontal=True, vertical_alignment="top", gap="small")


# ---------------------------------------------------------------- run (summary)
def run_evidence(
    method: str, snap: dict[str, Any], sc_savings: object = 0.0
) -> dict[str, Any] | None:
    """The summary's headline beside self-consistency's: accuracy and mean token savings (%)."""
    return bar_evidence(
        title=f"{method} vs self-consistency (SC)",
        y_label="%",
        categories=["accuracy (%)", "token savings (%)"],
        series=[
            (method, [snap.get("accuracy_pct"), snap.get("token_savings_pct")]),
            ("SC", [snap.get("sc_accuracy_pct"), _num(sc_savings)]),
        ],
    )


def run_snapshot(cur: RunResult, sc: RunResult) -> dict[str, Any]:
    """The run's key figures as the summary shows them, plus the settings and the evidence."""
    o = cur.overall_frame().iloc[0]
    s = sc.overall_frame().iloc[0]
    cmp = per_question_comparison(cur, sc)
    lost = [int(q) for q in cmp.loc[cmp["lost"], "qid"]] if not cmp.empty else []
    n_early, n_total = stopped_early(cur)
    snap: dict[str, Any] = {
        "accuracy_pct": _num(o["accuracy_pct"]),
        "sc_accuracy_pct": _num(s["accuracy_pct"]),
        "delta_pp_vs_sc": _num(o["accuracy_pct"] - s["accuracy_pct"]),
        "token_savings_pct": _num(o["mean_token_savings_pct"]),
    }
    if cur.policy.voting.filter:  # the summary shows it only for DeepConf-filtered runs
        snap["untruncated_savings_pct"] = _num(untruncated_savings_pct(cur, sc))
    snap |= {
        "questions_lost_vs_sc": len(lost),
        "lost_qids": ", ".join(f"Q{q}" for q in lost[:30]),
        "stopped_early": n_early,
        "iterations_total": n_total,
        "n_questions": len(cur.questions),
        "budget": cur.settings.budget,
        "iterations": cur.settings.iterations,
        "warmup": cur.settings.warmup,
        "window": cur.settings.window,
        "seed": cur.settings.seed,
    }
    return with_evidence(snap, run_evidence(cur.policy.method, snap, s["mean_token_savings_pct"]))


def run_title(rel: str, cur: RunResult, snap: dict[str, Any]) -> str:
    return (
        f"{cur.policy.method} on {_file_label(rel)}: {snap['accuracy_pct']}% "
        f"({snap['delta_pp_vs_sc']:+} pp vs SC), {snap['token_savings_pct']}% saved"
        if snap["accuracy_pct"] is not None and snap["delta_pp_vs_sc"] is not None
        else f"{cur.policy.method} on {_file_label(rel)}"
    )


def show_run_cases(rel: str, src: SourceConfig, cur: RunResult, sc: RunResult) -> None:
    """The run's "Add run" control and its cases, right under the summary metrics."""
    item = run_item(rel, cur.policy, cur.settings)
    snap = run_snapshot(cur, sc)
    with _row():
        capture(
            DATASET,
            VIEW,
            item,
            title=run_title(rel, cur, snap),
            snapshot=snap,
            source=src,
            file=rel,
            key=f"pg_run_{rel}_{item['policy']}_{item['params']}",
            label="Add run",
        )
        cases_here(DATASET, item, key="pg_run")


# ---------------------------------------------------------------- replayed iteration
def replay_evidence(res: QuestionResult, diag: Diagnostics | None) -> dict[str, Any] | None:
    """The replay chart's top panel: each answer's share (%) of the iteration's vote at every
    checkpoint (the ground truth's answers marked ✓), the stop highlighted on the leader."""
    if diag is None or diag.grid.shape[0] == 0 or diag.votes.ndim != 3 or diag.votes.shape[2] == 0:
        return None
    grid = diag.grid.astype(np.float64)
    votes = diag.votes[0].astype(np.float64)  # [K, G]
    total = votes.sum(axis=1, keepdims=True)
    share = np.divide(votes, total, out=np.zeros_like(votes), where=total > 0) * 100
    order = np.argsort(-share.max(axis=0), kind="stable")[:EVIDENCE_ANSWERS]
    series = []
    for gid in order.tolist():
        label = res.labels[gid] if gid < len(res.labels) else f"group {gid}"
        ok = bool(res.group_correct[gid]) if gid < res.group_correct.shape[0] else False
        series.append((f"{label[:30] or '(empty)'}{' ✓' if ok else ''}", grid, share[:, gid]))
    stop = int(res.stop_index[0])
    highlight = None
    if 0 <= stop < grid.shape[0]:
        label = f"stop at {int(grid[stop]):,} ({res.stopped_by[0]})"
        highlight = (grid[stop], float(share[stop].max()), label)
    return line_evidence(
        title=f"Q{res.qid}: vote share per answer at each checkpoint",
        x_label="checkpoint (tokens)",
        y_label="share of the vote (%)",
        series=series,
        highlight=highlight,
        y_range=(0.0, 100.0),
    )


def replay_snapshot(
    res: QuestionResult, diag: Diagnostics | None, tau: float | None
) -> dict[str, Any]:
    """What the replay line says (answer, correctness, stop, tokens), the rule's signal at the
    stop (MARS margin and threshold, or the leader's share and tau) when it stopped, and the
    vote-share evidence."""
    return with_evidence(_replay_figures(res, diag, tau), replay_evidence(res, diag))


def _replay_figures(
    res: QuestionResult, diag: Diagnostics | None, tau: float | None
) -> dict[str, Any]:
    stop = int(res.stop_index[0])
    snap: dict[str, Any] = {
        "answer": res.answer_text(0)[:200],
        "correct": bool(res.correct[0]),
        "ground_truth": str(res.ground_truth)[:200],
        "stopped_by": str(res.stopped_by[0]),
        "stop_position": int(res.position[0]) if stop >= 0 else None,
        "tokens": int(res.tokens[0]),
        "baseline_tokens": int(res.baseline[0]),
        "gamma": _num(res.gamma, 4) if res.gamma is not None else None,
    }
    if diag is None or stop < 0 or stop >= diag.grid.shape[0]:
        return snap
    if diag.margin is not None and diag.threshold is not None:
        snap["margin_at_stop"] = _num(diag.margin[0][stop], 4)
        snap["threshold_at_stop"] = _num(diag.threshold[0][stop], 4)
    elif diag.share is not None:
        snap["leader_share_at_stop"] = _num(diag.share[0][stop], 4)
        if tau is not None:
            snap["tau"] = _num(tau, 4)
    return snap


def replay_title(qid: int, iteration: int, method: str, snap: dict[str, Any]) -> str:
    how = (
        f"stops at {snap['stop_position']} ({snap['stopped_by']})"
        if snap["stop_position"] is not None
        else "runs to the budget"
    )
    ok = "correct" if snap["correct"] else "wrong"
    return f"Q{qid} · iteration {iteration} · {method}: {how}, {ok} answer {snap['answer'][:40]}"


def show_replay_cases(
    rel: str,
    src: SourceConfig,
    policy: Policy,
    settings: SimSettings,
    qid: int,
    iteration: int,
    snap: dict[str, Any],
) -> None:
    """The replayed iteration's "Add iteration" control and the cases on the question."""
    item = replay_item(rel, policy, settings, qid, iteration)
    with _row():
        capture(
            DATASET,
            VIEW,
            item,
            title=replay_title(qid, iteration, policy.method, snap),
            snapshot=snap,
            source=src,
            file=rel,
            key=f"pg_replay_{rel}_{qid}_{iteration}_{item['policy']}_{item['params']}",
            label="Add iteration",
        )
        cases_here(DATASET, {"file": rel, "qid": qid}, key="pg_replay")


# ---------------------------------------------------------------- per-question marks
def qid_case_counts(rel: str) -> dict[int, int]:
    """The open file's questions with cases (see `casebook.qid_counts`)."""
    return qid_counts(DATASET, rel, "marks")


def case_mark(n: int) -> str:
    return f"{CASE_MARK} {n}" if n else ""
