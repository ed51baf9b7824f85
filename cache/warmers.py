"""Derived-table builders plug into `python -m cache warm` from above.

The builders live in `analysis/<slice>/store.py` (they need domain code), and `cache/` imports
nothing of ours above it, so each dataset's declaration names its builder as a string
(`cache.datasets.DatasetInfo.warmer`, `"module:function"`), loaded only when a warm runs:
`warm(source: SourceConfig, progress: ProgressFn | None) -> list[Path]`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cache.datasets import DATASETS, load_declared
from cache.errors import DataError

Warmer = Callable[..., list[Path]]


class Warmed(list[Path]):
    """What a warmer built, plus the files its source lacks (`absent`, relative paths): a
    local folder that holds only some of a dataset's files warms what it has, and
    `python -m cache warm` names the rest in a note instead of failing."""

    def __init__(self, paths: list[Path], absent: list[str] | None = None) -> None:
        super().__init__(paths)
        self.absent = list(absent or [])


def registered() -> dict[str, str]:
    """dataset -> its builder (`module:function`), for the datasets that declare one."""
    return {name: d.warmer for name, d in DATASETS.items() if d.warmer}


def warmer(dataset: str) -> Warmer:
    """The builder of `dataset`'s derived tables."""
    spec = registered().get(dataset)
    if spec is None:
        raise DataError(
            f"no derived-table builder is declared for {dataset}",
            "declare one in its `cache.datasets.DatasetInfo` (`warmer`)",
        )
    fn: Warmer = load_declared(spec)
    return fn
