"""The tree stays ruff-clean (lint and format), with the settings in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # skipped in the RTE_NO_EXT=1 pass (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]


def test_ruff_check_and_format() -> None:
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=REPO, capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout[-3000:]
    fmt = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert fmt.returncode == 0, fmt.stdout[-3000:]
