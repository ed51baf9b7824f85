"""Every searchable text, in one frame: each dataset's stored text table (found through its
declaration, `DatasetInfo.texts`, "module:function", loaded when a search first needs it, the
way `cache.warmers` loads the warm builders) and the casebook's titles, notes and tags. A
dataset that declares a grader (`DatasetInfo.grades`) has the correctness of some texts filled
from the files it has graded; the corpus says how many files wait for a grade.

Why through the registry: this slice never names a dataset; a dataset added to
`cache.datasets` with a `texts` builder is searched without an edit here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cache.casebook.model import Case
from cache.datasets import DATASETS, load_declared
from cache.errors import DataError
from cache.progress import ProgressFn, no_progress, scaled
from cache.sources import SourceConfig, default_source
from cache.text_tables import TEXT_SCHEMA, GradeState, TextGrader, TextRows

CASEBOOK = "casebook"  # the casebook's rows, after the datasets'
CASEBOOK_TITLE = "Casebook"
CASEBOOK_VIEW = "casebook"
Builder = Callable[..., list[Path]]


@dataclass(frozen=True)
class Grading:
    """Where a dataset's grader stands: which fields it grades, how, and the files it has not
    graded yet (their texts of those fields have no correctness until it builds them)."""

    fields: tuple[str, ...]
    how: str
    pending: tuple[str, ...]
    files: int  # files it grades in all


@dataclass(frozen=True)
class Corpus:
    """The rows a search scans, in result order (datasets in registration order, then the
    casebook), with `dataset` and `row` (its position) beside the text-table columns."""

    frame: pl.DataFrame
    titles: dict[str, str]  # dataset -> its title
    problems: dict[str, str]  # dataset -> why its texts are missing (a file it could not read)
    # dataset -> where its grader stands
    grading: dict[str, Grading] = dataclasses.field(default_factory=dict)

    @property
    def height(self) -> int:
        return self.frame.height


def builders() -> dict[str, str]:
    """dataset -> its text-table builder (`module:function`), for those that declare one."""
    return {name: d.texts for name, d in DATASETS.items() if d.texts}


def builder(spec: str) -> Builder:
    fn: Builder = load_declared(spec)
    return fn


def graders() -> dict[str, TextGrader]:
    """dataset -> its grader, for those that declare one (`DatasetInfo.grades`)."""
    return {name: load_declared(d.grades) for name, d in DATASETS.items() if d.grades}


def grading(grader: TextGrader, state: GradeState) -> Grading:
    return Grading(grader.fields, grader.how, state.pending, len(state.ready) + len(state.pending))


def graded(frame: pl.DataFrame, grades: pl.DataFrame) -> pl.DataFrame:
    """`frame` with each missing `correct` filled from `grades` (file, item, field, correct),
    row order kept; a text the grades do not name keeps no correctness."""
    if not grades.height or not frame.height:
        return frame
    keys = ["file", "item", "field"]
    grades = grades.unique(subset=keys, keep="first").rename({"correct": "_graded"})
    joined = frame.join(grades, on=keys, how="left", maintain_order="left")
    return joined.with_columns(pl.coalesce("correct", "_graded").alias("correct")).drop("_graded")


def grade_frame(grader: TextGrader, state: GradeState) -> pl.DataFrame:
    frame = pl.from_arrow(grader.read(state))
    assert isinstance(frame, pl.DataFrame)  # a table converts to a frame, never a series
    return frame


def _empty() -> pl.DataFrame:
    frame = pl.from_arrow(TEXT_SCHEMA.empty_table())
    assert isinstance(frame, pl.DataFrame)  # a table converts to a frame, never a series
    return frame


def dataset_frame(
    dataset: str, source: SourceConfig, progress: ProgressFn | None = None
) -> pl.DataFrame:
    """One dataset's text rows (its stored tables, built on first use) with `dataset`."""
    paths = builder(builders()[dataset])(source, progress)
    frames = [pl.read_parquet(p) for p in paths] or [_empty()]
    return pl.concat(frames, how="vertical").with_columns(pl.lit(dataset).alias("dataset"))


def case_frame(cases: list[Case], labels: Mapping[str, str]) -> pl.DataFrame:
    """The casebook's rows: each case's title, note and tags (joined by ", ")."""
    rows = TextRows()
    for c in cases:
        common = {
            "file": CASEBOOK,
            "group": labels.get(c.dataset, c.dataset),
            "item": c.id,
            "label": c.title or c.id,
            "view": CASEBOOK_VIEW,
            "query": {"case": c.id},
            "keys": {"case": c.id},
        }
        for field, text in (("case title", c.title), ("case note", c.note)):
            if text:
                rows.add(field=field, text=text, **common)
        if c.tags:
            rows.add(field="case tags", text=", ".join(c.tags), **common)
    frame = pl.from_arrow(rows.table())
    assert isinstance(frame, pl.DataFrame)
    return frame.with_columns(pl.lit(CASEBOOK).alias("dataset"))


def assemble(frames: list[pl.DataFrame]) -> pl.DataFrame:
    """The frames one after another with their row positions."""
    nonempty = [f for f in frames if f.height] or [
        _empty().with_columns(pl.lit("", pl.String).alias("dataset"))
    ]
    whole = pl.concat(nonempty, how="vertical")
    return whole.with_row_index("row").with_columns(pl.col("row").cast(pl.Int64))


def load_corpus(
    sources: Mapping[str, SourceConfig] | None = None,
    cases: list[Case] | None = None,
    datasets: list[str] | None = None,
    progress: ProgressFn | None = None,
    *,
    grade: bool = False,
) -> Corpus:
    """The corpus of the given sources (each dataset's default when not given). A dataset
    whose files cannot be read is left out, its problem kept for the page to say. `grade`
    has each grader grade its pending files first (a build: minutes per file at full size)."""
    hook = progress or no_progress
    names = [n for n in builders() if datasets is None or n in datasets]
    frames, problems, grades = [], {}, {}
    found = graders()
    for i, name in enumerate(names):
        src = (sources or {}).get(name) or default_source(name)
        mine = scaled(hook, i / len(names), (i + 1) / len(names))
        try:
            frame = dataset_frame(name, src, scaled(mine, 0.0, 0.5 if grade else 1.0))
            if name in found:
                if grade:
                    found[name].build(src, scaled(mine, 0.5, 1.0), None)
                state = found[name].state(src)
                frame = graded(frame, grade_frame(found[name], state))
                grades[name] = grading(found[name], state)
            frames.append(frame)
        except DataError as exc:
            problems[name] = exc.message
    titles = {n: DATASETS[n].title for n in names}
    if cases is not None:
        labels = {v.name: v.label for d in DATASETS.values() for v in d.views}
        frames.append(case_frame(cases, labels))
        titles[CASEBOOK] = CASEBOOK_TITLE
    return Corpus(assemble(frames), titles, problems, grades)
