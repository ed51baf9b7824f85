"""FineProofs's text table for the search (`cache.text_tables` schema): each trace's text cut
at its steps' ends (so a hit opens the Trace tab at the prefix that ends after it) and each
problem statement.

Why cut at the ends: a prefix holds the text up to its step's end, so the piece between the
previous step's end and this one's is what that step adds; the pieces cover the text exactly
once (the text after the last step is a piece of its own, opened without a prefix). Offsets in
the trace files are UTF-16 (`analysis.fineproofs.utf16`).

A row's `correct` is its trace's: the base trace's endpoint grade (role `endpoint`) at full marks
(7/7) is correct, any lower grade wrong, no endpoint grade (or one outside [0, 1]) unknown
(`docs/formats/prefix-values.md`, "Correct proofs"). A problem statement, shared by its traces,
has none.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from analysis.fineproofs.utf16 import Utf16Index
from cache.datasets import FINEPROOFS
from cache.derived_tables import FINEPROOFS_TEXTS
from cache.fineproofs_io import PREFIX_FILE, TRACES_DIR, TraceRecord, load_shard
from cache.progress import ProgressFn, no_progress
from cache.schemas import FINEPROOFS_ROLES, map_roles
from cache.sources import SourceConfig, available_files, resolve_file
from cache.store import derived_table
from cache.text_tables import TextRows

FULL_MARKS = 1.0  # the endpoint grade of a correct proof: 7/7, normalised
_TOLERANCE = 1e-9  # k/7 stored as a float
NAME = FINEPROOFS_TEXTS.name
VERSION = FINEPROOFS_TEXTS.version
VIEW = FINEPROOFS.views[0].name
TRACE_TAB = "Trace"


def ordinals(prefix_path: Path) -> dict[tuple[str, int], dict[int, int]]:
    """(problem id lower-cased, sample) -> step index -> its prefix ordinal (1-based, in step
    order), as the Trace tab numbers a trace's prefixes."""
    names = pl.scan_parquet(prefix_path).collect_schema().names()
    roles = map_roles(names, FINEPROOFS_ROLES, PREFIX_FILE, "FineProofs prefix")
    cols = [c for c in (roles["problem"], roles["sample"], roles["step"]) if c is not None]
    df = pl.read_parquet(prefix_path, columns=cols)
    df = df.rename(dict(zip(cols, ("pid", "sample", "step"), strict=True)))
    df = df.drop_nulls().with_columns(pl.col("pid").str.to_lowercase())
    df = df.sort("pid", "sample", "step").with_columns(
        ordinal=pl.int_range(1, pl.len() + 1).over("pid", "sample")
    )
    out: dict[tuple[str, int], dict[int, int]] = {}
    for pid, sample, step, ordinal in df.iter_rows():
        out.setdefault((pid, int(sample)), {})[int(step)] = int(ordinal)
    return out


def proof_correct(grade: float | None) -> bool | None:
    """A proof's correctness from its endpoint grade: full marks correct, less wrong, no grade
    (or not a grade in [0, 1]) unknown."""
    if grade is None or not -_TOLERANCE <= grade <= FULL_MARKS + _TOLERANCE:  # NaN fails too
        return None
    return grade >= FULL_MARKS - _TOLERANCE


def correctness(prefix_path: Path) -> dict[tuple[str, int], bool | None]:
    """(problem id lower-cased, sample) -> the trace's correctness (`proof_correct` of its first
    endpoint grade; a file without the endpoint role: none known)."""
    names = pl.scan_parquet(prefix_path).collect_schema().names()
    roles = map_roles(names, FINEPROOFS_ROLES, PREFIX_FILE, "FineProofs prefix")
    if not roles.has("endpoint"):
        return {}
    cols = [str(roles[r]) for r in ("problem", "sample", "endpoint")]  # all three present
    df = pl.read_parquet(prefix_path, columns=cols)
    df = df.select(
        pl.col(cols[0]).str.to_lowercase().alias("pid"),
        pl.col(cols[1]).alias("sample"),
        pl.col(cols[2]).cast(pl.Float64, strict=False).fill_nan(None).alias("grade"),
    ).drop_nulls(["pid", "sample"])
    firsts = df.group_by("pid", "sample", maintain_order=True).agg(
        pl.col("grade").drop_nulls().first()
    )
    return {(pid, int(s)): proof_correct(g) for pid, s, g in firsts.iter_rows()}


def locator(step: int | None, ordinal: int | None) -> str:
    """Where a piece is: the text a prefix adds, which runs from the previous prefix's end up to
    and including its last step (the steps between carry no span of their own), so "step 6"
    alone would name a span that a hit just before it is not in."""
    if step is None:
        return ""
    return f"prefix {ordinal} · up to step {step}" if ordinal is not None else f"up to step {step}"


def pieces(rec: TraceRecord) -> list[tuple[int | None, str]]:
    """(step index or None, text) pieces covering the trace text once, in text order."""
    text = rec.text
    index = Utf16Index(text)
    ends: list[tuple[int, int | None]] = []
    for step, start, end in rec.step_spans():
        m = index.span(start, end)
        if m.ok and m.end is not None:
            ends.append((m.end, step))
    ends.sort(key=lambda e: e[0])
    out: list[tuple[int | None, str]] = []
    prev = 0
    for end, step in ends:
        if end > prev:
            out.append((step, text[prev:end]))
            prev = end
    if prev < len(text):
        out.append((None, text[prev:]))
    return out


def build(prefix_path: Path, shards: list[Path], progress: ProgressFn | None = None) -> pa.Table:
    hook = progress or no_progress
    steps = ordinals(prefix_path)
    graded = correctness(prefix_path)
    rows = TextRows()
    problems: set[str] = set()
    for n, shard in enumerate(shards):
        hook(n / max(1, len(shards)), f"trace shard {shard.name}")
        for (pid, sample), rec in sorted(load_shard(shard).items()):
            item = f"{rec.problem_id} #{sample}"
            common = {
                "file": f"{TRACES_DIR}/{shard.name}",
                "group": str(rec.meta.get("source") or "trace"),
                "item": item,
                "label": f"trace {item}",
                "view": VIEW,
                "keys": {"problem": rec.problem_id, "sample": sample},
            }
            at = {"problem": rec.problem_id, "sample": sample, "view": TRACE_TAB}
            problem = rec.meta.get("problem")
            if isinstance(problem, str) and problem and pid not in problems:
                problems.add(pid)
                rows.add(field="problem", text=problem, query=at, **common)
            known = steps.get((pid, sample), {})
            correct = graded.get((pid, sample))
            for step, text in pieces(rec):
                ordinal = known.get(step) if step is not None else None
                rows.add(
                    field="trace text",
                    text=text,
                    query={**at, "prefix": ordinal},
                    locator=locator(step, ordinal),
                    correct=correct,
                    **common,
                )
    hook(1.0, "FineProofs texts")
    return rows.table()


def text_tables(source: SourceConfig, progress: ProgressFn | None = None) -> list[Path]:
    """The stored text table of the prefix file and the trace shards this source holds (a Hub
    source: the shards already downloaded)."""
    prefix = resolve_file(FINEPROOFS.name, PREFIX_FILE, source)
    rels = sorted(available_files(FINEPROOFS.name, source, f"{TRACES_DIR}/*.json.gz"))
    shards = [resolve_file(FINEPROOFS.name, rel, source) for rel in rels]
    return [
        derived_table(
            NAME,
            VERSION,
            [prefix, *shards],
            lambda p: build(prefix, shards, p),
            params={"shards": len(shards)},
            progress=progress,
        )
    ]
