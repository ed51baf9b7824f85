"""The home page's per-dataset card: source, files with rows/columns/types, cached tables."""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from cache.datasets import DATASETS, DatasetInfo
from cache.inventory import FileEntry, Inventory, human_size
from components.common.formatting import DASH
from components.common.links import page_of
from components.common.md_table import md_table
from components.common.safe_text import md_text

_REPO = Path(__file__).resolve().parents[2]

NBSP = "\u00a0"  # a number and its unit stay on one line in a narrow table


def home_cards() -> tuple[DatasetInfo, ...]:
    """The datasets the home page shows a card for, in order: every declared one."""
    return tuple(DATASETS.values())


def view_links(dataset: str) -> list[tuple[str, str]]:
    """(page script, link text) of each view that shows `dataset`, its own first."""
    return [(page_of(v).script, v.link_text) for v in DATASETS[dataset].views]


# what the bundled sample is realistic about, with the figures `bench/sample_realism.py` prints
# (docs/formats/datasets.md, "Sample realism"; tests/cache/test_sample_realism.py holds them)
SAMPLE_NOTE = (
    "The bundled sample is synthetic. It is made realistic where a demo could mislead: on all 9 "
    "MARS files right and wrong traces overlap in confidence (median per-question AUROC 0.65 to "
    "0.68 per signal, 17 to 19 % of questions below 0.5, none at 1.0), probed answers "
    "flip (86 % of traces) and settle late (35 %); FineProofs values are noisy (10 of 48 traces "
    "recover after a drop, 10 flagged drops end right); 49 of 190 Parason 8x rows with extra "
    "Trials do not lengthen the critical path."
)


def sample_note() -> None:
    """Say that the sample is synthetic and what it is realistic about (shown when a dataset
    uses it), so a clean result on it is not taken for a property of real data."""
    st.caption(SAMPLE_NOTE)


def dataset_card(inv: Inventory) -> None:
    """A dataset's card: its source, its three figures, a table of its files (a file with a
    problem says it in its row), their columns and the derived tables on disk. Tables are
    Markdown (`md_table`): a few rows that read at a glance, drawn without a data grid."""
    info = DATASETS[inv.dataset]
    ok = [f for f in inv.files if f.status == "ok"]
    st.subheader(info.title)
    st.caption(md_text(inv.source.describe(), 300))  # a local path comes from the URL
    st.markdown(
        " · ".join(f"{label} **{value}**" for label, value in card_figures(inv)),
        help="Rows and size count the files that open (status ok).",
    )
    rows: list[dict[str, object]] = [
        {
            "file": f.relpath,
            "status": f.status if not f.problem else f"error: {f.problem}",
            "rows": f.rows,
            "columns": len(f.columns) or None,
            "size": human_size(f.size_bytes).replace(" ", NBSP),  # "44.9 MB" never splits
        }
        for f in inv.files
    ]
    for glob, count in inv.extra_files.items():
        status = f"{count}{NBSP}files" if count else "none in this source"
        rows.append({"file": glob, "status": status, "rows": None, "columns": None, "size": ""})
    st.markdown(md_table(rows, limit=300))
    if inv.source.kind == "hub" and len(ok) < len(inv.files):
        st.info(
            "Files are downloaded only when a view needs them. To fetch ahead of time: "
            f"`python -m cache fetch {inv.dataset}`.",
            icon="ℹ️",
        )
    with st.expander("Columns and types"):
        st.markdown("\n".join(_columns_line(f) for f in ok if f.columns) or DASH)
    if inv.derived:
        total = sum(b for _n, b in inv.derived)
        st.caption(
            f"Derived tables cached on disk: {len(inv.derived)} files, {human_size(total)}: "
            + ", ".join(
                f"{md_text(name, 80)} {human_size(size)}" + (f" in {n} files" if n > 1 else "")
                for name, (n, size) in derived_kinds(inv.derived).items()
            )
        )
    else:
        st.caption(
            "Derived tables cached on disk: none yet (built the first time a view needs them)."
        )
    with st.container(horizontal=True):
        for page, label in view_links(inv.dataset):
            if (_REPO / page).exists():  # views appear as their files land
                st.page_link(page, label=label, icon=":material/arrow_forward:", width="content")


def card_figures(inv: Inventory) -> list[tuple[str, str]]:
    """(label, value) of a card's three figures: files available, rows, size on disk."""
    ok = [f for f in inv.files if f.status == "ok"]
    return [
        ("Files available", f"{len(ok)} / {len(inv.files)}"),
        ("Rows", f"{sum(f.rows or 0 for f in ok):,}"),
        ("On disk", human_size(sum(f.size_bytes or 0 for f in ok))),
    ]


def _columns_line(f: FileEntry) -> str:
    """A file's columns and their types as one Markdown list item (names escaped: a local
    folder's files are the user's)."""
    cols = " · ".join(f"{md_text(c, 80)} ({md_text(t, 60)})" for c, t in f.columns.items())
    return f"- **{md_text(f.relpath, 200)}**: {cols}"


_VERSIONED = re.compile(r"-v\d+-[0-9a-f]{8,}\.parquet$")


def derived_kinds(derived: list[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """Derived table files by table (`mars-features-v9-<hash>.parquet` is a `mars-features`):
    how many files and bytes each; a name of another shape stands for itself."""
    out: dict[str, tuple[int, int]] = {}
    for name, size in derived:
        kind = _VERSIONED.sub("", name)
        n, total = out.get(kind, (0, 0))
        out[kind] = (n + 1, total + size)
    return out
