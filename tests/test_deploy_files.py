"""The Procfile starts the app and its health check points at an endpoint that really answers."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

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
    assert argv[:4] == ["python", "-m", "streamlit", "run"] and argv[4] == "app.py"
    assert "--server.port" in argv and "--server.address" in argv
    checks = json.loads((REPO / "app.json").read_text())["healthchecks"]["web"]
    assert checks[0]["path"] == "/_stcore/health"
