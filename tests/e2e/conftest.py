"""Real-browser fixtures: a `streamlit run app.py` server on a free loopback port, and Debian's
chromium driven by Playwright (the Playwright browser download is unreachable here)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(cache_dir: Path, **extra_env: str) -> Iterator[str]:
    """Start `streamlit run app.py` on a free loopback port; yield its base URL."""
    port = _free_port()
    env = dict(os.environ, RTE_CACHE_DIR=str(cache_dir), HF_HUB_OFFLINE="1", **extra_env)
    log_path = cache_dir / f"streamlit-e2e-{port}.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
            ],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.time() + 60
            while True:
                try:
                    with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    time.sleep(0.3)
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited early; see {log_path}")
                if time.time() > deadline:
                    raise RuntimeError("streamlit did not become healthy within 60 s")
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def app_url(sample_root: Path, cache_dir: Path) -> Iterator[str]:
    with streamlit_server(cache_dir) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


def wait_for_app(pg, timeout: float = 45_000) -> None:  # type: ignore[no-untyped-def]
    """Wait until Streamlit has finished running the script (no 'running' status widget)."""
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    pg.wait_for_selector(
        '[data-testid="stMain"] h1', timeout=timeout
    )  # the page has started to render
    pg.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]')""", timeout=timeout
    )
    pg.wait_for_function(
        """() => !document.querySelector('[data-testid="stSkeleton"]')""", timeout=timeout
    )
    pg.wait_for_timeout(500)


def assert_no_exception(pg) -> None:  # type: ignore[no-untyped-def]
    assert pg.locator('[data-testid="stException"]').count() == 0, "an exception box is shown"
