"""Time the whole bundled-sample build and measure its size on disk.

Targets (issue 2): at most 30 s on a 2-core machine, at most 400 MB.
Run: python bench/sample_build.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="rte-bench-sample-") as tmp:
        os.environ["RTE_CACHE_DIR"] = tmp
        from cache.sample import build_all, folder_size, sample_root  # after RTE_CACHE_DIR is set

        t0 = time.perf_counter()
        timings = build_all()
        total = time.perf_counter() - t0
        sizes = {name: folder_size(sample_root(name)) for name in timings}
        for name, secs in timings.items():
            print(f"{name:<11} {secs:6.2f} s  {sizes[name] / 2**20:8.1f} MB")
        mb = sum(sizes.values()) / 2**20
        print(f"sample build: {total:.2f} s (target <= 30 s, {total / 30:.2f}x of budget)")
        print(f"sample size:  {mb:.1f} MB (target <= 400 MB, {mb / 400:.2f}x of budget)")


if __name__ == "__main__":
    main()
