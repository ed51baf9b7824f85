"""The Collection tab: the derived depth/shape summaries first (the answers), then which trace
shards are present, then summary.json and trace_manifest.json as they are.

Why render the side files generically: their layout is not published, so whatever keys they hold
are shown (scalars in a table, numeric lists as bars, record lists as tables) instead of assumed.
The charts are light SVG charts (`lite_chart`): with Plotly the tab paid for its bundle at first
paint, and these summaries have nothing to zoom into.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import streamlit as st

from analysis.fineproofs.collection import collection_facts, coverage_facts, shape_counts
from cache.sources import SourceConfig
from components.common.formatting import DASH
from components.common.guards import guard
from components.common.lazy_expander import lazy_expander
from components.common.lite_chart import lite_chart
from components.common.safe_text import esc, md_label
from components.common.theme import FP_LABEL, TABLE_RULE
from components.fineproofs import cached as fc
from components.fineproofs.figures import bar_figure, depth_distribution_figure
from components.fineproofs.shared import DATASET

_TD = f"border:1px solid {TABLE_RULE};padding:4px 8px;vertical-align:top"


def _is_num(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _labels_for(values: list, sibling: dict, key: str) -> list[str]:
    """Bar labels of a numeric list: bin edges or labels found beside it, else positions."""
    n = len(values)
    for cand in ("bin_edges", "edges", "bins", "labels", f"{key}_labels"):
        lab = sibling.get(cand)
        if isinstance(lab, list) and lab is not values:
            if len(lab) == n + 1 and all(_is_num(v) for v in lab):
                return [f"{lab[i]:.2f}–{lab[i + 1]:.2f}" for i in range(n)]
            if len(lab) == n:
                return [str(v) for v in lab]
    return [str(i) for i in range(n)]


def _scalar(v: object) -> str:
    """A JSON scalar as JSON writes it (null, true, 0.5); strings as they are."""
    return v if isinstance(v, str) else json.dumps(v)


def kv_table_html(scalars: dict[str, Any]) -> str:
    """Key/value rows as an escaped HTML table whose cells wrap anywhere: a long run name with no
    spaces was cut off (dataframe cells and st.table never break inside such a word)."""
    rows = "".join(
        f'<tr><td style="{_TD};white-space:nowrap;color:{FP_LABEL}">{esc(k)}</td>'
        f'<td style="{_TD};overflow-wrap:anywhere;word-break:break-word">{esc(_scalar(v))}</td></tr>'
        for k, v in scalars.items()
    )
    return (
        '<table class="fp-kv" style="border-collapse:collapse;width:100%;font-size:0.85rem;'
        'table-layout:auto">'
        f'<thead><tr><th style="{_TD};text-align:left">key</th>'
        f'<th style="{_TD};text-align:left">value</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def render_json(doc: dict[str, Any], title: str, depth: int = 0) -> None:
    """Render whatever a summary/manifest JSON holds, without assuming its keys."""
    scalars = {k: v for k, v in doc.items() if v is None or isinstance(v, str | bool) or _is_num(v)}
    if scalars:
        st.html(kv_table_html(scalars))
    for k, v in doc.items():
        if k in scalars:
            continue
        label = md_label(k)
        if isinstance(v, list) and v and all(_is_num(x) for x in v):
            if k in ("bin_edges", "edges") and any(isinstance(x, list) for x in doc.values()):
                continue
            labels = _labels_for(v, doc, k)
            plain = labels == [str(i) for i in range(len(v))]
            lite_chart(
                bar_figure(
                    v,
                    labels,
                    f"{title} · {label}",
                    x_title="position in the list" if plain else "bin",
                    y_title=label,
                ),
                key=f"fp_side_{title}_{k}",
            )
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            st.markdown(f"**{label}**")
            try:
                st.dataframe(pl.DataFrame(v, strict=False), hide_index=True, placeholder=DASH)
            except Exception:  # noqa: BLE001 - heterogeneous records: show as JSON
                st.json(v, expanded=False)
        elif (
            isinstance(v, dict)
            and v
            and all(isinstance(x, dict) for x in v.values())
            and len(v) > 8
        ):
            st.markdown(f"**{label}** ({len(v)} entries)")
            try:
                st.dataframe(
                    pl.DataFrame([{"key": str(kk), **vv} for kk, vv in v.items()], strict=False),
                    hide_index=True,
                    placeholder=DASH,
                )
            except Exception:  # noqa: BLE001
                st.json(v, expanded=False)
        elif isinstance(v, dict) and v and depth < 2:
            st.markdown(f"**{label}**")
            render_json(v, f"{title} · {label}", depth + 1)
        elif isinstance(v, list | dict):
            st.markdown(f"**{label}**" + (" (empty)" if not v else ""))
            if v:
                st.json(v, expanded=False)


def _coverage(src: SourceConfig, summary: pl.DataFrame) -> None:
    """Which trace shards the prefix table needs, and which are present (no download)."""
    cov = coverage_facts(summary, fc.shards_present(src))
    missing = cov.missing
    where = "in the HF cache" if src.kind == "hub" else "on disk"
    st.markdown("#### Trace coverage")
    st.caption(
        f"The prefix table refers to {cov.n_traces:,} traces in {cov.n_shards:,} shards; "
        f"{cov.n_present:,} shards are present {where}"
        + (
            f"; {cov.missing_traces:,} traces ({cov.missing_prefixes:,} "
            "prefix rows) are in shards that are not."
            if missing.height
            else "."
        )
        + (
            " A Hub source downloads each shard when its trace is opened."
            if src.kind == "hub"
            else ""
        )
    )
    if missing.height and src.kind != "hub":
        st.dataframe(
            missing, hide_index=True, height=min(300, 36 + 35 * missing.height), placeholder=DASH
        )


def _derived(src: SourceConfig) -> None:
    """The depth distribution, the shape counts and the coverage (all from the prefix table)."""
    st.markdown("#### Value by relative depth (derived from the prefix table)")
    lite_chart(depth_distribution_figure(fc.depth(src)), key="fp_depth")
    summary = fc.traces(src)
    facts = collection_facts(summary)
    st.caption(
        f"{facts.n_traces:,} traces; {facts.n_first_error:,} have a first-error candidate "
        f"(median depth {facts.median_first_error_depth:.2f}); "
        f"{facts.n_recovering:,} show a drop then a recovery."
    )
    shapes = shape_counts(summary)
    st.markdown("#### Failure shapes of the traces")
    lite_chart(
        bar_figure(
            shapes["len"].to_list(),
            [s or "–" for s in shapes["shape"].to_list()],
            x_title="failure shape",
            y_title="traces",
            max_ticks=50,  # categories: name every bar
        ),
        key="fp_shapes",
    )
    with guard("the trace coverage", dataset=DATASET):
        _coverage(src, summary)


def render_collection(src: SourceConfig, prefix_ok: bool = True) -> None:
    """Derived depth/shape summaries first (the answers), then coverage, then summary.json and
    trace_manifest.json as they are, folded away in expanders. Without a readable prefix table
    (`prefix_ok` False) only the side files show: they do not depend on it."""
    if prefix_ok:
        with guard("the derived summaries", dataset=DATASET):
            _derived(src)
    else:
        st.info(
            "The depth and shape summaries and the trace coverage are derived from "
            "data/prefix_values.parquet, which could not be read (see the error above). The "
            "side files below do not need it.",
            icon="ℹ️",
        )
    st.markdown("#### Side files, as stored")
    c1, c2 = st.columns(2)
    # each file's charts and tables are drawn only while its expander is open
    for col, name, what in (
        (c1, "summary.json", "summary"),
        (c2, "trace_manifest.json", "manifest"),
    ):
        with (
            col,
            guard(name, dataset=DATASET),
            lazy_expander(name, (), f"fp_side_{what}_open") as draw,
        ):
            if draw:
                render_json(fc.side_json(src, what), what)
