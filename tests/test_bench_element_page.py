"""The element-cost bench's page (`bench/element_page.py`): every part it times runs without an
error, and each draws what its name says on top of the bare page, so a ratio it prints is that
part's and not an error box's or an empty page's."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from bench.element_page import NAVIGATION, PARTS, SHELL

PAGE = str(Path(__file__).resolve().parents[1] / "bench" / "element_page.py")
# parts whose output is no element in the page's tree: a style sheet (Streamlit keeps it out of
# the main body) and the navigation (drawn by the frontend from the page list)
NOT_IN_TREE = {"table style (shell)", NAVIGATION}


def _count(at: AppTest) -> int:
    return sum(1 for _ in at.main) + sum(1 for _ in at.sidebar)


def test_every_part_draws_itself_on_the_bare_page() -> None:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params["part"] = "nothing more"
    at.run()
    assert not at.exception
    assert at.title[0].value == "A bare Streamlit page" and len(at.markdown) == 6
    bare = _count(at)
    drawn = {}
    for part in PARTS:
        at.query_params["part"] = part
        at.run()
        assert not at.exception, part
        assert at.title[0].value == "A bare Streamlit page", part
        drawn[part] = _count(at) - bare
    assert drawn["nothing more"] == 0
    assert all(n > 0 for p, n in drawn.items() if p not in NOT_IN_TREE | {"nothing more", SHELL}), (
        drawn
    )
    assert drawn["selectbox"] == 1 and drawn["20 markdown"] == 20
    # the whole shell draws each of its sidebar parts
    sidebar_parts = ("maths switch (shell)", "browser bridge (shell)", "data sources (shell)")
    assert drawn[SHELL] == sum(drawn[p] for p in sidebar_parts)
