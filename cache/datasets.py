"""The registry of datasets: each is declared once here, with its Hub repo and files, the views
that show it, its schema rule, sample generator, casebook check, derived-table builder and CLI
commands. The shared modules (sources, inventory, sample, casebook, links and URL keys, home
cards, the CLIs) read these declarations and never branch on a dataset's name. Adding a dataset
= one `DatasetInfo` in `BUILT_IN` + its own slice (see docs/ARCHITECTURE.md, "Add a dataset")."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cache.schemas import (
    FINEPROOFS_PREFIX_FILE,
    FINEPROOFS_ROLES,
    MARS_ROLES,
    PARASON_SFT_ROLES,
    Role,
    check_fineproofs_columns,
    check_mars_columns,
    check_parason_columns,
)

ColumnCheck = Callable[[str, Mapping[str, str]], None]  # (relpath, column -> arrow type); raises


@dataclass(frozen=True)
class ViewInfo:
    """A view of the app that shows a dataset. Its name is its URL path and, for a case captured
    in it, the casebook's `dataset` key (the playground is a view of the MARS files)."""

    name: str
    nav_title: str  # its title in the app's navigation
    icon: str  # its navigation icon
    label: str  # how the casebook names its cases' dataset
    link_text: str  # the home card's link to it
    tags: tuple[str, ...] = ()  # tags offered first when capturing a case in it
    step_labels: bool = False  # its judged prefix/step cases export as step labels (PRM)
    # `python -m analysis` commands of its slice: (command, module with `register(subparsers)`)
    commands: tuple[tuple[str, str], ...] = ()
    # "module:function" `(key, value) -> str | None`: how the view writes a case's item key
    # where it differs from the stored value (a stage stored from 0 is "stage 1"); None: as is
    shown_item: str = ""


@dataclass(frozen=True)
class ItemCheck:
    """How the casebook checks that a case's item is still in its file (`cache.casebook.locate`):
    each key (a role of `roles`) is looked up in the file; `digits` keys are checked only when
    their value is a number, and `gone` says what is missing (`{file}` and the item keys)."""

    roles: tuple[Role, ...]
    keys: tuple[str, ...]
    what: str  # "a MARS file"
    gone: str  # "question {qid} is no longer in {file}"
    digits: tuple[str, ...] = ()
    file_glob: str = "*"  # only files matching this are checked (fnmatch)
    default_file: str = ""  # the file a case that names none is checked in


@dataclass(frozen=True)
class DatasetInfo:
    name: str  # key used everywhere: env presets, source keys, derived-table prefixes
    title: str
    default_repo: str
    files: tuple[str, ...]  # known Hub-relative files (parquet or json)
    file_globs: tuple[str, ...] = ()  # further files fetched on demand (e.g. trace shards)
    repo_note: str = ""
    views: tuple[ViewInfo, ...] = ()  # the views that show it, its own first
    check_columns: ColumnCheck | None = None  # what its views require of a file's columns
    sample: str = ""  # module with `write_sample(root, progress)`: the bundled sample
    sample_share: float = 0.0  # its share of `python -m cache sample`'s bar
    item_check: ItemCheck | None = None
    warmer: str = ""  # "module:function" building its derived tables (`python -m cache warm`)
    lenses: str = ""  # "module:attribute": its lenses (`cache.lenses.DatasetLenses`), for /lenses
    # "module:function" building its text table for the search (`cache.text_tables` schema):
    # `texts(source, progress) -> list[Path]`, the stored tables' files
    texts: str = ""
    # "module:attribute": a `cache.text_tables.TextGrader`, correctness of text rows that
    # another derived table holds (MARS: extracted answers graded by the feature build)
    grades: str = ""


