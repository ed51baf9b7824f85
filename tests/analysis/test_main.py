"""The `analysis` command line as installed: the `rte` console script and its environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_rte_console_script_is_the_analysis_cli() -> None:
    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "rte"]
    assert ep.value == "analysis.__main__:main"


def test_a_command_starts_numpy_with_one_blas_thread_unless_told_otherwise() -> None:
    code = (
        "import json, os, sys\n"
        "from analysis.__main__ import main\n"
        "try:\n"
        "    main(['simulate', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(json.dumps(os.environ.get('OPENBLAS_NUM_THREADS')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stderr.strip().splitlines()[-1]) == "1"
    env["OPENBLAS_NUM_THREADS"] = "4"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stderr.strip().splitlines()[-1]) == "4"
