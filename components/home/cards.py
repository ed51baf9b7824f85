"""The home page's per-dataset card: source, files with rows/columns/types, cached tables."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from cache.datasets import DATASETS
from cache.inventory import Inventory

_REPO = Path(__file__).resolve().parents[1]

VIEW_LINKS = {
    "parason": [("pages/parason.py", "Open the Parason DAGs")],
    "mars": [
        ("pages/mars.py", "Open the MARS pools"),
        ("pages/playground.py", "Open the stopping playground"),
    ],
    "fineproofs": [("pages/fineproofs.py", "Open the FineProofs values")],
}


def _size(n: int | None) -> str:
    if n is None:
        return ""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


def dataset_card(inv: Inventory) -> None:
    info = DATASETS[inv.dataset]
    ok = [f for f in inv.files if f.status == "ok"]
    head, *metrics = st.columns([3, 1, 1, 1])
    head.subheader(info.title)
    head.caption(inv.source.describe())
    metrics[0].metric("Files available", f"{len(ok)} / {len(inv.files)}")
    metrics[1].metric("Rows", f"{sum(f.rows or 0 for f in ok):,}")
    metrics[2].metric("On disk", _size(sum(f.size_bytes or 0 for f in ok)))
    rows = [
        {
            "file": f.relpath,
            "status": f.status if not f.problem else f"error: {f.problem}",
            "rows": f.rows,
            "columns": len(f.columns) or None,
            "size": _size(f.size_bytes),
        }
        for f in inv.files
    ]
    for glob, count in inv.extra_files.items():
        status = f"{count} files" if count else "none in this source"
        rows.append({"file": glob, "status": status, "rows": None, "columns": None, "size": ""})
    st.dataframe(rows, hide_index=True, width="stretch")
    if inv.source.kind == "hub" and len(ok) < len(inv.files):
        st.info(
            "Files are downloaded only when a view needs them. To fetch ahead of time: "
            f"`python -m cache fetch {inv.dataset}`.",
            icon="ℹ️",
        )
    with st.expander("Columns and types"):
        for f in ok:
            if f.columns:
                st.markdown(f"**{f.relpath}**")
                st.dataframe(
                    [{"column": c, "type": t} for c, t in f.columns.items()],
                    hide_index=True,
                    width="stretch",
                )
    if inv.derived:
        total = sum(b for _n, b in inv.derived)
        with st.expander(
            f"Derived tables cached on disk: {len(inv.derived)} files, {_size(total)}"
        ):
            st.dataframe(
                [{"table": n, "size": _size(b)} for n, b in inv.derived],
                hide_index=True,
                width="stretch",
            )
    else:
        st.caption(
            "Derived tables cached on disk: none yet (built the first time a view needs them)."
        )
    with st.container(horizontal=True):
        for page, label in VIEW_LINKS[inv.dataset]:
            if (_REPO / page).exists():  # views appear as their files land
                st.page_link(page, label=label, icon=":material/arrow_forward:", width="content")
