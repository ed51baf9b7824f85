"""The Streamlit caching adapters shared by every page: thin wrappers keyed by plain values
(dataset, relpath, SourceConfig), never by a LazyFrame. Dataset-specific adapters live next to
their pages' components in `components/<dataset>_cached.py` and follow the same rule."""

from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

from cache.datasets import DATASETS
from cache.errors import DataError, SourceNotFound
from cache.progress import ProgressFn
from cache.sample import sample_root
from cache.sources import SourceConfig, dataset_root, resolve_file


@st.cache_resource(show_spinner=False, max_entries=256)
def _resolve(dataset: str, relpath: str, source: SourceConfig) -> str:
    return str(resolve_file(dataset, relpath, source))


def resolve(dataset: str, relpath: str, source: SourceConfig) -> Path:
    """Local path of a dataset file; builds the sample with a progress bar the first time."""
    if source.kind == "sample" and not sample_root(dataset).is_dir():
        with st_progress(f"Generating the {dataset} sample (first run only)…") as bar:
            resolve_file(dataset, relpath, source, progress=bar)
    path = Path(_resolve(dataset, relpath, source))
    if not path.exists():  # deleted since it was resolved: forget it and say what is missing now
        _resolve.clear()
        path = Path(_resolve(dataset, relpath, source))
    return path


@st.cache_data(show_spinner=False, ttl=10, max_entries=16)
def present_files(dataset: str, src: SourceConfig) -> tuple[str, ...] | None:
    """The known files of `dataset` a local folder holds, in the list's order; None for the
    sample and the Hub (every file can be had) or a folder that cannot be read (resolving a
    file says why)."""
    if src.kind != "local":
        return None
    try:
        root = dataset_root(dataset, src)
    except DataError:
        return None
    if root is None:
        return None
    return tuple(r for r in DATASETS[dataset].files if (root / r).is_file())


def file_stamp(path: Path) -> int:
    """Modification time (ns) used in cache keys, so an edited file is re-read."""
    try:
        return Path(path).stat().st_mtime_ns
    except OSError:
        raise SourceNotFound(
            f"{Path(path).name} disappeared while the app was running",
            "reload the page; if it persists, check the source settings in the sidebar",
        ) from None


class st_progress:  # noqa: N801 - used like a function in `with`
    """`with st_progress("…") as hook:` gives a ProgressFn drawing an st.progress bar.

    The bar moves at most every `STEP_S`: each move is a message the browser must render, and
    work served from a cache (a dozen steps in a few milliseconds) would send one per step."""

    STEP_S = 0.1

    def __init__(self, label: str) -> None:
        self.label = label

    def __enter__(self) -> ProgressFn:
        self.bar = st.progress(0.0, text=self.label)
        self.moved = time.monotonic()

        def hook(fraction: float, message: str = "") -> None:
            now = time.monotonic()
            if now - self.moved < self.STEP_S:
                return
            self.moved = now
            text = f"{self.label} {message}".strip()
            self.bar.progress(min(1.0, max(0.0, float(fraction))), text=text)

        return hook

    def __exit__(self, *exc: object) -> None:
        self.bar.empty()
