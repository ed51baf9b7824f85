"""The "Data" tab: the question's feature rows, and their download named after file + question."""

from __future__ import annotations

import polars as pl
import streamlit as st

from components.common.downloads import download_buttons, file_stem
from components.common.lite_table import grid_switch, table_or_grid

DOWNLOAD_KEY = "mars_features_download"


def render_data(feats: pl.DataFrame, qid: int, rel: str) -> None:
    scalar = [c for c, t in feats.schema.items() if not isinstance(t, pl.List)]
    # the switch and content-wide buttons in one row (narrow columns cut the labels)
    row = st.container(horizontal=True, vertical_alignment="center")
    grid = grid_switch("data_grid", container=row)
    download_buttons(
        feats, file_stem("mars", rel, f"q{qid}", "features"), key=DOWNLOAD_KEY, columns=[row, row]
    )
    table_or_grid(
        feats.select(scalar), key="mars_data", grid=grid, height=360, label="The question's traces"
    )
    st.caption(
        "One row per trace: final answer group and correctness, confidence features "
        "(mean, tail, lowest group, bottom 10%), conf_at_pos and answer group at every multiple of "
        "2,048 tokens, probe answers and the plotting curve. (The record lows of the group "
        "confidence, used for DeepConf truncation, stay in the cached table the playground reads.)"
    )
