"""Derived-table builders plug into `python -m cache warm` from above.

The builders live in `analysis/<slice>/store.py` (they need domain code), and `cache/` imports
nothing of ours above it, so each builder registers itself as an entry point of the group below
(`[project.entry-points."rte.warmers"]` in pyproject.toml): `<dataset> = "module:warm"`, where
`warm(source: SourceConfig, progress: ProgressFn | None) -> list[Path]`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from cache.errors import DataError

GROUP = "rte.warmers"

Warmer = Callable[..., list[Path]]


class Warmed(list[Path]):
    """What a warmer built, plus the files its source lacks (`absent`, relative paths): a
    local folder that holds only some of a dataset's files warms what it has, and
    `python -m cache warm` names the rest in a note instead of failing."""

    def __init__(self, paths: list[Path], absent: list[str] | None = None) -> None:
        super().__init__(paths)
        self.absent = list(absent or [])


def registered() -> dict[str, Any]:
    """dataset -> entry point, as installed."""
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def warmer(dataset: str) -> Warmer:
    """The builder of `dataset`'s derived tables."""
    ep = registered().get(dataset)
    if ep is None:
        raise DataError(
            f"no derived-table builder is registered for {dataset}",
            "reinstall the project so its entry points are current: python -m pip install -e .",
        )
    fn: Warmer = ep.load()
    return fn
