"""The search's Streamlit caches: each dataset's text rows per source (read once from the store
and kept), each grader's grades per graded state, and the corpus over them and the casebook's
current cases. A file graded elsewhere (its MARS view opened) changes the state, so the next
search reads its grades."""

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
    grade_frame,
    graded,
    graders,
    grading,
)
from cache.casebook.model import Case
from cache.datasets import DATASETS
from cache.errors import DataError
from cache.sources import SourceConfig
from cache.text_tables import GradeState
from components.common.cached import st_progress
from components.common.casebook import store
from components.common.source_picker import current_source


@st.cache_resource(show_spinner=False, max_entries=8)
def _dataset_rows(dataset: str, source: SourceConfig) -> pl.DataFrame:
    title = DATASETS[dataset].title
    with st_progress(f"Reading the {title} texts (built once, then stored)…") as bar:
        return dataset_frame(dataset, source, bar)


@st.cache_resource(show_spinner=False, max_entries=16)
def _grades(dataset: str, state: GradeState) -> pl.DataFrame:
    return grade_frame(graders()[dataset], state)


def _states(sources: tuple[tuple[str, SourceConfig], ...]) -> tuple[tuple[str, GradeState], ...]:
    """Each grader's state for its source (a source that cannot be read has none: its text
    rows say why)."""
    out = []
    for name, src in sources:
        grader = graders().get(name)
        if grader is None:
            continue
        try:
            out.append((name, grader.state(src)))
        except DataError:
            continue
    return tuple(out)


@st.cache_resource(show_spinner=False, max_entries=4)
def _corpus(
    sources: tuple[tuple[str, SourceConfig], ...],
    states: tuple[tuple[str, GradeState], ...],
    stamp: tuple[tuple[str, int, float], ...],  # the cases' ids and versions: the cache key
    labels: tuple[tuple[str, str], ...],
    _cases: tuple[Case, ...],
) -> Corpus:
    frames, problems, grades = [], {}, {}
    by_name = dict(states)
    for name, src in sources:
        try:
            frame = _dataset_rows(name, src)
            if name in by_name:
                frame = graded(frame, _grades(name, by_name[name]))
                grades[name] = grading(graders()[name], by_name[name])
            frames.append(frame)
        except DataError as exc:
            problems[name] = exc.message
    frames.append(case_frame(list(_cases), dict(labels)))
    titles = {name: DATASETS[name].title for name, _ in sources}
    titles[CASEBOOK] = CASEBOOK_TITLE
    return Corpus(assemble(frames), titles, problems, grades)


def _sources() -> tuple[tuple[str, SourceConfig], ...]:
    return tuple((name, current_source(name)) for name in builders())


def corpus() -> Corpus:
    """The corpus of the sources chosen in the sidebar and the casebook as it is now."""
    sources = _sources()
    try:
        cases = tuple(store().list_cases())
    except DataError:
        cases = ()  # the datasets are still searched; the casebook page says what is wrong
    labels = tuple((v.name, v.label) for d in DATASETS.values() for v in d.views)
    stamp = tuple((c.id, c.version, c.updated_at) for c in cases)
    return _corpus(sources, _states(sources), stamp, labels, cases)


def grade(dataset: str, files: tuple[str, ...]) -> None:
    """Grade these files of the dataset with a progress bar (the corpus then reads them)."""
    source = dict(_sources())[dataset]
    title = DATASETS[dataset].title
    what = "1 file" if len(files) == 1 else f"{len(files):,} files"
    with st_progress(f"Grading the {title} texts of {what}…") as bar:
        graders()[dataset].build(source, bar, files)
