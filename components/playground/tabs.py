"""The playground's result tabs. Only the open tab runs (the others are neither computed nor
sent), so a shared link paints the frontier without building the per-question table, the
replay or the reference diff. The open tab lives in the URL (`?view=`)."""

from __future__ import annotations

import streamlit as st

from components.common.deeplink import LinkNotes
from components.common.url_keys import PlaygroundKeys
from components.common.url_state import url_tabs
from components.playground.replay import ITERATION_KEY

TABS = ("Frontier", "Questions", "Compare", "Reference", "Downloads")
TABS_KEY = "view"
REPLAY_KEYS = (PlaygroundKeys.QID.key, ITERATION_KEY)
_DEFAULT_STATE = "_pg_tab_default"


def default_tab() -> str:
    """Questions when the link names a question or an iteration to replay (a replay case's
    link), else the frontier. Fixed for the session: the replay writes `qid` into the URL, and
    a default that moved with it would reset the tabs."""
    if _DEFAULT_STATE not in st.session_state:
        asked = any(LinkNotes.asked(k) is not None for k in REPLAY_KEYS)
        st.session_state[_DEFAULT_STATE] = "Questions" if asked else "Frontier"
    return str(st.session_state[_DEFAULT_STATE])


def result_tab() -> str:
    """The open tab's name (its row drawn here; the caller draws its content only)."""
    return url_tabs("Playground results", TABS, TABS_KEY, default_tab())
