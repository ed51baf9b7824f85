"""Tables for people: the numeric columns of a shown table formatted as text through
`components.common.formatting`, so a missing value reads "–" (never "None"/"nan"), a value
keeps a fixed number of decimals (never "-41.3372" beside "0.9"), and no cell shows a negative
zero. Downloads keep the raw numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import polars as pl
from pandas.io.formats.style import Styler

from components.common.formatting import DASH, fmt_num

_NEG_ZERO = re.compile(r"^-(?=[0.]*[%×]?$)")

# column -> format spec of the Trace tab's per-prefix table and the Overview's trace table
SERIES_FORMATS: dict[str, str] = {
    "rel_depth": ".2f", "value": ".3f", "se": ".3f", "std": ".3f", "n": ".0f",
    "change": "+.3f", "z": "+.2f", "p_value": ".4f", "low_frac": ".0%", "high_frac": ".0%",
    "endpoint": ".3f",
}  # fmt: skip
TRACE_FORMATS: dict[str, str] = {
    "endpoint": ".3f", "first_value": ".3f", "last_value": ".3f", "largest_drop": ".3f",
    "largest_drop_depth": ".2f", "first_error_depth": ".2f", "drop_share": ".0%",
}  # fmt: skip


def cell(v: object, spec: str) -> str:
    """`fmt_num(v, spec)` without a negative zero ("-0.000" -> "0.000", "+-0.00"... never)."""
    s = fmt_num(v, spec)
    if s.startswith("-") and _NEG_ZERO.match(s):
        return ("+" if "+" in spec else "") + s[1:]
    return s


def formatters(df: pl.DataFrame, specs: dict[str, str]) -> dict[str, Callable[[Any], str]]:
    """A formatter per column: those named in `specs`, `.3f` for any other float column (one
    number of decimals down a column), `.0f` for an integer column with gaps (pandas makes it
    float)."""
    out: dict[str, Callable[[Any], str]] = {}
    for c in df.columns:
        dt = df.schema[c]
        if c in specs or dt.is_float() or (dt.is_integer() and df[c].null_count()):
            spec = specs.get(c, ".3f" if dt.is_float() else ".0f")
            out[c] = lambda v, spec=spec: cell(v, spec)
    return out


def formatted(df: pl.DataFrame, specs: dict[str, str]) -> pl.DataFrame:
    """`df` as text: each formatted column replaced by its text, a missing value anywhere "–"."""
    fns = formatters(df, specs)
    cols = [
        pl.Series(c, [fns[c](v) for v in df[c].to_list()], dtype=pl.String)
        if c in fns
        else df[c].cast(pl.String).fill_null(DASH)
        for c in df.columns
        if c in fns
        or (df[c].null_count() and (df.schema[c] == pl.String or df.schema[c].is_integer()))
    ]
    return df.with_columns(cols) if cols else df


def styled(df: pl.DataFrame, specs: dict[str, str]) -> Styler:
    """What `st.dataframe` shows: cells display `formatted` text. A column without gaps stays
    numeric (sorting, selection and AppTest read the numbers); a column with gaps is shown as
    text, because the grid draws a missing number as "None" whatever the Styler says."""
    fns = formatters(df, specs)
    gappy = [c for c in df.columns if df[c].null_count() or (c in fns and _has_nan(df[c]))]
    shown = df.with_columns(formatted(df.select(gappy), specs)) if gappy else df
    keep = {c: f for c, f in fns.items() if c not in gappy}
    return shown.to_pandas().style.format(keep, na_rep=DASH)  # type: ignore[arg-type]  # pandas-stubs types the formatter dict narrowly


def _has_nan(s: pl.Series) -> bool:
    return bool(s.dtype.is_float() and s.is_nan().any())
