"""Downloads of a set of cases: JSONL (with the collection's own line when the set is one), CSV,
Parquet, the static HTML report, and FineProofs step labels as CSV, JSONL or Parquet for
process-reward-model pipelines (formats: docs/formats/casebook.md)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import streamlit as st

from cache.casebook.io import Format, export_casebook, export_cases, labels_bytes, step_labels
from cache.casebook.model import Case, Collection
from components.casebook.report import report_html
from components.common.downloads import download_file, file_stem
from components.common.formatting import counted
from components.common.maths import maths_on

FORMATS: tuple[Format, ...] = ("jsonl", "csv", "parquet")
LABEL_FORMATS: tuple[Format, ...] = ("csv", "jsonl", "parquet")
MIME = {"jsonl": "application/jsonl", "csv": "text/csv", "parquet": "application/octet-stream"}
LABEL = {"jsonl": "JSONL", "csv": "CSV", "parquet": "Parquet"}
LABELS_HELP = (
    "FineProofs step verdicts, one row per labelled step: problem_id, sample_index, step_idx "
    "(the row key of data/prefix_values.parquet, to join on), prefix_ordinal, label, note, "
    "author, updated_at (UTC)"
)


def cases_file(cases: list[Case], fmt: Format, collection: Collection | None) -> bytes:
    """The cases in `fmt`; a collection's JSONL ends with the collection's own line."""
    if fmt == "jsonl" and collection is not None:
        return export_casebook(cases, [collection])
    return export_cases(cases, fmt)


def export_buttons(
    cases: Sequence[Case],
    stem: str,
    key: str,
    title: str = "",
    collection: Collection | None = None,
) -> None:
    """A row of downloads for `cases`, each named `<stem>.<ext>`. With `collection`, the JSONL
    also holds the collection (name, description, order), so importing it recreates it."""
    cases = list(cases)
    name = file_stem(stem)
    row = st.container(horizontal=True)
    for fmt in FORMATS:
        with row:
            download_file(
                partial(cases_file, cases, fmt, collection),
                name,
                fmt,
                key=f"{key}_{fmt}",
                label=f"Download {LABEL[fmt]}",
                mime=MIME[fmt],
            )
    description = collection.description if collection is not None else ""
    maths = maths_on()  # "Render maths": the report typesets the notes' formulas too
    with row:
        download_file(
            lambda: report_html(
                cases, title or f"Casebook: {counted(len(cases), 'case')}", description, maths=maths
            ).encode(),
            f"{name}_report",
            "html",
            key=f"{key}_html",
            label="Download HTML report",
            mime="text/html",
        )
    _label_buttons(cases, name, key)


def _label_buttons(cases: list[Case], name: str, key: str) -> None:
    """The step labels in each format, and how many labelled steps could not be placed."""
    labels = step_labels(cases)
    n = labels.frame.height
    row = st.container(horizontal=True)
    for fmt in LABEL_FORMATS:
        with row:
            download_file(
                partial(labels_bytes, labels.frame, fmt),
                f"{name}_fineproofs_step_labels",
                fmt,
                key=f"{key}_prm_{fmt}",
                label=f"Step labels {LABEL[fmt]} ({n})",
                mime=MIME[fmt],
                disabled=not n,
                help=LABELS_HELP,
            )
    if labels.no_step_index:
        st.caption(
            f"{counted(labels.no_step_index, 'labelled step case')} skipped: no step index (their "
            "capture stored neither item nor snapshot `step`), so they cannot be joined to "
            "the prefix table. Label those steps again in the FineProofs view to include them."
        )
