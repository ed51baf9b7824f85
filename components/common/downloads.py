"""Downloads have one home: every file is named after the view state it holds.

`file_stem("mars", rel, "q3", "features")` -> `mars_DeepSeek-8B_aime25_deepseek_q3_features`:
dataset, file, item, policy and parameters, so a folder of downloads explains itself (never a
bare `results.csv`). Bytes are built lazily, only when the button is pressed.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import polars as pl
import streamlit as st

_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]+")
MAX_STEM = 160

Frame = pl.DataFrame | pd.DataFrame


def file_stem(*parts: object) -> str:
    """A file-name stem from view-state parts: slashes and odd characters become `_`, a `.parquet`
    suffix of a source file is dropped, empty parts are skipped, the result is bounded."""
    words = []
    for part in parts:
        if part is None or part == "":
            continue
        text = str(part).removesuffix(".parquet").removesuffix(".json.gz")
        text = _UNSAFE.sub("_", text).strip("_.")
        if text:
            words.append(text)
    stem = "_".join(words) or "download"
    return stem[:MAX_STEM].rstrip("_.")


def _flat(df: pl.DataFrame) -> pl.DataFrame:
    """CSV has no lists: list columns become space-joined strings, structs JSON-ish text."""
    cols = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.List | pl.Array):
            cols.append(pl.col(name).cast(pl.List(pl.String)).list.join(" ").alias(name))
        elif isinstance(dtype, pl.Struct | pl.Object):
            cols.append(pl.col(name).map_elements(str, return_dtype=pl.String).alias(name))
    return df.with_columns(cols) if cols else df


def csv_bytes(df: Frame) -> bytes:
    if isinstance(df, pd.DataFrame):
        return df.to_csv(index=False).encode()
    return _flat(df).write_csv().encode()


def parquet_bytes(df: Frame) -> bytes:
    buf = io.BytesIO()
    if isinstance(df, pd.DataFrame):
        df.to_parquet(buf, index=False)
    else:
        df.write_parquet(buf)
    return buf.getvalue()


FORMATS: dict[str, tuple[str, str, Callable[[Any], bytes]]] = {
    "csv": ("CSV", "text/csv", csv_bytes),
    "parquet": ("Parquet", "application/octet-stream", parquet_bytes),
}


def download_buttons(
    df: Frame | Callable[[], Frame],
    stem: str,
    key: str,
    formats: Sequence[str] = ("csv", "parquet"),
    columns: Sequence[Any] | None = None,
    label: str | None = None,
) -> None:
    """One button per format for `df` (a frame, or a function giving it when pressed), named
    `<stem>.<ext>`. `columns` places the buttons (default: one wrapping row, each button as wide
    as its label, so no label is cut on a narrow screen)."""
    if columns is None:
        row = st.container(horizontal=True)
        slots: list[Any] = [row] * len(formats)
    else:
        slots = list(columns)
    for slot, fmt in zip(slots, formats, strict=False):
        name, mime, to_bytes = FORMATS[fmt]

        def data(to_bytes: Callable[[Any], bytes] = to_bytes) -> bytes:
            return to_bytes(df() if callable(df) else df)

        slot.download_button(
            f"Download {label + ' ' if label else ''}{name}",
            data,
            file_name=f"{stem}.{fmt}",
            mime=mime,
            on_click="ignore",
            key=f"{key}_{fmt}",
            width="content",
        )


def download_file(
    data: Callable[[], bytes],
    stem: str,
    ext: str,
    key: str,
    label: str,
    mime: str = "application/octet-stream",
    disabled: bool = False,
    help: str | None = None,
) -> None:
    """One button for a file that is not a table (a standalone figure, a report), named
    `<stem>.<ext>`; `data` runs only when the button is pressed."""
    st.download_button(
        label,
        data,
        file_name=f"{stem}.{ext}",
        mime=mime,
        on_click="ignore",
        key=key,
        disabled=disabled,
        help=help,
    )
