"""What the casebook tabs share: labels, opening a case's saved view, the deleted-case undo."""

from __future__ import annotations

from collections import defaultdict

import polars as pl
import streamlit as st

from cache.casebook.locate import missing
from cache.casebook.model import Case, default_title
from components.common.links import VIEWS

DATASET_LABELS = {
    "parason": "Parason",
    "mars": "MARS",
    "playground": "Stopping playground",
    "fineproofs": "FineProofs",
}
UNDO_KEY = "cb_undo"  # id of the case deleted last in this session


def case_title(case: Case) -> str:
    return case.title or default_title(case.dataset, case.item)


def view_query(case: Case, **extra: str) -> dict[str, str | list[str]]:
    """The case's deep-link query (repeated keys as lists) plus `extra` keys."""
    grouped: dict[str, list[str]] = defaultdict(list)
    for k, v in case.query:
        if k not in extra:
            grouped[k].append(v)
    out: dict[str, str | list[str]] = {k: v[0] if len(v) == 1 else v for k, v in grouped.items()}
    out.update(extra)
    return out


def open_case(case: Case, **extra: str) -> None:
    """Go to the view where the case was captured, in the state it was captured in."""
    view = VIEWS.get(case.view)
    if view is None:
        st.error(f"This case was captured in a view this version does not have ({case.view}).")
        return
    st.switch_page(view.script, query_params=view_query(case, **extra))


def snapshot_table(case: Case) -> None:
    if case.snapshot:
        rows = [{"figure": k, "at capture": str(v)} for k, v in case.snapshot.items()]
        st.dataframe(pl.DataFrame(rows), hide_index=True, width="stretch")


@st.cache_data(show_spinner=False, ttl=60, max_entries=512)
def _missing(
    dataset: str, source: tuple[tuple[str, str], ...], item: tuple[tuple[str, str], ...]
) -> str:
    return missing(dataset, dict(source), dict(item))


def item_missing(case: Case) -> str:
    """Why the case's view cannot be restored ("" when it can). Cached for a minute: the
    present banner asks on every rerun of the view under it."""
    return _missing(
        case.dataset, tuple(sorted(case.source.items())), tuple(sorted(case.item.items()))
    )
