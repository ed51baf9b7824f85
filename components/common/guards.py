"""The one component that renders data errors, and the page-section guard.

Set `RTE_STRICT=1` (the test suite does) to re-raise bugs instead, so AppTest and the browser
tests see them. A `DataError` becomes an error box with its hint (and, for source problems, a button back to the
bundled sample). Any other exception is a bug: it is logged with its traceback on the server and
shown to the user as a short box, never as a traceback.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from cache.access import locked
from cache.errors import DataError, HubUnavailable, SourceNotFound
from components.common.safe_text import md_text
from components.common.source_picker import use_sample

log = logging.getLogger("rte")


def show_error(exc: DataError, dataset: str | None = None, key: str = "") -> None:
    """Render a data error: what is wrong, and what to do."""
    # messages quote column names, ids and values from the data: never let them become markdown
    stop = "" if exc.title.endswith(("?", "!", ".")) else "."  # not "Who is writing?."
    text = f"**{exc.title}{stop}** {md_text(exc.message, 600)}"
    if exc.hint:
        text += f"  \n*What to do:* {md_text(exc.hint, 600)}"
    st.error(text, icon="⚠️")
    if dataset and not locked() and isinstance(exc, HubUnavailable | SourceNotFound):
        st.button(
            "Use the bundled sample instead",
            key=f"back_to_sample_{dataset}_{key}",
            on_click=use_sample,
            args=(dataset,),
        )


def show_bug(exc: BaseException, where: str = "this view") -> None:
    """A programming error: log the traceback server-side, show a short message."""
    log.exception("unexpected error in %s", where, exc_info=exc)
    if os.environ.get("RTE_STRICT") == "1":  # tests: a bug must fail loudly, not hide in a box
        raise exc
    st.error(
        f"**Something went wrong in {md_text(where)}.** {type(exc).__name__}: {md_text(exc)}  \n"
        "This is a bug in the explorer, not in your data. Other views keep working; "
        "the details are in the server log.",
        icon="🐞",
    )


@contextmanager
def guard(where: str, dataset: str | None = None) -> Iterator[None]:
    """Run a page section; on failure show a message and let the rest of the page render."""
    try:
        yield
    except DataError as exc:
        show_error(exc, dataset=dataset, key=where)
    except Exception as exc:  # noqa: BLE001 - page boundary: never a traceback
        show_bug(exc, where)
