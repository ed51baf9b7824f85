"""The "Compare models" tab of /mars: every model's file of one benchmark side by side, the
questions where they disagree most, and one question's answers, votes and curves per model.

Why a tab of /mars: its rows open the models' question views, and the benchmark defaults to the
open file's. The logic is `analysis.mars.model_compare` over each file's derived tables; a file
the source lacks is named as absent, never an error.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import streamlit as st

from analysis.mars import model_compare as mcmp
from analysis.mars.confidence import WINDOW
from analysis.mars.store import MarsFeatureStore
from analysis.mars.summaries import vote_shares
from analysis.mars.table_names import FEATURES, FEATURES_VERSION
from cache.casebook.evidence import line_evidence, with_evidence
from cache.sources import SourceConfig
from cache.store import table_path
from components.common.cached import file_stamp, present_files
from components.common.casebook import capture
from components.common.downloads import download_buttons, file_stem
from components.common.formatting import DASH, fmt_interval, fmt_num
from components.common.guards import guard
from components.common.lazy_expander import lazy_expander
from components.common.links import view_href
from components.common.lite_table import grid_switch, table_or_grid
from components.common.safe_text import md_text
from components.common.url_keys import MarsKeys
from components.common.url_state import url_multiselect, url_selectbox
from components.mars import cached as mc
from components.mars import cases as mcs
from components.mars import figures as mf
from components.mars import model_figures as mfig
from components.mars.charts import chart, zoom_switch

DATASET = "mars"
BENCH_TITLES = {"aime-2025": "AIME 2025", "brumo-2025": "BRUMO 2025", "hmmt": "HMMT"}
ALIGN_NOTE = (
    "Questions are aligned on `qid`, the 0-based question id within the benchmark "
    "(docs/formats/datasets.md); the files hold no problem text, so the ground truth is checked "
    "beside it."
)


@st.cache_data(show_spinner=False, max_entries=16)
def _rows(path: str, mtime: int, model: str, _store: MarsFeatureStore) -> pl.DataFrame:
    return mcmp.question_rows(model, _store.features, _store.groups)


Stamps = tuple[tuple[str, str, int], ...]  # (model, file path, its stamp): a comparison's key


@st.cache_data(show_spinner=False, max_entries=8)
def _compared(stamps: Stamps, _rows: dict[str, pl.DataFrame]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The side-by-side table and its disagreement ranking, once per set of files."""
    table = mcmp.side_by_side(_rows)
    return table, mcmp.disagreement(table)


