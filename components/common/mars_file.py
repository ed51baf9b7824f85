"""The MARS file picker that the MARS view and the playground share, bound to `?file=<relpath>`
(one key, so a link carries the file between the two views).

A local folder without the default file opens the first file it has, and the files it lacks say
so in the list. A link naming a file the folder lacks opens the folder's first file too, and
says so: the link's file is never replaced without a word.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from cache.datasets import MARS, MARS_FILES
from cache.sources import SourceConfig
from components.common.cached import present_files
from components.common.deeplink import LinkNotes
from components.common.url_keys import DEFAULT_MARS_FILE
from components.common.url_state import Param, selector_drawn, url_selectbox

FILE_NOTE = (
    "The link asks for the file “{asked}”, which is not one of the MARS files: showing "
    "{shown} instead."
)
FOLDER_NOTE = (
    "The link asks for the file “{asked}”, which this folder does not have: showing {shown}, "
    "the first file it has, instead."
)
NOT_HERE = "  · not in this folder"


def pick_mars_file(
    src: SourceConfig, param: Param, notes: LinkNotes, label: Callable[[str], str]
) -> str:
    """The file picked (a relpath of `MARS_FILES`); `label(relpath)` names it in the list,
    followed by `NOT_HERE` for a file the folder lacks."""
    present = present_files(MARS.name, src)
    raw = notes.asked(param.key)
    first_run = not selector_drawn(param)
    moved = False
    if present and first_run and raw not in present:
        # the default or an unknown name falls back to the default where the folder has it
        moved = raw in MARS_FILES or DEFAULT_MARS_FILE not in present
        if moved:
            st.query_params[param.key] = present[0]  # the first file the folder has

    def shown(r: str) -> str:
        return label(r) + (NOT_HERE if present is not None and r not in present else "")

    rel = str(
        url_selectbox(
            "MARS file (model · benchmark)",
            list(MARS_FILES),
            param,
            DEFAULT_MARS_FILE,
            shown,
            noted=True,  # FILE_NOTE and FOLDER_NOTE below
        )
    )
    known = raw is None or raw in MARS_FILES
    notes.remember("file", raw, known, rel)
    notes.show("file", FILE_NOTE, rel)
    if moved and raw in MARS_FILES:
        notes.remember("folder_file", raw, False, rel)
    elif present is None or raw in present:
        notes.forget("folder_file")  # another source now, or a folder that has the file
    notes.show("folder_file", FOLDER_NOTE, rel)
    return rel
