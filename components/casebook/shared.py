"""What the casebook tabs share: labels, opening a case's saved view, the deleted-case undo."""

from __future__ import annotations

from urllib.parse import urlencode

import polars as pl
import streamlit as st

from cache.casebook.evidence import EVIDENCE_KEY, clean_evidence, snapshot_figures
from cache.casebook.evidence_svg import evidence_svg
from cache.casebook.links import case_path
from cache.casebook.locate import missing
from cache.casebook.model import Case, default_title, shown_value
from cache.datasets import views
from components.common.browser import navigate
from components.common.formatting import DASH
from components.common.safe_text import md_text


def dataset_labels() -> dict[str, str]:
    """A case's dataset (the view it was captured in) -> how the casebook names it."""
    return {v.name: v.label for v in views()}


def dataset_label(dataset: str) -> str:
    """The casebook's name for a case's dataset (the key itself for one not declared)."""
    return dataset_labels().get(dataset, dataset)


UNDO_KEY = "cb_undo"  # id of the case deleted last in this session


def case_title(case: Case) -> str:
    return case.title or default_title(case.dataset, case.item)


# how an item key reads in a list (`Q0 · trace 36`); other keys read `key value`
_ITEM_WORDS = {
    "qid": "Q{}", "trace": "trace {}", "probe": "probe at {}", "uuid": "{:.8}", "node": "node {}",
    "problem": "{}", "sample": "sample {}", "prefix": "prefix {}", "step": "step {}",
    "policy": "{}", "it": "iteration {}", "stage": "stage {}", "subset": "{}",
}  # fmt: skip
_SKIP_ITEM = {"file", "params"}  # the source and a run's long parameter list: in the title


def _verdict_word(snap: dict[str, object]) -> str | None:
    for key in ("final_correct", "correct", "majority_correct"):
        v = snap.get(key)
        if isinstance(v, bool):
            return "right" if v else "wrong"
    return None


def short_label(case: Case) -> str:
    """What tells a case apart from its neighbours in a list: `Q0 · trace 36 · wrong · 1005`."""
    parts = [
        _ITEM_WORDS.get(k, k + " {}").format(shown_value(k, v, case.view))
        for k, v in case.item.items()
        if k not in _SKIP_ITEM and v != ""
    ]
    word = _verdict_word(case.snapshot)
    if word:
        parts.append(word)
    length = case.snapshot.get("length")
    if isinstance(length, int | float) and not isinstance(length, bool):
        parts.append(f"{int(length):,} tok")
    return " · ".join(parts) or case_title(case)


def case_href(case: Case, **extra: str) -> str | None:
    """The case's view as a path relative to the app's root, built from the explorer's own views
    and URL-encoded keys (`cache.casebook.links`), plus `extra` keys; None when the case's view is
    not one of ours."""
    path = case_path(case.view, case.query)
    if path is None:
        return None
    if not extra:
        return path
    return f"{path}{'&' if '?' in path else '?'}{urlencode(extra)}"


def open_case(case: Case, **extra: str) -> None:
    """Go to the view where the case was captured, in the state it was captured in: the browser
    loads the case's URL, as a shared link would (whatever keys the state holds)."""
    path = case_href(case, **extra)
    if path is None:
        st.error(
            f"This case was captured in a view this version does not have "
            f"({md_text(case.view, 80)}), so it cannot be opened. Its figures at capture time "
            "are shown with the case.",
            icon=":material/link_off:",
        )
        return
    navigate(path)


def snapshot_table(case: Case) -> None:
    """The case's key figures at capture time, and its evidence picture when one was stored
    (our own SVG of escaped text and numbers, see `cache.casebook.evidence_svg`)."""
    figures = snapshot_figures(case.snapshot)
    if figures:
        rows = [{"figure": k, "at capture": str(v)} for k, v in figures.items()]
        st.dataframe(pl.DataFrame(rows), hide_index=True, width="stretch", placeholder=DASH)
    if clean_evidence(case.snapshot.get(EVIDENCE_KEY)) is not None:
        st.html(
            "<div style='max-width:760px'>" + evidence_svg(case.snapshot[EVIDENCE_KEY]) + "</div>"
        )


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
