"""AppTest of the MARS trace filters and wrong-trace stepping: filters from the URL, the Single
trace picker lists only matching traces, "Next wrong trace" moves to the next wrong one, the
Curves tab draws only matching traces, and an empty result says what to loosen."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest

from analysis.mars import trace_filters as tf
from analysis.mars.store import load_features
from cache.sample.mars import write_file
from components.mars.trace_chart import LITE_POINTS, bin_means
from components.mars.trace_nav import NEXT_KEY, PREV_KEY
from tests.pages.charts import lite_specs, plotly_specs
from tests.pages.conftest import run_page
from tests.pages.controls import light_control, light_controls

REL = "DeepSeek-8B/aime25_deepseek.parquet"
PAGE = "pages/mars.py"


@pytest.fixture(scope="module")
def local_mars(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mars_traces")
    write_file(root / REL, "hmmt", 20, seed=9, drop=1, n_questions=4, median_len=6000)
    return root


@pytest.fixture
def open_page(local_mars: Path, monkeypatch):
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(local_mars))
    return lambda **params: run_page(PAGE, **params)


def _feats(root: Path, qid: int) -> pl.DataFrame:
    return load_features(root / REL).question(qid).sort("trace_idx")


def _ok(at) -> None:  # type: ignore[no-untyped-def]
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _picker(at) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    """The trace picker's options (as shown) and the trace it shows."""
    c = light_control(at, "Trace")
    assert c.kind == "combo"  # a picker one can type into
    return SimpleNamespace(options=c.options, value=int(c.shown.split()[1]))


def _url(at, key: str) -> str | None:  # type: ignore[no-untyped-def]
    v = at.query_params.get(key)
    return v[0] if isinstance(v, list) else v


def test_the_picker_lists_only_the_traces_the_url_filters_pass(open_page, local_mars) -> None:
    feats = _feats(local_mars, 2)
    want = tf.apply(feats, tf.TraceFilter(verdict=tf.WRONG, answers=(r"\frac{5}{8}",)))
    at = open_page(qid="2", view="Single trace", verdict="wrong", answer=r"\frac{5}{8}")
    _ok(at)
    assert _picker(at).options == [
        f"trace {t} · wrong · {n / 1000:.1f}k tokens"
        for t, n in want.select("trace_idx", "length").iter_rows()
    ]
    assert any(f"{want.height} of {feats.height} traces match" in c.value for c in at.caption), [
        c.value for c in at.caption
    ]


def test_a_links_unknown_verdict_is_said(open_page, local_mars) -> None:
    """`verdict=maybe` is no verdict: the filter says so (Streamlit's bound widget dropped it
    without a word) and shows every trace; a known verdict gets no such line."""
    at = open_page(qid="2", view="Single trace", verdict="maybe")
    _ok(at)
    notes = [c.value for c in at.caption if "The link's verdict" in c.value]
    assert notes and "“maybe” is not one of" in notes[0]
    at = open_page(qid="2", view="Single trace", verdict="wrong")
    assert not any("The link's verdict" in c.value for c in at.caption)


def test_length_and_confidence_ranges_from_the_url(open_page, local_mars) -> None:
    feats = _feats(local_mars, 1)
    lo, hi = sorted(feats["length"].to_list())[5], sorted(feats["length"].to_list())[15]
    at = open_page(qid="1", view="Single trace", length=[str(lo), str(hi)], conf_by="mean")  # type: ignore[arg-type]  # a repeated key
    _ok(at)
    want = tf.apply(feats, tf.TraceFilter(length=(lo, hi)))
    assert [int(o.split()[1]) for o in _picker(at).options] == want["trace_idx"].to_list()
    assert any(s.label == "mean confidence" for s in at.slider)


def test_next_wrong_trace_steps_through_the_wrong_traces(open_page, local_mars) -> None:
    feats = _feats(local_mars, 1)
    wrong = tf.apply(feats, tf.TraceFilter(verdict=tf.WRONG))["trace_idx"].to_list()
    at = open_page(qid="1", view="Single trace", trace=str(wrong[0]))
    _ok(at)
    assert at.button(key=PREV_KEY).disabled
    for expected in wrong[1:3]:
        at.button(key=NEXT_KEY).click().run()
        _ok(at)
        assert _picker(at).value == expected
        assert _url(at, "trace") == str(expected)
        assert any("Final answer (wrong)" in h.proto.body for h in at.get("html"))
    at.button(key=PREV_KEY).click().run()
    assert _picker(at).value == wrong[1]


def test_stepping_respects_the_filters(open_page, local_mars) -> None:
    """With an answer filter, the next wrong trace is the next wrong one with that answer: the
    wrong traces with other answers between them are skipped."""
    feats = _feats(local_mars, 1)
    shown = tf.apply(feats, tf.TraceFilter(answers=("4703",)))["trace_idx"].to_list()
    assert len(shown) == 3 and shown[1] - shown[0] > 1
    at = open_page(qid="1", view="Single trace", answer="4703")
    _ok(at)
    assert _picker(at).value == shown[0]
    at.button(key=NEXT_KEY).click().run()
    assert _picker(at).value == shown[1]
    at.button(key=NEXT_KEY).click().run()
    assert _picker(at).value == shown[2]
    assert at.button(key=NEXT_KEY).disabled


def test_the_curves_draw_only_the_matching_traces(open_page, local_mars) -> None:
    at = open_page(qid="1", verdict="right", n="20")
    _ok(at)
    feats = _feats(local_mars, 1)
    n_right = tf.apply(feats, tf.TraceFilter(verdict=tf.RIGHT)).height
    names = [t["name"] for t in lite_specs(at)[-1]["traces"]]
    assert any(n.startswith(f"right final answer ({n_right})") for n in names), names
    assert not any(n.startswith("wrong final answer") for n in names), names
    assert any(f"{n_right} of {feats.height} traces match" in c.value for c in at.caption)


