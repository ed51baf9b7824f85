"""What a Parason case records: item keys, a suggested title and the snapshot of key figures, for
a trajectory, a node, a stage (a `<Parallel>` block) and a 1x/8x pair; and the Browse badge.

Why pure functions here: the tab modules stay about layout, and what a case keeps at capture time
(so the casebook stays informative when the source is gone) is testable without a page.

A trajectory, stage or pair snapshot carries the evidence the HTML report draws
(`cache.casebook.evidence`): tokens per stage, all of them vs the critical path; a stage's
tokens per branch with its longest branch highlighted; T and C of the 1x and 8x expansions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from analysis.parason.dag import top_branch, top_stage
from analysis.parason.metrics import Metrics, StageStats
from analysis.parason.tables import node_facts, plain_question, stage_figures
from cache.casebook.evidence import bar_evidence, with_evidence
from cache.casebook.queue_items import QueueItem

PAIR = "sft-1x vs sft-8x"  # the `subset` item value of a 1x/8x pair case
PAIR_FILE = "sft-8x/train.parquet"  # the pair's source file: the 8x row holds the added branches
TITLE_QUESTION = 48  # characters of the question start in a suggested title


def sft_file(subset: str) -> str:
    """The subset's relpath in the dataset (what the case's source names)."""
    return f"{subset}/train.parquet"


def badge(n: int) -> str:
    """The Browse table's case mark: "● 2", empty when there is none (as in the other views)."""
    return f"● {n}" if n > 0 else ""


def _rounded(value: float | None, digits: int) -> float | None:
    """A figure rounded for a snapshot; None stays None (an undefined speedup)."""
    return None if value is None else round(value, digits)


def _question(question: object) -> str:
    return plain_question(question, TITLE_QUESTION) or "(no question)"


def trajectory_item(subset: str, uid: str) -> dict[str, str]:
    return {"subset": subset, "uuid": uid}


def trajectory_title(subset: str, question: object) -> str:
    return f"{subset} · {_question(question)}"


def _tokens_label(counter: str) -> str:
    return f"tokens ({counter})" if counter else "tokens"


def stages_evidence(m: Metrics) -> dict[str, Any] | None:
    """Per stage (`<Parallel>` block): all its tokens (s_b + every thread) vs what it adds to
    the critical path (s_b + its longest thread)."""
    stages = m.stage_stats
    if not stages:
        return None
    return bar_evidence(
        title=f"Tokens per stage: all vs critical path (T = {m.T:,.0f}, C = {m.C:,.0f})",
        y_label=_tokens_label(m.counter),
        categories=[f"stage {s.stage + 1}" for s in stages],
        series=[
            ("all tokens", [s.s + sum(s.thread_tokens) for s in stages]),
            ("critical path", [s.critical for s in stages]),
        ],
    )


def trajectory_snapshot(m: Metrics, correctness: object) -> dict[str, Any]:
    """T, C, speedup, acceleration, blocks and branches, correctness, warnings, the counter,
    and the tokens-per-stage evidence."""
    return with_evidence(_trajectory_figures(m, correctness), stages_evidence(m))


def _trajectory_figures(m: Metrics, correctness: object) -> dict[str, Any]:
    return {
        "T": round(m.T, 1),
        "C": round(m.C, 1),
        "speedup": _rounded(m.speedup, 3),
        "acceleration": _rounded(m.acceleration_ratio, 4),
        "parallel_ratio": round(m.parallel_ratio, 4),
        "blocks": m.stages,
        "branches": ", ".join(str(b) for b in m.branches),
        "branches_max": m.branches_max,
        "kind_mix": m.kind_mix,
        "correctness": correctness if isinstance(correctness, bool) else None,
        "answer": m.answer,
        "warning_codes": ", ".join(m.warning_codes),
        "n_warnings": m.n_warnings,
        "counter": m.counter,
    }


def node_item(subset: str, uid: str, node: str) -> dict[str, str]:
    return {"subset": subset, "uuid": uid, "node": node}


def node_title(subset: str, question: object, label: str) -> str:
    return f"{subset} · {label} · {_question(question)}"


