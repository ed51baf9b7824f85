"""Where the explorer keeps files outside the repo: derived tables and the generated sample.

Folders are created when missing, but a read-only cache folder is not an error here: reading what
is already there keeps working, and the write that needs the folder reports it
(`cache.errors.CacheUnwritable`)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

CACHE_ENV = "RTE_CACHE_DIR"


def _ensure(path: Path) -> Path:
    with contextlib.suppress(OSError):  # read-only or full: the first write names the problem
        path.mkdir(parents=True, exist_ok=True)
    return path


def cache_root() -> Path:
    """`$RTE_CACHE_DIR`, else `$XDG_CACHE_HOME/reasoning-trace-explorer`, else ~/.cache/..."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        root = Path(explicit).expanduser()
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = Path(xdg).expanduser() / "reasoning-trace-explorer"
    return _ensure(root)


def derived_dir() -> Path:
    return _ensure(cache_root() / "derived")


def sample_dir() -> Path:
    return cache_root() / "sample"
