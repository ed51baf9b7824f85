"""The shape of the code is checked like its behaviour: import-linter's contracts (pyproject.toml)
pass, and would fail on a violating import; pages stay thin; no file-level import cycle; every
function-level import says why it is there."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx
import pytest

pytestmark = pytest.mark.static  # skipped in the RTE_NO_EXT=1 pass (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("cache", "analysis", "components", "bench")
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )


def test_import_contracts_hold() -> None:
    out = _lint_imports(REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "broken" not in out.stdout.lower().replace("0 broken", "")


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages and the contracts, copied, so a test can add a bad import to them."""
    root = tmp_path_factory.mktemp("tree")
    for pkg in PACKAGES:
        shutil.copytree(
            REPO / pkg, root / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.csv", "*.md")
        )
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.parametrize(
    ("module", "bad_import", "contract"),
    [
        ("cache/floats.py", "import analysis.mars.pool", "Layers"),
        ("analysis/mars/pool.py", "import components.common.theme", "Layers"),
        ("components/mars/figures.py", "import components.parason.dag", "Component slices"),
        ("components/common/theme.py", "import components.mars.figures", "Component slices"),
        ("analysis/fineproofs/utf16.py", "import analysis.parason.parse", "Analysis slices"),
        ("analysis/mars/pool.py", "import analysis.playground.params", "Analysis slices"),
        ("components/playground/figures.py", "import analysis.mars.store", "The playground reads"),
        ("analysis/parason/parse.py", "import streamlit", "Streamlit only"),
        ("cache/sample/mars.py", "import cache.sample.parason", "Sample generators"),
    ],
)
def test_a_violating_import_breaks_its_contract(
    tree_copy: Path, module: str, bad_import: str, contract: str
) -> None:
    target = tree_copy / module
    original = target.read_text()
    try:
        target.write_text(original + f"\n{bad_import}  # the violation under test\n")
        out = _lint_imports(tree_copy)
    finally:
        target.write_text(original)
    assert out.returncode != 0, out.stdout
    broken = [ln for ln in out.stdout.splitlines() if " BROKEN" in ln]
    assert len(broken) == 1 and broken[0].startswith(contract), out.stdout


def _imports(path: Path) -> list[tuple[str, ast.stmt]]:
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, node))
    return out


def test_pages_are_thin_scripts_on_components() -> None:
    """Pages and app.py compose components (and read cache settings); no analysis, no other
    page."""
    scripts = [REPO / "app.py", *sorted((REPO / "pages").glob("*.py"))]
    assert len(scripts) >= 6
    for script in scripts:
        for name, _node in _imports(script):
            top = name.split(".")[0]
            assert top not in {"analysis", "pages", "bench"}, f"{script.name} imports {name}"


def test_no_script_relies_on_magic() -> None:
    """`.streamlit/config.toml` turns Streamlit's magic off (`runner.magicEnabled`): a bare
    expression in app.py or a page (other than a docstring or a call) would silently show nothing."""
    assert "magicEnabled = false" in (REPO / ".streamlit/config.toml").read_text()
    bare = []
    for f in [REPO / "app.py", *sorted((REPO / "pages").glob("*.py"))]:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        docstrings = {
            id(n.body[0])
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
            and isinstance(n.body[0].value.value, str)
        }
        bare += [
            f"{f.name}:{n.lineno}"
            for n in ast.walk(tree)
            if isinstance(n, ast.Expr)
            and id(n) not in docstrings
            and not isinstance(n.value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom))
        ]
    assert not bare, f"bare expressions magic would have written: {bare}"


def test_no_file_level_import_cycle() -> None:
    graph = grimp.build_graph(*PACKAGES[:3])
    g = nx.DiGraph()
    for mod in graph.modules:
        for dep in graph.find_modules_directly_imported_by(mod):
            g.add_edge(mod, dep)
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert cycles == []


def _nested_imports(path: Path) -> list[int]:
    """Lines of imports inside a function that carry no reason (a comment on the line or the one
    above), outside `if TYPE_CHECKING:`."""
    lines = path.read_text().splitlines()
    tree = ast.parse("\n".join(lines), str(path))
    bad = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Import | ast.ImportFrom):
                end = node.end_lineno or node.lineno
                here = "".join(lines[node.lineno - 1 : end])
                # the reason may stand above a group of consecutive imports
                above = node.lineno - 2
                while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
                    above -= 1
                comment = above >= 0 and lines[above].strip().startswith("#")
                if "#" not in here and not comment:
                    bad.append(node.lineno)
    return bad


def test_function_level_imports_say_why() -> None:
    files = [REPO / "app.py", *(REPO / "pages").glob("*.py")]
    for pkg in PACKAGES:
        files += (REPO / pkg).rglob("*.py")
    unexplained = {
        str(f.relative_to(REPO)): lines for f in sorted(files) if (lines := _nested_imports(f))
    }
    assert unexplained == {}


def test_type_ignores_carry_a_reason() -> None:
    """`# type: ignore[code]` is allowed only with a reason after it (`# type: ignore[x]  # why`)."""
    missing = []
    for pkg in PACKAGES:
        for f in (REPO / pkg).rglob("*.py"):
            for n, line in enumerate(f.read_text().splitlines(), 1):
                if "type: ignore" in line:
                    rest = line.split("type: ignore", 1)[1]
                    if "#" not in rest and " - " not in rest:
                        missing.append(f"{f.relative_to(REPO)}:{n}")
    assert missing == []


def test_mypy_passes() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stdout[-4000:]
