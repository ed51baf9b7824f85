"""AppTest of the "Render maths" switch: off, every text is drawn as before; on (the sidebar
toggle, or `?maths=true` in a link), the reasoning texts of Parason, FineProofs, MARS and the
casebook hand their maths spans to the text component with Streamlit's KaTeX, and markup in the
data stays text inside and outside the maths."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from cache.casebook.model import make_case
from cache.casebook.store import open_store
from cache.fineproofs_io import load_trace
from cache.maths_spans import maths_spans
from cache.sample.parason import make_uuid
from components.common.maths import MATHS, MATHS_KEY, katex_assets
from components.common.url_state import selector_key
from tests.pages.conftest import new_app
from tests.pages.controls import light_controls

FOUR = make_uuid("not-div-7-11")
HTML_ROW = make_uuid("malformed-html-script")
WRAP = re.compile(r'<span class="rte-maths" data-tex="([^"]*)" data-display="[01]">')
XSS = "<img src=x onerror=alert(1)> **bold** [link](http://evil)"


def _run(page: str, **params: str) -> AppTest:
    at = new_app()
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> list[dict]:
    """The payloads of every text component drawn (the clickable text and the text blocks)."""
    return [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name == "rte_click_text"
    ]


def _all_html(at: AppTest) -> str:
    return "\n".join([*(h.proto.body for h in at.get("html")), *(t["html"] for t in _texts(at))])


def _shown(at: AppTest) -> list[str]:
    """The text of every HTML block and text component, tags removed, in a fixed order."""
    blocks = [h.proto.body for h in at.get("html")] + [t["html"] for t in _texts(at)]
    return sorted(html.unescape(re.sub(r"<[^>]+>", "", b)) for b in blocks)


def test_streamlit_ships_katex() -> None:
    assets = katex_assets()
    assert assets is not None and assets.js.startswith("static/js/katex.")


def _switch(at):  # type: ignore[no-untyped-def]
    (switch,) = [c for c in light_controls(at) if c.label == "Render maths"]
    return switch


def test_the_switch_is_in_the_sidebar_and_bound_to_the_url() -> None:
    at = _run("pages/parason.py", uuid=FOUR, node="answer")
    assert _switch(at).kind == "switch" and _switch(at).on is False
    sidebar = at.sidebar.get("bidi_component")
    assert any(c.proto.component_name.endswith("rte_light_control") for c in sidebar)
    assert all(t["katex"] is None for t in _texts(at))
    assert "rte-maths" not in _all_html(at)
    assert MATHS_KEY not in at.query_params
    at.session_state[selector_key(MATHS)] = True  # what a flip of the switch sets before the run
    at.run()
    assert not at.exception
    payloads = _texts(at)
    assert payloads and all(t["katex"]["js"] == katex_assets().js for t in payloads)  # type: ignore[union-attr]
    assert "\\boxed{" in " ".join(html.unescape(t) for t in WRAP.findall(_all_html(at)))


def test_a_link_with_maths_on_typesets_parason_and_keeps_markup_text() -> None:
    at = _run("pages/parason.py", uuid=HTML_ROW, node="b0t0", maths="true")
    assert _switch(at).on is True
    out = _all_html(at)
    assert "<script" not in out.lower() and "<img" not in out.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert WRAP.search(out)  # the question's `$a<b>c$` and the like
    off = _run("pages/parason.py", uuid=HTML_ROW, node="b0t0")
    # the same characters on screen either way (a block with maths moves into the component, so
    # the blocks are compared in any order): only whole maths spans gained a wrapper
    assert _shown(at) == _shown(off)


def test_fineproofs_trace_text_wraps_its_formulas(sample_root: Path) -> None:
    root = sample_root / "fineproofs"
    traces = pl.read_parquet(root / "data/prefix_values.parquet").select(
        "problem_id", "sample_index"
    )
    pid, sample = next(
        (p, s)
        for p, s in traces.unique(maintain_order=True).rows()
        if maths_spans(load_trace(root, p, s).text)
    )
    off = _run("pages/fineproofs.py", problem=pid, sample=str(sample), view="Trace")
    on = _run("pages/fineproofs.py", problem=pid, sample=str(sample), view="Trace", maths="true")
    text_off = next(t["html"] for t in _texts(off) if "fp-trace-text" in t["html"])
    text_on = next(t["html"] for t in _texts(on) if "fp-trace-text" in t["html"])
    assert "rte-maths" not in text_off and WRAP.search(text_on)
    assert text_on.count("data-pick=") == text_off.count("data-pick=")  # every step still picks


@pytest.fixture()
def note_case(db: str) -> str:
    case = make_case(
        "mars",
        "mars",
        query=[("file", "DeepSeek-8B/aime25_deepseek.parquet"), ("qid", "3")],
        source={"kind": "sample", "file": "DeepSeek-8B/aime25_deepseek.parquet"},
        item={"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": "3"},
        title="maths in a note",
        note=f"{XSS} and $x^2 {XSS}$ and $\\frac{{1}}{{$",
        author="ada",
    )
    open_store(db).add(case)
    return case.id


def test_casebook_note_maths_on_and_off(note_case: str, sample_root: Path) -> None:
    off = _all_html(_run("pages/casebook.py", case=note_case))
    assert "rte-maths" not in off and "<strong>bold</strong>" in off
    on = _all_html(_run("pages/casebook.py", case=note_case, maths="true"))
    texs = [html.unescape(t) for t in WRAP.findall(on)]
    # `$\frac{1}{$` is wrapped too: the browser finds it does not parse and leaves it as written
    assert texs == [f"x^2 {XSS}", "\\frac{1}{"]
    assert "<strong>bold</strong>" in on  # the note's own Markdown, outside maths
    assert "<img" not in on and "&lt;img src=x onerror=alert(1)&gt;" in on
    inside = on[on.index("rte-maths") :]
    inside = inside[: inside.index("</span>")]
    assert "<strong>" not in inside and "<a " not in inside  # no Markdown inside the formula


def test_mars_probe_text_and_ground_truth(sample_root: Path) -> None:
    rel = "DeepSeek-8B/brumo25_deepseek.parquet"
    gts = pl.read_parquet(sample_root / "mars" / rel).select("qid", "ground_truth").unique()
    qid = str(gts.filter(pl.col("ground_truth").str.contains("\\\\"))["qid"].sort()[0])
    at = _run("pages/mars.py", file=rel, qid=qid, trace="0", view="Single trace", maths="true")
    payloads = _texts(at)
    gt = [t for t in payloads if "Ground truth" in t["html"]]
    assert gt and WRAP.search(gt[0]["html"])  # a bare ground truth is one formula
    probes = [t for t in payloads if "<pre" in t["html"]]
    off = _run("pages/mars.py", file=rel, qid=qid, trace="0", view="Single trace")
    assert any("Ground truth" in h.proto.body for h in off.get("html"))
    assert not [t for t in _texts(off) if "Ground truth" in t["html"]]
    assert all(t["katex"] is not None for t in probes)


def test_without_katex_the_switch_says_so_and_text_shows_as_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from components.common import maths

    monkeypatch.setattr(maths, "katex_assets", lambda static=None: None)
    at = _run("pages/parason.py", uuid=FOUR, node="answer", maths="true")
    assert _switch(at).disabled and _switch(at).on is False
    assert any("unavailable" in c.value for c in at.sidebar.caption)
    assert "rte-maths" not in _all_html(at)
    assert all(t["katex"] is None for t in _texts(at))


def test_present_mode_carries_the_switch_to_each_step() -> None:
    def script() -> None:
        import streamlit as st

        from cache.casebook.model import make_case
        from components.casebook.present import step_path

        plain = make_case("mars", "mars", query=[("qid", "3")], item={"qid": "3"})
        with_it = make_case("mars", "mars", query=[("qid", "4"), ("maths", "true")])
        st.write(step_path("c1", [plain, with_it], 1))
        st.write(step_path("c1", [plain, with_it], 2))

    at = AppTest.from_function(script)
    at.query_params["maths"] = "true"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    first, second = (m.value for m in at.markdown)
    assert first.endswith("&maths=true") and "present=c1" in first
    assert second.count("maths=") == 1  # a case captured with the switch on keeps its own
    off = AppTest.from_function(script).run()
    assert "maths" not in off.markdown[0].value
