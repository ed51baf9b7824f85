"""Streamlit caching adapters for the Parason page, keyed by plain values only.

Why: the per-trajectory metrics table is built once per source file through the derived-table
store (`analysis.parason.store`, with a progress bar the first time) and then held in memory, so
filtering, sorting and charting are cheap polars calls. Single trajectories are read by uuid
(projection + predicate pushdown) and kept for a few selections.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import streamlit as st

from analysis.parason.added import NAME as ADDED_NAME
from analysis.parason.added import VERSION as ADDED_VERSION
from analysis.parason.added import added_table
from analysis.parason.store import NAME, VERSION, load_row, metrics_table, rl_table
from analysis.parason.tables import drop_duplicates
from analysis.parason.tokens import qwen_available
from cache.sources import SourceConfig
from cache.store import table_path
from components.common.cached import file_stamp, resolve, st_progress

DATASET = "parason"
SUBSETS = ("sft-1x", "sft-8x")


def sft_path(subset: str, src: SourceConfig) -> Path:
    return resolve(DATASET, f"{subset}/train.parquet", src)


@st.cache_resource(show_spinner=False, max_entries=8)
def _metrics(path: str, mtime: int, counter: str) -> pl.DataFrame:
    return metrics_table(Path(path), counter)


def metrics_with_duplicates(
    subset: str, src: SourceConfig, counter: str = "estimate"
) -> tuple[pl.DataFrame, int]:
    """The subset's metrics table with exact duplicate rows dropped, and how many were dropped;
    the first build shows a progress bar."""
    path = sft_path(subset, src)
    if not table_path(NAME, VERSION, [path], {"counter": counter}).exists():
        with st_progress(f"Parsing every {subset} trajectory (first time only)…") as hook:
            metrics_table(path, counter, progress=hook)
    return drop_duplicates(_metrics(str(path), file_stamp(path), counter))


@st.cache_resource(show_spinner=False, max_entries=4)
def _added(path_1x: str, mtime_1x: int, path_8x: str, mtime_8x: int) -> pl.DataFrame:
    return added_table(Path(path_1x), Path(path_8x))


def added(src: SourceConfig) -> pl.DataFrame:
    """(uuid, added): the branches the 8x expansion added to each pair; the first build shows a
    progress bar."""
    p1, p8 = sft_path("sft-1x", src), sft_path("sft-8x", src)
    if not table_path(ADDED_NAME, ADDED_VERSION, [p1, p8]).exists():
        with st_progress("Comparing every 1x/8x pair (first time only)…") as hook:
            added_table(p1, p8, progress=hook)
    return _added(str(p1), file_stamp(p1), str(p8), file_stamp(p8))


def metrics(subset: str, src: SourceConfig, counter: str = "estimate") -> pl.DataFrame:
    """The subset's metrics table, each exact duplicate row counted once."""
    return metrics_with_duplicates(subset, src, counter)[0]


@st.cache_data(show_spinner=False, max_entries=64)
def _row(path: str, mtime: int, uuid: str | None, row: int | None) -> dict | None:
    return load_row(Path(path), uuid=uuid, row=row)


def row(
    subset: str, src: SourceConfig, uuid: str | None, row_index: int | None = None
) -> dict | None:
    """One SFT row by uuid (or row number when the file has no uuid column)."""
    path = sft_path(subset, src)
    use_uuid = uuid if uuid is not None and not uuid.startswith("row-") else None
    return _row(str(path), file_stamp(path), use_uuid, row_index if use_uuid is None else None)


@st.cache_resource(show_spinner=False, max_entries=4)
def _rl(path: str, mtime: int) -> pl.DataFrame:
    return rl_table(Path(path))


def rl(src: SourceConfig) -> pl.DataFrame:
    path = resolve(DATASET, "rl/train.parquet", src)
    return _rl(str(path), file_stamp(path))


@st.cache_resource(show_spinner=False)
def counters_available() -> tuple[str, ...]:
    return ("estimate", "words", "qwen") if qwen_available() else ("estimate", "words")
