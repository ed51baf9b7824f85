"""Degraded environments: an unwritable HF cache, a cache folder where the sample cannot be
generated, a read-only derived folder: each is a clear message, and what exists keeps working."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from cache import paths, sources
from cache.errors import CacheUnwritable, HubUnavailable
from cache.sources import SourceConfig, resolve_file


@pytest.fixture()
def hub_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "hub_offline", lambda: False)
    monkeypatch.setattr(sources, "hub_reachable", lambda *a, **k: True)


@pytest.mark.parametrize(
    ("err", "word"),
    [(errno.EACCES, "not writable"), (errno.EROFS, "not writable"), (errno.ENOSPC, "full")],
)
def test_unwritable_hf_cache_says_so(
    hub_up: None, monkeypatch: pytest.MonkeyPatch, err: int, word: str
) -> None:
    import huggingface_hub

    def refuse(*a: object, **k: object) -> str:
        # what huggingface_hub raises when it cannot create its blob or lock files
        raise OSError(err, os.strerror(err), "/hf/hub/.locks/datasets--x/abc.lock")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", refuse)
    with pytest.raises(CacheUnwritable) as exc:
        resolve_file("mars", "Qwen3-32B/hmmt.parquet", SourceConfig(kind="hub"))
    assert "Hugging Face cache" in exc.value.message and word in exc.value.message
    assert "HF_HOME" in exc.value.hint and "sample" in exc.value.hint


def test_other_os_errors_stay_hub_errors(hub_up: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    def reset(*a: object, **k: object) -> str:
        raise ConnectionResetError(errno.ECONNRESET, "reset")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", reset)
    with pytest.raises(HubUnavailable):
        resolve_file("mars", "Qwen3-32B/hmmt.parquet", SourceConfig(kind="hub"))


def test_sample_in_an_unwritable_cache_folder_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(dataset: str, progress: object = None) -> Path:
        raise PermissionError(errno.EROFS, "Read-only file system", "/cache/sample")

    monkeypatch.setattr(sources, "ensure_sample", refuse)
    with pytest.raises(CacheUnwritable) as exc:
        resolve_file("parason", "sft-1x/train.parquet", SourceConfig(kind="sample"))
    assert "RTE_CACHE_DIR" in exc.value.hint


def test_cache_paths_do_not_fail_on_a_read_only_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading what is already cached must not need a writable folder."""
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")  # mkdir under a file fails for root as well
    monkeypatch.setenv("RTE_CACHE_DIR", str(blocker / "cache"))
    assert paths.derived_dir() == blocker / "cache" / "derived"
    assert not list(paths.derived_dir().glob("*.parquet"))