def test_an_empty_result_says_what_to_loosen(open_page) -> None:
    at = open_page(qid="1", view="Single trace", verdict="no answer", answer="4668")
    _ok(at)
    assert not any(c.label == "Trace" for c in light_controls(at))  # no picker, no chart
    (info,) = [i.value for i in at.info if "No trace of this question matches" in i.value]
    assert "Loosen the verdict (10 would match without it)" in info
    assert "the final answer (1 would match without it)" in info


def test_the_single_trace_tab_opens_on_a_light_chart_and_zoom_draws_plotly(
    open_page, local_mars
) -> None:
    at = open_page(qid="1", view="Single trace", trace="3")
    _ok(at)
    assert not plotly_specs(at)
    spec = lite_specs(at)[-1]
    line = spec["traces"][0]
    assert line["name"].startswith("token confidence (smoothed over 64)")
    assert len(line["y"]) <= LITE_POINTS
    at = open_page(qid="1", view="Single trace", trace="3", zoom="true")
    _ok(at)
    (fig,) = plotly_specs(at)
    assert fig["data"][0]["name"].startswith("token confidence")


def test_bin_means_skip_nan_and_keep_the_short_last_bin() -> None:
    import numpy as np

    got = bin_means(np.array([1.0, 3.0, np.nan, 5.0, 7.0]), 2)
    assert got.tolist() == [2.0, 5.0, 7.0]
    assert np.isnan(bin_means(np.array([np.nan, np.nan]), 2)[0])


def test_a_linked_trace_the_filters_leave_out_says_so(open_page, local_mars) -> None:
    feats = _feats(local_mars, 1)
    right = tf.apply(feats, tf.TraceFilter(verdict=tf.RIGHT))["trace_idx"].to_list()
    wrong = tf.apply(feats, tf.TraceFilter(verdict=tf.WRONG))["trace_idx"].to_list()
    at = open_page(qid="1", view="Single trace", verdict="wrong", trace=str(right[0]))
    _ok(at)
    assert _picker(at).value == wrong[0]
    assert any(
        f"Trace {right[0]} does not match the filters: showing trace {wrong[0]}." in c.value
        for c in at.caption
    )
    assert _url(at, "trace") == str(wrong[0])


def test_a_closed_filter_bar_with_no_filter_draws_no_widget(open_page) -> None:
    """The bar's widgets are most of what the view costs to draw in a new tab: closed with no
    filter set it draws none; opened, all of them; a filter in the URL opens it."""
    at = open_page(qid="1")
    _ok(at)
    assert not any(s.label == "Length (tokens)" for s in at.slider)
    assert not any(m.label == "Final answer" for m in at.multiselect)
    assert any("Filter traces" in e.label for e in at.expander)  # the bar is there, closed
    at.session_state["mars_filter_open"] = True
    at.run()
    _ok(at)
    assert any(s.label == "Length (tokens)" for s in at.slider)
    assert any(m.label == "Final answer" for m in at.multiselect)
    asked = open_page(qid="1", verdict="wrong")
    _ok(asked)
    assert any(m.label == "Final answer" for m in asked.multiselect)


def test_k_and_j_step_unless_a_triage_queue_owns_the_letter_keys(
    open_page, local_mars, db: str
) -> None:
    """The buttons answer K and J; while a triage queue is open its bar owns `j`/`k` (next
    item), so the trace buttons carry no shortcut (one key, one meaning)."""
    at = open_page(qid="2", view="Single trace", verdict="wrong")
    _ok(at)
    keys = (at.button(key=PREV_KEY).proto.shortcut, at.button(key=NEXT_KEY).proto.shortcut)
    assert keys == ("k", "j")  # Streamlit stores "K" / "J" in lower case
    at = open_page(qid="2", view="Single trace", verdict="wrong", triage="q1")
    assert not at.exception, at.exception
    assert not at.button(key=PREV_KEY).proto.shortcut and not at.button(key=NEXT_KEY).proto.shortcut


def test_a_links_chart_options_that_the_controls_refuse_are_said(open_page, local_mars) -> None:
    """Streamlit's URL-bound controls drop a value they do not take without a word: each says
    what the link asked for and what it shows; values they take get no such line."""
    at = open_page(qid="1", n="0", win="4096", probes_by="zzz", policy="nope", conf_by="loud")
    _ok(at)
    said = " ".join(c.value for c in at.caption if "The link's" in c.value).replace("\\", "")
    keys = [("win", "4096"), ("probes_by", "zzz"), ("policy", "nope"), ("conf_by", "loud")]
    for key, asked in keys:
        # the choices named, so a reader sees what would have been valid
        assert f"The link's {key}=“{asked}” is not a value this control takes (one of: " in said
    assert "(one of: 256, 512, 1,024, 2,048)" in said  # the windows, as the control shows them
    assert "The link's n=“0” is not a value this control takes (a whole number from 1 to " in said
    assert "“Window (tokens)” is set to “2,048”" in said  # the window as the control shows it
    # and one line atop the view names them all: each line above may be far down the page
    (top,) = [w.value for w in at.warning if w.value.startswith("This link holds values")]
    for key, asked in [("n", "0"), *keys]:
        assert f"({key}={asked})" in top.replace("\\", ""), key
    main = [getattr(e, "value", None) for e in at.main]  # atop the view: before its title
    assert main.index(top) < main.index("MARS pools")
    at = open_page(qid="1", n="3", win="1,024", probes_by="correctness", policy="none")
    _ok(at)
    assert not [c.value for c in at.caption if "The link's" in c.value]
    assert not [w.value for w in at.warning if w.value.startswith("This link holds")]
