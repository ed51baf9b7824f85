"""What each dataset is: its Hub repo, its files (Hub-relative paths) and how to preset it by env."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DatasetInfo:
    name: str  # key used everywhere: "parason", "mars", "fineproofs"
    title: str
    default_repo: str
    files: tuple[str, ...]  # known Hub-relative files (parquet or json)
    file_globs: tuple[str, ...] = ()  # further files fetched on demand (e.g. trace shards)
    repo_note: str = ""


PARASON = DatasetInfo(
    name="parason",
    title="Parason",
    default_repo="parallel-reasoner/parason-data",
    files=("sft-1x/train.parquet", "sft-8x/train.parquet", "rl/train.parquet"),
    repo_note="repo id is a guess from the card; edit it if the Hub copy lives elsewhere",
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
)

FINEPROOFS = DatasetInfo(
    name="fineproofs",
    title="FineProofs",
    default_repo="asingh15/fineproofs-branch-rollout-distribution",
    files=("data/prefix_values.parquet", "data/summary.json", "data/trace_manifest.json"),
    file_globs=("data/traces/*.json.gz",),
    repo_note="repo id is a guess; edit it if the Hub copy lives elsewhere",
)

DATASETS: dict[str, DatasetInfo] = {d.name: d for d in (PARASON, MARS, FINEPROOFS)}


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
