"""The Import tab: merge a JSONL, CSV or Parquet export into this casebook, by case id."""

from __future__ import annotations

import streamlit as st

from cache.casebook.io import format_of, import_cases
from cache.casebook.store import CaseStore
from cache.errors import DataError
from components.common.casebook import readonly
from components.common.guards import show_error


def render(store: CaseStore) -> None:
    st.caption(
        "An import merges by case id: new cases are added, cases edited later in the file "
        "replace the stored ones, and importing the same file twice changes nothing. A file "
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
        st.success(
            f"Imported {up.name}: {report.added} added, {report.updated} updated, "
            f"{report.unchanged} unchanged."
            + (f" {len(report.kept)} kept as stored (edited here later)." if report.kept else "")
        )
