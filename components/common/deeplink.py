"""Deep links that ask for something the data does not have (`?qid=999`, `?trace=99999`, an
unknown file or policy): a visible note naming what was asked and what is shown instead, never a
silent fallback.

Why a session note: the pickers rewrite the URL to what they show on the first run, so the bad
value is gone from the URL by the next rerun; the note stays while the fallback is on screen
and goes once the user picks something else.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from components.common.safe_text import md_text


class LinkNotes:
    """The deep-link notes of one view, kept in the session under the view's own key."""

    def __init__(self, view: str) -> None:
        self.state_key = f"_{view}_link_notes"

    @staticmethod
    def asked(key: str) -> str | None:
        """The raw value the URL holds under `key` (None when absent or empty)."""
        raw = st.query_params.get(key)
        return raw if raw else None

    def remember(self, key: str, value: str | None, ok: bool, shown: Any) -> None:
        """Record that the link asked for `value` under `key` and could not have it (`ok`
        False), so `show` says so while `shown` is what the view shows."""
        notes = st.session_state.setdefault(self.state_key, {})
        if value is not None and not ok:
            notes[key] = (value, shown)

    def forget(self, key: str) -> None:
        """Drop the note for `key` (what it named no longer holds, e.g. another data source)."""
        st.session_state.get(self.state_key, {}).pop(key, None)

    def show(self, key: str, sentence: str, shown: Any) -> None:
        """Draw the note for `key` while the fallback `shown` is still on screen. `sentence` is
        our text with `{asked}` (escaped here) and `{shown}` placeholders."""
        notes = st.session_state.get(self.state_key, {})
        note = notes.get(key)
        if note is None:
            return
        value, fallback = note
        if fallback != shown:  # the user moved on
            notes.pop(key, None)
            return
        st.warning(
            sentence.format(asked=md_text(value, 80), shown=md_text(shown, 120)),
            icon=":material/link_off:",
        )
