"""Peak resident memory of this process (cache/process_memory.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np


def test_a_child_of_a_big_process_reports_its_own_peak() -> None:
    """getrusage's ru_maxrss would report the parent's ~300 MB here (kept across fork + exec)."""
    held = np.ones(300 * 2**20 // 8)  # touched: resident
    code = "from cache.process_memory import peak_rss_bytes; print(peak_rss_bytes())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    child = int(out.stdout)
    assert 1 * 2**20 < child < 150 * 2**20
    assert held.sum() > 0


_TOUCH = """
import numpy as np
from cache.process_memory import peak_rss_bytes
before = peak_rss_bytes()
block = np.ones((before + 64 * 2**20) // 8)
print(before, peak_rss_bytes(), block.nbytes)
"""


def test_the_peak_counts_memory_this_process_touched() -> None:
    """In a fresh process: a test worker's own peak can be gigabytes, and the block must outgrow
    whatever peak the process had before."""
    out = subprocess.run([sys.executable, "-c", _TOUCH], capture_output=True, text=True, check=True)
    before, after, nbytes = map(int, out.stdout.split())
    assert after >= nbytes > before
