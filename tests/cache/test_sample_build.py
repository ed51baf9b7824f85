"""ensure_sample: built once under a lock, atomically (a failed build leaves nothing behind)."""

from __future__ import annotations

import sys
import threading
import time
import types
from pathlib import Path

import pytest

import cache.sample as sample
from cache.datasets import DatasetInfo, registered

FAKE = DatasetInfo("fakeds", "Fake", "x/fake", files=(), sample="fake_gen", sample_share=1.0)


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
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path))
    with registered(FAKE):
        yield mod, calls


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


def test_first_build_shows_progress_in_the_terminal(fake_generator, capsys) -> None:
    """The first start builds the sample for ~20 s: the terminal says so as it goes, whether
    or not a caller passed a progress callback of its own (the app passes a browser bar)."""
    mod, _calls = fake_generator
    seen: list[float] = []
    inner = mod.write_sample

    def write_sample(root: Path, progress=None) -> None:
        for f in (0.0, 0.35, 0.36, 0.7, 1.0):
            progress(f, "step")
        inner(root, progress)

    mod.write_sample = write_sample
    sample.ensure_sample("fakeds", progress=lambda f, m="": seen.append(f))
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("building the bundled fakeds sample")]
    assert [ln.split(":")[1].split("%")[0].strip() for ln in lines] == ["0", "30", "70", "100"]
    assert seen == [0.0, 0.35, 0.36, 0.7, 1.0]  # the caller's callback still gets every call
