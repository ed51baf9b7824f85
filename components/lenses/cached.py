"""Streamlit caching adapters for the lenses, keyed by plain values only (lens id, part, the
local paths of its files and their modification times), never by a frame.

Why: a lens reads its dataset's derived tables, which the dataset's view may already hold; the
tables of a part are loaded once per server, each lens's items computed once per file version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from cache.lenses import DatasetLenses, Lens, declared, lens_by_id, run
from cache.sources import SourceConfig
from components.common.cached import file_stamp, resolve


@st.cache_resource(show_spinner="Reading the derived tables the lenses use…", max_entries=8)
def _tables(dataset: str, part: str, paths: tuple[str, ...], stamps: tuple[int, ...]) -> Any:
    kit = declared()[dataset]
    return kit.load([Path(p) for p in paths], part, None)


@st.cache_data(show_spinner=False, max_entries=64)
def _found(
    lens_id: str, part: str, paths: tuple[str, ...], stamps: tuple[int, ...]
) -> tuple[pl.DataFrame, int]:
    lens = lens_by_id(lens_id)
    if lens is None:
        raise KeyError(lens_id)
    return run(lens, _tables(lens.dataset, part, paths, stamps))


def kit_of(lens: Lens) -> DatasetLenses:
    return declared()[lens.dataset]


def found(lens: Lens, part: str, src: SourceConfig) -> tuple[pl.DataFrame, int]:
    """(items, n) of `lens` on one part of the source (its derived tables built on first use)."""
    paths = tuple(str(resolve(lens.dataset, rel, src)) for rel in kit_of(lens).files(part))
    stamps = tuple(file_stamp(Path(p)) for p in paths)
    return _found(lens.id, part, paths, stamps)
