"""The Procfile's web process, run as written: the locked profile in a real browser (sources only
from configuration, shown read-only, the URL's sources ignored), and Streamlit's XSRF and CORS
protections on."""

from __future__ import annotations

import os
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import expect

from bench.browser import wait_healthy
from tests.e2e.conftest import REPO, assert_no_exception, free_port, wait_for_app

pytestmark = pytest.mark.e2e


def procfile_web() -> str:
    lines = (REPO / "Procfile").read_text().splitlines()
    return next(ln for ln in lines if ln.startswith("web:"))[len("web:") :].strip()


@contextmanager
def procfile_server(cache_dir: Path, **env: str) -> Iterator[str]:
    """Start the Procfile's web line through a shell, as a platform would, on a free port."""
    port = free_port()
    full = dict(os.environ, PORT=str(port), RTE_CACHE_DIR=str(cache_dir), HF_HUB_OFFLINE="1")
    full.pop("RTE_PROFILE", None)  # the Procfile's own default must apply
    full.update(env)
    log_path = cache_dir / f"procfile-{port}.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            ["/bin/sh", "-c", procfile_web()],
            cwd=REPO,
            start_new_session=True,  # its own process group: the shell and streamlit stop together
            env=full,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc, log_path)
            yield url
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def locked_url(sample_root: Path, cache_dir: Path, tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    mars = tmp_path_factory.mktemp("mounted") / "mars"
    rel = "Qwen3-32B/hmmt.parquet"
    (mars / rel).parent.mkdir(parents=True)
    (mars / rel).write_bytes((sample_root / "mars" / rel).read_bytes())
    with procfile_server(cache_dir, RTE_MARS_PATH=str(mars), RTE_CASEBOOK="readonly") as url:
        yield url


def test_locked_sidebar_is_read_only_and_ignores_the_url(locked_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(
        f"{locked_url}/?src_mars_kind=Local+folder&src_mars_path=/etc&src_parason_kind=Hugging+Face+Hub"
    )
    wait_for_app(page)
    assert_no_exception(page)
    side = page.locator('[data-testid="stSidebar"]')
    side.get_by_text("DATA SOURCES (set by this server)").wait_for()
    # no radio, no text field: nothing about the sources to change; the one input left is the
    # "Render maths" display switch
    expect(side.locator("input")).to_have_count(1)
    expect(side.get_by_text("Render maths")).to_have_count(1)
    assert "ignores the source settings in the link" in side.inner_text()
    labels = side.locator('[data-testid="stExpander"] summary').all_inner_texts()
    assert any("MARS · Local folder" in t for t in labels), labels
    assert any("Parason · Bundled sample" in t for t in labels), labels
    # the configured folder, with its one file: its card may still be drawing on a busy machine
    # (the status widget shows only after a script has run a while, so wait_for_app can be early)
    page.locator('[data-testid="stMain"]').get_by_text("1 / 9").first.wait_for(timeout=60_000)
    main = page.inner_text('[data-testid="stMain"]')
    assert "/etc" not in main and "Hugging Face Hub ·" not in main
    assert "1 / 9" in main
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0


def test_locked_deep_link_to_a_view_keeps_the_configured_source(locked_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{locked_url}/fineproofs?src_fineproofs_kind=Local+folder&src_fineproofs_path=/")
    wait_for_app(page)
    assert_no_exception(page)
    assert "Something went wrong" not in page.inner_text('[data-testid="stMain"]')
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0


def test_xsrf_protection_is_on(locked_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(locked_url)
    wait_for_app(page)
    names = {c["name"] for c in page.context.cookies()}
    assert "_streamlit_xsrf" in names  # Streamlit issues the token only with protection on
    req = urllib.request.Request(
        f"{locked_url}/_stcore/upload_file/some-session/some-file",
        data=b"--x--\r\n",
        method="PUT",
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=5)
    assert err.value.code == 403  # an upload without the token is refused


def test_cors_does_not_echo_a_foreign_origin(locked_url: str) -> None:
    req = urllib.request.Request(
        f"{locked_url}/_stcore/health", headers={"Origin": "http://evil.example"}
    )
    with urllib.request.urlopen(req, timeout=5) as r:
        allowed = r.headers.get("Access-Control-Allow-Origin")
    assert allowed in (None, "") or "evil.example" not in allowed


def test_locked_casebook_is_read_only(locked_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{locked_url}/casebook")
    wait_for_app(page)
    assert_no_exception(page)
    assert "Read-only on this server" in page.inner_text('[data-testid="stMain"]')