PARASON = DatasetInfo(
    name="parason",
    title="Parason",
    default_repo="parallel-reasoner/parason-data",
    files=("sft-1x/train.parquet", "sft-8x/train.parquet", "rl/train.parquet"),
    repo_note="repo id is a guess from the card; edit it if the Hub copy lives elsewhere",
    views=(
        ViewInfo(
            name="parason",
            nav_title="Parason DAGs",
            icon=":material/account_tree:",
            label="Parason",
            link_text="Open the Parason DAGs",
            tags=(
                "wrong branch kept",
                "all trials fail",
                "unbalanced stage",
                "redundant subtasks",
                "arithmetic slip",
                "parser warning",
            ),
            commands=(("parason-stats", "analysis.parason.cli"),),
            shown_item="analysis.parason.dag:shown_item_value",
        ),
    ),
    check_columns=check_parason_columns,
    sample="cache.sample.parason",
    sample_share=0.1,
    item_check=ItemCheck(
        roles=PARASON_SFT_ROLES,
        keys=("uuid",),
        what="a Parason SFT file",
        gone="trajectory {uuid} is no longer in {file}",
        file_glob="sft*/*",
    ),
    warmer="analysis.parason.store:warm",
    lenses="analysis.parason.lenses:LENSES",
    texts="analysis.parason.texts:text_tables",
)

MARS_FILES: dict[str, tuple[str, str, str]] = {
    # relpath: (model key, dataset key, human label)
    "DeepSeek-8B/aime25_deepseek.parquet": (
        "deepseek-8b",
        "aime-2025",
        "DeepSeek-R1-0528-Qwen3-8B · AIME 2025",
    ),
    "DeepSeek-8B/brumo25_deepseek.parquet": (
        "deepseek-8b",
        "brumo-2025",
        "DeepSeek-R1-0528-Qwen3-8B · BRUMO 2025",
    ),
    "DeepSeek-8B/hmmt25_deepseek.parquet": (
        "deepseek-8b",
        "hmmt",
        "DeepSeek-R1-0528-Qwen3-8B · HMMT",
    ),
    "Qwen3-32B/aime25.parquet": ("qwen3-32b", "aime-2025", "Qwen3-32B · AIME 2025"),
    "Qwen3-32B/brumo25.parquet": ("qwen3-32b", "brumo-2025", "Qwen3-32B · BRUMO 2025"),
    "Qwen3-32B/hmmt.parquet": ("qwen3-32b", "hmmt", "Qwen3-32B · HMMT"),
    "Qwen3-next/aime25_thinking.parquet": (
        "qwen3-next",
        "aime-2025",
        "Qwen3-Next-80B-A3B-Thinking · AIME 2025",
    ),
    "Qwen3-next/brumo25_thinking.parquet": (
        "qwen3-next",
        "brumo-2025",
        "Qwen3-Next-80B-A3B-Thinking · BRUMO 2025",
    ),
    "Qwen3-next/hmmt_thinking.parquet": (
        "qwen3-next",
        "hmmt",
        "Qwen3-Next-80B-A3B-Thinking · HMMT",
    ),
}

MARS = DatasetInfo(
    name="mars",
    title="MARS",
    default_repo="wenbochen111/MARS",
    files=tuple(MARS_FILES),
    file_globs=("repro_reference/**/summary_*.csv",),
    views=(
        ViewInfo(
            name="mars",
            nav_title="MARS pools",
            icon=":material/show_chart:",
            label="MARS",
            link_text="Open the MARS pools",
            tags=(
                "premature commit",
                "confidently wrong",
                "late recovery",
                "answer flip-flop",
                "probe noise",
                "arithmetic slip",
            ),
        ),
        ViewInfo(
            name="playground",
            nav_title="Stopping playground",
            icon=":material/tune:",
            label="Stopping playground",
            link_text="Open the stopping playground",
            tags=(
                "stopped on wrong answer",
                "stopped too late",
                "loses to SC",
                "threshold too tight",
                "calibration off",
            ),
            commands=(
                ("simulate", "analysis.playground.cli"),
                ("diff", "analysis.playground.diff"),
            ),
        ),
    ),
    check_columns=check_mars_columns,
    sample="cache.sample.mars",
    sample_share=0.8,
    item_check=ItemCheck(
        roles=MARS_ROLES,
        keys=("qid",),
        digits=("qid",),
        what="a MARS file",
        gone="question {qid} is no longer in {file}",
    ),
    warmer="analysis.mars.store:warm",
    lenses="analysis.mars.lenses:LENSES",
    texts="analysis.mars.texts:text_tables",
    grades="analysis.mars.text_grades:GRADER",
)

