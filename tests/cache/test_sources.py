"""Source resolution: local folder, bundled sample, and the Hub through a real HF cache."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cache.errors import SourceNotFound
from cache.sources import SourceConfig, available_files, default_source, resolve_file

REPO = Path(__file__).resolve().parents[2]


def test_presets_from_environment() -> None:
    env = {"RTE_MARS_SOURCE": "local", "RTE_MARS_PATH": "/mnt/mars"}
    src = default_source("mars", env)
    assert (src.kind, src.local_path, src.repo_id) == ("local", "/mnt/mars", "wenbochen111/MARS")
    hub = default_source(
        "parason",
        {"RTE_PARASON_SOURCE": "hub", "RTE_PARASON_REPO": "me/p", "RTE_PARASON_REVISION": "v2"},
    )
    assert (hub.kind, hub.repo_id, hub.revision) == ("hub", "me/p", "v2")
    assert default_source("fineproofs", {}).kind == "sample"
    # a path alone implies a local folder; a nonsense kind falls back
    assert default_source("mars", {"RTE_MARS_PATH": "/x"}).kind == "local"
    assert default_source("mars", {"RTE_MARS_SOURCE": "ftp"}).kind == "sample"


def test_local_folder_missing_names_the_folder(tmp_path: Path) -> None:
    src = SourceConfig(kind="local", local_path=str(tmp_path / "nope"))
    with pytest.raises(SourceNotFound) as err:
        resolve_file("parason", "sft-1x/train.parquet", src)
    assert "nope" in err.value.message and "does not exist" in err.value.message
    assert "sample" in err.value.hint


def test_local_folder_missing_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "sft-1x").mkdir()
    src = SourceConfig(kind="local", local_path=str(tmp_path))
    with pytest.raises(SourceNotFound) as err:
        resolve_file("parason", "sft-8x/train.parquet", src)
    assert "sft-8x/train.parquet" in err.value.message
    assert "sft-1x/train.parquet" in err.value.hint  # says what the layout should be


def test_local_folder_resolves_hub_layout(tmp_path: Path) -> None:
    f = tmp_path / "Qwen3-32B" / "aime25.parquet"
    f.parent.mkdir()
    f.write_bytes(b"x")
    src = SourceConfig(kind="local", local_path=str(tmp_path))
    assert resolve_file("mars", "Qwen3-32B/aime25.parquet", src) == f
    assert available_files("mars", src, "Qwen3-32B/*") == ["Qwen3-32B/aime25.parquet"]


@pytest.mark.parametrize("bad", ["../etc/passwd", "", "a//b", "/"])
def test_relpaths_cannot_escape(tmp_path: Path, bad: str) -> None:
    with pytest.raises(SourceNotFound):
        resolve_file("mars", bad, SourceConfig(kind="local", local_path=str(tmp_path)))


def test_sample_source_resolves_every_known_file(sample_root: Path) -> None:
    from cache.datasets import DATASETS

    for name, info in DATASETS.items():
        for rel in info.files:
            path = resolve_file(name, rel, SourceConfig(kind="sample"))
            assert path.is_file() and path.stat().st_size > 0, (name, rel)
            assert path.as_posix().endswith(rel)


# ------------------------------------------------------------------ Hub: a real HF cache, offline


def _populate_hf_cache(hub_cache: Path, repo: str, files: dict[str, bytes], commit: str) -> None:
    """Lay files out exactly as huggingface_hub stores them: blobs, snapshots/<commit>, refs/main."""
    repo_dir = hub_cache / f"datasets--{repo.replace('/', '--')}"
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(commit)
    for rel, data in files.items():
        blob = repo_dir / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = repo_dir / "snapshots" / commit / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))


_PROBE = textwrap.dedent(
    """
    import json, sys
    from cache.errors import DataError
    from cache.sources import SourceConfig, resolve_file
    src = SourceConfig(kind="hub", repo_id=sys.argv[1], revision=sys.argv[2])
    try:
        p = resolve_file("mars", sys.argv[3], src)
        print(json.dumps({"path": str(p), "text": open(p).read()}))
    except DataError as e:
        print(json.dumps({"error": type(e).__name__, "message": e.message, "hint": e.hint}))
    """
)


def _probe(env: dict[str, str], repo: str, rev: str, rel: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, repo, rev, rel],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_hub_offline_reads_populated_hf_cache(tmp_path: Path) -> None:
    commit = "a" * 40
    _populate_hf_cache(
        tmp_path, "wenbochen111/MARS", {"Qwen3-32B/hmmt.parquet": b"cached-bytes"}, commit
    )
    env = {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path)}
    got = _probe(env, "wenbochen111/MARS", "main", "Qwen3-32B/hmmt.parquet")
    assert got.get("text") == "cached-bytes", got
    assert f"snapshots/{commit}/Qwen3-32B/hmmt.parquet" in got["path"]
    # pinned to the commit itself works too
    assert (
        _probe(env, "wenbochen111/MARS", commit, "Qwen3-32B/hmmt.parquet").get("text")
        == "cached-bytes"
    )


def test_hub_offline_missing_file_is_a_clear_message(tmp_path: Path) -> None:
    _populate_hf_cache(tmp_path, "wenbochen111/MARS", {"Qwen3-32B/hmmt.parquet": b"x"}, "b" * 40)
    env = {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path)}
    got = _probe(env, "wenbochen111/MARS", "main", "Qwen3-32B/aime25.parquet")
    assert got["error"] == "HubUnavailable"
    assert "HF_HUB_OFFLINE" in got["message"] and "Qwen3-32B/aime25.parquet" in got["message"]
    assert "sample" in got["hint"]


def test_hub_unreachable_is_a_clear_message(tmp_path: Path) -> None:
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_CACHE": str(tmp_path),
        "HF_ENDPOINT": f"http://127.0.0.1:{port}",
        "HF_HUB_ETAG_TIMEOUT": "2",
        "HF_HUB_DOWNLOAD_TIMEOUT": "2",
    }
    got = _probe(env, "nobody/nothing", "main", "DeepSeek-8B/aime25_deepseek.parquet")
    assert got["error"] == "HubUnavailable", got
    assert "sample" in got["hint"]


def test_hub_unreachable_falls_back_to_cached_copy(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _populate_hf_cache(
        tmp_path, "wenbochen111/MARS", {"Qwen3-32B/hmmt.parquet": b"from-cache"}, "c" * 40
    )
    env = {
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_CACHE": str(tmp_path),
        "HF_ENDPOINT": f"http://127.0.0.1:{port}",
    }
    assert (
        _probe(env, "wenbochen111/MARS", "main", "Qwen3-32B/hmmt.parquet").get("text")
        == "from-cache"
    )


_ENTRY_NOT_FOUND_SERVER = textwrap.dedent(
    """
    import http.server, sys
    class H(http.server.BaseHTTPRequestHandler):
        def _answer(self):
            self.send_response(404)
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("X-Error-Message", "Entry not found")
            self.send_header("Content-Length", "0")
            self.end_headers()
        do_HEAD = do_GET = _answer
        def log_message(self, *a):
            pass
    s = http.server.HTTPServer(("127.0.0.1", 0), H)
    print(s.server_address[1], flush=True)
    s.serve_forever()
    """
)


def test_a_file_the_hub_repo_lacks_is_a_missing_file_not_an_outage(tmp_path: Path) -> None:
    """A Hub that answers "entry not found" (a real HTTP server on loopback, speaking the Hub's
    error header): the file is missing from the source, as in a folder (`HubFileMissing`, a
    `SourceNotFound`), so the views say what is missing rather than "Hub unavailable"."""
    server = subprocess.Popen(
        [sys.executable, "-c", _ENTRY_NOT_FOUND_SERVER], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        env = {
            "HF_HUB_OFFLINE": "0",
            "HF_HUB_CACHE": str(tmp_path),
            "HF_ENDPOINT": f"http://127.0.0.1:{port}",
            "HF_HUB_ETAG_TIMEOUT": "5",
            "HF_HUB_DOWNLOAD_TIMEOUT": "5",
        }
        got = _probe(env, "wenbochen111/MARS", "main", "Qwen3-32B/aime25.parquet")
    finally:
        server.kill()
    assert got["error"] == "HubFileMissing", got
    assert "Qwen3-32B/aime25.parquet does not exist in wenbochen111/MARS@main" in got["message"]
    assert "sample" in got["hint"]
