"""The bundled sample: deterministic generated copies of the three datasets, laid out exactly like
their Hub repos, built on first use (or by `python -m cache sample`) into the cache folder.

Building goes into a temp folder that is renamed into place under a file lock, so two sessions
starting at once build it once and nobody ever reads a half-written sample.
"""

from __future__ import annotations

import fcntl
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

from cache.datasets import DATASETS
from cache.paths import sample_dir
from cache.progress import ProgressFn, scaled

SAMPLE_VERSION = 5  # bump when a generator changes, so old samples are rebuilt
SAMPLE_SEED = 20261129


def generators() -> dict[str, tuple[str, float]]:
    """dataset -> (module with `write_sample(root, progress)`, its share of the build time, for
    the bar), as each dataset declares it (`cache.datasets`: `sample`, `sample_share`)."""
    return {n: (d.sample, d.sample_share) for n, d in DATASETS.items() if d.sample}


def sample_root(dataset: str) -> Path:
    return sample_dir() / f"v{SAMPLE_VERSION}" / dataset


def _terminal(dataset: str, progress: ProgressFn | None) -> ProgressFn:
    """`progress`, and a line on stderr at each tenth: the first start builds the sample for
    a while, and the terminal that started the app showed nothing meanwhile."""
    shown = [-1]
    t0 = time.perf_counter()

    def hook(fraction: float, message: str = "") -> None:
        if progress is not None:
            progress(fraction, message)
        tenth = int(min(max(fraction, 0.0), 1.0) * 10)
        if tenth > shown[0]:
            shown[0] = tenth
            print(
                f"building the bundled {dataset} sample: {tenth * 10:3d}% "
                f"({time.perf_counter() - t0:.0f} s) {message}".rstrip(),
                file=sys.stderr,
                flush=True,
            )

    return hook


def ensure_sample(dataset: str, progress: ProgressFn | None = None, force: bool = False) -> Path:
    """The sample folder of one dataset, generated now if it does not exist yet."""
    root = sample_root(dataset)
    if root.is_dir() and not force:
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    lock_path = root.parent / f".{dataset}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if root.is_dir() and not force:
                return root  # another process built it while we waited
            module = importlib.import_module(generators()[dataset][0])
            tmp = Path(tempfile.mkdtemp(prefix=f".{dataset}-", dir=root.parent))
            try:
                module.write_sample(tmp, progress=_terminal(dataset, progress))
                if root.exists():
                    shutil.rmtree(root)
                tmp.rename(root)
            finally:
                if tmp.exists():
                    shutil.rmtree(tmp, ignore_errors=True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return root


def build_all(progress: ProgressFn | None = None, force: bool = False) -> dict[str, float]:
    """Build every dataset's sample; returns seconds per dataset."""
    timings: dict[str, float] = {}
    start = 0.0
    for name, (_module, share) in generators().items():
        t0 = time.perf_counter()
        ensure_sample(name, progress=scaled(progress, start, start + share), force=force)
        timings[name] = time.perf_counter() - t0
        start += share
    return timings


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())
