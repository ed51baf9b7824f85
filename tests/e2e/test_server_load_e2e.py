"""The load bench's smoke version: 2 browser sessions for 10 s against a server of its own, with
no error, no exception element, no page error, and the server's memory measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench import load

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e


def test_two_sessions_for_ten_seconds(sample_root: Path, cache_dir: Path) -> None:
    # its own process, as the bench runs: the asyncio driver cannot share this process's loop
    # with the sync Playwright fixtures of the other browser tests
    out = cache_dir / "load-smoke.json"
    args = ["--sessions", "2", "--seconds", "10", "--no-warmup", "--cache-dir", str(cache_dir)]
    subprocess.run(
        [sys.executable, "-m", "bench.load", *args, "--json", str(out)],
        cwd=REPO,
        check=True,
        timeout=600,
    )
    summary = json.loads(out.read_text())
    assert summary["errors"] == [] and summary["page_errors"] == []
    assert summary["exception_elements"] == 0
    assert summary["steps"]["home"]["n"] >= 2  # both sessions got through at least one step
    assert sum(v["n"] for v in summary["steps"].values()) >= 4
    rss = summary["rss_mb"]
    assert rss["start"] > 50 and rss["end"] >= rss["start"] * 0.5


def test_summary_of_a_crafted_run() -> None:
    """The figures: per-step quantiles, errors, overlap with another session's full run, memory."""
    run = load.Run(
        records=[
            load.Record(0, "playground full run", 10.0, 20.0),
            load.Record(1, "home", 12.0, 13.0),  # during session 0's full run
            load.Record(1, "home", 30.0, 30.5),
            load.Record(1, "mars curves", 31.0, 33.0, error="TimeoutError: x"),
        ],
        exceptions_seen=1,
        memory=[(0.0, 100.0), (20.0, 110.0), (40.0, 121.0)],
    )
    s = load.summarise(run, 2, 40)
    assert s["steps"]["home"]["n"] == 2 and s["steps"]["mars curves"]["n"] == 0
    assert s["errors"] == ["session 1 mars curves: TimeoutError: x"]
    assert s["others_p95_during_full_run"] == 1.0 and s["others_p95_otherwise"] == 0.5
    assert s["rss_mb"] == {"start": 100.0, "half": 110.0, "end": 121.0}
    assert s["rss_growth_last_half_pct"] == pytest.approx(10.0)
    assert "exception elements: 1" in load.report(s)
