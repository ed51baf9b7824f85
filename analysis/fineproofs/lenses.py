"""The FineProofs lenses (/lenses): the sharpest significant drops, recoveries and bimodal
prefixes of the annotated prefix table.

Why Benjamini-Hochberg here: a lens gathers changes from every trace at once, so the per-test
|z| > 2 rule would fill it with chance flags (a trace of ~8 prefixes has a ~28 % chance of one,
`analysis.fineproofs.multitest`); the lenses use the view's BH switch (q = 0.05 over each trace's
z-tests, the same code) and open the view with it on, so the view flags what the lens found.
A prefix's value is the mean of its graded continuations; its 20-bin histogram is what the
bimodal rule reads (grades k/7: below 0.25 is 0 or 1/7, from 0.75 is 6/7 or 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from analysis.fineproofs.multitest import bh_reject_expr
from analysis.fineproofs.store import prefixes_table
from analysis.fineproofs.values import KEYS, SeriesParams
from cache.datasets import FINEPROOFS
from cache.fineproofs_io import PREFIX_FILE
from cache.lenses import DatasetLenses, Lens
from cache.progress import ProgressFn

VIEW = "fineproofs"
PARAMS = SeriesParams()  # min_drop 0.15, fdr_q 0.05, bimodal_frac 0.25: the view's defaults
FIXED = (("view", "Trace"), ("fdr", "true"))  # the Trace tab, with the BH drop flags


def load(paths: Sequence[Path], part: str, progress: ProgressFn | None = None) -> pl.DataFrame:
    """The annotated prefix table (default series parameters; BH is applied by the lenses)."""
    return prefixes_table(paths[0], PARAMS, progress)[0]


def _bh(a: pl.DataFrame) -> pl.DataFrame:
    """`bh` (this change survives Benjamini-Hochberg over its trace's tests at q) and the
    significant drops and rises of at least min_drop, as the view's BH switch flags them."""
    a = a.with_columns(bh=bh_reject_expr(pl.col("p_value"), KEYS, PARAMS.fdr_q))
    z = pl.col("z").fill_nan(None)
    drop = pl.col("bh") & (z < 0) & (pl.col("change") <= -PARAMS.min_drop)
    rise = pl.col("bh") & (z > 0) & (pl.col("change") >= PARAMS.min_drop)
    a = a.with_columns(bh_drop=drop.fill_null(False), bh_rise=rise.fill_null(False))
    earlier = (pl.col("bh_drop").cast(pl.Int32).cum_sum().over(KEYS) - pl.col("bh_drop")) > 0
    return a.with_columns(bh_recovery=pl.col("bh_rise") & earlier)


def _items(rows: pl.DataFrame, why: pl.Expr) -> pl.DataFrame:
    return rows.select(
        "problem_id",
        "sample_index",
        "ordinal",
        label=pl.format(
            "{} #{} · prefix {}", pl.col("problem_id").str.slice(0, 10), "sample_index", "ordinal"
        ),
        why=why,
    )


def _p_text(p: float) -> str:
    """A p-value as the "why" shows it (one that underflows to 0 is below the smallest float)."""
    return f"{p:.1e}" if p > 0 else "< 1e-300"


def _change_why(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    return pl.format(
        "value {} → {} ({}), z {}, p {}",
        a.round(2),
        b.round(2),
        pl.col("change").round(2),
        pl.col("z").round(1),
        pl.col("p_value").map_elements(_p_text, return_dtype=pl.String),
    )


def sharpest_drops(a: pl.DataFrame) -> pl.DataFrame:
    """Prefixes whose drop from the previous valued prefix is significant under BH (q 0.05 per
    trace) and at least 0.15; largest drop first."""
    rows = _bh(a).filter(pl.col("bh_drop")).sort(["change", *KEYS, "ordinal"])
    return _items(rows, _change_why(pl.col("prev_value"), pl.col("value")))


def recoveries(a: pl.DataFrame) -> pl.DataFrame:
    """Prefixes whose rise of at least 0.15 is significant under BH and comes after a
    significant drop of the same trace; largest rise first."""
    rows = _bh(a).filter(pl.col("bh_recovery"))
    rows = rows.sort(["change", *KEYS, "ordinal"], descending=[True, False, False, False])
    return _items(rows, _change_why(pl.col("prev_value"), pl.col("value")))


def bimodal(a: pl.DataFrame) -> pl.DataFrame:
    """Prefixes whose graded continuations split in two: at least 25 % score below 0.25, at
    least 25 % score 0.75 or more, and the middle holds fewer than the smaller end (a valley
    between two peaks). Most even split first."""
    h = pl.col("hist")
    tot = h.list.sum()
    rows = a.filter(h.is_not_null() & (tot > 0)).with_columns(
        mid=(tot - h.list.slice(0, 5).list.sum() - h.list.slice(15, 5).list.sum()) / tot,
        n_cont=tot,
    )
    ends = pl.min_horizontal("low_frac", "high_frac")
    rows = rows.filter(
        (pl.col("low_frac") >= PARAMS.bimodal_frac)
        & (pl.col("high_frac") >= PARAMS.bimodal_frac)
        & (pl.col("mid") < ends)
    ).sort([ends, *KEYS, "ordinal"], descending=[True, False, False, False])
    why = pl.format(
        "{} continuations: {} % below 0.25, {} % from 0.75, {} % between",
        pl.col("n_cont"),
        (pl.col("low_frac") * 100).round(0).cast(pl.Int64),
        (pl.col("high_frac") * 100).round(0).cast(pl.Int64),
        (pl.col("mid") * 100).round(0).cast(pl.Int64),
    )
    return _items(rows, why)


def _tested(a: pl.DataFrame) -> int:
    return int(a["p_value"].is_not_null().sum())


def _with_hist(a: pl.DataFrame) -> int:
    return int(a["hist"].is_not_null().sum())


_LINK = (("problem", "problem_id"), ("sample", "sample_index"), ("prefix", "ordinal"))

LENSES = DatasetLenses(
    parts=(PREFIX_FILE,),
    files=lambda part: (part,),
    load=load,
    lenses=(
        Lens(
            id="fineproofs-sharpest-drops",
            dataset=FINEPROOFS.name,
            title="Sharpest significant drops",
            rule=(
                "A prefix's value falls by at least 0.15 from the previous valued prefix, and "
                "the fall is significant under Benjamini-Hochberg over its trace's z-tests "
                "(false discovery rate 0.05, the view's BH switch). Largest fall first."
            ),
            view=VIEW,
            find=sharpest_drops,
            count=_tested,
            of="changes tested",
            query=_LINK,
            item=_LINK,
            fixed=FIXED,
            empty="No fall of 0.15 or more survives Benjamini-Hochberg in any trace.",
        ),
        Lens(
            id="fineproofs-recoveries",
            dataset=FINEPROOFS.name,
            title="Recoveries",
            rule=(
                "A prefix's value rises by at least 0.15, significant under Benjamini-Hochberg "
                "(as for drops), after a significant drop earlier in the same trace. Largest "
                "rise first."
            ),
            view=VIEW,
            find=recoveries,
            count=_tested,
            of="changes tested",
            query=_LINK,
            item=_LINK,
            fixed=FIXED,
            empty="No trace rises significantly again after a significant drop.",
        ),
        Lens(
            id="fineproofs-bimodal",
            dataset=FINEPROOFS.name,
            title="Bimodal prefixes",
            rule=(
                "The prefix's graded continuations split in two: at least 25 % score below 0.25 "
                "(0 or 1/7), at least 25 % score 0.75 or more (6/7 or 1), and the grades between "
                "hold fewer than the smaller end. Most even split first."
            ),
            view=VIEW,
            find=bimodal,
            count=_with_hist,
            of="prefixes with a grade histogram",
            query=_LINK,
            item=_LINK,
            fixed=FIXED,
            empty=(
                "No prefix's continuations split between both ends with a valley between, or "
                "the prefix table holds no grade histograms (the rule needs them)."
            ),
        ),
    ),
)
