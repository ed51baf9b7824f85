"""The execution DAG of one parsed trajectory (networkx), its critical path, a layout, and a
collapse step that keeps 40+ branch stages readable.

Why a DAG: the runtime forks after ``</Outlines>`` (one branch per outline item, none sees its
siblings) and joins when every branch has closed; the critical path through that DAG is what a
parallel decoder pays. Node kinds: ``segment``, ``fork``, ``thread`` (``thread_kind`` subtask /
trial / untyped), ``join`` (``join_type`` AND / OR / MIXED / ALL), ``answer``, plus
``collapsed`` after ``collapse_dag``. Every node carries ``spans`` (character ranges in
``traj.text``) and ``tokens`` (from the same per-part counts the metrics use).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

import networkx as nx

from analysis.parason.parse import Block, Trajectory
from analysis.parason.tokens import TokenCounter, get_counter, node_tokens

__all__ = [
    "build_dag",
    "collapse_dag",
    "critical_path",
    "layout",
    "node_from_url",
    "node_spans",
    "shown_item_value",
    "stage_label",
    "top_branch",
    "top_stage",
    "url_node",
]


# URL node ids. The parser's ids are 0-based ("b1t2" = third thread of the second stage) while the
# page numbers stages and threads from 1, so the URL carries a 1-based dotted form that reads like
# the labels: "2.3" (stage 2, thread 3), "2.fork", "2.join", "2.more", nested "2.3.1.2". Segments
# ("s0") and "answer" keep their ids. Old links (`node=b1t0`, stored in casebook cases) still work.
_INTERNAL_NODE = re.compile(r"^b(\d+)((?:t\d+b\d+)*)(t\d+|:fork|:join|:more)$")
_URL_NODE = re.compile(r"^([1-9]\d*(?:\.[1-9]\d*)*)(?:\.(fork|join|more))?$")


def url_node(node: str | None) -> str | None:
    """The id a user reads and the URL carries for a parser node id (1-based, dotted)."""
    if node is None:
        return None
    m = _INTERNAL_NODE.match(node)
    if not m:
        return node
    nums = [int(x) + 1 for x in re.findall(r"\d+", node)]
    tail = m.group(3)
    dotted = ".".join(str(n) for n in nums)
    return dotted + ("." + tail[1:] if tail.startswith(":") else "")


def node_from_url(raw: str | None) -> str | None:
    """The parser node id for a URL value: the 1-based dotted form, or an old 0-based id as is."""
    if raw is None:
        return None
    m = _URL_NODE.match(raw)
    if not m:
        return raw
    nums = [int(x) - 1 for x in m.group(1).split(".")]
    suffix = m.group(2)
    if (len(nums) % 2 == 1) != bool(suffix):  # a thread has an even count, a stage node an odd one
        return raw
    out = "".join(("b" if i % 2 == 0 else "t") + str(n) for i, n in enumerate(nums))
    return out + (":" + suffix if suffix else "")


def top_stage(node: str | None) -> int | None:
    """The 0-based top-level stage a parser node id lies in (a nested node's outer stage), or
    None for a segment, the answer or an id that is not a stage's. Why: a linked node's stage is
    the one the stage picker should offer first."""
    m = _INTERNAL_NODE.match(node or "")
    return int(m.group(1)) if m else None


def top_branch(node: str | None) -> int | None:
    """The 0-based branch of its top-level stage a parser node id lies in (a nested node's outer
    branch), or None for a stage's fork, join or collapsed node and for ids in no stage."""
    m = _INTERNAL_NODE.match(node or "")
    if not m:
        return None
    first = m.group(2) or m.group(3)  # "t2b0t1" nested in branch 2, or "t2" itself
    return int(first[1:].split("b", 1)[0]) if first.startswith("t") else None


def shown_item_value(key: str, value: str) -> str | None:
    """How the view writes a case's item key (`cache.datasets.ViewInfo.shown_item`): a node by
    its URL id ("2.2", as the case's title and link say, not "b1t1"), a stage counted from 1;
    None for the others, written as stored."""
    if key == "node":
        return url_node(value)
    if key == "stage" and value.isdigit():
        return str(int(value) + 1)
    return None


def stage_label(prefix: str) -> str:
    """ "stage 2" for block "b1", "stage 2.3.1" for a block nested in thread 2.3."""
    return "stage " + (url_node(prefix + ":fork") or prefix).removesuffix(".fork")


def node_spans(traj: Trajectory) -> dict[str, list[tuple[int, int]]]:
    """Character spans per node, adjacent parts merged."""
    out: dict[str, list[tuple[int, int]]] = {}
    for s, e, node in zip(traj.part_start, traj.part_end, traj.part_node, strict=True):
        spans = out.setdefault(node, [])
        if spans and spans[-1][1] == s:
            spans[-1] = (spans[-1][0], e)
        else:
            spans.append((s, e))
    return out


def _preview(text: str, spans: list[tuple[int, int]], limit: int = 160) -> str:
    out = []
    size = 0
    for s, e in spans:
        piece = text[s : min(e, s + limit - size)]
        out.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return " ".join("".join(out).split())[:limit]


def build_dag(
    traj: Trajectory,
    counter: TokenCounter | None = None,
    total_tokens: float | None = None,
    counts: list[float] | None = None,
) -> nx.DiGraph:
    """Build the DAG; graph attributes: T, C, counter, critical_path (list of node ids)."""
    counter = counter or get_counter("estimate")
    if counts is None:
        counts = counter.count_parts(traj, total_tokens)
    nt = node_tokens(traj, counts)
    spans = node_spans(traj)
    text = traj.text
    g = nx.DiGraph()

    def add(node: str, kind: str, label: str, **attrs: object) -> None:
        sp = spans.get(node, [])
        g.add_node(
            node,
            kind=kind,
            label=label,
            tokens=nt.get(node, 0.0),
            spans=sp,
            preview=_preview(text, sp),
            warnings=[],
            notes=[],
            **attrs,
        )

    def add_block(b: Block, prev: str | None, branch_path: tuple[int, ...]) -> str:
        add(
            b.fork,
            "fork",
            f"fork of {stage_label(b.prefix)} ({len(b.threads)} × {b.kind})",
            block=b.prefix,
            stage=b.stage,
            depth=b.depth,
            block_kind=b.kind,
            branches=len(b.threads),
            branch_path=branch_path,
        )
        if prev is not None:
            g.add_edge(prev, b.fork)
        add(
            b.join,
            "join",
            f"join of {stage_label(b.prefix)} ({b.join_type})",
            block=b.prefix,
            stage=b.stage,
            depth=b.depth,
            block_kind=b.kind,
            join_type=b.join_type,
            branches=len(b.threads),
            branch_path=branch_path,
        )
        if not b.threads:
            g.add_edge(b.fork, b.join)
        for th in b.threads:
            item_text = ""
            if th.item is not None and th.item < len(b.items):
                it = b.items[th.item]
                item_text = " ".join(text[it.body_start : it.body_end].split())[:160]
            add(
                th.node,
                "thread",
                f"{th.kind} {url_node(th.node)}",
                block=b.prefix,
                stage=b.stage,
                depth=b.depth,
                thread_kind=th.kind,
                number=th.number,
                index=th.index,
                closed=th.closed,
                goal=item_text,
                branch_path=(*branch_path, th.index),
                join_type=b.join_type,
            )
            g.add_edge(b.fork, th.node)
            last = th.node
            for nb in th.blocks:
                last = add_block(nb, last, (*branch_path, th.index))
            g.add_edge(last, b.join)
        return b.join

    prev: str | None = None
    for el in traj.sequence:
        if isinstance(el, Block):
            prev = add_block(el, prev, ())
        else:
            add(el.node, "segment", f"segment {el.node}", stage=None, depth=0, branch_path=())
            if prev is not None:
                g.add_edge(prev, el.node)
            prev = el.node
    if traj.answer is not None:
        add(
            "answer",
            "answer",
            f"answer {traj.boxed or ''}".strip(),
            stage=None,
            depth=0,
            branch_path=(),
        )
        if prev is not None:
            g.add_edge(prev, "answer")
    # warnings as badges on the node whose part holds the position
    if traj.warnings and traj.part_start:
        starts = traj.part_start
        for w in traj.warnings:
            k = max(0, bisect_right(starts, w.pos) - 1)
            node = traj.part_node[min(k, len(starts) - 1)]
            if node not in g and g.number_of_nodes():
                node = next(iter(g.nodes))
            if node in g:  # infos are notes: they must not look like warnings
                g.nodes[node]["warnings" if w.severity == "warning" else "notes"].append(w.code)
    path, c = critical_path(g)
    for n in g.nodes:
        g.nodes[n]["critical"] = False
    for n in path:
        g.nodes[n]["critical"] = True
    g.graph.update(
        T=sum(nt.values()) - nt.get("prompt", 0.0),
        C=c,
        counter=counter.name,
        counter_key=counter.key,
        critical_path=path,
        boxed=traj.boxed,
    )
    return g


def critical_path(g: nx.DiGraph, weight: str = "tokens") -> tuple[list[str], float]:
    """Heaviest source-to-sink path by node weight (ties: the earlier branch)."""
    if g.number_of_nodes() == 0:
        return [], 0.0
    dist: dict[str, float] = {}
    best_pred: dict[str, str | None] = {}
    for n in nx.topological_sort(g):
        w = float(g.nodes[n].get(weight, 0.0) or 0.0)
        best: str | None = None
        bd = 0.0
        for p in g.predecessors(n):
            if best is None or dist[p] > bd:
                best, bd = p, dist[p]
        dist[n] = bd + w
        best_pred[n] = best
    end = max(dist, key=lambda k: dist[k])
    path = [end]
    while best_pred[path[-1]] is not None:
        path.append(best_pred[path[-1]])  # type: ignore[arg-type]  # best_pred holds a node for every node on the path
    path.reverse()
    return path, dist[end]


def _branch_nodes(g: nx.DiGraph, start: str, join: str) -> list[str]:
    """A thread node and everything nested under it, up to (excluding) its block's join."""
    out = [start]
    seen = {start, join}
    stack = [start]
    while stack:
        n = stack.pop()
        for s in g.successors(n):
            if s not in seen:
                seen.add(s)
                out.append(s)
                stack.append(s)
    return out


def collapse_dag(g: nx.DiGraph, max_branches: int = 12, keep: Sequence[str] = ()) -> nx.DiGraph:
    """Copy of `g` where each fork with more than `max_branches` threads keeps the critical
    branch, the nodes in `keep` and the heaviest others, and merges the rest into one
    ``collapsed`` node (members, token sum, count and kinds kept as attributes)."""
    h = g.copy()
    keep_set = set(keep)
    for fork in [n for n, d in g.nodes(data=True) if d.get("kind") == "fork"]:
        threads = [s for s in g.successors(fork) if g.nodes[s].get("kind") == "thread"]
        if len(threads) <= max_branches:
            continue
        join = fork[: -len(":fork")] + ":join"
        pinned = [t for t in threads if g.nodes[t].get("critical") or t in keep_set]
        rest = sorted(
            (t for t in threads if t not in pinned), key=lambda t: -float(g.nodes[t]["tokens"])
        )
        n_keep = max(0, max_branches - 1 - len(pinned))
        kept = set(pinned) | set(rest[:n_keep])
        gone = [t for t in threads if t not in kept]
        if not gone:
            continue
        node = fork[: -len(":fork")] + ":more"
        kinds: dict[str, int] = {}
        tokens = 0.0
        members: list[str] = []
        for t in gone:
            k = g.nodes[t].get("thread_kind", "untyped")
            kinds[k] = kinds.get(k, 0) + 1
            for m in _branch_nodes(g, t, join):
                tokens += float(g.nodes[m].get("tokens", 0.0))
                members.append(m)
                if m in h:
                    h.remove_node(m)
        fd = g.nodes[fork]
        h.add_node(
            node,
            kind="collapsed",
            label=f"+{len(gone)} more branches",
            tokens=tokens,
            spans=[],
            preview=", ".join(f"{v} {k}" for k, v in sorted(kinds.items())),
            warnings=[],
            critical=False,
            members=[t for t in gone],
            all_members=members,
            count=len(gone),
            kinds=kinds,
            block=fd.get("block"),
            stage=fd.get("stage"),
            depth=fd.get("depth"),
            branch_path=(*fd.get("branch_path", ()), 10**6),
            thread_kind="collapsed",
            index=10**6,
        )
        h.add_edge(fork, node)
        h.add_edge(node, join)
    return h


def layout(g: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Left-to-right positions: x = longest-path column, y = branch position (nested branches
    fan out around their parent thread)."""
    pos: dict[str, tuple[float, float]] = {}
    col: dict[str, int] = {}
    for n in nx.topological_sort(g):
        preds = list(g.predecessors(n))
        col[n] = max((col[p] for p in preds), default=-1) + 1
    # y: top-level chain at 0; each fork spreads its children around the fork's y
    ys: dict[str, float] = {}
    span_of: dict[str, float] = {}
    for n in nx.topological_sort(g):
        d = g.nodes[n]
        if n not in ys:
            preds = list(g.predecessors(n))
            if d.get("kind") == "join":
                fork = n[: -len(":join")] + ":fork"
                ys[n] = ys.get(fork, 0.0)
            elif preds:
                ys[n] = ys[preds[0]]
            else:
                ys[n] = 0.0
        if d.get("kind") == "fork":
            kids = sorted(
                g.successors(n),
                key=lambda s: g.nodes[s].get("index", 0) if g.nodes[s].get("kind") != "join" else 0,
            )
            k = len(kids)
            width = span_of.get(n, float(max(k - 1, 1)))
            step = width / max(k - 1, 1) if k > 1 else 0.0
            for i, s in enumerate(kids):
                ys[s] = ys[n] + (i - (k - 1) / 2) * step
                span_of[s] = max(step * 0.8, 0.2)
        elif d.get("kind") == "thread":
            for s in g.successors(n):
                span_of.setdefault(s, span_of.get(n, 1.0))
    for n in g.nodes:
        pos[n] = (float(col[n]), float(-ys.get(n, 0.0)))
    return pos
