"""Home and sidebar on a team server and with partial folders: the sidebar header names the source
in use after a deep link, a locked server ignores the URL's sources, an allowlist refuses a path
with one message, a folder without the default file is a card, and a file the views would reject
is not "ok"."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import new_app
from tests.pages.md_tables import figures, md_tables

MARS_FILE = "Qwen3-32B/hmmt.parquet"  # not the default (first) MARS file


def _run(params: dict[str, str] | None = None, **session: str) -> AppTest:
    at = new_app()
    for k, v in (params or {}).items():
        at.query_params[k] = v
    for k, v in session.items():
        at.session_state[k] = v
    return at.run()


def _card_status(at: AppTest, a_file: str) -> dict[str, str]:
    table = next(t for t in md_tables(at, "file") if a_file in {r["file"] for r in t})
    return {str(r["file"]): str(r["status"]) for r in table}


def _mars_folder(sample_root: Path, tmp_path: Path, files: tuple[str, ...]) -> Path:
    root = tmp_path / "mars"
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sample_root / "mars" / rel, root / rel)
    return root


def test_sidebar_header_names_the_source_of_a_deep_link(sample_root: Path, tmp_path: Path) -> None:
    root = _mars_folder(sample_root, tmp_path, (MARS_FILE,))
    at = _run({"src_mars_kind": "Local folder", "src_mars_path": str(root)})
    assert not at.exception
    labels = [e.label for e in at.sidebar.expander]
    assert "MARS · Local folder" in labels, labels
    assert "Parason · Bundled sample" in labels
    at.run()  # the second run (widget state now set) names it the same way
    assert "MARS · Local folder" in [e.label for e in at.sidebar.expander]


def test_folder_without_the_default_file_is_a_card(sample_root: Path, tmp_path: Path) -> None:
    root = _mars_folder(sample_root, tmp_path, (MARS_FILE,))
    at = _run(src_mars_kind="local", src_mars_path=str(root))
    assert not at.exception and not at.error
    assert "1 / 9" in [v for _label, v in figures(at, "Files available")]
    status = _card_status(at, MARS_FILE)
    assert status[MARS_FILE] == "ok" and status["DeepSeek-8B/aime25_deepseek.parquet"] == "missing"


def test_file_the_views_would_reject_is_not_ok(sample_root: Path, tmp_path: Path) -> None:
    root = _mars_folder(sample_root, tmp_path, (MARS_FILE, "Qwen3-32B/aime25.parquet"))
    bad = root / "Qwen3-32B" / "aime25.parquet"
    pl.read_parquet(bad).drop("confs").write_parquet(bad)
    at = _run(src_mars_kind="local", src_mars_path=str(root))
    assert not at.exception
    status = _card_status(at, MARS_FILE)
    assert status[MARS_FILE] == "ok"
    assert status["Qwen3-32B/aime25.parquet"].startswith("error:")
    assert "confs" in status["Qwen3-32B/aime25.parquet"]
    assert "1 / 9" in [v for _label, v in figures(at, "Files available")]


def test_locked_server_ignores_sources_in_the_url(
    sample_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RTE_PROFILE", "locked")
    at = _run({"src_mars_kind": "Local folder", "src_mars_path": "/etc"})
    assert not at.exception and not at.error
    assert not at.sidebar.radio and not at.sidebar.text_input  # nothing to change
    side = "\n".join(c.value for c in at.sidebar.caption)
    assert "set by this server" in side and "ignores the source settings in the link" in side
    assert "MARS · Bundled sample" in [e.label for e in at.sidebar.expander]
    mains = [c.value for c in at.main.caption]
    assert not any("/etc" in c for c in mains)


def test_locked_server_shows_its_configured_folder(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _mars_folder(sample_root, tmp_path, (MARS_FILE,))
    monkeypatch.setenv("RTE_PROFILE", "locked")
    monkeypatch.setenv("RTE_MARS_PATH", str(root))
    at = _run()
    assert not at.exception and not at.error
    assert "MARS · Local folder" in [e.label for e in at.sidebar.expander]
    assert any(str(root.name) in c.value for c in at.sidebar.caption)
    assert "1 / 9" in [v for _label, v in figures(at, "Files available")]


@pytest.mark.parametrize("path", ["/etc", "{tmp}/mars/../secret", "{tmp}/nope"])
def test_allowlist_refuses_with_one_message(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (tmp_path / "secret").mkdir()
    monkeypatch.setenv("RTE_ALLOWED_ROOTS", str(allowed))
    at = _run({"src_mars_kind": "Local folder", "src_mars_path": path.format(tmp=tmp_path)})
    assert not at.exception
    assert len(at.error) == 1
    text = at.error[0].value
    assert "Source not allowed" in text and "does not open that local folder" in text
    assert "exist" not in text and "secret" not in text
    assert [s.value for s in at.subheader] == ["Parason", "FineProofs"]


def test_unwritable_cache_folder_is_a_clear_message_per_dataset(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache folder where nothing can be written: the sample cannot be generated there, each
    card says so (not a bug box), and a local folder that needs nothing new still shows."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")  # a folder under a file cannot be created, even by root
    monkeypatch.setenv("RTE_CACHE_DIR", str(blocker / "cache"))
    root = _mars_folder(sample_root, tmp_path, (MARS_FILE,))
    at = _run(src_mars_kind="local", src_mars_path=str(root))
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 2 and all("Cache not writable" in e for e in errors), errors
    assert all("RTE_CACHE_DIR" in e.replace("\\", "") for e in errors)
    assert [s.value for s in at.subheader] == ["MARS"]
    assert "1 / 9" in [v for _label, v in figures(at, "Files available")]
