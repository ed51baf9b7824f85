"""Streamlit caching adapters for the MARS page, keyed by plain values only (path + mtime,
qid, trace), never by a frame.

Why: the feature store of a file is built once (one streaming pass, progress bar) and then held
in memory, so opening a question is a polars filter; raw `confs` are read only for the trace
the user zooms into (`trace_reads`, with read-ahead), and probe texts only for the question on
screen.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import streamlit as st

from analysis.mars.confidence import WINDOW
from analysis.mars.feature_files import feature_paths
from analysis.mars.file_stats import FileSummary
from analysis.mars.file_stats import file_summary as summarise_file
from analysis.mars.pool import QuestionPool
from analysis.mars.store import (
    MarsFeatureStore,
    load_features,
    read_probes,
    read_traces,
)
from analysis.mars.summaries import question_overview
from analysis.mars.table_names import FEATURES, FEATURES_VERSION
from analysis.mars.windows import Band, CurveSet, curve_set, pool_bands
from cache.sources import SourceConfig
from cache.store import table_path
from components.common.cached import file_stamp, resolve, st_progress


@st.cache_resource(show_spinner=False, max_entries=4)
def _store(path: str, mtime: int) -> MarsFeatureStore:
    # the view never needs the record lows (DeepConf truncation data): leave them on disk
    return load_features(Path(path), with_lows=False)


def file_path(relpath: str, src: SourceConfig) -> Path:
    return resolve("mars", relpath, src)


def store(relpath: str, src: SourceConfig) -> MarsFeatureStore:
    """The loaded feature store of a MARS file (built with a progress bar on first use)."""
    path = file_path(relpath, src)
    if not table_path(FEATURES, FEATURES_VERSION, [path], {"window": WINDOW}).exists():
        with st_progress("Building the MARS feature table (one pass over the file)…") as hook:
            feature_paths(path, progress=hook)
    return _store(str(path), file_stamp(path))


@st.cache_data(show_spinner=False, max_entries=16)
def _overview(path: str, mtime: int) -> pl.DataFrame:
    s = _store(path, mtime)
    return question_overview(s.features, s.groups)


def overview(relpath: str, src: SourceConfig) -> pl.DataFrame:
    store(relpath, src)
    path = file_path(relpath, src)
    return _overview(str(path), file_stamp(path))


@st.cache_resource(show_spinner=False, max_entries=32)
def _pool(path: str, mtime: int, qid: int) -> QuestionPool:
    return _store(path, mtime).pool(qid)


def pool(relpath: str, src: SourceConfig, qid: int) -> QuestionPool:
    store(relpath, src)
    path = file_path(relpath, src)
    return _pool(str(path), file_stamp(path), int(qid))


@st.cache_data(show_spinner=False, max_entries=16)
def _probes(path: str, mtime: int, qid: int) -> pl.DataFrame:
    return read_probes(Path(path), qid)


def probes(relpath: str, src: SourceConfig, qid: int) -> pl.DataFrame:
    """All probes of a question with their texts (no confs read)."""
    path = file_path(relpath, src)
    return _probes(str(path), file_stamp(path), int(qid))


@st.cache_data(show_spinner=False, max_entries=16)
def _curves(
    path: str, mtime: int, qid: int, traces: tuple[int, ...], window: int, probe_pos: tuple
) -> CurveSet:
    raw = read_traces(Path(path), qid, list(traces))
    confs = (
        {
            int(t): np.asarray(c if c is not None else [], np.float32)
            for t, c in zip(raw["trace_idx"], raw["confs"], strict=True)
        }
        if "confs" in raw.columns
        else {}
    )
    empty = np.zeros(0, np.float32)
    return curve_set(
        list(traces), [confs.get(t, empty) for t in traces], window, [list(p) for p in probe_pos]
    )


def curves(relpath: str, src: SourceConfig, qid: int, feats: pl.DataFrame, window: int) -> CurveSet:
    """Fixed-window curves of the given traces (their `confs` read for them alone), with their
    probes placed on the curves."""
    path = file_path(relpath, src)
    traces = tuple(int(t) for t in feats["trace_idx"].to_list())
    pos = tuple(tuple(int(p) for p in (v or [])) for v in feats["probe_pos"].to_list())
    return _curves(str(path), file_stamp(path), int(qid), traces, int(window), pos)


@st.cache_data(show_spinner=False, max_entries=8)
def _bands(
    path: str, mtime: int, qid: int, traces: tuple[int, ...], classes: tuple[str, ...], window: int
) -> tuple[np.ndarray, list[Band]]:
    raw = read_traces(Path(path), qid, list(traces))
    confs = (
        {
            int(t): np.asarray(c if c is not None else [], np.float32)
            for t, c in zip(raw["trace_idx"], raw["confs"], strict=True)
        }
        if "confs" in raw.columns
        else {}
    )
    empty = np.zeros(0, np.float32)
    return pool_bands([confs.get(t, empty) for t in traces], list(classes), window)


def bands(
    relpath: str, src: SourceConfig, qid: int, feats: pl.DataFrame, window: int
) -> tuple[np.ndarray, list[Band]]:
    """Quantile bands of every trace of the question with a final answer, right vs wrong (all
    their `confs` read once per question and window)."""
    path = file_path(relpath, src)
    answered = feats.filter(pl.col("final_group") >= 0).sort("final_correct", descending=True)
    traces = tuple(int(t) for t in answered["trace_idx"].to_list())
    classes = tuple("right" if c else "wrong" for c in answered["final_correct"].to_list())
    return _bands(str(path), file_stamp(path), int(qid), traces, classes, int(window))


@st.cache_data(show_spinner=False, max_entries=8)
def _file_summary(path: str, mtime: int, k: int) -> FileSummary:
    return summarise_file(_store(path, mtime).features, k)


def file_summary(relpath: str, src: SourceConfig, k: int) -> FileSummary:
    """pass@1, majority@all / @k and the signals' AUROC of the whole file."""
    store(relpath, src)
    path = file_path(relpath, src)
    return _file_summary(str(path), file_stamp(path), int(k))
