"""MARS's text table for the search (`cache.text_tables` schema): per file, each question's
ground truth, each trace's extracted answer and each probe's `raw_text` (a hit opens the trace
in the Single trace tab at that probe, `probe=` its token position).

Why one table per file: the files are large and independent (a local folder may hold some), and
the `confs` column, the bulk of a file, is never read here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cache.datasets import MARS, MARS_FILES
from cache.derived_tables import MARS_TEXTS
from cache.progress import ProgressFn, no_progress, scaled
from cache.schemas import MARS_ROLES, map_roles
from cache.sources import SourceConfig, dataset_root, resolve_file
from cache.store import derived_table
from cache.text_tables import TEXT_SCHEMA, TextRows

NAME = MARS_TEXTS.name
VERSION = MARS_TEXTS.version
VIEW = MARS.views[0].name
TRACE_TAB = "Single trace"
ANSWER_FIELD = "extracted answer"  # graded by `analysis.mars.text_grades`
BATCH = 4096


def _pairs(keys: tuple[str, ...], values: list[pa.Array]) -> pa.Array:
    """A `query`/`keys` column: row i holds (keys[j], values[j][i]) for every j."""
    n, m = len(values[0]), len(keys)
    flat = pa.concat_arrays([pc.cast(v, pa.string()) for v in values])
    flat = flat.take(pa.array(np.arange(m * n).reshape(m, n).T.ravel()))
    names = pa.array(np.tile(np.array(keys, dtype=object), n), pa.string())
    pairs = pa.StructArray.from_arrays([names, flat], names=["k", "v"])
    return pa.ListArray.from_arrays(pa.array(np.arange(0, m * n + 1, m, dtype=np.int32)), pairs)


def _probe_rows(batch: pa.RecordBatch, rel: str, label: str, probes: str) -> pa.Table:
    """The probe rows of one batch, built column-wise (a file holds millions), with `_trace`
    and `_order` (the trace's row in the batch, the probe's place in it) for the merge."""
    lists = batch.column(probes)
    if lists.null_count == len(lists):
        return pa.table({n: [] for n in (*TEXT_SCHEMA.names, "_trace", "_order")})
    flat = pc.list_flatten(lists)
    parent = pc.list_parent_indices(lists)
    offsets = np.asarray(lists.offsets)
    order = np.arange(len(flat)) - offsets[np.asarray(parent)]
    raw = flat.field("raw_text")
    pos = flat.field("position")
    qid = batch.column("qid").take(parent)
    trace = batch.column("trace_idx").take(parent)
    keep = pc.and_(
        pc.and_(pc.is_valid(raw), pc.greater(pc.utf8_length(raw), 0)),
        pc.and_(pc.and_(pc.is_valid(qid), pc.is_valid(trace)), pc.is_valid(pos)),
    )
    raw, pos, qid, trace = (pc.filter(a, keep) for a in (raw, pos, qid, trace))
    ok = pc.filter(flat.field("is_correct"), keep)
    parent, order = pc.filter(parent, keep), pc.filter(pa.array(order), keep)
    n = len(raw)
    qs, ts, ps = (pc.cast(a, pa.string()) for a in (qid, trace, pos))

    def const(value: str) -> pa.Array:
        return pa.array([value] * n, pa.string())

    join = pc.binary_join_element_wise
    return pa.table(
        {
            "file": const(rel),
            "group": const(rel),
            "item": join("q", qs, " t", ts, ""),
            "label": join(f"{label} · question ", qs, " · trace ", ts, ""),
            "field": const("probe raw_text"),
            "locator": join("token ", ps, ""),
            "correct": pc.cast(ok, pa.bool_()),
            "view": const(VIEW),
            "query": _pairs(
                ("file", "qid", "trace", "view", "probe"),
                [const(rel), qs, ts, const(TRACE_TAB), ps],
            ),
            "keys": _pairs(("qid", "trace", "position"), [qs, ts, ps]),
            "text": pc.cast(raw, pa.string()),
            "_trace": pc.cast(parent, pa.int64()),
            "_order": pc.add(pc.cast(order, pa.int64()), 2),
        }
    )


def build(path: Path, rel: str, progress: ProgressFn | None = None) -> pa.Table:
    """The rows of one MARS file, read batch by batch without `confs`: per trace its
    question's ground truth (first trace of the question), its extracted answer, its probes
    (a probe without a token position is left out: no link could open it)."""
    hook = progress or no_progress
    pf = pq.ParquetFile(path)
    roles = map_roles(pf.schema_arrow.names, MARS_ROLES, rel, "MARS")
    wanted = {r: roles[r] for r in ("qid", "trace_idx", "ground_truth", "extracted_answer")}
    cols = [c for c in (*wanted.values(), roles["probes"]) if c]
    label = MARS_FILES.get(rel, ("", "", rel))[2]
    seen_gt: set[int] = set()
    total = max(1, pf.metadata.num_rows)
    done = 0
    parts = []
    for batch in pf.iter_batches(batch_size=BATCH, columns=cols):
        batch = batch.rename_columns(
            [{roles["qid"]: "qid", roles["trace_idx"]: "trace_idx"}.get(c, c) for c in cols]
        )
        n = batch.num_rows
        col = {
            r: (batch.column(c).to_pylist() if c else [None] * n)
            for r, c in wanted.items()
            if r not in ("qid", "trace_idx")
        }
        qids, traces = batch.column("qid").to_pylist(), batch.column("trace_idx").to_pylist()
        rows = TextRows()
        where: dict[str, list[int]] = {"_trace": [], "_order": []}
        for i in range(n):
            qid, trace = qids[i], traces[i]
            if qid is None or trace is None:
                continue
            qid, trace = int(qid), int(trace)
            common = {"file": rel, "group": rel, "view": VIEW}
            gt = col["ground_truth"][i]
            if gt is not None and qid not in seen_gt:
                seen_gt.add(qid)
                rows.add(
                    item=f"q{qid}",
                    label=f"{label} · question {qid}",
                    field="ground truth",
                    text=str(gt),
                    query={"file": rel, "qid": qid},
                    keys={"qid": qid},
                    **common,
                )
                where["_trace"].append(i)
                where["_order"].append(0)
            answer = col["extracted_answer"][i]
            if answer is not None and str(answer):
                rows.add(
                    item=f"q{qid} t{trace}",
                    label=f"{label} · question {qid} · trace {trace}",
                    field=ANSWER_FIELD,
                    text=str(answer),
                    query={"file": rel, "qid": qid, "trace": trace, "view": TRACE_TAB},
                    keys={"qid": qid, "trace": trace},
                    **common,
                )
                where["_trace"].append(i)
                where["_order"].append(1)
        table = rows.table()
        table = table.append_column("_trace", pa.array(where["_trace"], pa.int64()))
        table = table.append_column("_order", pa.array(where["_order"], pa.int64()))
        if roles["probes"]:
            probes = _probe_rows(batch, rel, label, roles["probes"])
            table = pa.concat_tables([table, probes.cast(table.schema)])
        parts.append(table.sort_by([("_trace", "ascending"), ("_order", "ascending")]))
        done += n
        hook(done / total, f"{rel}: {done:,} traces")
    if not parts:
        return TextRows().table()
    return pa.concat_tables(parts).drop_columns(["_trace", "_order"]).cast(TEXT_SCHEMA)


def _builder(path: Path, rel: str) -> Callable[[ProgressFn | None], pa.Table]:
    def run(progress: ProgressFn | None) -> pa.Table:
        return build(path, rel, progress)

    return run


def text_files(source: SourceConfig) -> list[str]:
    """The MARS files the search reads from the source (those a local folder holds)."""
    files = list(MARS_FILES)
    if source.kind == "local":
        root = dataset_root(MARS.name, source)
        if root is not None:
            files = [rel for rel in files if (root / rel).is_file()] or files[:1]
    return files


def text_tables(source: SourceConfig, progress: ProgressFn | None = None) -> list[Path]:
    """The stored text tables of the source's MARS files (those a local folder holds)."""
    files = text_files(source)
    out = []
    for i, rel in enumerate(files):
        path = resolve_file(MARS.name, rel, source)
        sub = scaled(progress or no_progress, i / len(files), (i + 1) / len(files))
        out.append(derived_table(NAME, VERSION, [path], _builder(path, rel), progress=sub))
    return out
