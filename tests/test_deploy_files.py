"""The Procfile starts the app and its health check points at an endpoint that really answers."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # skipped in the RTE_NO_EXT=1 pass (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]


def test_procfile_web_line_and_health_check() -> None:
    lines = [
        ln for ln in (REPO / "Procfile").read_text().splitlines() if ln and not ln.startswith("#")
    ]
    web = [ln for ln in lines if ln.startswith("web:")]
    assert len(web) == 1
    argv = shlex.split(web[0][len("web:") :])
    env = []
    while argv and "=" in argv[0] and not argv[0].startswith("-"):
        env.append(argv.pop(0))  # VAR=value prefixes, as the platform's shell runs them
    assert "RTE_PROFILE=${RTE_PROFILE:-locked}" in env
    assert (
        argv[:4] == ["python", "-m", "streamlit", "run"] and argv[4] == "components/server/entry.py"
    )
    assert "--server.port" in argv and "--server.address" in argv
    checks = json.loads((REPO / "app.json").read_text())["healthchecks"]["web"]
    assert checks[0]["path"] == "/_stcore/health"


FENCED = ("numpy", "scipy", "pyarrow", "streamlit", "polars", "plotly")


def test_fenced_libraries_have_both_bounds_and_the_pins_lie_inside() -> None:
    from tests.constraints import canonical, direct_requirements, read_pins

    pins = read_pins((REPO / "constraints.txt").read_text())
    reqs = {canonical(r.name): r for r in direct_requirements()}
    for name in FENCED:
        ops = {s.operator for s in reqs[name].specifier}
        assert ">=" in ops and ("<" in ops or "<=" in ops), f"{name}: {reqs[name]}"
    for name, req in reqs.items():
        assert name in pins, f"{name} is a dependency but not pinned in constraints.txt"
        assert req.specifier.contains(pins[name]), f"{name}=={pins[name]} outside {req}"
    assert {"threadpoolctl", "pytest-xdist"} <= set(reqs)


def test_constraints_pin_the_installed_tree_and_setup_uses_them() -> None:
    from tests.constraints import dependency_tree, read_pins

    text = (REPO / "constraints.txt").read_text()
    assert not any(ln.lstrip().startswith("-e") for ln in text.splitlines())
    assert read_pins(text) == dependency_tree(), (
        "constraints.txt is not the installed tree: python -m tests.constraints > constraints.txt"
    )
    assert '-c constraints.txt -e ".[test]"' in (REPO / "tests" / "setup.sh").read_text()
