"""Shared pieces of the browser benchmarks: the app's server (`streamlit run` of its entry), Debian's Chromium
through Playwright, and "the page has settled" (script finished, charts drawn).

Used by `bench/first_paint.py`, `bench/load.py` and the real-browser tests' fixtures
(`tests/e2e/conftest.py`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# what the README runs: the ASGI entry that serves `app.py` with the views' page shells
APP_ENTRY = "components/server/entry.py"
CHROMIUM = os.environ.get("RTE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]

# the script has finished (the app's own script-state attribute, not the status widget, which
# fades out for 200 ms after the run), the websocket is connected, no skeleton or stale element is
# left, and every visible chart has drawn (Plotly's layout exists and is not mid-redraw); returns
# the page-clock time (ms since navigation start) when all of that first held
# what each of our components puts in its shadow root once its script has drawn (lite charts,
# light tables, stat rows, light controls, clickable text); the page-ready checks of the bench and the browser
# tests
COMPONENT_DRAWN = (
    ".rte-click-root, .rte-lite-table table, .rte-stats, .rte-lc, .rte-next-mark, "
    'svg[data-testid="lite-chart-svg"]'
)
SETTLED_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.dataset.testScriptState !== 'notRunning') return false;
  if (app.dataset.testConnectionState !== 'CONNECTED') return false;
  if (!document.querySelector('[data-testid="stMain"] h1')) return false;
  if (document.querySelector(
    '[data-testid="stSkeleton"], [data-testid="stAppSkeleton"], [data-stale="true"]')) return false;
  const charts = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'))
    .filter((el) => el.offsetParent !== null);
  const drawn = charts.every((el) => {
    const gd = el.querySelector('.js-plotly-plot');
    return gd && gd._fullLayout && !gd._fullLayout._replotting && el.querySelector('.main-svg');
  });
  // our components (lite charts and tables, clickable text) draw into their shadow root once their JS ran;
  // a zero-height one (the browser bridge, components/common/browser.py) draws nothing
  const lite = Array.from(document.querySelectorAll('[data-testid="stBidiComponentIsolated"]'))
    .filter((el) => el.offsetParent !== null && el.getBoundingClientRect().height > 0)
    .every((el) => el.shadowRoot && el.shadowRoot.querySelector(
      '__DRAWN__'));
  return drawn && lite ? performance.now() : false;
}""".replace("__DRAWN__", COMPONENT_DRAWN)


SCRIPT_LOG_ENV = "RTE_BENCH_SCRIPT_LOG"  # bench/timed_streamlit.py writes each run there


def read_runs(path: Path, offset: int = 0) -> tuple[list[tuple[float, float]], int]:
    """The (start, seconds) of the runs written after byte `offset`, and the new offset."""
    if not path.exists():
        return [], offset
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read()
    complete = data[: data.rfind(b"\n") + 1]  # a line being written is read next time
    runs = []
    for line in complete.decode().splitlines():
        start, _, seconds = line.partition(" ")
        runs.append((float(start), float(seconds)))
    return runs, offset + len(complete)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Server:
    url: str
    pid: int
    log: Path
    script_log: Path | None = None  # each script run's own time (bench/timed_streamlit.py)


@contextmanager
def streamlit_server(
    cache_dir: Path,
    log: Path | None = None,
    drop: tuple[str, ...] = (),
    log_name: str = "streamlit-bench",
    script: str = APP_ENTRY,
    script_log: Path | None = None,
    **env: str,
) -> Iterator[Server]:
    """Start the app (or another `script` of the repository) on a free loopback port (offline),
    yield it, stop it after.

    `drop` removes variables of this process's environment (e.g. a locked profile) for the server;
    the server's output goes to `log`, else to `cache_dir/<log_name>-<port>.log`. With
    `script_log`, each script run's own time is written there (`bench/timed_streamlit.py`).
    """
    port = free_port()
    full_env = dict(os.environ, RTE_CACHE_DIR=str(cache_dir), HF_HUB_OFFLINE="1", **env)
    launcher = "streamlit"
    if script_log is not None:
        launcher = "bench.timed_streamlit"
        full_env[SCRIPT_LOG_ENV] = str(script_log)
    for name in drop:
        full_env.pop(name, None)
    cache_dir.mkdir(parents=True, exist_ok=True)
    log_path = log or cache_dir / f"{log_name}-{port}.log"
    with open(log_path, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                launcher,
                "run",
                script,
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=REPO,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc, log_path)
            yield Server(url, proc.pid, log_path, script_log)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


def wait_healthy(url: str, proc: subprocess.Popen, log_path: Path, timeout: float = 120) -> None:
    """Block until the Streamlit server at `url` answers its health check; raise (naming the
    log) if its process exits first or the time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start; see {log_path}") from None
            time.sleep(0.3)


def rss_mb(pid: int) -> float:
    """Resident memory of one process (MB), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def wait_settled(page: Any, timeout_ms: float = 60_000) -> float:
    """Block until the script finished and every visible chart is drawn; the page-clock time
    (ms since navigation start) at which that held."""
    return float(page.wait_for_function(SETTLED_JS, timeout=timeout_ms, polling=50).json_value())
