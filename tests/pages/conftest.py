"""AppTest helpers: the app's absolute path (AppTest resolves relative paths against the caller)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components.common import casebook

APP_PATH = str(Path(__file__).resolve().parents[2] / "app.py")


def new_app(timeout: float = 120) -> AppTest:
    """A fresh AppTest of the whole app (router + sidebar), not yet run."""
    return AppTest.from_file(APP_PATH, default_timeout=timeout)


def run_page(page: str, **params: str) -> AppTest:
    """Open `page` through the app's router with URL query parameters (a deep link) and run it."""
    at = new_app()
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page)
    return at.run()


@pytest.fixture()
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh casebook database (SQLite in the test's folder) for the app under test."""
    url = f"sqlite:///{tmp_path / 'casebook.sqlite'}"
    monkeypatch.setenv("RTE_DB_URL", url)
    monkeypatch.delenv("RTE_CASEBOOK", raising=False)
    # as on a server with login: saving needs an author (a test of the no-author path undoes it)
    monkeypatch.setattr(casebook, "logged_in_name", lambda: "tester")
    casebook.reset_store()
    yield url
    casebook.reset_store()