def node_snapshot(
    node: str, d: dict, counter: str, stages: Sequence[StageStats] = ()
) -> dict[str, Any]:
    """The node's kind, tokens, whether it is on the critical path, its warnings, the counter,
    and as its picture its stage's tokens per branch with the node's own branch marked (a
    segment or the answer, in no stage, has none)."""
    snap = {
        "node": node,
        "label": str(d.get("label", node)),
        "kind": str(d.get("thread_kind") or d.get("kind") or ""),
        "tokens": round(float(d.get("tokens", 0.0) or 0.0), 1),
        "critical": bool(d.get("critical", False)),
        "warnings": ", ".join(d.get("warnings") or ()),
        "facts": " · ".join(node_facts(d)),
        "counter": counter,
    }
    at = top_stage(node)
    stage = next((x for x in stages if x.stage == at), None)
    if stage is None:
        return snap
    return with_evidence(snap, branches_evidence(stage, counter, top_branch(node)))


def stage_label(s: StageStats) -> str:
    """A stage as the stage picker shows it (1-based, as in the stage table)."""
    return f"stage {s.stage + 1} · {s.kind} {s.join_type} · {s.branches} branches"


def stage_item(subset: str, uid: str, s: StageStats) -> dict[str, str]:
    """`stage` is the block index (0-based, as in the node ids `b<index>t<i>`)."""
    return {"subset": subset, "uuid": uid, "stage": str(s.stage)}


def stage_title(subset: str, question: object, s: StageStats) -> str:
    return f"{subset} · stage {s.stage + 1} ({s.kind}) · {_question(question)}"


def branches_evidence(
    s: StageStats, counter: str, branch: int | None = None
) -> dict[str, Any] | None:
    """A stage's tokens per branch (thread), and the block's own non-thread tokens (s_b); the
    longest branch (on the critical path) highlighted, or `branch` (0-based: a node's own)."""
    if not s.thread_tokens:
        return None
    names = [f"branch {i + 1}" for i in range(len(s.thread_tokens))]
    longest = max(range(len(names)), key=lambda i: s.thread_tokens[i])
    own = branch if branch is not None and 0 <= branch < len(names) else None
    marked = longest if own is None else own
    whose = "" if own is None else f"; this node's: branch {own + 1}"
    return bar_evidence(
        title=f"Stage {s.stage + 1} ({s.kind} {s.join_type}): tokens per branch{whose}",
        y_label=_tokens_label(counter),
        categories=[*names, "s_b (non-thread)"],
        series=[("tokens", [*s.thread_tokens, s.s])],
        highlight=names[marked],
    )


def stage_snapshot(s: StageStats, counter: str) -> dict[str, Any]:
    """The stage's figures (`tables.stage_figures`), the token counter and the tokens-per-branch
    evidence."""
    return with_evidence({**stage_figures(s), "counter": counter}, branches_evidence(s, counter))


def pair_item(uid: str) -> dict[str, str]:
    return {"uuid": uid, "subset": PAIR}


def pair_title(question: object) -> str:
    return f"1x vs 8x · {_question(question)}"


def pair_evidence(m1: Metrics, m8: Metrics) -> dict[str, Any] | None:
    """T (all response tokens) and C (the critical path) of the 1x and the 8x expansion."""
    return bar_evidence(
        title="1x vs 8x: all tokens (T) and critical path (C)",
        y_label=_tokens_label(m8.counter),
        categories=["T (all tokens)", "C (critical path)"],
        series=[("sft-1x", [m1.T, m1.C]), ("sft-8x", [m8.T, m8.C])],
    )


def pair_snapshot(m1: Metrics, m8: Metrics, n_added: int) -> dict[str, Any]:
    """Both expansions' headline figures, how many branches the 8x expansion added, and the
    T/C evidence."""
    out: dict[str, Any] = {"added_branches": n_added}
    for tag, m in (("1x", m1), ("8x", m8)):
        out |= {
            f"T_{tag}": round(m.T, 1),
            f"C_{tag}": round(m.C, 1),
            f"speedup_{tag}": _rounded(m.speedup, 3),
            f"blocks_{tag}": m.stages,
            f"branches_max_{tag}": m.branches_max,
        }
    out["counter"] = m8.counter
    return with_evidence(out, pair_evidence(m1, m8))


def queue_items(
    subset: str,
    rows: list[tuple[str, object]],
    source: dict[str, str],
    keep: tuple[tuple[str, str], ...] = (),
) -> list[QueueItem]:
    """Browse's filtered rows (uuid, question) as triage-queue items: each opens the trajectory
    in this subset (and the data source `keep` names) and captures a trajectory case."""
    return [
        QueueItem(
            view="parason",
            query=(*keep, ("subset", subset), ("uuid", uid)),
            item=trajectory_item(subset, uid),
            label=trajectory_title(subset, question),
            source=source,
        )
        for uid, question in rows
    ]
