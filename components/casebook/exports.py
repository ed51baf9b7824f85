"""Downloads of a set of cases: JSONL, CSV, Parquet, the static HTML report, and FineProofs step
verdicts as a labelled dataset for process-reward-model pipelines."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from cache.casebook.io import export_cases, prm_labels
from cache.casebook.model import Case
from components.casebook.report import report_html
from components.common.downloads import download_file, file_stem, parquet_bytes

MIME = {"jsonl": "application/jsonl", "csv": "text/csv", "parquet": "application/octet-stream"}


def export_buttons(cases: Sequence[Case], stem: str, key: str, title: str = "") -> None:
    """A row of downloads for `cases`, each named `<stem>.<ext>`."""
    cases = list(cases)
    name = file_stem(stem)
    row = st.container(horizontal=True)
    for fmt in ("jsonl", "csv", "parquet"):
        with row:
            download_file(
                lambda fmt=fmt: export_cases(cases, fmt),  # type: ignore[misc]  # bound per fmt
                name,
                fmt,
                key=f"{key}_{fmt}",
                label=f"Download {'Parquet' if fmt == 'parquet' else fmt.upper()}",
                mime=MIME[fmt],
            )
    with row:
        download_file(
            lambda: report_html(cases, title or f"Casebook: {len(cases)} case(s)").encode(),
            f"{name}_report",
            "html",
            key=f"{key}_html",
            label="Download HTML report",
            mime="text/html",
        )
    labelled = [c for c in cases if c.dataset == "fineproofs" and c.verdict]
    with row:
        download_file(
            lambda: parquet_bytes(prm_labels(cases)),
            f"{name}_fineproofs_step_labels",
            "parquet",
            key=f"{key}_prm",
            label=f"Step labels ({len(labelled)})",
            mime="application/octet-stream",
            disabled=not labelled,
            help="FineProofs step verdicts as problem_id, sample_index, step, label, note "
            "(the shape a process-reward-model pipeline reads)",
        )
