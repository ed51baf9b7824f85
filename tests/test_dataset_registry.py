"""One list of datasets and one list of derived tables.

No shared module names a dataset: the declarations in `cache.datasets` carry what used to be
branches on a dataset's name (an AST walk looks for the names as string literals, docstrings
aside). The derived tables' names and versions are read from `cache.derived_tables`, and
`python -m cache info` prints that list."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from analysis.fineproofs import store as fineproofs_store
from analysis.mars import table_names
from analysis.parason import store as parason_store
from cache.datasets import DATASETS, view_names
from cache.derived_tables import TABLES, built, tables_of
from components.common.links import views
from components.common.url_keys import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
NAMES = frozenset({"parason", "mars", "fineproofs", "playground"})
SHARED = (
    "cache/*.py",
    "cache/casebook/*.py",
    "cache/sample/__init__.py",
    "components/common/*.py",
    "components/casebook/*.py",
    "components/home/*.py",
    "components/lenses/*.py",
    "pages/home.py",
    "pages/lenses.py",
    "app.py",
    "analysis/__main__.py",
    "analysis/search/*.py",
    "components/search/*.py",
    "pages/search.py",
)
# the registries, where the names are declared
ALLOWED = {
    "cache/datasets.py",  # the datasets and their views
    "components/common/url_keys.py",  # `REGISTRY`: each view's URL-key class, by view name
}


def _docstrings(tree: ast.AST) -> set[int]:
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, owners)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def name_literals(source: str) -> list[tuple[int, str]]:
    """(line, name) of each string literal equal to a dataset's or view's name, docstrings
    aside."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in NAMES
        and id(node) not in docs
    ]


def _shared_files() -> list[Path]:
    files = {p for pattern in SHARED for p in ROOT.glob(pattern)}
    return sorted(p for p in files if p.relative_to(ROOT).as_posix() not in ALLOWED)


def test_the_walk_finds_a_branch_on_a_name_and_skips_docstrings() -> None:
    src = '"""Mentions "mars" freely."""\ndef f(d):\n    """mars"""\n    return d == "mars"\n'
    assert name_literals(src) == [(4, "mars")]
    assert name_literals('X = {"playground": 1}\n') == [(1, "playground")]


def test_the_names_cover_every_declared_dataset_and_view() -> None:
    assert set(DATASETS) | set(view_names()) == NAMES


def test_no_shared_module_names_a_dataset() -> None:
    files = _shared_files()
    assert len(files) > 40  # the globs still find the shared modules
    found = [
        f"{p.relative_to(ROOT)}:{line}: {name!r}"
        for p in files
        for line, name in name_literals(p.read_text())
    ]
    assert not found, "dataset names outside cache.datasets:\n" + "\n".join(found)


def test_every_view_with_url_keys_is_a_view() -> None:
    assert set(REGISTRY) <= set(views())
    assert set(view_names()) <= set(REGISTRY)  # each built-in view declares its keys


# ---------------------------------------------------------------------------- derived tables

# the versions in today's cache: a change here rebuilds every table of that name
VERSIONS = {
    "parason-metrics": 3,
    "mars-features": 9,
    "mars-groups": 9,
    "mars-notes": 9,
    "parason-added": 1,
    "parason-trials": 1,
    "fineproofs-prefixes": 3,
    "fineproofs-traces": 3,
    "fineproofs-depth": 3,
    "parason-texts": 2,
    "mars-texts": 1,
    "fineproofs-texts": 3,  # 3: a piece names its prefix and the step it runs up to
}


def test_the_list_holds_todays_tables_and_versions() -> None:
    assert {t.name: t.version for t in TABLES} == VERSIONS
    for t in TABLES:
        assert t.name.startswith(f"{t.dataset}-")  # the home page lists a dataset's tables so
        assert set(t.inputs) <= set(DATASETS[t.dataset].files)
        assert set(t.reads) <= set(VERSIONS) - {t.name}
        assert t in tables_of(t.dataset)
    assert sum(len(tables_of(d)) for d in DATASETS) == len(TABLES)


def test_the_builders_read_the_list() -> None:
    assert (parason_store.NAME, parason_store.VERSION) == ("parason-metrics", 3)
    names = (table_names.FEATURES, table_names.GROUPS, table_names.NOTES)
    assert names == ("mars-features", "mars-groups", "mars-notes")
    assert table_names.FEATURES_VERSION == 9
    fp = fineproofs_store
    assert (fp.PREFIXES, fp.TRACES, fp.DEPTH, fp.VERSION) == (
        "fineproofs-prefixes",
        "fineproofs-traces",
        "fineproofs-depth",
        3,
    )


STORE_CALLS = {"derived_table", "derived_file", "read_derived", "table_path", "work_dir"}


def test_no_store_call_names_a_table_or_version_itself() -> None:
    """Every call into the store passes a name and version read from the list (a name, not a
    literal), so a table cannot be built without being listed."""
    found = []
    for p in sorted({*ROOT.glob("analysis/**/*.py"), *ROOT.glob("components/**/*.py")}):
        for node in ast.walk(ast.parse(p.read_text())):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            called = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if called in STORE_CALLS and any(isinstance(a, ast.Constant) for a in node.args[:2]):
                found.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_built_counts_only_the_current_version(tmp_path: Path) -> None:
    (tmp_path / "mars-features-v9-abc.parquet").write_bytes(b"x")
    (tmp_path / "mars-features-v8-abc.parquet").write_bytes(b"x")
    (tmp_path / "mars-features-v90-abc.parquet").write_bytes(b"x")
    table = next(t for t in TABLES if t.name == "mars-features")
    assert [p.name for p in built(table, tmp_path)] == ["mars-features-v9-abc.parquet"]


def test_cache_info_prints_the_list(tmp_path: Path) -> None:
    derived = tmp_path / "derived"
    derived.mkdir()
    (derived / "fineproofs-depth-v3-k1.parquet").write_bytes(b"x")
    out = subprocess.run(
        [sys.executable, "-m", "cache", "info"],
        cwd=ROOT,
        env={**os.environ, "RTE_CACHE_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    for t in TABLES:
        assert f"  {t.name} v{t.version}  ({t.dataset}; built here: " in out.stdout
    assert "fineproofs-depth v3  (fineproofs; built here: 1 files)" in out.stdout
    assert "parason-metrics v3  (parason; built here: 0 files)" in out.stdout
    assert "inputs: data/prefix_values.parquet; params: series parameters, n_bins; reads: " in (
        out.stdout
    )
    assert "built by analysis.parason.store.metrics_table" in out.stdout
