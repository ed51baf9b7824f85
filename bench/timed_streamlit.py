"""Streamlit's command line, with the server's own time for each script run written down.

    RTE_BENCH_SCRIPT_LOG=runs.log python -m bench.timed_streamlit run app.py --server.port 8599

Each script run appends one line to the file `RTE_BENCH_SCRIPT_LOG` names: the wall-clock time
it started and its duration in seconds. A browser bench reads the lines written while a page
opened, to split the page's time into the server's script and the rest (transfer, the browser
drawing). Bench-only: it wraps a private method of Streamlit's script runner, which the
constraints file pins.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from streamlit.runtime.scriptrunner import script_runner
from streamlit.web import cli

from bench.browser import SCRIPT_LOG_ENV

_LOCK = threading.Lock()


def _install(log: Path) -> None:
    original = script_runner.ScriptRunner._run_script

    def timed(self: Any, rerun_data: Any) -> Any:
        started, t0 = time.time(), time.perf_counter()
        try:
            return original(self, rerun_data)
        finally:
            line = f"{started:.6f} {time.perf_counter() - t0:.6f}\n"
            with _LOCK, open(log, "a") as f:
                f.write(line)

    script_runner.ScriptRunner._run_script = timed  # type: ignore[method-assign]  # the wrap


if __name__ == "__main__":
    _install(Path(os.environ[SCRIPT_LOG_ENV]))
    sys.exit(cli.main(prog_name="streamlit"))
