"""The first-paint bench's script timing: a server started through `bench/timed_streamlit.py`
writes one line per script run, and an opening of the bare page in a browser counts its run."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.browser import read_runs, streamlit_server
from bench.first_paint import BARE_SCRIPT, _open, new_context

pytestmark = pytest.mark.e2e


def test_read_runs_skips_a_line_still_being_written(tmp_path: Path) -> None:
    log = tmp_path / "runs.log"
    assert read_runs(log) == ([], 0)
    log.write_text("100.5 0.25\n101.0 0.5\n102.0 0.")
    runs, offset = read_runs(log)
    assert runs == [(100.5, 0.25), (101.0, 0.5)] and offset == len("100.5 0.25\n101.0 0.5\n")
    with open(log, "a") as f:
        f.write("125\n")
    assert read_runs(log, offset) == ([(102.0, 0.125)], log.stat().st_size)


def test_an_opening_counts_the_script_run_it_caused(browser: object, cache_dir: Path) -> None:
    log = cache_dir / "bench-script-runs.log"
    with streamlit_server(
        cache_dir, log_name="bare-timed", script=BARE_SCRIPT, script_log=log
    ) as s:
        context = new_context(browser)
        first = _open(browser, context, s.url, log)
        second = _open(browser, context, s.url, log)
        context.close()
    runs, _ = read_runs(log)
    assert len(runs) == 2  # one run per new tab (a new session), no rerun
    assert first.reruns == 0 and second.reruns == 0
    assert first.script == pytest.approx(runs[0][1]) and second.script == pytest.approx(runs[1][1])
    # the script is part of the page's server phase, which is part of the whole opening
    assert 0 < second.script < second.total
