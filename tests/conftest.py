"""Shared fixtures: an isolated cache folder for the whole run, and the bundled sample built once."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

# isolate the cache before any test module computes a path; RTE_TEST_CACHE_DIR reuses one between runs
_ROOT = os.environ.get("RTE_TEST_CACHE_DIR")
if not _ROOT:
    import tempfile

    _RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if _RUN:  # the workers of one xdist run share a cache (sample and store build under locks)
        _ROOT = str(Path(tempfile.gettempdir()) / f"rte-test-cache-{_RUN}")
        os.makedirs(_ROOT, exist_ok=True)
    else:
        _ROOT = tempfile.mkdtemp(prefix="rte-test-cache-")
os.environ["RTE_CACHE_DIR"] = _ROOT
os.environ["RTE_STRICT"] = "1"  # bugs raise (AppTest: at.exception; browser: stException)
for _name in ("PARASON", "MARS", "FINEPROOFS"):
    for _field in ("SOURCE", "REPO", "REVISION", "PATH"):
        os.environ.pop(f"RTE_{_name}_{_field}", None)


# the casebook store imports nothing that loads a compiled module (tests/test_no_extensions.py
# checks it on the import graph), so its tests run the same code with the switch on
TESTS = Path(__file__).parent
NO_EXT_SAME = (TESTS / "cache" / "casebook",)


# the modules that take longest, by kind: browser journeys, other browser tests, the source checks
# (mypy), the pages' AppTests; the rest are quick
_SLOW_FIRST = (("e2e", "test_journey_"), ("e2e", ""), ("", "test_architecture"), ("pages", ""))


def _cost_class(item: pytest.Item) -> int:
    """Lower runs earlier: the index of the first kind in `_SLOW_FIRST` the module is of."""
    if not item.path.is_relative_to(TESTS):
        return len(_SLOW_FIRST)
    rel = item.path.relative_to(TESTS)
    folder = rel.parts[0] if len(rel.parts) > 1 else ""
    for rank, (where, prefix) in enumerate(_SLOW_FIRST):
        if folder == where and rel.name.startswith(prefix):
            return rank
    return len(_SLOW_FIRST)


def _slowest_modules_first(items: list[pytest.Item]) -> None:
    """The two xdist workers take modules off one queue in this order (`--dist loadscope`, with
    its own reordering by test count off): the long modules first, the many quick ones last to
    even out the end, instead of a long module starting last while the other worker idles."""
    per_module = Counter(item.path for item in items)
    items.sort(key=lambda item: (_cost_class(item), -per_module[item.path], str(item.path)))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the modules slowest first; in the `RTE_NO_EXT=1` pass, skip what the switch cannot
    change: the checks of the source (it changes no file they read) and the casebook store's
    tests; the first pass ran them."""
    from cache import extensions

    _slowest_modules_first(items)
    if not extensions.disabled():
        return
    static = pytest.mark.skip(reason="RTE_NO_EXT=1: a static check, run in the first pass")
    same = pytest.mark.skip(reason="RTE_NO_EXT=1: no compiled module on this path")
    for item in items:
        if item.get_closest_marker("static") is not None:
            item.add_marker(static)
        elif any(item.path.is_relative_to(folder) for folder in NO_EXT_SAME):
            item.add_marker(same)


@pytest.fixture(scope="session")
def cache_dir() -> Path:
    return Path(_ROOT)


@pytest.fixture(scope="session")
def sample_root(cache_dir: Path) -> Path:
    """Folder holding <dataset>/ sample folders, built once per test session."""
    from cache.sample import build_all
    from cache.sample import sample_root as root_of

    build_all()
    return root_of("mars").parent


@pytest.fixture(autouse=True)
def _restore_main_module():
    """AppTest runs scripts as `__main__` and leaves them there; worker processes started later
    (spawn/forkserver) would re-run that script. Put pytest's own `__main__` back after each test."""
    import sys

    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main
