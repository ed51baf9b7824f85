"""Lenses: ready-made candidate lists across the datasets, each a rule you can read, with its
count; the chosen lens's items open in their views."""

from __future__ import annotations

import streamlit as st

from components.common.router import ensure_routed
from components.lenses import view

ensure_routed()

st.title("Lenses")
st.caption(
    "Ready-made lists of items worth a look. Each lens is a rule you can read, with how many "
    "items it finds and out of how many; choose one to list its items, each opening in its view "
    "at the item, with the figure that put it there and whether the casebook already has it."
)
RESULT = view.render()
