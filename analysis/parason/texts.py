"""Parason's text table for the search (`cache.text_tables` schema): each SFT trajectory's
question, one row per DAG node of its reasoning (so a hit opens the node that holds it) and its
answer; each RL prompt and its ground truth.

Why per node: a hit must land on the node the Trajectory tab selects (`node=`, the 1-based form
the labels use); the node's text is every character the parser charges to it, in text order
(`Trajectory.node_text`), so the search sees what the node panel shows.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from analysis.parason.dag import url_node
from analysis.parason.metrics import trajectory_text
from analysis.parason.parse import parse
from analysis.parason.store import iter_rows, rl_table
from cache.datasets import PARASON
from cache.derived_tables import PARASON_TEXTS
from cache.errors import SourceNotFound, SourceRefused
from cache.progress import ProgressFn, no_progress, scaled
from cache.sources import SourceConfig, resolve_file
from cache.store import derived_table
from cache.text_tables import TextRows

NAME = PARASON_TEXTS.name
VERSION = PARASON_TEXTS.version
VIEW = PARASON.views[0].name
SFT = ("sft-1x", "sft-8x")
RL_FILE = "rl/train.parquet"
RL_TAB = "RL"
TRAJECTORY_TAB = "Trajectory"
RL_QUERY_CHARS = 60  # the RL tab's search box gets the prompt's start (a literal filter)


def _short(text: str, n: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


def sft_rows(rows: TextRows, path: Path, subset: str, hook: ProgressFn) -> None:
    """The question, each node's reasoning and the answer of every trajectory of one subset."""
    rel = f"{subset}/train.parquet"
    for start, batch in iter_rows(path):
        hook(0.0, f"{subset}: row {start:,}")
        for i, row in enumerate(batch):
            uid = row.get("uuid")
            item = str(uid) if uid is not None else f"row {start + i}"
            question = row.get("question") if isinstance(row.get("question"), str) else ""
            correct = row.get("correctness")
            correct = bool(correct) if isinstance(correct, bool) else None
            common = {
                "file": rel,
                "group": subset,
                "item": item,
                "label": f"{subset} · {_short(question or item)}",
                "view": VIEW,
                "correct": correct,
            }
            base = {"subset": subset, "uuid": uid, "view": TRAJECTORY_TAB}
            keys = {"subset": subset, "uuid": uid}
            if question:
                rows.add(field="question", text=question, query=base, keys=keys, **common)
            traj = parse(trajectory_text(row)[0])
            for node in dict.fromkeys(n for n in traj.part_node if n != "prompt"):
                text = traj.node_text(node)
                if text.strip():
                    answer = node == "answer"
                    at = url_node(node)
                    rows.add(
                        field="answer" if answer else "reasoning",
                        text=text,
                        query={**base, "node": at},
                        keys={**keys, "node": at},
                        locator="" if answer else f"node {at}",
                        **common,
                    )


def rl_rows(rows: TextRows, path: Path) -> None:
    """Each RL prompt (user text) and its ground truth; a hit opens the RL tab filtered to it,
    with the prompt open (`rlp`, its index)."""
    rl = rl_table(path)
    for r in rl.iter_rows(named=True):
        prompt = r["prompt"] or ""
        item = f"prompt {r['index']}"
        query = {
            "view": RL_TAB,
            "rlq": prompt.strip()[:RL_QUERY_CHARS].strip() or None,
            "rlp": str(r["index"]),
        }
        common = {
            "file": RL_FILE,
            "group": "rl",
            "item": item,
            "label": f"RL {item} · {_short(prompt)}",
            "view": VIEW,
            "query": query,
            "keys": {"subset": "rl", "index": r["index"]},
        }
        if prompt:
            rows.add(field="RL prompt", text=prompt, **common)
        if r["ground_truth"]:
            rows.add(field="ground truth", text=str(r["ground_truth"]), **common)


def build(paths: dict[str, Path], progress: ProgressFn | None = None) -> pa.Table:
    """The whole table from the resolved files (`sft-1x`, `sft-8x`, `rl` as present)."""
    hook = progress or no_progress
    rows = TextRows()
    for i, subset in enumerate(SFT):
        if subset in paths:
            sft_rows(rows, paths[subset], subset, scaled(hook, i / 3, (i + 1) / 3))
    if "rl" in paths:
        rl_rows(rows, paths["rl"])
    hook(1.0, "Parason texts")
    return rows.table()


def text_tables(source: SourceConfig, progress: ProgressFn | None = None) -> list[Path]:
    """The stored text table of a source's Parason files, built once per set of files (a
    source missing some of them searches the others; missing all, the first one's error)."""
    paths: dict[str, Path] = {}
    first: SourceNotFound | None = None
    for rel in PARASON.files:
        try:
            paths[rel.split("/", 1)[0]] = resolve_file(PARASON.name, rel, source)
        except SourceRefused:
            raise
        except SourceNotFound as exc:
            first = first or exc
    if not paths and first is not None:
        raise first
    ordered = [paths[k] for k in (*SFT, "rl") if k in paths]
    return [
        derived_table(
            NAME,
            VERSION,
            ordered,
            lambda p: build(paths, p),
            params={"files": ",".join(k for k in (*SFT, "rl") if k in paths)},
            progress=progress,
        )
    ]
