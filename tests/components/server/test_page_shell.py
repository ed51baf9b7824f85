"""The views' page shells: Streamlit's own index.html plus the root hint, one route per view."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from components.common.links import views
from components.server import page_shell
from components.server.page_shell import (
    HEAD,
    INDEX,
    MARKER,
    ROOT_HINT,
    TRIAGE_STEP,
    shell,
    view_routes,
)

REPO = Path(__file__).resolve().parents[3]


def test_the_shell_is_streamlits_page_with_the_hint_before_its_bundle() -> None:
    html = shell()
    assert html is not None
    original = INDEX.read_text(encoding="utf-8")
    # nothing of Streamlit's page is lost: removing the hint gives it back
    assert html.replace(HEAD + "\n    ", "", 1) == original
    assert html.count(ROOT_HINT) == 1 and html.count(HEAD) == 1
    assert html.index(HEAD) < html.index(MARKER)  # set before the bundle reads it


def test_the_early_keys_mark_is_the_one_the_triage_keys_write() -> None:
    js = (REPO / "components/casebook/triage_keys.js").read_text(encoding="utf-8")
    assert f'const STEP = "{TRIAGE_STEP}";' in js
    assert f'sessionStorage.getItem("{TRIAGE_STEP}")' in HEAD and "__" + "STEP__" not in HEAD


def test_one_route_per_view_and_nothing_else() -> None:
    client = TestClient(Starlette(routes=view_routes("")))
    for path in views():
        r = client.get(f"/{path}")
        assert r.status_code == 200 and ROOT_HINT in r.text
        assert r.headers["cache-control"] == "no-cache"
        assert r.headers["content-type"].startswith("text/html")
    assert client.get("/not-a-view").status_code == 404
    assert client.get("/mars/_stcore/health").status_code == 404
    assert client.head("/mars").status_code == 200


def test_the_routes_sit_under_the_servers_base_url_path() -> None:
    """With `server.baseUrlPath` (e.g. "rte") a view is at /rte/mars: the shell answers there,
    where the parent of the URL is the app's root, and not at /mars, which is not the app's."""
    client = TestClient(Starlette(routes=view_routes("/rte/")))
    r = client.get("/rte/mars")
    assert r.status_code == 200 and ROOT_HINT in r.text
    assert client.get("/mars").status_code == 404
    assert [r.path for r in view_routes("")] == [f"/{p}" for p in views()]


def test_without_a_bundle_tag_streamlits_page_is_served_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    index = tmp_path / "index.html"
    index.write_text("<html><head></head><body>a future page</body></html>", encoding="utf-8")
    monkeypatch.setattr(page_shell, "INDEX", index)
    shell.cache_clear()
    try:
        assert shell() is None
        r = TestClient(Starlette(routes=view_routes(""))).get("/mars")
        assert r.status_code == 200 and r.text == index.read_text() and ROOT_HINT not in r.text
    finally:
        shell.cache_clear()
