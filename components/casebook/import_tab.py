"""The Import tab: merge a JSONL, CSV or Parquet export into this casebook, by case id (and, from
JSONL, its collections by collection id)."""

from __future__ import annotations

import streamlit as st

from cache.casebook.io import format_of, import_cases
from cache.casebook.model import ImportReport
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.common.casebook import readonly
from components.common.formatting import counted
from components.common.guards import show_error


def summary(name: str, report: ImportReport) -> str:
    """What the import did, in one paragraph."""
    text = (
        f"Imported {name}: {report.added} added, {report.updated} updated, "
        f"{report.unchanged} unchanged."
    )
    if report.kept:
        text += f" {len(report.kept)} kept as stored (edited here later)."
    cols = (report.collections_added, report.collections_updated, report.collections_unchanged)
    if any(cols):
        text += " Collections: {} added, {} updated, {} unchanged.".format(*cols)
    if report.collections_kept:
        n = len(report.collections_kept)
        text += f" {counted(n, 'collection')} kept as stored (the copy here is as recent or more)."
    return text


def render(store: CaseStore) -> None:
    st.caption(
        "An import merges by case id: new cases are added, cases edited later in the file "
        "replace the stored ones, and importing the same file twice changes nothing. A JSONL "
        "export also brings its collections, merged the same way by collection id (a collection "
        "whose name another collection here already has is refused: rename one first). A file "
        "with any error is rejected whole."
    )
    up = st.file_uploader(
        "Cases file (.jsonl, .csv, .parquet)",
        type=["jsonl", "csv", "parquet"],
        key="cb_import_file",
        disabled=readonly(),
    )
    if up is None:
        return
    if st.button("Import", key="cb_import_btn", type="primary", disabled=readonly()):
        try:
            report = import_cases(store, up.getvalue(), format_of(up.name))
        except DataError as exc:
            show_error(exc, key="cb_import")
            return
        st.success(summary(up.name, report))
