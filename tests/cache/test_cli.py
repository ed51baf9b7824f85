"""`python -m cache` chores, run as a user would (subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str, cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cache", *args],
        cwd=REPO,
        env={**os.environ, "RTE_CACHE_DIR": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_sample_info_clear(sample_root: Path, cache_dir: Path, tmp_path: Path) -> None:
    # a cache of its own that shares the built sample (its `sample/` folder, the parent of the
    # versioned `sample_root`), so `sample` finds it built: `clear` must not empty the folder
    # other tests (other xdist workers) are reading
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    (cache_dir / "sample").symlink_to(sample_root.parent, target_is_directory=True)
    out = _run("sample", cache=cache_dir)
    assert out.returncode == 0, out.stderr
    for name in ("parason", "mars", "fineproofs"):
        assert any(
            line.startswith(name) and line.split()[-2] in ("KB", "MB")
            for line in out.stdout.splitlines()
        ), out.stdout

    (cache_dir / "derived").mkdir(exist_ok=True)
    pl.DataFrame({"x": [1]}).write_parquet(cache_dir / "derived" / "mars-test-v1-abc.parquet")
    (cache_dir / "derived" / "mars-answer-memo.sqlite").write_bytes(b"")
    info = _run("info", cache=cache_dir)
    assert info.returncode == 0 and f"cache folder: {cache_dir}" in info.stdout
    assert "mars-test-v1-abc.parquet" in info.stdout and "sample:" in info.stdout
    assert "memo:" in info.stdout and "mars-answer-memo.sqlite" in info.stdout

    cleared = _run("clear", cache=cache_dir)
    assert (
        cleared.returncode == 0
        and not (cache_dir / "derived" / "mars-test-v1-abc.parquet").exists()
        and not (cache_dir / "derived" / "mars-answer-memo.sqlite").exists()
    )
    assert (sample_root / "mars").is_dir()  # the sample survives a plain clear


def test_bad_local_folder_is_an_error_message_not_a_traceback(tmp_path: Path) -> None:
    out = _run(
        "warm",
        "parason",
        cache=tmp_path,
        RTE_PARASON_SOURCE="local",
        RTE_PARASON_PATH=str(tmp_path / "none"),
    )
    assert out.returncode == 2
    assert (
        "error:" in out.stderr and "does not exist" in out.stderr and "Traceback" not in out.stderr
    )


def test_fetch_without_network_says_so(tmp_path: Path) -> None:
    out = _run(
        "fetch", "fineproofs", cache=tmp_path, HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(tmp_path / "hf")
    )
    assert out.returncode == 2 and "could not fetch" in out.stderr and "Traceback" not in out.stderr


def test_warm_builds_every_derived_table_once(sample_root: Path, cache_dir: Path) -> None:
    out = _run("warm", cache=cache_dir)
    assert out.returncode == 0, out.stderr[-2000:]
    names = [
        line.split(": ", 1)[1].split(" ")[0] for line in out.stdout.splitlines() if ": " in line
    ]
    prefixes = {n.rsplit("-v", 1)[0] for n in names}
    assert {
        "parason-metrics",
        "mars-features",
        "mars-groups",
        "fineproofs-prefixes",
        "fineproofs-traces",
    } <= prefixes
    assert sum(n.startswith("mars-features") for n in names) == 9  # one per MARS file
    assert all((cache_dir / "derived" / n).is_file() for n in names)
    again = _run("warm", cache=cache_dir)  # already built: same files, nothing rebuilt
    assert sorted(again.stdout.splitlines()) == sorted(out.stdout.splitlines())


def test_info_lists_configured_repos_in_the_hf_cache(tmp_path: Path) -> None:
    from tests.cache.test_sources import _populate_hf_cache

    _populate_hf_cache(
        tmp_path / "hub", "wenbochen111/MARS", {"Qwen3-32B/hmmt.parquet": b"x" * 5000}, "e" * 40
    )
    _populate_hf_cache(tmp_path / "hub", "someone/else", {"f.txt": b"y"}, "f" * 40)
    out = _run("info", cache=tmp_path, HF_HUB_CACHE=str(tmp_path / "hub"), HF_HUB_OFFLINE="1")
    assert out.returncode == 0, out.stderr
    assert "HF cache: 1 of the configured repos present" in out.stdout
    assert "wenbochen111/MARS (1 files)" in out.stdout and "someone/else" not in out.stdout


def test_warm_partial_local_folder_builds_what_it_has(sample_root: Path, tmp_path: Path) -> None:
    """A local MARS folder with one of the nine files warms that one, exits 0 and names the
    absent files in a note (it used to exit 2 after building)."""
    import shutil

    rel = "Qwen3-32B/hmmt.parquet"
    (tmp_path / "mars" / "Qwen3-32B").mkdir(parents=True)
    shutil.copyfile(sample_root / "mars" / rel, tmp_path / "mars" / rel)
    out = _run(
        "warm",
        "mars",
        cache=tmp_path / "cache",
        RTE_MARS_SOURCE="local",
        RTE_MARS_PATH=str(tmp_path / "mars"),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert sum(line.startswith("mars: mars-features") for line in out.stdout.splitlines()) == 1
    assert "note: mars: 8 file(s) not in" in out.stderr
    assert "DeepSeek-8B/aime25_deepseek.parquet" in out.stderr and "Traceback" not in out.stderr
