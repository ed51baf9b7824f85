"""The docs stay written for their readers: a short README, a performance page without history,
and docstrings that cite only specifications inside this repository (`docs/formats/`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # skipped in the RTE_NO_EXT=1 pass (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]
CODE_DIRS = ("analysis", "cache", "components", "pages")
HASH = re.compile(r"\b[0-9a-f]{7,40}\b")
FOREIGN_SPEC = re.compile(r"\.\./shared|shared/spec")


def _commit_hashes(text: str) -> list[str]:
    """Hex words of 7-40 digits that contain a letter and a digit: what a commit hash looks like."""
    return [w for w in HASH.findall(text) if re.search(r"[a-f]", w) and re.search(r"[0-9]", w)]


def _docstrings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the module, class and function docstrings of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                found.append((getattr(node, "lineno", 1), doc))
    return found


def test_readme_is_a_short_guide() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_keeps_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (
        "python -m pip install -e . && python -m streamlit run components/server/entry.py" in text
    )
    assert "bash tests/setup.sh && python -m pytest" in text
    assert "docs/PERFORMANCE.md" in text and "docs/DEPLOY.md" in text


def test_performance_page_exists_without_commit_hashes() -> None:
    path = ROOT / "docs" / "PERFORMANCE.md"
    assert path.is_file()
    text = path.read_text(encoding="utf-8")
    assert _commit_hashes(text) == []
    assert _commit_hashes("run on b3135c5 and 35639a8; 2,048 tokens; deadbeef") == [
        "b3135c5",
        "35639a8",
    ]


def test_docstrings_cite_no_specification_outside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in CODE_DIRS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, doc in _docstrings(path)
        if FOREIGN_SPEC.search(doc)
    ]
    assert offenders == []


def test_foreign_spec_pattern_catches_both_spellings() -> None:
    assert FOREIGN_SPEC.search("see ../shared/notes.md")
    assert FOREIGN_SPEC.search("definitions: shared/spec/stopping.md")
    assert not FOREIGN_SPEC.search("definitions: docs/formats/stopping.md")
