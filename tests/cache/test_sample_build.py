"""ensure_sample: built once under a lock, atomically (a failed build leaves nothing behind)."""

from __future__ import annotations

import sys
import threading
import time
import types
from pathlib import Path

import pytest

import cache.sample as sample


@pytest.fixture()
def fake_generator(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    calls: list[Path] = []
    mod = types.ModuleType("fake_gen")

    def write_sample(root: Path, progress=None) -> None:
        calls.append(root)
        time.sleep(0.1)
        (root / "data").mkdir(parents=True)
        (root / "data" / "f.txt").write_text("ok")
        if getattr(mod, "fail", False):
            raise RuntimeError("generator crashed")

    mod.write_sample = write_sample  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_gen", mod)
    monkeypatch.setitem(sample.GENERATORS, "fakeds", ("fake_gen", 1.0))
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path))
    return mod, calls


def test_concurrent_first_use_builds_once(fake_generator) -> None:
    _mod, calls = fake_generator
    roots: list[Path] = []
    threads = [
        threading.Thread(target=lambda: roots.append(sample.ensure_sample("fakeds")))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(set(roots)) == 1
    assert (roots[0] / "data" / "f.txt").read_text() == "ok"
    assert not [p for p in roots[0].parent.iterdir() if p.name.startswith(".fakeds-")]


def test_failed_build_leaves_no_half_sample(fake_generator) -> None:
    mod, _calls = fake_generator
    mod.fail = True
    with pytest.raises(RuntimeError):
        sample.ensure_sample("fakeds")
    root = sample.sample_root("fakeds")
    assert not root.exists()
    assert not [p for p in root.parent.iterdir() if p.name.startswith(".fakeds-")]
    mod.fail = False
    assert (sample.ensure_sample("fakeds") / "data" / "f.txt").exists()
