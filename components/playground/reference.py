"""The reference diff (ours against the published simulator's summaries, when the source holds
them) and the downloads of the current run, named after the run."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd
import polars as pl
import streamlit as st

from analysis.playground import Policy, RunResult
from analysis.playground.compare import (
    DIFF_TOLERANCE,
    OVERALL_SHOWN,
    explain_reference,
    overall_comparison,
    reference_comparison,
)
from analysis.playground.params import DEFAULT_SETTINGS
from cache.datasets import mars_reference_dir
from cache.sources import SourceConfig
from components.common.downloads import download_buttons, file_stem
from components.common.formatting import counted, fmt_num
from components.common.lite_table import TONES, grid_switch, table_or_grid
from components.common.safe_text import md_text
from components.playground import cached as pc

REFERENCE_TITLE = "Against the published reference"
REFERENCE_ITERATIONS = DEFAULT_SETTINGS.iterations


STATUS_TEXT = {
    "same": "same",
    "tie": "tie (expected)",
    "differs": "differs",
    "preview": "preview (expected)",
}


def reference_table(
    rel: str, src: SourceConfig, cur: RunResult, per_q: pd.DataFrame, full: bool
) -> pd.DataFrame:
    """Ours against the reference per question, each difference explained when a tie for
    first place decided it (full runs only: the quick preview runs fewer iterations than the
    reference, so every difference there is expected and none is checked)."""
    source = f"{mars_reference_dir(rel, cur.policy.method)}/summary_per_question.csv"
    diff = reference_comparison(cur.per_question_frame(), per_q, source=source)
    if not full:
        out = explain_reference(diff, {}, per_q)
        out.loc[out["differs"], "status"] = "preview"
        out.loc[out["differs"], "why"] = (
            f"quick preview: {cur.settings.iterations} iterations, the reference ran "
            f"{REFERENCE_ITERATIONS}"
        )
        return out
    dcols = [c for c in diff.columns if c.startswith("d_")]
    off = diff[dcols].abs().gt(DIFF_TOLERANCE).any(axis=1) | diff[dcols].isna().any(axis=1)
    qids = [int(q) for q in diff.loc[off, "question_id"]]
    if cur.policy.method.endswith("-cal"):  # the gamma beside the reference's, every question
        qids = [int(q) for q in diff["question_id"]]
    checks = pc.tie_checks(rel, src, cur.policy, cur.settings, qids)
    return explain_reference(diff, checks, per_q)


# readable names of the diff's columns (the frame keeps the published names: the CSVs and the
# tests read them); units in the name, numbers formatted per column (`_formats`)
DIFF_LABELS = {
    "accuracy_pct": "accuracy % (ours)",
    "accuracy_pct_ref": "accuracy % (reference)",
    "d_accuracy_pct": "Δ accuracy (pp)",
    "token_savings_pct": "token savings % (ours)",
    "token_savings_pct_ref": "token savings % (reference)",
    "d_token_savings_pct": "Δ token savings (pp)",
    "mean_position": "mean stop position (tokens, ours)",
    "mean_position_ref": "mean stop position (tokens, reference)",
    "d_mean_position": "Δ mean stop position (tokens)",
}


def _diff_cell(v: object) -> str:
    """A difference: "0" within the tolerance, else signed with 3 significant digits."""
    x = pd.to_numeric(v, errors="coerce")
    if pd.isna(x):
        return "–"
    return "0" if abs(float(x)) <= DIFF_TOLERANCE else fmt_num(x, "+.3g")


def _formats(columns: list[str]) -> dict[str, Callable[[object], str]]:
    """Per column: percentages to 2 decimals, positions as whole tokens with thousands
    separators ("6,144"), differences signed, gamma to 2 decimals; missing as "–"."""
    out: dict[str, Callable[[object], str]] = {}
    for c in columns:
        if c.startswith("d_"):
            out[c] = _diff_cell
        elif c.startswith("mean_position"):
            out[c] = lambda v: fmt_num(v, ",.0f")
        elif c.startswith(("accuracy_pct", "token_savings_pct", "gamma")):
            out[c] = lambda v: fmt_num(v, ".2f")
        elif c == "tied_iterations":
            out[c] = lambda v: fmt_num(v, ".0f")
    return out


def cell_tones(table: pd.DataFrame, dcols: list[str]) -> dict[str, list[str | None]]:
    """Per column, each row's mark: "diff" (red) on a difference no tie explains, "info"
    (blue) on one a tie explains (expected); none in the quick preview (every difference
    there is expected). A reference gamma that differs from ours is marked like the row."""
    status = [str(s) for s in table["status"]]
    tone_of = [{"differs": "diff", "tie": "info"}.get(s) for s in status]
    out: dict[str, list[str | None]] = {}
    for c in table.columns:
        marks: list[str | None] = []
        for r, (tone, v) in enumerate(zip(tone_of, table[c], strict=True)):
            off = c in dcols and isinstance(v, float) and (pd.isna(v) or abs(v) > DIFF_TOLERANCE)
            if c == "gamma_ref" and "gamma" in table.columns:
                g = table["gamma"].iloc[r]
                off = bool(pd.notna(g) and pd.notna(v) and abs(g - v) > 1e-9)
            marks.append(tone if tone and off else None)
        if any(marks):
            out[c] = marks
    return out


def _paint(table: pd.DataFrame, dcols: list[str]) -> pd.io.formats.style.Styler:
    """The grid's version of the marks (`cell_tones`), with the numbers formatted."""
    tones = cell_tones(table, dcols)

    def column_style(col: pd.Series) -> list[str]:
        marks = tones.get(str(col.name)) or [None] * len(col)
        return [f"background-color: {TONES[m]}" if m else "" for m in marks]

    return (
        table.style.format(precision=2, na_rep="–")
        .format(_formats(list(table.columns)))
        .apply(column_style, axis=0)
    )


