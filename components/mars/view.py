"""The tabs of one MARS question (pages/mars.py stays a thin script composing the header and
this). Each tab has its own module and runs in its own guard, so one failing tab never loses the
question; only the open tab is computed."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import polars as pl

from analysis.mars.store import MarsFeatureStore
from cache.sources import SourceConfig
from components.common.deeplink import LinkNotes
from components.common.guards import guard
from components.common.url_keys import MarsKeys
from components.common.url_state import url_tabs
from components.mars.curves import render_curves
from components.mars.data_tab import render_data
from components.mars.distributions import render_distributions
from components.mars.header import DATASET, question_header
from components.mars.models import render_models
from components.mars.single_trace import render_single_trace
from components.mars.votes import render_votes

DL = LinkNotes("mars")  # this view's deep-link notes

TABS_KEY = "view"
TAB_ALIASES = {"models": "Compare models"}  # short `?view=` values a link may use


class _Question(NamedTuple):
    """What a tab draws from: the open question of the chosen file."""

    rel: str
    src: SourceConfig
    store: MarsFeatureStore
    feats: pl.DataFrame
    qid: int


# each tab once: what its failure message calls it, and how it draws the open question
TAB_RENDER: dict[str, tuple[str, Callable[[_Question], None]]] = {
    "Curves": ("the confidence curves", lambda q: render_curves(q.rel, q.src, q.feats, q.qid)),
    "Vote evolution": ("the vote evolution", lambda q: render_votes(q.rel, q.src, q.qid)),
    "Distributions": (
        "the distributions",
        lambda q: render_distributions(q.rel, q.src, q.store, q.feats, q.qid),
    ),
    "Single trace": (
        "the single-trace zoom",
        lambda q: render_single_trace(q.rel, q.src, q.store, q.feats, q.qid),
    ),
    "Data": ("the feature table", lambda q: render_data(q.feats, q.qid, q.rel)),
    "Compare models": ("the model comparison", lambda q: render_models(q.rel, q.src, q.qid)),
}
TABS = tuple(TAB_RENDER)  # in the order the row shows them


TRACE_NOTE = (
    "The link asks for trace {asked}, which question {qid} does not have ({have}): the curves "
    "highlight none, and the Single trace tab shows trace {shown} (the address now names it)."
)


def trace_link_note(feats: pl.DataFrame, qid: int) -> None:
    """`?trace=` naming a trace the question lacks: say so (the tabs fall back to none / the
    first trace)."""
    traces = feats["trace_idx"].to_list()
    if not traces:
        return
    raw = DL.asked(MarsKeys.TRACE.key)
    have = set(traces)
    ok = raw is None or (raw.isdigit() and int(raw) in have)
    current = MarsKeys.TRACE.read()
    shown = current if current in have else traces[0]
    key = f"trace{qid}"
    DL.remember(key, raw, ok, shown)
    span = f"traces {min(traces)}–{max(traces)}" if len(traces) > 1 else f"only trace {traces[0]}"
    DL.show(key, TRACE_NOTE.replace("{qid}", str(qid)).replace("{have}", span), shown)


def render_question(rel: str, src: SourceConfig, store: MarsFeatureStore, qid: int) -> None:
    feats = question_header(store, qid, rel, src)
    trace_link_note(feats, qid)
    name = url_tabs("MARS views", TABS, TABS_KEY, "Curves", TAB_ALIASES)
    what, render = TAB_RENDER[name]
    with guard(what, dataset=DATASET):
        render(_Question(rel, src, store, feats, qid))
