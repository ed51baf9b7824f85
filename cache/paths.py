"""Where the explorer keeps files outside the repo: derived tables and the generated sample."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "RTE_CACHE_DIR"


def cache_root() -> Path:
    """`$RTE_CACHE_DIR`, else `$XDG_CACHE_HOME/reasoning-trace-explorer`, else ~/.cache/..."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        root = Path(explicit).expanduser()
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = Path(xdg).expanduser() / "reasoning-trace-explorer"
    root.mkdir(parents=True, exist_ok=True)
    return root


def derived_dir() -> Path:
    path = cache_root() / "derived"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sample_dir() -> Path:
    return cache_root() / "sample"
