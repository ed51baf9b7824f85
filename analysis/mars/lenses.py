"""The MARS lenses (/lenses): confidently-wrong traces and late answer flips of one file.

Why these two: a wrong answer given with the confidence of the question's best traces is what
fools confidence-based voting and stopping; an answer that still changes in the last quarter of
a trace is where an early stop would have kept a different answer. Both run on the feature table
(`analysis.mars.features`: tail confidence, final answer, the probes' answer groups), never on
the raw confidences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from analysis.mars.store import load_features
from cache.datasets import MARS, MARS_FILES
from cache.lenses import DatasetLenses, Lens
from cache.progress import ProgressFn

VIEW = "mars"
TAB = ("view", "Single trace")  # the view's tab that shows one trace
TOP_SHARE = 0.10  # confidently wrong: tail confidence in the question's top decile
LATE = 0.75  # a late flip: the probed answer changes after this share of the trace
COLUMNS = (
    "qid",
    "trace_idx",
    "length",
    "final_answer",
    "final_group",
    "final_correct",
    "tail_conf",
    "probe_pos",
    "probe_group",
)


@dataclass(frozen=True)
class MarsLensTables:
    """One MARS file's tables as its lenses read them."""

    file: str  # the Hub-relative file (the view's `file` key)
    features: pl.DataFrame  # COLUMNS of the feature table
    groups: pl.DataFrame  # qid, group_id, label, ground_truth


def load(paths: Sequence[Path], part: str, progress: ProgressFn | None = None) -> MarsLensTables:
    s = load_features(paths[0], with_lows=False, columns=COLUMNS, progress=progress)
    groups = s.groups.select("qid", "group_id", "label", "ground_truth")
    return MarsLensTables(part, s.features.select(COLUMNS), groups)


def _with_keys(frame: pl.DataFrame, file: str) -> pl.DataFrame:
    """The item's label names the model as the view's own capture does ("DeepSeek-R1-0528-
    Qwen3-8B · AIME 2025 · Q3 · trace 17"): it becomes a triage case's title, and every model
    has a question 3 and a trace 17."""
    model_bench = MARS_FILES.get(file, ("", "", file))[2]
    return frame.with_columns(
        file=pl.lit(file),
        label=pl.format(f"{model_bench} · Q{{}} · trace {{}}", "qid", "trace_idx"),
    )


def _empty(t: MarsLensTables) -> pl.DataFrame:
    return _with_keys(
        pl.DataFrame(schema={"qid": pl.Int64, "trace_idx": pl.Int64, "why": pl.String}), t.file
    )


def confidently_wrong(t: MarsLensTables) -> pl.DataFrame:
    """Traces with a wrong final answer whose tail confidence is at or above the 90th
    percentile (linear) of its question's tail confidences; highest above the cut first."""
    f = t.features.with_columns(tail=pl.col("tail_conf").cast(pl.Float64).fill_nan(None))
    f = f.with_columns(cut=pl.col("tail").quantile(1.0 - TOP_SHARE, "linear").over("qid"))
    hits = f.filter(
        (pl.col("final_group") >= 0)
        & ~pl.col("final_correct").fill_null(False)
        & (pl.col("tail") >= pl.col("cut"))
    )
    if hits.is_empty():
        return _empty(t)
    truth = t.groups.group_by("qid").agg(pl.col("ground_truth").drop_nulls().first())
    hits = hits.join(truth, on="qid", how="left").sort(
        [pl.col("tail") - pl.col("cut"), "qid", "trace_idx"], descending=[True, False, False]
    )
    why = pl.format(
        "tail conf. {} ≥ {} (Q{}'s top 10 %) · answered {}, truth {}",
        pl.col("tail").round(2),
        pl.col("cut").round(2),
        "qid",
        pl.col("final_answer").str.slice(0, 40),
        pl.col("ground_truth").fill_null("?").str.slice(0, 40),
    )
    return _with_keys(hits.select("qid", "trace_idx", why.alias("why")), t.file)


def late_flips(t: MarsLensTables) -> pl.DataFrame:
    """Traces whose probed answer changes after 75 % of the trace: two consecutive probes that
    both hold an answer name different answers (answer groups), the later one past
    0.75 x length. Latest change first."""
    p = (
        t.features.select("qid", "trace_idx", "length", "probe_pos", "probe_group")
        .explode("probe_pos", "probe_group")
        .filter(pl.col("probe_group") >= 0)
        .sort("qid", "trace_idx", "probe_pos")
        .with_columns(
            prev=pl.col("probe_group").shift(1).over("qid", "trace_idx"),
        )
    )
    flips = p.filter(
        pl.col("prev").is_not_null()
        & (pl.col("probe_group") != pl.col("prev"))
        & (pl.col("probe_pos") > LATE * pl.col("length"))
    )
    if flips.is_empty():
        return _empty(t)
    labels = t.groups.select("qid", "group_id", "label")
    named = flips.join(
        labels.rename({"group_id": "prev", "label": "before"}), on=["qid", "prev"], how="left"
    ).join(
        labels.rename({"group_id": "probe_group", "label": "after"}),
        on=["qid", "probe_group"],
        how="left",
    )
    per = named.group_by("qid", "trace_idx").agg(
        n=pl.len(),
        before=pl.col("before").last(),
        after=pl.col("after").last(),
        share=(pl.col("probe_pos") / pl.col("length")).last(),
    )
    per = per.sort(["share", "qid", "trace_idx"], descending=[True, False, False])
    why = pl.format(
        "answer {} → {} at {} % of the trace{}",
        pl.col("before").fill_null("?").str.slice(0, 30),
        pl.col("after").fill_null("?").str.slice(0, 30),
        (pl.col("share") * 100).round(0).cast(pl.Int64),
        pl.when(pl.col("n") > 1).then(pl.format(" ({} late changes)", "n")).otherwise(pl.lit("")),
    )
    return _with_keys(per.select("qid", "trace_idx", why.alias("why")), t.file)


def _traces(t: MarsLensTables) -> int:
    return t.features.height


_LINK = (("file", "file"), ("qid", "qid"), ("trace", "trace_idx"))

LENSES = DatasetLenses(
    parts=tuple(MARS_FILES),
    files=lambda part: (part,),
    load=load,
    part_title=lambda rel: MARS_FILES[rel][2] if rel in MARS_FILES else rel,
    lenses=(
        Lens(
            id="mars-confidently-wrong",
            dataset=MARS.name,
            title="Confidently wrong traces",
            rule=(
                "A trace's final answer is wrong (it gave one) and its tail confidence is in "
                "the top decile of its question: at or above the 90th percentile of the "
                "question's traces. Furthest above that cut first."
            ),
            view=VIEW,
            find=confidently_wrong,
            count=_traces,
            of="traces",
            query=_LINK,
            item=_LINK,
            fixed=(TAB,),
            empty=(
                "Every trace in its question's top decile of tail confidence answered right "
                "(or gave no answer): confidence ranks right answers first here."
            ),
        ),
        Lens(
            id="mars-late-flips",
            dataset=MARS.name,
            title="Late answer flips",
            rule=(
                "The probed answer changes after 75 % of the trace: two consecutive probes "
                "that both hold an answer name different answers, the later one past 0.75 × "
                "the trace's length. Latest change first."
            ),
            view=VIEW,
            find=late_flips,
            count=_traces,
            of="traces",
            query=_LINK,
            item=_LINK,
            fixed=(TAB,),
            empty=(
                "No trace changes its probed answer in its last quarter (or the file holds no "
                "probes: the Single trace tab says so)."
            ),
        ),
    ),
)
