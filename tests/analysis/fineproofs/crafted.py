"""Crafted FineProofs trace shards for the edge-case tests (CLI, AppTest, CSV, reader).

Why a helper: a lone surrogate or an offset past the end cannot come from the sample generator,
so the tests rewrite one trace of a fresh sample copy, keeping every other offset valid.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import polars as pl

from analysis.fineproofs.utf16 import Utf16Index
from cache.fineproofs_io import load_trace, shard_relpath

LONE = "\ud835"  # a high surrogate with no low half: one UTF-16 code unit
REPLACEMENT = "\ufffd"  # what the views show instead, also one code unit


def astral_trace(root: Path) -> tuple[str, int]:
    """A trace of the copy with characters above U+FFFF (offsets differ from indices)."""
    df = pl.read_parquet(root / "data/prefix_values.parquet")
    for pid, sample in df.select("problem_id", "sample_index").unique(maintain_order=True).rows():
        if not Utf16Index(load_trace(root, pid, sample).text).fast_path:
            return pid, sample
    raise AssertionError("no astral trace in the sample")


def _rewrite(root: Path, pid: str, sample: int, change) -> None:  # type: ignore[no-untyped-def]  # change: dict -> None
    path = root / shard_relpath(pid)
    doc = json.loads(gzip.decompress(path.read_bytes()))
    for t in doc["traces"]:
        if t["problem_id"] == pid and t["sample_index"] == sample:
            change(t)
    # ensure_ascii (the default) writes the lone surrogate as the escape `\ud835`
    path.write_bytes(gzip.compress(json.dumps(doc).encode("ascii")))


def inject_lone_surrogate(root: Path, pid: str, sample: int, step: int = 2) -> str:
    """Replace the first space of step `step` (1-based position in the trace's step list) by a
    lone surrogate, one unit for one, so every stored offset stays valid. Returns the raw text."""
    out: dict[str, str] = {}

    def change(t: dict) -> None:
        idx = Utf16Index(t["text"])
        s = t["steps"][step - 1]
        a, b = idx.to_py(s["utf16_start"]), idx.to_py(s["utf16_end"])
        assert a is not None and b is not None
        i = t["text"].index(" ", a, b)
        t["text"] = t["text"][:i] + LONE + t["text"][i + 1 :]
        t["problem"] = LONE + t.get("problem", "")
        out["text"] = t["text"]

    _rewrite(root, pid, sample, change)
    return out["text"]


def push_end_past_text(root: Path, pid: str, sample: int, step: int, by: int = 5) -> int:
    """Set step `step`'s end offset `by` units past the end of the text; returns that offset."""
    out: dict[str, int] = {}

    def change(t: dict) -> None:
        end = Utf16Index(t["text"]).n_units + by
        t["steps"][step - 1]["utf16_end"] = end
        out["end"] = end

    _rewrite(root, pid, sample, change)
    return out["end"]
