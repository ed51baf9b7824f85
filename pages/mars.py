"""MARS pools: confidence along correct and wrong traces, where probe answers settle, and when
the pool's vote knows the answer."""

from __future__ import annotations

import streamlit as st

from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.mars import cached as mc
from components.mars import header
from components.mars.view import render_question

ensure_routed()

st.title("MARS pools")
st.caption(
    "How does confidence behave along right and wrong traces, where do the intermediate (probed) "
    "answers settle, and when does the majority vote of the pool 'know' the answer?"
)

src = current_source(header.DATASET)
rel = header.pick_file(src)

store = None
with guard("the MARS feature table", dataset=header.DATASET):
    store = mc.store(rel, src)

if store is not None:
    with guard("the file's data notes", dataset=header.DATASET):
        header.show_notes(store.notes.filter(store.notes["qid"] == -1), "the whole file")
    qid = None
    with guard("the question overview", dataset=header.DATASET):
        qid = header.pick_question(rel, src, store)
    if qid is not None:
        with guard(f"question {qid}", dataset=header.DATASET):
            render_question(rel, src, store, int(qid))
