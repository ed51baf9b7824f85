"""The MARS package stays readable: no function over MAX_LINES lines, no module over
MAX_MODULE_LINES, and a function-level import only with its reason (`# why here: ...` on it or
the line above)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "analysis" / "mars"
MAX_LINES = 80
MAX_MODULE_LINES = 600
MAX_LOCAL_IMPORTS = 5
MODULES = sorted(PACKAGE.glob("*.py"))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _local_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    return [
        node
        for f in _functions(tree)
        for node in ast.walk(f)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]


def test_the_package_is_found() -> None:
    assert len(MODULES) > 10 and (PACKAGE / "ingest.py") in MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_function_is_over_the_limit(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = {
        f.name: f.end_lineno - f.lineno + 1
        for f in _functions(tree)
        if f.end_lineno is not None and f.end_lineno - f.lineno + 1 > MAX_LINES
    }
    assert not long, f"{path.name}: functions over {MAX_LINES} lines: {long}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_is_over_the_limit(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, f"{path.name}: {lines} lines"


def test_function_level_imports_are_few_and_say_why() -> None:
    found = []
    for path in MODULES:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in _local_imports(ast.parse(text)):
            here = lines[node.lineno - 1]
            above = lines[node.lineno - 2] if node.lineno > 1 else ""
            assert "# why here:" in here or "# why here:" in above, (
                f"{path.name}:{node.lineno}: a function-level import without `# why here: ...`"
            )
            found.append(f"{path.name}:{node.lineno}")
    assert len(found) <= MAX_LOCAL_IMPORTS, found


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """The walkers see a long function and an unexplained local import."""
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    tree = ast.parse(f"def f():\n    import os\n{body}\n")
    (f,) = _functions(tree)
    assert f.end_lineno is not None and f.end_lineno - f.lineno + 1 > MAX_LINES
    assert len(_local_imports(tree)) == 1
