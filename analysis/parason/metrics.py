"""Per-trajectory parallelism metrics (docs/formats/parason.md, "Metrics per trajectory").

Why from the tree and not from the networkx DAG: this runs on whole subsets (thousands of
trajectories per second); the DAG is only built for the one trajectory on screen. A test checks
that the DAG's critical path equals ``C`` computed here.

Definitions (T = response tokens; for block b: s_b = non-thread tokens of the block, t_b,i =
tokens of thread i including anything nested in it):

- ``C = outside + sum_b (s_b + max_i cp(t_b,i))``; cp of a thread = its own tokens + the cost of
  its nested blocks (recursion).
- ``speedup = T / C``; ``acceleration_ratio = 1 - C / T``; both None (undefined) when T == 0,
  and T = C = 0 when the reasoning is empty.

Token placement is the published one (``get_parallel_stats`` in the ThreadWeaver / Parason RL
reward code; the parser charges each tag to its node accordingly): ``<Parallel>``/``</Parallel>``
count in the enclosing sequence, the ``<Thread>``/``</Thread>`` wrappers in the block's
sequential part s_b, and T is the whole response (``<think>`` ... ``<|im_end|>``).
- ``parallel_ratio = sum_b (s_b + sum_i t_b,i) / T`` over top-level blocks.
- ``subtask_ratio`` / ``trial_ratio``: thread tokens of pure-Subtask / pure-Trial top-level
  blocks over T.
- per stage: ``block_speedup = (s_b + sum t) / (s_b + max t)``, ``imbalance = max t / mean t``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

import polars as pl

from analysis.parason.parse import WARNING_CODES, Block, Trajectory, parse
from analysis.parason.tokens import TokenCounter, estimate_total_tokens, get_counter, node_tokens

__all__ = [
    "PLACEMENT",
    "Metrics",
    "StageStats",
    "added_branches",
    "block_cost",
    "compute_metrics",
    "metrics_for_text",
    "trajectory_text",
    "kind_mix",
]


PLACEMENT = (
    "Tags placed as the published code counts them (get_parallel_stats in the ThreadWeaver and "
    "Parason RL reward code): every reserved tag is one token; <Parallel> and </Parallel> count in "
    "the enclosing sequence; the <Thread> and </Thread> wrappers count in the block's sequential "
    "part s_b, not in the thread; T is the whole response (<think>, reasoning, </think>, answer, "
    "<|im_end|>)."
)


@dataclass(slots=True)
class StageStats:
    stage: int
    kind: str  # subtask | trial | mixed | untyped
    join_type: str  # AND | OR | MIXED | ALL
    branches: int
    item_kinds: list[str]
    s: float  # non-thread tokens of the block
    thread_tokens: list[float]  # t_b,i (including nested content)
    critical: float  # s + max cp(thread)
    block_speedup: float
    imbalance: float | None
    longest: int | None = None  # the longest thread (the first of equals): what the stage waits for


@dataclass(slots=True)
class Metrics:
    counter: str  # which counter made the token figures (TokenCounter.name)
    counter_key: str
    T: float
    C: float
    speedup: float | None  # None when undefined (C = 0: no response, or empty reasoning)
    acceleration_ratio: float | None  # None when T = 0
    parallel_ratio: float
    subtask_ratio: float
    trial_ratio: float
    stages: int
    branches: list[int]
    branches_mean: float
    branches_max: int
    block_kinds: list[str]
    item_kinds: list[list[str]]
    kind_mix: str
    block_speedup: list[float]
    imbalance: list[float | None]
    longest: list[int | None]
    depth: int
    valid: bool
    warning_codes: list[str]  # codes of warning severity (invalid data)
    n_warnings: int  # warning-severity entries (informational notes not included)
    note_codes: list[str]  # informational codes (tolerated by the runtime)
    answer: str | None
    n_chars: int
    stage_stats: list[StageStats] = field(default_factory=list)

    def as_record(self) -> dict:
        """Flat dict for a table row (stage_stats dropped; lists kept as lists)."""
        d = asdict(self)
        d.pop("stage_stats")
        return d


def kind_mix(block_kinds: list[str]) -> str:
    """Trajectory-level label: 'none', one kind, or the sorted kinds joined by '+'."""
    if not block_kinds:
        return "none"
    return "+".join(sorted(set(block_kinds)))


def block_cost(b: Block, nt: Mapping[str, float]) -> tuple[float, list[float], list[float], float]:
    """(s_b, total tokens per thread, critical tokens per thread, block critical cost); the
    accepted-Trial counterfactual (`accepted.py`) reuses it."""
    s = nt.get(b.fork, 0.0) + nt.get(b.join, 0.0)
    totals: list[float] = []
    crits: list[float] = []
    for th in b.threads:
        own = nt.get(th.node, 0.0)
        tot = own
        cp = own
        for nb in th.blocks:
            ns, ntot, _, ncrit = block_cost(nb, nt)
            tot += ns + sum(ntot)
            cp += ncrit
        totals.append(tot)
        crits.append(cp)
    return s, totals, crits, s + (max(crits) if crits else 0.0)


def _max_depth(blocks: list[Block]) -> int:
    depth = 0
    stack = list(blocks)
    while stack:
        b = stack.pop()
        depth = max(depth, b.depth)
        for th in b.threads:
            stack.extend(th.blocks)
    return depth


def compute_metrics(
    traj: Trajectory,
    counter: TokenCounter | None = None,
    total_tokens: float | None = None,
    counts: list[float] | None = None,
) -> Metrics:
    """Metrics of one parsed trajectory. `total_tokens` feeds the estimate counter (the row's
    num_qwen_tokens); `counts` may be passed when the per-part counts are already known."""
    counter = counter or get_counter("estimate")
    if counts is None:
        counts = counter.count_parts(traj, total_tokens)
    nt = node_tokens(traj, counts)
    T = sum(nt.values()) - nt.get("prompt", 0.0)
    outside = T
    crit_blocks = 0.0
    par = 0.0
    sub = 0.0
    tri = 0.0
    stats: list[StageStats] = []
    for b in traj.blocks:
        s, totals, crits, crit = block_cost(b, nt)
        total = s + sum(totals)
        outside -= total
        crit_blocks += crit
        par += total
        if b.kind == "subtask":
            sub += sum(totals)
        elif b.kind == "trial":
            tri += sum(totals)
        mean_t = sum(totals) / len(totals) if totals else 0.0
        stats.append(
            StageStats(
                stage=b.stage,
                kind=b.kind,
                join_type=b.join_type,
                branches=len(b.threads),
                item_kinds=[it.kind for it in b.items],
                s=s,
                thread_tokens=totals,
                critical=crit,
                block_speedup=(total / crit) if crit > 0 else 1.0,
                imbalance=(max(totals) / mean_t) if totals and mean_t > 0 else None,
                longest=totals.index(max(totals)) if totals else None,
            )
        )
    C = max(0.0, outside) + crit_blocks
    branches = [st.branches for st in stats]
    block_kinds = [st.kind for st in stats]
    warn_codes = traj.warning_codes
    if "empty_reasoning" in warn_codes:  # nothing was reasoned: the answer alone is not T
        T = C = par = sub = tri = 0.0
    return Metrics(
        counter=counter.name,
        counter_key=counter.key,
        T=T,
        C=C,
        speedup=(T / C) if C > 0 else None,
        acceleration_ratio=(1.0 - C / T) if T > 0 else None,
        parallel_ratio=par / T if T > 0 else 0.0,
        subtask_ratio=sub / T if T > 0 else 0.0,
        trial_ratio=tri / T if T > 0 else 0.0,
        stages=len(stats),
        branches=branches,
        branches_mean=(sum(branches) / len(branches)) if branches else 0.0,
        branches_max=max(branches) if branches else 0,
        block_kinds=block_kinds,
        item_kinds=[st.item_kinds for st in stats],
        kind_mix=kind_mix(block_kinds),
        block_speedup=[st.block_speedup for st in stats],
        imbalance=[st.imbalance for st in stats],
        longest=[st.longest for st in stats],
        depth=_max_depth(traj.blocks),
        valid=traj.valid,
        warning_codes=[c for c in warn_codes if WARNING_CODES[c][0] == "warning"],
        n_warnings=sum(w.severity == "warning" for w in traj.warnings),
        note_codes=[c for c in warn_codes if WARNING_CODES[c][0] != "warning"],
        answer=traj.boxed,
        n_chars=len(traj.text),
        stage_stats=stats,
    )


QWEN_TEMPLATE = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n<think>\n{r}\n</think>\n\n{c}<|im_end|>"


def trajectory_text(row: Mapping[str, object]) -> tuple[str, float | None]:
    """(text to parse, total tokens for the estimate) from one SFT row, tolerating missing columns.

    Prefers `qwen_text` (whole chat, consistent with num_qwen_tokens); otherwise rebuilds the
    chat from question/response_reasoning/response_content. If num_qwen_tokens is missing the
    estimate counter falls back to its character ratio.
    """
    total = row.get("num_qwen_tokens")
    total_f = (
        float(total) if isinstance(total, int | float) and not isinstance(total, bool) else None
    )
    qt = row.get("qwen_text")
    if isinstance(qt, str) and qt:
        return qt, total_f
    reasoning = row.get("response_reasoning")
    content = row.get("response_content")
    if not isinstance(reasoning, str) and not isinstance(content, str):
        msgs = row.get("raw_messages")
        if isinstance(msgs, list):  # last resort: the chat messages themselves
            by_role = {m.get("role"): m.get("content") for m in msgs if isinstance(m, dict)}
            asst = by_role.get("assistant")
            if isinstance(asst, str):
                q = by_role.get("user") or row.get("question") or ""
                text = f"<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n{asst}<|im_end|>"
                return text, total_f if total_f is not None else float(estimate_total_tokens(text))
        return "", total_f
    text = QWEN_TEMPLATE.format(q=row.get("question") or "", r=reasoning or "", c=content or "")
    if total_f is None:
        total_f = float(estimate_total_tokens(text))
    return text, total_f


def metrics_for_text(
    text: str, counter: TokenCounter | None = None, total_tokens: float | None = None
) -> Metrics:
    """parse + compute_metrics in one call (the hot path of the derived table and the bench)."""
    return compute_metrics(parse(text), counter, total_tokens)


def _norm_body(traj: Trajectory, th) -> str:
    body = traj.text[th.body_start : th.body_end].strip()
    if th.number is not None:
        body = body.split(":", 1)[-1].strip() if ":" in body[:12] else body
    return " ".join(body.split())


def added_branches(traj_1x: Trajectory, traj_8x: Trajectory) -> dict[str, bool]:
    """For every top-level thread node of the 8x trajectory: True if the 8x expansion added it.

    How: stage k of the 8x row is compared with stage k of the 1x row of the same uuid. A thread
    whose text (number prefix and whitespace ignored) also occurs in the 1x stage is original;
    the others are added. When no thread text of a stage matches at all (e.g. re-generated
    text), fall back to position: threads beyond the 1x stage's count are added.
    """
    out: dict[str, bool] = {}
    for k, b8 in enumerate(traj_8x.blocks):
        b1 = traj_1x.blocks[k] if k < len(traj_1x.blocks) else None
        if b1 is None:
            for th in b8.threads:
                out[th.node] = True
            continue
        pool: dict[str, int] = {}
        for th in b1.threads:
            key = _norm_body(traj_1x, th)
            pool[key] = pool.get(key, 0) + 1
        flags: list[bool] = []
        matched = 0
        for th in b8.threads:
            key = _norm_body(traj_8x, th)
            if pool.get(key, 0) > 0:
                pool[key] -= 1
                flags.append(False)
                matched += 1
            else:
                flags.append(True)
        if matched == 0 and b1.threads:
            flags = [i >= len(b1.threads) for i in range(len(b8.threads))]
        for th, f in zip(b8.threads, flags, strict=True):
            out[th.node] = f
    return out


# ----------------------------------------------------------------------------- subset table
SORT_COLUMNS = {
    "row": "file order",
    "speedup": "speedup T/C",
    "T": "tokens T",
    "C": "critical path C",
    "stages": "stages",
    "branches_max": "max branches",
    "parallel_ratio": "parallel ratio",
    "n_warnings": "warnings",
    "added": "8x added branches",  # only when the table carries the pair counts (Browse)
}


def filter_table(
    df,  # pl.DataFrame of analysis.parason.store.SCHEMA
    *,
    correctness: str = "all",  # "all" | "correct" | "incorrect"
    kinds: list[str] | None = None,  # kind_mix values to keep (None/empty: all)
    speedup: tuple[float, float] | None = None,
    warnings: str = "any",  # "any" | "with" | "without"
    query: str = "",
    sort: str = "row",
    descending: bool = False,
):
    """The browsing table's filters and sort, as one pure polars expression chain."""
    out = df
    if correctness == "correct":
        out = out.filter(pl.col("correctness").fill_null(False))
    elif correctness == "incorrect":
        out = out.filter(~pl.col("correctness").fill_null(True))
    if kinds:
        out = out.filter(pl.col("kind_mix").is_in(list(kinds)))
    if speedup is not None:
        lo, hi = speedup
        out = out.filter(pl.col("speedup").is_between(lo, hi))
    if warnings == "with":
        out = out.filter(~pl.col("valid"))
    elif warnings == "without":
        out = out.filter(pl.col("valid"))
    q = (query or "").strip().lower()
    if q:
        out = out.filter(
            pl.col("question").fill_null("").str.to_lowercase().str.contains(q, literal=True)
            | pl.col("uuid").fill_null("").str.to_lowercase().str.starts_with(q)
        )
    if sort in SORT_COLUMNS and sort in out.columns:
        out = out.sort(sort, descending=descending, nulls_last=True, maintain_order=True)
    return out


def export_table(df):
    """CSV-safe copy: list columns joined with ';' (Parquet keeps the lists)."""
    return df.with_columns(
        [
            pl.col(c).cast(pl.List(pl.String)).list.join(";")
            for c, t in df.schema.items()
            if isinstance(t, pl.List)
        ]
    )
