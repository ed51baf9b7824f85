"""The Single trace tab's read-ahead: one file pass reads the trace and the ones a step opens
next; a kept trace is not read again, and stepping onto it reads the next ones behind."""

from __future__ import annotations

import threading
from pathlib import Path

import polars as pl
import pytest

from cache.kept import Kept
from components.mars import trace_reads


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    calls: list[list[int]] = []

    def fake(path: Path, qid: int, want: list[int]) -> pl.DataFrame:
        calls.append(list(want))
        return pl.DataFrame({"trace_idx": want, "confs": [[float(t)] for t in want]})

    monkeypatch.setattr(trace_reads, "read_traces", fake)
    monkeypatch.setattr(trace_reads.mc, "file_path", lambda rel, src: Path("/x") / rel)
    monkeypatch.setattr(trace_reads, "file_stamp", lambda path: 1)
    monkeypatch.setattr(trace_reads, "_KEPT", Kept(trace_reads.MAX_TRACES))
    return calls


def test_one_pass_reads_the_trace_and_the_ones_ahead(reads: list[list[int]]) -> None:
    got = trace_reads.raw_trace("f.parquet", None, 3, 5, (7, 9))  # type: ignore[arg-type]  # src unused
    assert got["confs"].to_list() == [[5.0]]
    assert reads == [[5, 7, 9]]
    assert trace_reads.raw_trace("f.parquet", None, 3, 7)["confs"].to_list() == [[7.0]]  # type: ignore[arg-type]  # src unused
    assert reads == [[5, 7, 9]]  # kept: no second read
    # another question of the same file is another key
    trace_reads.raw_trace("f.parquet", None, 4, 7)  # type: ignore[arg-type]  # src unused
    assert reads[-1] == [7]


def test_a_kept_trace_reads_the_next_ones_behind(reads: list[list[int]]) -> None:
    trace_reads.raw_trace("f.parquet", None, 3, 5, (7,))  # type: ignore[arg-type]  # src unused
    trace_reads.raw_trace("f.parquet", None, 3, 7, (9, 11))  # type: ignore[arg-type]  # src unused
    for t in threading.enumerate():
        if t.name == trace_reads.THREAD:
            t.join(timeout=10)
    assert reads == [[5, 7], [9, 11]]
    assert not trace_reads._BUSY
