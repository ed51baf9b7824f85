"""Tests wait for the app, not the clock: no test calls Playwright's `wait_for_timeout`, and the
browser tests never sleep. A fixed delay is either too short on a busy machine (a flaky failure)
or too long everywhere else (a slow suite); `expect()` and the app's script state are neither."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # skipped in the RTE_NO_EXT=1 pass (tests/conftest.py)

TESTS = Path(__file__).resolve().parent
E2E = TESTS / "e2e"
_SLEEPS = {("time", "sleep"), ("asyncio", "sleep")}


def fixed_waits(source: str, browser: bool) -> list[int]:
    """Lines of `source` that wait a fixed time: any `.wait_for_timeout(...)`, and in a browser
    test also `time.sleep`/`asyncio.sleep` (as attributes or imported by name)."""
    tree = ast.parse(source)
    sleep_names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in {"time", "asyncio"}
        for alias in node.names
        if alias.name == "sleep"
    }
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "wait_for_timeout":
            lines.append(node.lineno)
        elif not browser:
            continue
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if (func.value.id, func.attr) in _SLEEPS:
                lines.append(node.lineno)
        elif isinstance(func, ast.Name) and func.id in sleep_names:
            lines.append(node.lineno)
    return lines


def test_no_test_waits_a_fixed_time() -> None:
    offenders = [
        f"{path.relative_to(TESTS.parent)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        for line in fixed_waits(path.read_text(encoding="utf-8"), path.is_relative_to(E2E))
    ]
    assert offenders == [], "wait with expect() or the app's script state instead: " + ", ".join(
        offenders
    )


def test_the_check_sees_each_kind_of_fixed_wait() -> None:
    assert fixed_waits("page.wait_for_timeout(500)\n", browser=False) == [1]
    assert fixed_waits("import time\ntime.sleep(1)\n", browser=True) == [2]
    assert fixed_waits("from time import sleep as nap\nnap(1)\n", browser=True) == [2]
    assert fixed_waits("import asyncio\nasyncio.sleep(1)\n", browser=True) == [2]
    # a test of a lock or a process may sleep (it waits for another process, not the browser)
    assert fixed_waits("import time\ntime.sleep(1)\n", browser=False) == []
    # a name in a string or a comment is no call
    assert fixed_waits("'page.wait_for_timeout(1)'  # time.sleep(1)\n", browser=True) == []
    assert fixed_waits("expect(page.locator('h1')).to_be_visible()\n", browser=True) == []
