"""The correctness of MARS's extracted answers for the search: each trace's `final_correct`
from its file's feature table, the grade every MARS view shows.

Why not in the text table: the grade is the feature build's (the answers of a question grouped
and matched to its ground truth with math-verify), minutes per file at full size. The search
reads the grades of the files whose features are built, and builds the others only when asked
(`cache.text_tables.TextGrader`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analysis.mars.confidence_defs import WINDOW
from analysis.mars.table_names import FEATURES, FEATURES_VERSION
from analysis.mars.texts import ANSWER_FIELD, text_files
from cache.datasets import MARS
from cache.errors import CorruptFile
from cache.progress import ProgressFn, no_progress, scaled
from cache.sources import SourceConfig, resolve_file
from cache.table_keys import table_path
from cache.text_tables import GRADE_SCHEMA, GradeState, TextGrader

HOW = (
    "graded against the question's ground truth by the MARS feature build (math-verify), "
    "as the MARS views show them"
)


def state(source: SourceConfig) -> GradeState:
    """The source's MARS files with and without a built feature table (nothing is built)."""
    ready, pending = [], []
    for rel in text_files(source):
        path = resolve_file(MARS.name, rel, source)
        built = table_path(FEATURES, FEATURES_VERSION, [path], {"window": WINDOW})
        if built.exists():
            ready.append((rel, built))
        else:
            pending.append(rel)
    return GradeState(tuple(ready), tuple(pending))


def read(graded: GradeState) -> pa.Table:
    """One row per trace of the ready files: its extracted answer's item and `final_correct`."""
    parts = []
    for rel, built in graded.ready:
        try:
            t = pq.read_table(built, columns=["qid", "trace_idx", "final_correct"])
        except (OSError, pa.ArrowException) as exc:
            raise CorruptFile(
                f"the cached MARS feature table of {rel} is unreadable ({str(exc)[:120]})",
                "run `python -m cache clear` and search again",
            ) from None
        item = pc.binary_join_element_wise(
            "q", pc.cast(t["qid"], pa.string()), " t", pc.cast(t["trace_idx"], pa.string()), ""
        )
        n = t.num_rows
        parts.append(
            pa.table(
                {
                    "file": pa.array([rel] * n, pa.string()),
                    "item": item,
                    "field": pa.array([ANSWER_FIELD] * n, pa.string()),
                    "correct": t["final_correct"],
                },
                schema=GRADE_SCHEMA,
            )
        )
    return pa.concat_tables(parts) if parts else GRADE_SCHEMA.empty_table()


def build(
    source: SourceConfig, progress: ProgressFn | None = None, files: Sequence[str] | None = None
) -> None:
    """Build the feature tables of the source's files not graded yet (of `files`, when given),
    one after another."""
    # why here: the build's modules are needed only when asked to grade, not for the search
    from analysis.mars.feature_files import feature_paths

    hook = progress or no_progress
    pending = [f for f in state(source).pending if files is None or f in files]
    for i, rel in enumerate(pending):
        sub = scaled(hook, i / len(pending), (i + 1) / len(pending))
        feature_paths(resolve_file(MARS.name, rel, source), window=WINDOW, progress=sub)
    hook(1.0, "graded")


GRADER = TextGrader(fields=(ANSWER_FIELD,), how=HOW, state=state, read=read, build=build)
