"""Streamlit caching adapters for the FineProofs page, keyed by plain values only.

Why: the annotated prefix table and the per-trace summary are built once per source file through
the derived-table store (`analysis.fineproofs.store`) and then held in memory (`st.cache_resource`),
so sorting, filtering and paging the overview is a cheap polars call. Trace shards are resolved
one at a time (a Hub source downloads only that shard) and kept decompressed for a few traces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from analysis.fineproofs.store import depth_table, prefixes_table, traces_table
from analysis.fineproofs.values import SeriesParams
from cache.errors import DataError, HubUnavailable, SourceNotFound, SourceRefused
from cache.fineproofs_io import (
    MANIFEST_FILE,
    PREFIX_FILE,
    SUMMARY_FILE,
    TRACES_DIR,
    ShardMissing,
    TraceNotFound,
    TraceRecord,
    TraceTextUnavailable,
    find_trace,
    load_shard,
    present_shards,
    read_side_json,
    shard_relpath,
)
from cache.sources import SourceConfig
from components.common.cached import file_stamp, resolve
from components.fineproofs.shared import FDR_Q, correction


def _params(rule: str) -> SeriesParams:
    """The series parameters of a drop-flag rule ("none" or "bh")."""
    return SeriesParams(correction=rule, fdr_q=FDR_Q)


def prefix_path(src: SourceConfig) -> Path:
    """The local prefix table of the source (downloaded / generated on first use)."""
    return resolve("fineproofs", PREFIX_FILE, src)


@st.cache_resource(show_spinner="Loading the annotated prefix table…", max_entries=4)
def _prefixes(path: str, mtime: int, rule: str) -> tuple[pl.DataFrame, list[str], list[str]]:
    return prefixes_table(Path(path), _params(rule))


@st.cache_resource(show_spinner="Loading the per-trace summary…", max_entries=4)
def _traces(path: str, mtime: int, rule: str) -> pl.DataFrame:
    return traces_table(Path(path), _params(rule))


@st.cache_data(show_spinner=False, max_entries=8)
def _depth(path: str, mtime: int, n_bins: int, rule: str) -> pl.DataFrame:
    return depth_table(Path(path), n_bins, _params(rule))


def prefixes(src: SourceConfig) -> tuple[pl.DataFrame, list[str], list[str]]:
    """(annotated prefix table, data notes, unknown extra columns) of the source, with the drop
    flags of the page's rule (`shared.correction`)."""
    p = prefix_path(src)
    return _prefixes(str(p), file_stamp(p), correction())


def traces(src: SourceConfig) -> pl.DataFrame:
    p = prefix_path(src)
    return _traces(str(p), file_stamp(p), correction())


def depth(src: SourceConfig, n_bins: int = 10) -> pl.DataFrame:
    p = prefix_path(src)
    return _depth(str(p), file_stamp(p), n_bins, correction())


@st.cache_resource(show_spinner=False, max_entries=16)
def _shard(path: str, mtime: int) -> dict[tuple[str, int], TraceRecord]:
    return load_shard(Path(path))


def _where(src: SourceConfig) -> str:
    if src.kind == "local":
        return f"folder {src.local_path}"
    if src.kind == "hub":
        return f"the Hub repo {src.repo_id or 'of the dataset'}"
    return "the bundled sample"


def _manifest(src: SourceConfig) -> dict[str, Any] | None:
    """trace_manifest.json when the source has one; it only adds a fact to a message."""
    try:
        return side_json(src, "manifest")
    except DataError:
        return None


def trace_record(src: SourceConfig, problem_id: str, sample_index: int) -> TraceRecord:
    """One base trace (resolving and decompressing only its shard); raises DataError.

    A missing shard or a trace absent from its shard raises a `TraceTextUnavailable` that says
    which case it is (and what trace_manifest.json says), not a folder-layout complaint."""
    rel = shard_relpath(problem_id)
    name = Path(rel).name
    try:
        path = resolve("fineproofs", rel, src)
    except SourceRefused:
        raise
    except SourceNotFound:
        raise ShardMissing(
            f"the text of trace {problem_id} sample {sample_index} is unavailable: its shard "
            f"file {rel} is missing in {_where(src)}",
            f"its values, curve and step statistics come from the prefix table and are shown "
            f"without the text; to read the text, copy {name} from the export into "
            f"{TRACES_DIR}/ of the source",
        ) from None
    except HubUnavailable as exc:
        # the Hub cannot give the shard now (offline and not in the HF cache, unreachable):
        # the values still come from the prefix table, only the text waits
        raise TraceTextUnavailable(
            f"the text of trace {problem_id} sample {sample_index} is unavailable: {exc.message}",
            f"its values, curve and step statistics come from the prefix table and are shown "
            f"without the text; {exc.hint}",
        ) from None
    shard = _shard(str(path), file_stamp(path))
    try:
        return find_trace(shard, problem_id, sample_index, name)
    except TraceNotFound:
        # look at the manifest only when it can explain something
        return find_trace(shard, problem_id, sample_index, name, _manifest(src))


@st.cache_data(show_spinner=False, max_entries=8)
def _side(path: str, mtime: int) -> dict[str, Any]:
    return read_side_json(Path(path))


def side_json(src: SourceConfig, which: str) -> dict[str, Any]:
    """summary.json ("summary") or trace_manifest.json ("manifest") as a dict."""
    rel = SUMMARY_FILE if which == "summary" else MANIFEST_FILE
    p = resolve("fineproofs", rel, src)
    return _side(str(p), file_stamp(p))


def shards_present(src: SourceConfig) -> set[str]:
    """Trace shards already on disk. Not cached on purpose: a Hub source downloads shards while
    the app runs, and the Collection tab should count them as soon as they arrive."""
    return present_shards(src)
