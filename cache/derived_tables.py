"""The derived tables, listed in one place: each one's name, version, dataset, the source files
it is keyed by, what it reads besides, and where it is built. The builders
(`analysis/<slice>/...`) read their name and version from here, so this list is what the cache
holds; `python -m cache info` prints it.

A table's file is `<name>-v<version>-<key>.parquet` (`cache.table_keys.table_path`), the key
taken from its input files' identity and its parameters. Bump `version` when a derivation
changes (the old files are then never read again) and say why in `history`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cache.datasets import FINEPROOFS, MARS, PARASON
from cache.paths import derived_dir
from cache.schemas import FINEPROOFS_PREFIX_FILE


@dataclass(frozen=True)
class DerivedTable:
    name: str  # starts with its dataset's name (the home page lists a dataset's tables so)
    version: int
    dataset: str
    inputs: tuple[str, ...]  # the dataset's files it is built from: one table per file
    params: tuple[str, ...] = ()  # what else is in its key
    reads: tuple[str, ...] = ()  # derived tables it is built from
    built_by: str = ""  # the function that builds it
    history: str = ""  # what each version changed


# the three MARS tables come out of one streaming pass and share its version
_MARS_VERSION = 9
_MARS_HISTORY = (
    "7: a group is labelled by its most common member; 8: `n=` is an answer; 9: the "
    "published cap on pairwise comparison of non-numeric answers"
)
_FINEPROOFS_VERSION = 3
_FINEPROOFS_HISTORY = "2: histogram std is ddof 0; 3: p_value column, drop_share not clamped"
_MARS_BUILD = "analysis.mars.feature_files.feature_paths"

PARASON_METRICS = DerivedTable(
    name="parason-metrics",
    version=3,  # 3: each stage's longest thread (`longest`), which a lens opens
    dataset=PARASON.name,
    inputs=("sft-1x/train.parquet", "sft-8x/train.parquet"),
    params=("counter",),
    built_by="analysis.parason.store.metrics_table",
    history="2: published tag placement, notes apart from warnings, duplicates, totals",
)
PARASON_ADDED = DerivedTable(
    name="parason-added",
    version=1,
    dataset=PARASON.name,
    inputs=("sft-1x/train.parquet", "sft-8x/train.parquet"),  # one table for the pair of files
    built_by="analysis.parason.added.added_table",
    history="1: branches the 8x expansion added to each pair, for Browse",
)
PARASON_TRIALS = DerivedTable(
    name="parason-trials",
    version=1,
    dataset=PARASON.name,
    inputs=("sft-1x/train.parquet", "sft-8x/train.parquet"),
    built_by="analysis.parason.trials.trials_table",
    history="1: the result each Trial branch ends on and the final answer, for the lenses",
)
MARS_FEATURES = DerivedTable(
    name="mars-features",
    version=_MARS_VERSION,
    dataset=MARS.name,
    inputs=MARS.files,
    params=("window",),
    built_by=_MARS_BUILD,
    history=_MARS_HISTORY,
)
MARS_GROUPS = DerivedTable(
    name="mars-groups",
    version=_MARS_VERSION,
    dataset=MARS.name,
    inputs=MARS.files,
    params=("window",),
    built_by=_MARS_BUILD,
    history=_MARS_HISTORY,
)
MARS_NOTES = DerivedTable(
    name="mars-notes",
    version=_MARS_VERSION,
    dataset=MARS.name,
    inputs=MARS.files,
    params=("window",),
    built_by=_MARS_BUILD,
    history=_MARS_HISTORY,
)
FINEPROOFS_PREFIXES = DerivedTable(
    name="fineproofs-prefixes",
    version=_FINEPROOFS_VERSION,
    dataset=FINEPROOFS.name,
    inputs=(FINEPROOFS_PREFIX_FILE,),
    params=("series parameters",),
    built_by="analysis.fineproofs.store.prefixes_path",
    history=_FINEPROOFS_HISTORY,
)
FINEPROOFS_TRACES = DerivedTable(
    name="fineproofs-traces",
    version=_FINEPROOFS_VERSION,
    dataset=FINEPROOFS.name,
    inputs=(FINEPROOFS_PREFIX_FILE,),
    params=("series parameters",),
    reads=(FINEPROOFS_PREFIXES.name,),
    built_by="analysis.fineproofs.store.traces_table",
    history=_FINEPROOFS_HISTORY,
)
FINEPROOFS_DEPTH = DerivedTable(
    name="fineproofs-depth",
    version=_FINEPROOFS_VERSION,
    dataset=FINEPROOFS.name,
    inputs=(FINEPROOFS_PREFIX_FILE,),
    params=("series parameters", "n_bins"),
    reads=(FINEPROOFS_PREFIXES.name,),
    built_by="analysis.fineproofs.store.depth_table",
    history=_FINEPROOFS_HISTORY,
)

_TEXTS_HISTORY = "1: every text of the dataset, one row per piece a search hit opens at"
PARASON_TEXTS = DerivedTable(
    name="parason-texts",
    version=2,
    dataset=PARASON.name,
    inputs=PARASON.files,
    built_by="analysis.parason.texts.text_tables",
    history=_TEXTS_HISTORY + " (a DAG node, the question, an RL prompt); "
    "2: an RL hit's link opens its prompt (`rlp`)",
)
MARS_TEXTS = DerivedTable(
    name="mars-texts",
    version=1,
    dataset=MARS.name,
    inputs=MARS.files,
    built_by="analysis.mars.texts.text_tables",
    history=_TEXTS_HISTORY + " (ground truth, extracted answer, probe raw_text)",
)
FINEPROOFS_TEXTS = DerivedTable(
    name="fineproofs-texts",
    version=3,
    dataset=FINEPROOFS.name,
    inputs=(FINEPROOFS_PREFIX_FILE,),
    params=("trace shards present",),
    built_by="analysis.fineproofs.texts.text_tables",
    history=_TEXTS_HISTORY
    + " (a trace step, the problem); 2: a trace step's `correct` from its endpoint grade (7/7);"
    " 3: a piece's locator names its prefix and the step it runs up to (it holds the text"
    " before that step too)",
)

TABLES: tuple[DerivedTable, ...] = (
    PARASON_METRICS,
    PARASON_ADDED,
    PARASON_TRIALS,
    MARS_FEATURES,
    MARS_GROUPS,
    MARS_NOTES,
    FINEPROOFS_PREFIXES,
    FINEPROOFS_TRACES,
    FINEPROOFS_DEPTH,
    PARASON_TEXTS,
    MARS_TEXTS,
    FINEPROOFS_TEXTS,
)


def tables_of(dataset: str) -> tuple[DerivedTable, ...]:
    return tuple(t for t in TABLES if t.dataset == dataset)


def built(table: DerivedTable, root: Path | None = None) -> list[Path]:
    """The files of `table` at its current version in the cache's derived folder (one per
    input file and parameter set built so far)."""
    folder = derived_dir() if root is None else root
    return sorted(folder.glob(f"{table.name}-v{table.version}-*.parquet"))


def describe(root: Path | None = None) -> list[str]:
    """The list as `python -m cache info` prints it: one block per table."""
    lines = []
    for t in TABLES:
        files = built(t, root)
        lines.append(f"  {t.name} v{t.version}  ({t.dataset}; built here: {len(files)} files)")
        inputs = ", ".join(t.inputs) if len(t.inputs) <= 3 else f"each of its {len(t.inputs)} files"
        extra = f"; params: {', '.join(t.params)}" if t.params else ""
        reads = f"; reads: {', '.join(t.reads)}" if t.reads else ""
        lines.append(f"      inputs: {inputs}{extra}{reads}")
        lines.append(f"      built by {t.built_by}")
    return lines