def _as_text(
    table: pd.DataFrame, formats: Mapping[str, Callable[[object], str]]
) -> tuple[pl.DataFrame, list[str]]:
    """The table as the light table shows it: each column formatted (`formats`, else numbers
    to 2 decimals), and the names of its numeric columns (right-aligned)."""
    cols: dict[str, list[str]] = {}
    numeric = []
    for c in table.columns:
        f = formats.get(c)
        if f is None and pd.api.types.is_integer_dtype(table[c]):
            f = _whole
        elif f is None and pd.api.types.is_numeric_dtype(table[c]):
            f = _two_decimals
        if f is not None:
            numeric.append(c)
            cols[c] = [f(v) for v in table[c]]
        else:
            cols[c] = ["" if v is None or v is pd.NA else str(v) for v in table[c]]
    return pl.DataFrame(cols, schema=dict.fromkeys(cols, pl.String)), numeric


def _two_decimals(v: object) -> str:
    return fmt_num(v, ".2f")


def _whole(v: object) -> str:
    return fmt_num(v, ".0f")


def show_reference(rel: str, src: SourceConfig, cur: RunResult, full: bool) -> None:
    ref = pc.reference_csvs(rel, src, cur.policy.method)
    if ref is None:  # one line, no heading over it
        st.caption(
            f"**{REFERENCE_TITLE}:** this source holds no repro\\_reference CSVs for "
            f"{md_text(cur.policy.method)} on this file (the Hub copy has them; the bundled "
            "sample has them for the 7 published methods on DeepSeek-8B · AIME 2025 only)."
        )
        return
    # the title takes what the switch (as wide as its label) leaves: a fifth-wide column cut
    # "Data grid" at 1024 px
    head = st.container(horizontal=True, vertical_alignment="center")
    head.subheader(REFERENCE_TITLE)
    grid = grid_switch("ref_grid", container=head)
    per_q, overall = ref
    if src.kind == "sample":
        st.caption(
            "Bundled sample: the reference is the published MARS simulator's output on this generated "
            "file (budget 512, 64 iterations, warmup 16, seed 42; -cal with z = 1, gamma min 0.5), "
            "run through a transcription of its logic; see cache/sample/mars\\_reference/NOTE.md."
        )
    table = reference_table(rel, src, cur, per_q, full)
    n_diff = int(table["differs"].sum())
    n_tie = int((table["status"] == "tie").sum())
    if not full:
        st.info(
            "Quick preview: the reference ran the published setting (64 iterations), this preview "
            f"{cur.settings.iterations}, so differences are expected and are not marked: turn "
            "off the quick preview to compare like with like.",
            icon=":material/info:",
        )
    elif n_diff:
        st.caption(
            f"{counted(n_diff, 'question')} {'differs' if n_diff == 1 else 'differ'} from the reference; {n_tie} of them only through votes "
            "tied for first place (blue, expected: the published simulator breaks a tie by Python "
            "set order, which depends on the hash seed; ours takes the lowest group id). Red: a "
            "difference no tie explains. “tied iterations” counts iterations whose outcome "
            "changes when ties are broken the other way."
        )
    else:
        st.caption("Every question matches the reference.")
    shown = table.drop(columns=["differs", "tie_explains"])
    shown["status"] = shown["status"].map(STATUS_TEXT).fillna(shown["status"])
    dcols = [c for c in shown.columns if c.startswith("d_")]
    config = {
        **{c: st.column_config.Column(label) for c, label in DIFF_LABELS.items()},
        "question_id": st.column_config.NumberColumn("qid", width="small"),
        "tied_iterations": st.column_config.NumberColumn(
            "tied iterations",
            help="iterations whose answer, cost or stop changes when ties for first place "
            "are broken the other way",
        ),
        "gamma": st.column_config.NumberColumn("gamma (ours)", format="%.2f"),
        "gamma_ref": st.column_config.NumberColumn(
            "gamma (reference)",
            format="%.2f",
            help="the reference's calibrated gamma: its own column when the CSV has one, "
            "else inferred (our run with ties broken the other way, when that run "
            "reproduces the reference); blank when unknown",
        ),
        "why": st.column_config.TextColumn("why", width="large"),
    }
    text, numeric = _as_text(shown, _formats(list(shown.columns)))
    table_or_grid(
        text,
        key="ref_diff",
        grid=grid,
        columns=config,
        label="Ours against the reference, per question",
        right=numeric,
        grid_data=_paint(shown, dcols),
        tones=cell_tones(shown, dcols),
    )
    if not overall.empty:
        st.markdown("**Overall, ours against the reference**")
        table = overall_comparison(cur.overall(), overall)
        specs = (".2f", ".2f", ".2f", ".2f", ".0f", ",.0f", ".2f", ".0f", ".0f", ".0f")
        fmts: dict[str, Callable[[object], str]] = {
            label: (lambda v, f=f: fmt_num(v, f))
            for label, f in zip(OVERALL_SHOWN.values(), specs, strict=True)
        }
        text, numeric = _as_text(table, fmts)
        table_or_grid(
            text,
            key="ref_overall",
            grid=grid,
            label="Overall, ours against the reference",
            right=numeric,
            grid_data=table.style.format(fmts),
        )
        st.caption(
            "SE of accuracy: the standard deviation of the per-question accuracies (the CSVs' "
            "`accuracy_std`, not itself an uncertainty) divided by √(questions), in percentage "
            "points; 95 % CI = accuracy ± 1.96 SE (normal approximation, over questions only). "
            "The summary above gives the two-level bootstrap interval, which also counts the "
            "iterations' noise."
        )