FINEPROOFS = DatasetInfo(
    name="fineproofs",
    title="FineProofs",
    default_repo="asingh15/fineproofs-branch-rollout-distribution",
    files=(FINEPROOFS_PREFIX_FILE, "data/summary.json", "data/trace_manifest.json"),
    file_globs=("data/traces/*.json.gz",),
    repo_note="repo id is a guess; edit it if the Hub copy lives elsewhere",
    views=(
        ViewInfo(
            name="fineproofs",
            nav_title="FineProofs values",
            icon=":material/grid_on:",
            label="FineProofs",
            link_text="Open the FineProofs values",
            tags=(
                "value collapse",
                "noise drop",
                "first error",
                "recovery",
                "arithmetic slip",
                "unjustified step",
            ),
            step_labels=True,
            commands=(("fineproofs-trace", "analysis.fineproofs.cli"),),
        ),
    ),
    check_columns=check_fineproofs_columns,
    sample="cache.sample.fineproofs",
    sample_share=0.1,
    item_check=ItemCheck(
        roles=FINEPROOFS_ROLES,
        keys=("problem", "sample"),
        digits=("sample",),
        what="the FineProofs prefix table",
        gone="trace {problem} #{sample} is no longer there",
        default_file=FINEPROOFS_PREFIX_FILE,
    ),
    warmer="analysis.fineproofs.store:warm",
    lenses="analysis.fineproofs.lenses:LENSES",
    texts="analysis.fineproofs.texts:text_tables",
)

BUILT_IN: tuple[DatasetInfo, ...] = (PARASON, MARS, FINEPROOFS)  # their order on every list

# name -> declaration, in registration order (read it at call time: tests register toys)
DATASETS: dict[str, DatasetInfo] = {}


def load_declared(spec: str) -> Any:
    """The object a declaration names as "module:attribute" (a warmer, lenses, a text-table
    builder, a grader), its module imported on first use."""
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


def register(info: DatasetInfo) -> None:
    """Add a dataset; its name and its views' names must be new."""
    if info.name in DATASETS:
        raise ValueError(f"dataset {info.name!r} is already registered")
    clash = {v.name for v in info.views} & set(view_names())
    if clash:
        raise ValueError(f"dataset {info.name!r}: views already registered: {sorted(clash)}")
    DATASETS[info.name] = info


def unregister(name: str) -> None:
    """Remove the dataset named `name` (tests register toy datasets)."""
    DATASETS.pop(name, None)


@contextmanager
def registered(info: DatasetInfo) -> Iterator[DatasetInfo]:
    """`info` registered for the duration of a `with` block."""
    register(info)
    try:
        yield info
    finally:
        unregister(info.name)


def views() -> tuple[ViewInfo, ...]:
    """Every dataset's views, in dataset order: the views a case can be captured in."""
    return tuple(v for d in DATASETS.values() for v in d.views)


def view_names() -> tuple[str, ...]:
    return tuple(v.name for v in views())


def view_info(name: str) -> ViewInfo | None:
    return next((v for v in views() if v.name == name), None)


def dataset_of_view(view: str) -> DatasetInfo | None:
    """The dataset whose files `view` reads (None for a view that is not a dataset's)."""
    return next((d for d in DATASETS.values() if any(v.name == view for v in d.views)), None)


for _info in BUILT_IN:
    register(_info)


def check_view_columns(dataset: str, relpath: str, schema: Mapping[str, str]) -> None:
    """Raise `SchemaError` when the view that reads `relpath` would reject these columns."""
    check = DATASETS[dataset].check_columns
    if check is not None:
        check(relpath, schema)


def cli_commands() -> dict[str, str]:
    """`python -m analysis` command -> the module that registers it, over every view."""
    return {cmd: module for v in views() for cmd, module in v.commands}


def mars_file_for(model: str, dataset: str) -> str:
    """Hub-relative MARS file for the published CLI's `--model` / `--dataset` keys."""
    for rel, (m, d, _label) in MARS_FILES.items():
        if m == model and d == dataset:
            return rel
    known = sorted({f"{m}/{d}" for m, d, _ in MARS_FILES.values()})
    raise KeyError(f"unknown model/dataset {model}/{dataset}; known: {', '.join(known)}")


def mars_reference_dir(relpath: str, method: str) -> str:
    """`repro_reference/{Model}/{dataset}/{method}` for a MARS file (Hub-relative)."""
    model_dir = relpath.split("/", 1)[0]
    _m, dataset, _label = MARS_FILES[relpath]
    return f"repro_reference/{model_dir}/{dataset}/{method}"
