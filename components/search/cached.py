"""The search's Streamlit caches: each dataset's text rows per source (read once from the store
and kept), and the corpus over them and the casebook's current cases."""

from __future__ import annotations

import polars as pl
import streamlit as st

from analysis.search.corpus import (
    CASEBOOK,
    CASEBOOK_TITLE,
    Corpus,
    assemble,
    builders,
    case_frame,
    dataset_frame,
)
from cache.casebook.model import Case
from cache.datasets import DATASETS
from cache.errors import DataError
from cache.sources import SourceConfig
from components.common.cached import st_progress
from components.common.casebook import store
from components.common.source_picker import current_source


@st.cache_resource(show_spinner=False, max_entries=8)
def _dataset_rows(dataset: str, source: SourceConfig) -> pl.DataFrame:
    title = DATASETS[dataset].title
    with st_progress(f"Reading the {title} texts (built once, then stored)…") as bar:
        return dataset_frame(dataset, source, bar)


@st.cache_resource(show_spinner=False, max_entries=4)
def _corpus(
    sources: tuple[tuple[str, SourceConfig], ...],
    stamp: tuple[tuple[str, int, float], ...],  # the cases' ids and versions: the cache key
    labels: tuple[tuple[str, str], ...],
    _cases: tuple[Case, ...],
) -> Corpus:
    frames, problems = [], {}
    for name, src in sources:
        try:
            frames.append(_dataset_rows(name, src))
        except DataError as exc:
            problems[name] = exc.message
    frames.append(case_frame(list(_cases), dict(labels)))
    titles = {name: DATASETS[name].title for name, _ in sources}
    titles[CASEBOOK] = CASEBOOK_TITLE
    return Corpus(assemble(frames), titles, problems)


def corpus() -> Corpus:
    """The corpus of the sources chosen in the sidebar and the casebook as it is now."""
    sources = tuple((name, current_source(name)) for name in builders())
    try:
        cases = tuple(store().list_cases())
    except DataError:
        cases = ()  # the datasets are still searched; the casebook page says what is wrong
    labels = tuple((v.name, v.label) for d in DATASETS.values() for v in d.views)
    stamp = tuple((c.id, c.version, c.updated_at) for c in cases)
    return _corpus(sources, stamp, labels, cases)