@st.cache_data(show_spinner=False, max_entries=16)
def _question_data(
    stamps: Stamps, q: int, _stores: dict[str, MarsFeatureStore]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One question across the files: the answer distribution and the pooled curves."""
    groups = {m: s.question_groups(q) for m, s in _stores.items()}
    feats = {m: s.question(q) for m, s in _stores.items()}
    n_null = {m: int((f["final_group"] < 0).sum()) for m, f in feats.items()}
    return mcmp.answer_distribution(groups, n_null), mcmp.pooled_curves(feats)


def _stem(bench: str, models: list[str], *what: str) -> str:
    """A comparison's file name: the benchmark, the models compared and what the table is."""
    return file_stem("mars", bench, "models", *models, *what)


def _pick_benchmark(rel: str) -> str:
    names = list(mcmp.benchmarks())
    return str(
        url_selectbox(
            "Benchmark",
            names,
            MarsKeys.BENCH,
            mcmp.benchmark_of(rel),
            lambda b: f"{BENCH_TITLES.get(b, b)} ({b})",
        )
    )


def _built(rel: str, src: SourceConfig) -> bool:
    path = mc.file_path(rel, src)
    return table_path(FEATURES, FEATURES_VERSION, [path], {"window": WINDOW}).exists()


def _load(
    bench: str, src: SourceConfig
) -> tuple[dict[str, tuple[str, MarsFeatureStore]], list[tuple[str, str]]]:
    """The stores of the benchmark's files the source has ({model: (rel, store)}) and (relpath,
    label) of those it lacks. From the Hub, files not yet built wait for a click (each is a
    download of several GB and one pass over it)."""
    files = mcmp.benchmark_files(bench)
    present = present_files(DATASET, src)
    absent = [(rel, lab) for rel, _, lab in files if present is not None and rel not in present]
    have = [(rel, m) for rel, m, _ in files if present is None or rel in present]
    if src.kind == "hub":
        todo = [rel for rel, _ in have if not _built(rel, src)]
        if todo and not st.button(
            f"Download and build {len(todo)} more {'file' if len(todo) == 1 else 'files'} of this benchmark",
            key="models_build",
        ):
            st.info(
                "From the Hub, the other models' files are fetched only on request: "
                + ", ".join(f"`{r}`" for r in todo)
            )
            have = [(rel, m) for rel, m in have if rel not in todo]
    stores = {}
    for rel, m in have:
        with guard(f"the file {rel}", dataset=DATASET):
            stores[m] = (rel, mc.store(rel, src))
    return stores, absent


def render_models(rel: str, src: SourceConfig, page_qid: int) -> None:
    bench = _pick_benchmark(rel)
    if bench != mcmp.benchmark_of(rel):
        own = mcmp.benchmark_of(rel)
        st.info(
            f"This tab compares **{md_text(BENCH_TITLES.get(bench, bench))}**; the question "
            f"above, with its numbers and ground truth, is from the open file, "
            f"{md_text(rel)} ({md_text(BENCH_TITLES.get(own, own))}). A model's link below "
            "opens that model's file of this benchmark.",
            icon=":material/compare_arrows:",
        )
    stores, absent = _load(bench, src)
    if absent:
        st.warning(
            "Not in this source (left out of the comparison): "
            + "; ".join(f"{md_text(lab)} (`{rel}`)" for rel, lab in absent),
            icon=":material/folder_off:",
        )
    if not stores:
        st.info("No file of this benchmark is in the source: choose another benchmark or source.")
        return
    models = list(stores)
    rows, stamps = {}, {}
    for m, (r, s) in stores.items():
        path = mc.file_path(r, src)
        stamps[m] = (m, str(path), file_stamp(path))
        rows[m] = _rows(str(path), stamps[m][2], m, s)
    table, rank = _compared(tuple(stamps.values()), rows)
    n_q = rank.height
    n_agree = int(rank["truth_agrees"].sum())
    st.caption(
        ALIGN_NOTE + f" The ground truth agrees across the files on {n_agree} of {n_q} questions."
    )
    if n_agree < n_q:
        st.warning(
            f"On {n_q - n_agree} of {n_q} questions the files name different ground truths: they may "
            "not hold the same problem under the same qid. Those rows are marked in the tables.",
            icon=":material/rule:",
        )
    grid = grid_switch("models_grid")
    with guard("the per-question table", dataset=DATASET):
        _side_by_side(table, models, bench, grid)
    with guard("the disagreement ranking", dataset=DATASET):
        _ranking(rank, models, bench, grid)
    qids = rank["qid"].to_list()
    fallback = page_qid if page_qid in qids else qids[0]
    labels = {r["qid"]: _rank_label(r) for r in rank.iter_rows(named=True)}
    q = int(
        url_selectbox(
            "Compared question (by disagreement rank)",
            qids,
            MarsKeys.CQ,
            fallback,
            labels.__getitem__,
        )
    )
    with guard(f"question {q} across the models", dataset=DATASET):
        _question(q, table, stores, bench, src, stamps, grid)


def _rank_label(r: dict) -> str:
    split = " · majority split" if r["majority_split"] else ""
    gap = f" · gap {r['gap'] * 100:.0f} pp" if r["gap"] is not None else ""
    return f"#{r['rank']} · Q{r['qid']}{split}{gap}"


def _side_by_side(table: pl.DataFrame, models: list[str], bench: str, grid: bool) -> None:
    st.subheader("Per question, side by side", divider="gray")
    figures = url_multiselect(
        "Figures per model",
        list(mcmp.FIGURES),
        MarsKeys.FIGURES_KEY,
        default=mcmp.SHOWN_FIGURES,
        help="Each model's block of columns shows these (the downloads hold them all).",
        width=420,
    )
    w = mcmp.wide(table, models, figures or mcmp.SHOWN_FIGURES)
    if w["truth_agrees"].all():  # the line above says so: the room goes to the models' figures
        w = w.drop("truth_agrees")
    config: dict[str, Any] = {
        "qid": st.column_config.NumberColumn("qid", pinned=True),
        "truth_agrees": st.column_config.CheckboxColumn("same truth", help="ground truths agree"),
    }
    for m in models:
        config[f"{m} pass@1"] = st.column_config.ProgressColumn(
            f"{m} pass@1", format="percent", min_value=0, max_value=1
        )
        config[f"{m} median tokens"] = st.column_config.NumberColumn(
            f"{m} median tokens", format="%,.0f"
        )
        # a long answer (LaTeX) is cut short, whole in its tooltip: three models fit at 1024 px
        config[f"{m} majority"] = st.column_config.TextColumn(f"{m} majority", width=104)
    table_or_grid(
        w, key="models_wide", grid=grid, columns=config, height=320, label="models per question"
    )
    st.caption(
        "pass@1: share of the model's traces whose final answer is right; majority: the most "
        "voted final answer after ✓/✗, whether it is right (no mark on an exact tie; a long "
        "answer is cut short, whole when the pointer rests on it); distinct: final "
        "answers with at least one vote; median tokens: over all traces; traces: the pool's size. A block of "
        "–: the model's file lacks the question."
    )
    download_buttons(table, _stem(bench, models, "per-question"), "models_table")


def _ranking(rank: pl.DataFrame, models: list[str], bench: str, grid: bool) -> None:
    st.subheader("Where the models disagree", divider="gray")
    st.caption(
        "First the questions where one model's majority answer is right and another's wrong, then "
        "by the largest pass@1 gap between two models (best − worst). Interval: 95 % Newcombe "
        "(hybrid score) interval of that difference of two proportions, traces taken as "
        "independent draws."
    )
    shown = rank.with_columns(
        (pl.col("gap") * 100).alias("gap_pp"),
        pl.struct("gap_lo", "gap_hi")
        .map_elements(
            lambda s: fmt_interval(
                None if s["gap_lo"] is None else s["gap_lo"] * 100,
                None if s["gap_hi"] is None else s["gap_hi"] * 100,
                ".0f",
            ),
            return_dtype=pl.String,
        )
        .alias("interval"),
    ).select(  # the figures first: at 1024 px the model lists would push them out of sight
        "rank", "qid", "majority_split", "gap_pp", "interval", "best_model", "worst_model",
        "right_models", "wrong_models", "missing_models", "truth_agrees",
    )  # fmt: skip
    table_or_grid(
        shown,
        key="models_rank_table",
        grid=grid,
        height=280,
        label="questions by disagreement",
        columns={
            "rank": st.column_config.NumberColumn("#", pinned=True, width=40),
            "qid": st.column_config.NumberColumn("qid", pinned=True, width=48),
            "majority_split": st.column_config.CheckboxColumn(
                "split", width=48, help="one model's majority right, another's wrong"
            ),
            "right_models": st.column_config.TextColumn("majority right", width=180),
            "wrong_models": st.column_config.TextColumn("majority wrong", width=180),
            "best_model": "best pass@1",
            "worst_model": "worst pass@1",
            "gap_pp": st.column_config.NumberColumn("gap (pp)", format="%.1f", width=70),
            "interval": "95 % interval (pp)",
            "missing_models": "missing in",
            "truth_agrees": st.column_config.CheckboxColumn("same truth", width=80),
        },
    )
    download_buttons(rank, _stem(bench, models, "disagreement"), "models_rank")


def _question(
    q: int,
    table: pl.DataFrame,
    stores: dict[str, tuple[str, MarsFeatureStore]],
    bench: str,
    src: SourceConfig,
    stamps: dict[str, tuple[str, str, int]],
    grid: bool,
) -> None:
    st.subheader(f"{BENCH_TITLES.get(bench, bench)} · Q{q} across the models", divider="gray")
    rows = table.filter(pl.col("qid") == q)
    here = {
        m: v
        for m, v in stores.items()
        if not rows.filter((pl.col("model") == m) & ~pl.col("missing")).is_empty()
    }
    models = list(stores)
    lines = []
    for r in rows.iter_rows(named=True):
        m = r["model"]
        rel = stores[m][0]
        if r["missing"]:
            lines.append(
                {
                    "model": m,
                    "pass@1": "missing",
                    "majority": DASH,
                    "distinct": None,
                    "median tokens": None,
                    "ground truth": DASH,
                    "open": None,
                }
            )
            continue
        tie = int(r["majority_tie"] or 0)
        mark = f"tie ({tie})" if tie > 1 else ("✓" if r["majority_correct"] else "✗")
        lines.append(
            {
                "model": m,
                "pass@1": f"{fmt_num(r['pass_at_1'], '.0%')} ({r['n_correct']}/{r['n_traces']})",
                "majority": f"{mark} {r['majority_answer'] or DASH}",
                "distinct": r["n_answers"],
                "median tokens": r["median_len"],
                "ground truth": r["ground_truth"],
                "open": view_href("mars", file=rel, qid=q),
            }
        )
    table_or_grid(
        pl.DataFrame(
            lines,
            schema={
                "model": pl.String,
                "pass@1": pl.String,
                "majority": pl.String,
                "distinct": pl.Int64,
                "median tokens": pl.Float64,
                "ground truth": pl.String,
                "open": pl.String,
            },
        ),
        key="models_rows",
        grid=grid,
        label=f"Q{q} per model",
        columns={
            "median tokens": st.column_config.NumberColumn(format="%,.0f"),
            "open": st.column_config.LinkColumn("view", display_text="open ↗"),
        },
    )
    links = [
        f"[{md_text(m)}\u00a0↗]({view_href('mars', file=stores[m][0], qid=q)})"
        for m in models
        if m in here
    ]
    if links:
        st.markdown(f"Open Q{q} in each model's question view: " + " · ".join(links))
    if not here:
        st.info(f"No model's file holds question {q}.")
        return
    pools = {m: mc.pool(rel, src, q) for m, (rel, _) in here.items()}
    ts = mcmp.truth_share(pools)
    with guard("the comparison's casebook control", dataset=DATASET):
        _capture(bench, q, rows, stores[next(iter(here))][0], ts, src)
    keys = tuple(stamps[m] for m in here)
    dist, pc = _question_data(keys, q, {m: s for m, (_, s) in here.items()})
    shown = [m for m in models if m in here]
    zoom = zoom_switch()
    chart(mfig.answers_by_model(dist, shown), key="models_answers", zoom=zoom)
    download_buttons(dist, _stem(bench, shown, f"q{q}", "answers"), "models_dist")
    x_max = 1.02 * mcmp.axis_end(ts, pc) or None  # one token axis for every figure below
    with guard("the vote evolution per model", dataset=DATASET):
        chart(mfig.truth_share_figure(ts, shown, x_max), key="models_truth", zoom=zoom)
        with lazy_expander(
            "Each model's whole vote, on the same token axis", (), "models_votes_open"
        ) as draw:
            drawn = zip(shown, st.tabs(shown), strict=True) if draw else iter(())
            for m, tab in drawn:
                vs = vote_shares(pools[m])
                if not vs.positions.size:
                    tab.info("No probe checkpoints in this question.")
                    continue
                fig = mf.vote_figure(vs, pools[m].ground_truth)
                fig.update_xaxes(range=[0, x_max])
                fig.update_layout(height=460)
                chart(fig, key=f"models_votes_{m}", zoom=zoom, where=tab)
        download_buttons(ts, _stem(bench, shown, f"q{q}", "truth-share"), "models_ts")
    with guard("the confidence curves per model", dataset=DATASET):
        chart(
            mfig.pooled_curves_figure(pc, shown, mcmp.CURVE_BIN, x_max),
            key="models_curves",
            zoom=zoom,
        )
        st.caption(
            "Each trace's stored plotting curve (its mean confidence over 96 equal slices) pooled "
            f"into {mcmp.CURVE_BIN:,}-token bins; the median of the traces in a bin, shown while "
            f"at least {mcmp.MIN_TRACES} traces of the class reach it. Solid: right final answer; "
            "dashed: wrong or none."
        )


def _capture(
    bench: str, q: int, rows: pl.DataFrame, rel: str, ts: pl.DataFrame, src: SourceConfig
) -> None:
    """ "Add comparison": a case on the question as the models see it (its item is the question
    in the first model's file that holds it; the link reopens this tab on it), with each model's
    figures and the ground truth's share of the vote per model as evidence."""
    have = rows.filter(~pl.col("missing"))
    right = have.filter(pl.col("majority_correct").fill_null(False))["model"].to_list()
    wrong = have.filter(pl.col("majority_correct").not_().fill_null(False))["model"].to_list()
    title = f"{BENCH_TITLES.get(bench, bench)} · Q{q} across {have.height} models"
    if right and wrong:
        title += f" · majority right: {', '.join(right)}; wrong: {', '.join(wrong)}"
    snap: dict[str, Any] = {"benchmark": bench, "qid": q, "models": ", ".join(have["model"])}
    for r in have.iter_rows(named=True):
        m = r["model"]
        snap[f"{m} pass_at_1"] = round(float(r["pass_at_1"]), 4)
        snap[f"{m} n_traces"] = int(r["n_traces"])
        snap[f"{m} majority_answer"] = str(r["majority_answer"] or "")[:80]
        snap[f"{m} majority_correct"] = r["majority_correct"]
    series = [
        (m, part["position"].to_list(), part["truth"].to_list())
        for (m,), part in ts.group_by("model", maintain_order=True)
    ]
    ev = line_evidence(
        title=f"Q{q} · the ground truth's share of each model's traces",
        x_label="checkpoint (tokens generated)",
        y_label="share of all traces",
        series=series,
        y_range=(0.0, 1.0),
    )
    capture(
        DATASET,
        "mars",
        {**mcs.question_item(rel, q), "compare": bench},
        title=title,
        snapshot=with_evidence(snap, ev),
        source=src,
        file=rel,
        key=f"mars_models_{bench}_{q}",
        label="Add comparison",
    )
