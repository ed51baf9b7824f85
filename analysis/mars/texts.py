"""MARS's text table for the search (`cache.text_tables` schema): per file, each question's
ground truth, each trace's extracted answer and each probe's `raw_text` (a hit opens the trace
in the Single trace tab at that probe, `probe=` its token position).

Why one table per file: the files are large and independent (a local folder may hold some), and
the `confs` column, the bulk of a file, is never read here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from cache.datasets import MARS, MARS_FILES
from cache.derived_tables import MARS_TEXTS
from cache.progress import ProgressFn, no_progress, scaled
from cache.schemas import MARS_ROLES, map_roles
from cache.sources import SourceConfig, dataset_root, resolve_file
from cache.store import derived_table
from cache.text_tables import TextRows

NAME = MARS_TEXTS.name
VERSION = MARS_TEXTS.version
VIEW = MARS.views[0].name
TRACE_TAB = "Single trace"
BATCH = 4096


def build(path: Path, rel: str, progress: ProgressFn | None = None) -> pa.Table:
    """The rows of one MARS file, read batch by batch without `confs`."""
    hook = progress or no_progress
    pf = pq.ParquetFile(path)
    roles = map_roles(pf.schema_arrow.names, MARS_ROLES, rel, "MARS")
    wanted = {r: roles[r] for r in ("qid", "trace_idx", "ground_truth", "extracted_answer")}
    wanted["probes"] = roles["probes"]
    cols = [c for c in wanted.values() if c]
    label = MARS_FILES.get(rel, ("", "", rel))[2]
    rows = TextRows()
    seen_gt: set[int] = set()
    total = max(1, pf.metadata.num_rows)
    done = 0
    for batch in pf.iter_batches(batch_size=BATCH, columns=cols):
        data = batch.to_pydict()
        n = batch.num_rows
        col = {r: (data[c] if c else [None] * n) for r, c in wanted.items()}
        for i in range(n):
            qid, trace = col["qid"][i], col["trace_idx"][i]
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
            item = f"q{qid} t{trace}"
            tlabel = f"{label} · question {qid} · trace {trace}"
            at = {"file": rel, "qid": qid, "trace": trace, "view": TRACE_TAB}
            answer = col["extracted_answer"][i]
            if answer is not None and str(answer):
                rows.add(
                    item=item,
                    label=tlabel,
                    field="extracted answer",
                    text=str(answer),
                    query=at,
                    keys={"qid": qid, "trace": trace},
                    **common,
                )
            for probe in col["probes"][i] or ():
                text = probe.get("raw_text") if isinstance(probe, dict) else None
                if not text:
                    continue
                pos = probe.get("position")
                ok = probe.get("is_correct")
                rows.add(
                    item=item,
                    label=tlabel,
                    field="probe raw_text",
                    text=str(text),
                    query={**at, "probe": pos},
                    keys={"qid": qid, "trace": trace, "position": pos},
                    locator=f"token {pos}" if pos is not None else "",
                    correct=bool(ok) if isinstance(ok, bool) else None,
                    **common,
                )
        done += n
        hook(done / total, f"{rel}: {done:,} traces")
    return rows.table()


def _builder(path: Path, rel: str) -> Callable[[ProgressFn | None], pa.Table]:
    def run(progress: ProgressFn | None) -> pa.Table:
        return build(path, rel, progress)

    return run


def text_tables(source: SourceConfig, progress: ProgressFn | None = None) -> list[Path]:
    """The stored text tables of the source's MARS files (those a local folder holds)."""
    files = list(MARS_FILES)
    if source.kind == "local":
        root = dataset_root(MARS.name, source)
        if root is not None:
            files = [rel for rel in files if (root / rel).is_file()] or files[:1]
    out = []
    for i, rel in enumerate(files):
        path = resolve_file(MARS.name, rel, source)
        sub = scaled(progress or no_progress, i / len(files), (i + 1) / len(files))
        out.append(derived_table(NAME, VERSION, [path], _builder(path, rel), progress=sub))
    return out
