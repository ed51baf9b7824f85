"""AppTest: a link's value that a control does not take is named, with what is shown instead
(a walk found these dropped without a word): the search's page and dataset filter, the "Render
maths" switch, and a casebook collection that is not there."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from cache.casebook.store import open_store
from tests.pages.conftest import new_app, run_page

REFUSED = "is not a value this control takes"


def _said(at: AppTest) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption if REFUSED in c.value]


@pytest.mark.parametrize(
    ("value", "takes"), [("abc", "a page number"), ("99999", "a page these results have")]
)
def test_a_search_page_the_results_lack_is_named(sample_root: Path, value: str, takes: str) -> None:
    at = new_app()
    at.query_params.update(q="double-check", page=value)  # `page` is run_page's own argument
    at.switch_page("pages/search.py")
    at.run()
    assert not at.exception, at.exception
    assert _said(at) == [f"The link's page=“{value}” {REFUSED} ({takes}): “Page” is set to “1”."], (
        _said(at)
    )
    assert "Page 1 of" in "\n".join(c.value for c in at.caption)


def test_a_dataset_filter_the_search_lacks_is_named(sample_root: Path) -> None:
    at = run_page("pages/search.py", q="double-check", ds=["Nope", "MARS"])
    assert not at.exception, at.exception
    (said,) = _said(at)
    assert said.startswith(f"The link's ds=“Nope” {REFUSED} (one of: ")
    assert said.endswith("“Datasets” is set to “MARS”.")
    assert at.query_params["ds"] in ("MARS", ["MARS"])  # the address keeps what is shown
    at.run()
    assert not _said(at)  # said once, on the run that read the link
    at = run_page("pages/search.py", q="double-check", ds="Nope")  # nothing left: what shows
    assert _said(at)[0].endswith("“Datasets” is set to “all datasets”.")


def test_a_maths_switch_value_that_is_no_switch_is_named(sample_root: Path) -> None:
    at = run_page("pages/home.py", maths="maybe")
    assert not at.exception, at.exception
    assert _said(at) == [
        f"The link's maths=“maybe” {REFUSED} (true or false): “Render maths” is set to “off”."
    ], _said(at)


def test_a_collection_that_is_not_there_is_named(db: str, sample_root: Path) -> None:
    open_store(db).create_collection("Demo")
    at = run_page("pages/casebook.py", view="Collections", collection="nope")
    assert not at.exception, at.exception
    assert _said(at) == [
        f"The link's collection=“nope” {REFUSED} (a collection of this casebook): "
        "“Collection” is set to “Demo”."
    ], _said(at)