def policy_tokens(policy: Policy) -> list[str]:
    """The policy's parameters as file-name words (`gamma=0.9`), from its own widget list."""
    out = []
    for spec in policy.ui_params():
        obj: object = policy
        for part in spec.field.split("."):
            obj = getattr(obj, part)
        out.append(f"{spec.key}={obj}")
    return out


def run_stem(rel: str, run: RunResult, what: str) -> str:
    """`mars_<file>_<method>_<params>_<settings>_<what>`: the download says which run it is."""
    s = run.settings
    return file_stem(
        "mars",
        rel,
        run.policy.method,
        *policy_tokens(run.policy),
        f"budget{s.budget}",
        f"iters{s.iterations}",
        f"warmup{s.warmup}",
        f"w{s.window}",
        f"seed{s.seed}",
        what,
    )


def show_downloads(rel: str, cur: RunResult) -> None:
    """The three published CSVs of the current run (results, per question, overall)."""
    row = st.container(horizontal=True)  # content-wide buttons: equal columns cut the labels
    cols = [row, row, row]
    frames = (
        ("results", cur.results_frame),
        ("summary_per_question", cur.per_question_frame),
        ("summary_overall", cur.overall_frame),
    )
    for col, (what, frame) in zip(cols, frames, strict=True):
        download_buttons(
            frame,
            run_stem(rel, cur, what),
            key=f"dl_{what}",
            formats=("csv",),
            columns=[col],
            label=what.replace("_", " "),
        )
