"""AppTest of the MARS page: deep links into every tab, clicking through controls, and a file
full of bad data that must give notes, never a traceback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis.mars.store import load_features
from cache.casebook.model import make_case
from cache.casebook.store import open_store
from cache.datasets import MARS_FILES
from cache.sample.mars import SCHEMA, write_file
from components.common.lite_spec import plain_text, unpack
from components.common.safe_text import esc
from components.mars import header as mars_header
from components.mars.file_summary import SIGNAL_NAMES
from tests.pages.charts import lite_specs, plotly_specs
from tests.pages.conftest import new_app, run_page
from tests.pages.controls import choose, light_control, light_radio_options, light_select
from tests.pages.stats import shown_metrics
from tests.pages.tables import lite_payloads, shown_tables

REL = "DeepSeek-8B/aime25_deepseek.parquet"
PAGE = "pages/mars.py"


@pytest.fixture(scope="module")
def local_mars(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mars_page")
    write_file(root / REL, "hmmt", 20, seed=9, drop=1, n_questions=4, median_len=6000)
    return root


@pytest.fixture
def open_page(local_mars: Path, monkeypatch):
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(local_mars))

    def make(**params: str):
        return run_page(PAGE, **params)

    return make


def _charts(at) -> list[dict]:  # type: ignore[no-untyped-def]
    """The Plotly figures (the tabs after Curves)."""
    return plotly_specs(at)


def _lite(at) -> list[dict]:  # type: ignore[no-untyped-def]
    """The charts drawn without Plotly: the question grid, then the curves."""
    return lite_specs(at)


def test_deep_link_opens_the_question_with_curves_and_markers(open_page) -> None:
    at = open_page(qid="2", n="15", win="1024")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "MARS pools"
    assert light_select(at, "Question").shown.startswith("Q2 ")
    assert next(m for m in shown_metrics(at) if m.label == "traces").value == "20"
    assert not at.get("plotly_chart")  # nothing loads Plotly's bundle at first paint
    specs = _lite(at)
    curves = specs[-1]  # the grid comes first, the curves figure last
    names = [t.get("name", "") for t in curves["traces"]]
    assert any(
        n.startswith("right final answer") or n.startswith("wrong final answer") for n in names
    )
    assert "trace end" in names
    probe = [t for t in curves["traces"] if t.get("name", "").startswith("probe")]
    assert probe and all(t["picks"] for t in probe)  # a click names (trace, position)
    hover = " ".join(" ".join(t["tips"]) for t in probe)
    assert "avg_conf" in hover and "\\boxed{" in hover
    # dataset text is plain text for the browser's textContent: any markup in it is characters
    assert "<br>" not in hover and "&lt;" not in hover
    assert at.query_params["qid"] in ("2", ["2"])


@pytest.mark.parametrize("view", ["Vote evolution", "Distributions", "Single trace", "Data"])
def test_every_tab_renders(open_page, view: str) -> None:
    at = open_page(qid="1", view=view, trace="3")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    if view in ("Vote evolution", "Distributions"):
        assert not at.get("plotly_chart")  # light charts first: no Plotly bundle at first paint
    if view == "Vote evolution":
        spec = _lite(at)[-1]
        assert any("(ground truth)" in t.get("name", "") for t in spec["traces"])
        # stacked: every trace is filled down to the one under it, and the stack adds up to 1
        assert all("base" in t for t in spec["traces"])
        top = [v for v in spec["traces"][-1]["y"] if v is not None]
        assert top and all(abs(v - 1) < 1e-3 for v in top)
        # on "zoom" the same figure is drawn by Plotly
        choose(at, "zoom", True)
        fig = _charts(at)[-1]
        assert all(t.get("stackgroup") == "one" for t in fig["data"])
        # the same answers (Plotly's names are escaped markup, the light chart's plain text)
        assert [plain_text(t["name"]) for t in fig["data"]] == [t["name"] for t in spec["traces"]]
    elif view == "Distributions":
        # the AUROC per signal as a Markdown table (no st.table element)
        texts = [m.value.replace("\\", "") for m in at.markdown]  # Markdown escapes undone
        auroc = next(t for t in texts if "| per-question AUROC: median (quartiles) |" in t)
        assert all(f"| {n} |" in auroc for n in SIGNAL_NAMES.values()), auroc
        assert not at.table
        specs = _lite(at)
        # the file's histogram and the question's four (a named question: no grid)
        assert len(specs) == 5
        hists = [s for s in specs if "right vs wrong" in s["title"] or "confidence" in s["title"]]
        assert len(hists) >= 3 and all(s["barmode"] == "group" for s in hists)
        bars = next(s for s in specs if s["title"].startswith("final answers"))
        assert bars["traces"][0]["type"] == "bar"
        choose(at, "zoom", True)
        assert len(_charts(at)) >= 4 and not _lite(at)  # 5 Plotly figures on zoom
    elif view == "Single trace":
        assert light_control(at, "Trace").shown.startswith("trace 3 · ")
        probes = shown_tables(at)[-1]
        assert {"position", "answer", "raw_text", "avg_conf"} <= set(probes.columns)
        assert len(probes) >= 1
    else:
        assert len(at.get("download_button")) == 2
        # the question's traces in a light table, one row per trace, the scalar columns only
        assert not at.dataframe
        data = next(t for t in shown_tables(at) if "trace_idx" in t.columns)
        traces = next(m for m in shown_metrics(at) if m.label == "traces").value
        assert len(data) == int(str(traces).replace(",", ""))
        assert "curve" not in data.columns and "flags" in data.columns  # lists: download only
        at = open_page(qid="1", view="Data", data_grid="true")  # the switch: the same rows
        assert not at.exception, at.exception
        (grid,) = at.dataframe
        assert list(grid.value.columns) == list(data.columns)
        assert grid.value["trace_idx"].tolist() == data["trace_idx"].tolist()


def test_controls_and_quantile_bands(open_page) -> None:
    at = open_page(qid="0")
    assert light_radio_options(at, "Show") == ["curves", "quantile bands"]
    choose(at, "show", "quantile bands")
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    fig = _charts(at)[-1]
    assert any("10th–90th percentile" in t.get("name", "") for t in fig["data"])
    # the bands are over the whole pool, not the 20 traces the slider shows
    medians = [t["name"] for t in fig["data"] if "median" in t.get("name", "")]
    assert medians and all("(all " in m for m in medians)
    assert any("Bands over the whole pool" in c.value for c in at.caption)
    choose(at, "qid", 3)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.query_params["qid"] in ("3", ["3"])


def _bad_file(path: Path) -> None:
    def pr(pos: int, ans: str | None = "1") -> dict:
        return {
            "position": pos,
            "answer": ans,
            "is_correct": False,
            "raw_text": "\\boxed{1}<script>alert(1)</script>",
            "avg_conf": 1.0,
        }

    rows = [
        {
            "qid": 0,
            "trace_idx": 0,
            "ground_truth": "1",
            "extracted_answer": "<img src=x>",
            "confs": [1.0, float("nan"), -2.0, 3.0] * 1200,
            "probes": [pr(4096), pr(2048), pr(9999)],
        },
        {
            "qid": 0,
            "trace_idx": 2,
            "ground_truth": "1",
            "extracted_answer": "word " * 100,
            "confs": [],
            "probes": [],
        },
        {
            "qid": 1,
            "trace_idx": 0,
            "ground_truth": "5",
            "extracted_answer": None,
            "confs": [4.0] * 3000,
            "probes": [pr(2048, None)],
        },
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)


def test_bad_data_gives_notes_not_tracebacks(tmp_path: Path, monkeypatch) -> None:
    _bad_file(tmp_path / REL)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    for params in ({"qid": "0"}, {"qid": "1"}, {"qid": "0", "view": "Single trace", "trace": "0"}):
        at = new_app()
        for k, v in params.items():
            at.query_params[k] = v
        at.switch_page(PAGE)
        at.run()
        assert not at.exception, at.exception
        assert not at.error, [e.value for e in at.error]
        notes = " ".join(w.value for w in at.warning)
        if params["qid"] == "0":
            assert (
                "nonfinite confs" in notes
                and "missing rows" in notes
                and "probe beyond end" in notes
            )
        else:
            assert "no answers" in notes


def test_missing_file_is_a_clear_message(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    at = new_app()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    assert (
        at.error
        and "does not exist" in " ".join(e.value for e in at.error)
        or "missing" in " ".join(e.value for e in at.error)
    )


def _open(root: Path, monkeypatch, **params: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(root))
    at = new_app()
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(PAGE)
    return at.run()


def test_probe_without_avg_conf_opens_in_the_single_trace_zoom(
    local_mars: Path, tmp_path: Path, monkeypatch
) -> None:
    """A probe whose stored avg_conf is null shows a blank, not a bug box."""
    rows = pq.read_table(local_mars / REL).to_pylist()
    target = next(r for r in rows if r["qid"] == 1 and r["trace_idx"] == 3)
    assert target["probes"]
    for p in target["probes"]:
        p["avg_conf"] = None
    out = tmp_path / REL
    out.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(local_mars / REL)), out)
    at = _open(tmp_path, monkeypatch, qid="1", view="Single trace", trace="3")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    probes = shown_tables(at)[-1]
    assert len(probes) == len(target["probes"])
    assert probes["avg_conf"].isna().all()


def test_notes_with_markdown_in_the_ground_truth_render_escaped(
    tmp_path: Path, monkeypatch
) -> None:
    gt = "[x](http://e) ![i](http://e/i.png) `c` $y$"
    rows = [
        {
            "qid": 0,
            "trace_idx": t,
            "ground_truth": g,
            "extracted_answer": "1",
            "confs": [4.0] * 3000,
            "probes": [
                {
                    "position": 2048,
                    "answer": "1",
                    "is_correct": True,
                    "raw_text": "r",
                    "avg_conf": 1.0,
                }
            ],
        }
        for t, g in enumerate([gt, gt, "1"])
    ]
    (tmp_path / REL).parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), tmp_path / REL)
    at = _open(tmp_path, monkeypatch, qid="0")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    notes = " ".join(w.value for w in at.warning)
    assert "different ground truths" in notes
    assert "\\[x\\]\\(http:\u2060//e\\)" in notes  # the link is escaped, so it cannot render
    assert "\\!\\[i\\]" in notes and "\\`c\\`" in notes and "\\$y\\$" in notes


def test_a_broken_notes_section_does_not_lose_the_page(local_mars: Path, monkeypatch) -> None:
    """Each section runs in its own guard: a bug in the notes leaves the question on screen."""

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("odd notes row")

    monkeypatch.setattr(mars_header, "show_notes", boom)
    monkeypatch.setenv("RTE_STRICT", "0")  # show the bug box instead of re-raising
    at = _open(local_mars, monkeypatch, qid="2")
    assert not at.exception, at.exception
    assert at.error and "odd notes row" in " ".join(e.value for e in at.error)
    assert light_select(at, "Question").shown.startswith("Q2 ")
    assert next(m for m in shown_metrics(at) if m.label == "traces").value == "20"
    assert len(_lite(at)) >= 1  # the curves still drawn (the link names a question: no grid)


def test_curves_default_to_a_readable_sample_in_deepconf_windows(open_page) -> None:
    """No URL params: at most 30 traces in the 2,048-token window DeepConf thresholds."""
    at = open_page(qid="1")
    assert not at.exception, at.exception
    # the chart options are drawn once their expander is opened; closed, the same defaults hold
    assert not [s for s in at.slider if s.label == "Traces shown"]
    closed = _lite(at)[-1]
    at.session_state["mars_curve_options_open"] = True
    at.run()
    assert not at.exception, at.exception
    assert _lite(at)[-1] == closed
    n = next(s for s in at.slider if s.label == "Traces shown")
    assert n.value == 20  # min(30, the 20 traces of this question)
    win = next(s for s in at.select_slider if s.label == "Window (tokens)")
    assert win.value == 2048
    curves = _lite(at)[-1]
    assert curves["axes"]["yaxis"]["title"] == "confidence, mean of the previous 2,048 tokens"
    counted = sum(
        int(t["name"].rsplit("(", 1)[1].rstrip(")"))
        for t in curves["traces"]
        if t.get("name", "").endswith(")")
        and "final answer" in t.get("name", "")
        and not t["name"].startswith("probe")
    )
    assert counted == 20


def test_single_trace_shows_the_full_escaped_probe_text(open_page, local_mars: Path) -> None:
    """The zoom starts smoothed, and the first probe's raw_text is readable in full (escaped)."""
    at = open_page(qid="1", view="Single trace", trace="3")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    z = light_control(at, "Smoothing (tokens averaged)")
    assert (z.kind, z.shown) == ("radio", "64")
    rows = pq.read_table(local_mars / REL).to_pylist()
    probe = min(
        next(r for r in rows if r["qid"] == 1 and r["trace_idx"] == 3)["probes"],
        key=lambda p: p["position"],
    )
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert f"Probe at token <b>{probe['position']}</b>" in bodies
    assert esc(probe["raw_text"]) in bodies  # the whole text, not a cut cell


def test_overview_table_shows_every_question(open_page) -> None:
    """The questions table lists every question, its majority marked right or wrong, and the
    ground truth, in full (a light table as high as its rows: nothing to scroll), and a row
    opens its question."""
    at = open_page()
    assert not at.exception, at.exception
    payload = next(p for p in lite_payloads(at) if p["label"] == "questions")
    assert payload["pickable"] and payload["height"] == 35 * 5 + 2  # a header and 4 rows
    rows = [
        dict(zip([c["name"] for c in payload["cols"]], r, strict=True)) for r in payload["rows"]
    ]
    assert [r["Q"] for r in rows] == ["0", "1", "2", "3"]
    assert all(
        str(r["majority"]).endswith(("✓", "✗")) or str(r["majority"]).startswith("tie")
        for r in rows
    )
    assert all(r["truth"] for r in rows)


def test_the_question_shown_is_marked_from_the_first_opening(open_page) -> None:
    """Opened with no question in the URL, the page shows the first one, and the grid (its
    blue frame) and the table (the marked row) say so before any click."""
    at = open_page()
    assert not at.exception, at.exception
    assert light_select(at, "Question").shown.startswith("Q0 ")
    table = next(p for p in lite_payloads(at) if p["label"] == "questions")
    assert table["selected"] == 0
    assert _framed(at) == 0
    # a question chosen in the selector is the one marked
    choose(at, "qid", 2)
    assert next(p for p in lite_payloads(at) if p["label"] == "questions")["selected"] == 2
    assert _framed(at) == 2


def _framed(at) -> int:  # type: ignore[no-untyped-def]
    """The index of the grid's square that its one blue frame sits on."""
    grid = _lite(at)[0]
    (frame,) = [t for t in grid["traces"] if t.get("name") == "selected"]
    squares = next(t for t in grid["traces"] if t.get("name") == "questions")
    at_xy = list(zip(squares["x"], squares["y"], strict=True))
    return at_xy.index((frame["x"][0], frame["y"][0]))


def test_a_single_long_answer_note_reads_in_the_singular(tmp_path: Path, monkeypatch) -> None:
    _bad_file(tmp_path / REL)
    at = _open(tmp_path, monkeypatch, qid="0")
    assert not at.exception, at.exception
    notes = " ".join(w.value for w in at.warning)
    assert "1 final answer is a long text span" in notes
    assert "1 final answers" not in notes and "1 traces" not in notes


# ---------------------------------------------------------------- casebook
def _save_case(at, key: str, title: str):  # type: ignore[no-untyped-def]
    at.text_input(key=f"cb_{key}_title").input(title)
    at.button(key=f"cb_{key}_save").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _grid(at) -> dict:  # type: ignore[no-untyped-def,type-arg]
    return next(s for s in _lite(at) if any(t.get("name") == "questions" for t in s["traces"]))


def test_capture_a_question(open_page, db: str, local_mars: Path) -> None:
    at = open_page(qid="2", n="15")
    key = f"mars_q_{REL}_2"
    assert at.text_input(key=f"cb_{key}_title").value.startswith("DeepSeek-R1-0528-Qwen3-8B")
    _save_case(at, key, "majority drifts")
    [case] = open_store(db).cases_for_item("mars")
    assert (case.dataset, case.view, case.title) == ("mars", "mars", "majority drifts")
    assert case.item == {"file": REL, "qid": "2"}
    q = dict(case.query)
    assert q["qid"] == "2" and q["n"] == "15"
    assert case.source["file"] == REL and case.source["kind"] == "local"
    assert case.source["local_path"] == str(local_mars)
    snap = case.snapshot
    assert snap["n_traces"] == 20
    assert (
        f"{snap['pass_at_1']:.0%}"
        == next(m for m in shown_metrics(at) if m.label == "pass@1").value
    )
    assert {
        "majority_answer",
        "majority_correct",
        "n_distinct_answers",
        "median_length",
        "median_length_right",
        "median_length_wrong",
        "ground_truth",
    } <= set(snap)
    assert isinstance(snap["majority_correct"], bool)


def test_capture_a_trace_and_a_probe(open_page, db: str) -> None:
    at = open_page(qid="1", view="Single trace", trace="3")
    _save_case(at, f"mars_zoom_trace_{REL}_1_3", "drops late")
    probes = shown_tables(at)[-1]
    pos = int(probes["position"].iloc[0])  # the first probe until a row is picked
    _save_case(at, f"mars_probe_{REL}_1_3_{pos}", "settles early")
    trace, probe = open_store(db).cases_for_item("mars", file=REL, qid=1)
    assert trace.item == {"file": REL, "qid": "1", "trace": "3"}
    assert ("trace", "3") in trace.query and ("view", "Single trace") in trace.query
    assert {"final_answer", "final_correct", "length", "mean_conf", "tail_conf"} <= set(
        trace.snapshot
    )
    assert trace.snapshot["lowest_group_conf"] is not None
    length = next(m for m in shown_metrics(at) if m.label == "length").value
    assert f"{trace.snapshot['length']:,}" == length
    assert probe.item == {"file": REL, "qid": "1", "trace": "3", "probe": str(pos)}
    assert probe.snapshot["position"] == pos
    assert {"answer", "correct", "avg_conf"} <= set(probe.snapshot)
    assert probe.snapshot["avg_conf"] == pytest.approx(float(probes["avg_conf"].iloc[0]), 1e-3)


def test_capture_the_trace_picked_in_the_curves_tab(open_page, db: str) -> None:
    at = open_page(qid="0", trace="5")
    _save_case(at, f"mars_curves_trace_{REL}_0_5", "from the curves")
    [case] = open_store(db).cases_for_item("mars")
    assert case.item == {"file": REL, "qid": "0", "trace": "5"}
    # no trace in the URL: no trace control on the Curves tab
    at = open_page(qid="0")
    assert not [t for t in at.text_input if "_trace_" in (t.key or "")]


def test_the_grid_rings_questions_with_cases_of_this_file_only(open_page, db: str) -> None:
    s = open_store(db)
    s.add(make_case("mars", "mars", item={"file": REL, "qid": "1", "trace": "2"}, title="t"))
    s.add(make_case("mars", "mars", item={"file": REL, "qid": "3"}, title="q"))
    s.add(make_case("mars", "mars", item={"file": "Qwen3-8B/x.parquet", "qid": "2"}, title="o"))
    at = open_page()  # no question named: the overview opens with its grid
    assert not at.exception, at.exception
    ring = [t for t in _grid(at)["traces"] if t.get("name") == "has cases"]
    assert ring and sorted(ring[0]["picks"]) == [1, 3]
    assert any("ringed = has cases" in c.value for c in at.caption)


def test_inline_cases_on_the_open_question_and_trace(open_page, db: str) -> None:
    s = open_store(db)
    s.add(make_case("mars", "mars", item={"file": REL, "qid": "1"}, title="<b>q case</b>"))
    s.add(make_case("mars", "mars", item={"file": REL, "qid": "1", "trace": "3"}, title="t case"))
    at = open_page(qid="1", view="Single trace", trace="3")
    assert not at.exception, at.exception
    labels = [e.label for e in at.expander]
    assert any("2 cases on this item" in x for x in labels), labels  # the question's
    assert any("1 case on this item" in x for x in labels), labels  # the trace's
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert "&lt;b&gt;q case&lt;/b&gt;" in bodies and "t case" in bodies
    # another question shows none of them
    other = open_page(qid="2")
    assert not [e for e in other.expander if "on this item" in e.label]


def _warnings(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [w.value for w in at.warning]


@pytest.mark.parametrize(
    ("params", "asked", "shown"),
    [
        ({"qid": "999"}, "question 999", "showing Q0 instead"),
        ({"qid": "abc"}, "question abc", "showing Q0 instead"),
        ({"qid": "1", "trace": "99999", "view": "Single trace"}, "trace 99999", "trace 0"),
        ({"file": "Nope/unknown.parquet"}, "Nope/unknown", "instead"),
    ],
)
def test_a_bad_deep_link_says_what_was_asked_and_what_is_shown(
    open_page, params: dict[str, str], asked: str, shown: str
) -> None:
    at = open_page(**params)
    assert not at.exception, at.exception
    notes = [w for w in _warnings(at) if "The link asks for" in w]
    assert len(notes) == 1, _warnings(at)
    # said once: no line atop the view or caption under the picker repeats it
    asked_value = next(iter(params.values())) if len(params) == 1 else None
    if asked_value is not None:
        assert not [w for w in _warnings(at) if "could not use" in w], _warnings(at)
        captions = [c.value.replace("\\", "") for c in at.caption]  # Markdown escapes dropped
        assert not [c for c in captions if f"=“{asked_value}”" in c], captions
    plain = notes[0].replace("\\", "")
    assert asked in plain and shown in plain, plain
    if "qid" in params:  # the questions overview stays shut: the note is on the first screen
        (grid,) = [e for e in at.expander if e.label.startswith("Questions overview")]
        assert not grid.proto.expanded, params
    # the note stays on the next rerun (the URL no longer holds the bad value)
    at.run()
    assert any("The link asks for" in w for w in _warnings(at))


def test_a_good_deep_link_has_no_link_note(open_page) -> None:
    at = open_page(qid="2", trace="3", view="Single trace")
    assert not any("The link asks for" in w for w in _warnings(at))


def test_a_folder_without_the_default_file_opens_the_first_file_it_has(
    tmp_path: Path, monkeypatch
) -> None:
    rel = "Qwen3-32B/brumo25.parquet"
    write_file(tmp_path / rel, "brumo", 6, seed=4, drop=0, n_questions=2, median_len=5000)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    at = run_page(PAGE)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    pick = light_select(at, "MARS file…")
    assert pick.shown.endswith(f"({rel})")
    assert at.query_params["file"] in (rel, [rel])
    assert "not in this folder" in pick.options[list(MARS_FILES).index(REL)]
    assert next(m for m in shown_metrics(at) if m.label == "traces").value == "6"


@pytest.mark.parametrize("default_there", [False, True])
def test_a_linked_file_the_folder_lacks_is_named_and_the_first_file_it_has_shown(
    tmp_path: Path, monkeypatch, default_there: bool
) -> None:
    """Regression: a link's MARS file that the folder lacks was replaced by the folder's first
    file without a word. It is still replaced (the view shows data), and a note names it."""
    rel = "Qwen3-32B/brumo25.parquet"
    write_file(tmp_path / rel, "brumo", 6, seed=4, drop=0, n_questions=2, median_len=5000)
    if default_there:
        write_file(tmp_path / REL, "aime", 6, seed=5, drop=0, n_questions=2, median_len=5000)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    asked = "Qwen3-32B/hmmt.parquet"
    at = run_page(PAGE, file=asked)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    first = next(r for r in MARS_FILES if r in ({rel, REL} if default_there else {rel}))
    assert light_select(at, "MARS file…").shown.endswith(f"({first})")
    notes = [w.replace("\\", "") for w in _warnings(at) if "The link asks for" in w]
    assert notes == [
        f"The link asks for the file “{asked}”, which this folder does not have: showing "
        f"{first}, the first file it has, instead."
    ], notes


def test_the_folder_note_goes_when_the_source_changes(tmp_path: Path) -> None:
    """The note naming a linked file the folder lacks is not left standing once the sidebar's
    source is another one (the file shown is the same, so only the source tells)."""
    rel = "Qwen3-32B/brumo25.parquet"
    write_file(tmp_path / rel, "brumo", 6, seed=4, drop=0, n_questions=2, median_len=5000)
    src = {"src_mars_kind": "Local folder", "src_mars_path": str(tmp_path)}
    at = run_page(PAGE, file="Qwen3-32B/hmmt.parquet", **src)
    assert [w for w in _warnings(at) if "this folder does not have" in w], _warnings(at)
    at.query_params["src_mars_kind"] = "Bundled sample"
    at.run()
    assert not at.exception, at.exception
    assert not [w for w in _warnings(at) if "this folder does not have" in w], _warnings(at)


def test_a_deepconf_policy_draws_its_threshold_across_the_curves(
    open_page, local_mars: Path
) -> None:
    """The 90th percentile of min_group over the first 16 traces with an answer, as a labelled
    line at that height (checked against numpy on the feature table)."""
    at = open_page(qid="1", policy="DeepConf-low (90th percentile)")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    feats = load_features(local_mars / REL).question(1).sort("trace_idx")
    head = feats.filter(feats["final_group"] >= 0)["min_group"].to_numpy()[:16]
    want = float(np.percentile(head.astype(np.float64), 90))
    spec = _lite(at)[-1]
    (line,) = [t for t in spec["traces"] if t["name"].startswith("DeepConf-low")]
    y = unpack(line["y"])
    assert y[0] == pytest.approx(want, rel=1e-6) and y[0] == y[1]
    assert line["name"].startswith("DeepConf-low (90th percentile): ")
    assert f"over {len(head)} warmup" in line["name"]


def test_probe_markers_by_agreement_name_their_three_classes(open_page) -> None:
    at = open_page(qid="2")
    names = [t["name"] for t in _lite(at)[-1]["traces"] if t["name"].startswith("probe")]
    assert names and all(
        n.split(" (")[0]
        in ("probe agrees with final answer", "probe differs from final answer", "probe: no answer")
        for n in names
    )
    at.session_state["mars_curve_options_open"] = True  # the chart options: drawn when open
    at.run()
    next(r for r in at.radio if r.label == "Probe markers by").set_value("correctness").run()
    names = [t["name"] for t in _lite(at)[-1]["traces"] if t["name"].startswith("probe")]
    assert names and all(
        n.split(" (")[0] in ("probe answer right", "probe answer wrong", "probe: no answer")
        for n in names
    )


def _overview_table(at) -> bool:  # type: ignore[no-untyped-def]
    return any(p["label"] == "questions" for p in lite_payloads(at))


def test_the_overview_is_drawn_while_open_only(open_page) -> None:
    """Opened without a question, the overview is open and stays open on the next run (when
    the URL names the question); a link that names one opens with it closed and undrawn."""
    at = open_page()
    assert not at.exception, at.exception
    assert _overview_table(at)
    at.run()
    assert _overview_table(at), "the open overview closed itself on the next run"
    linked = open_page(qid="1")
    assert not linked.exception, linked.exception
    assert not _overview_table(linked)


def test_a_probe_that_gave_no_answer_says_so(open_page, local_mars: Path) -> None:
    """Probes that gave no answer (an empty string, as in the published files): the probe's
    header says "(no answer)", not an empty answer."""
    rows = pq.read_table(local_mars / REL).to_pylist()
    qid, trace = next(
        (r["qid"], r["trace_idx"])
        for r in rows
        if r["probes"] and min(r["probes"], key=lambda p: p["position"])["answer"] in ("", None)
    )
    at = open_page(qid=str(qid), view="Single trace", trace=str(trace))
    assert not at.exception, at.exception
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert "answer (no answer):" in bodies and "<code></code>" not in bodies


def test_a_bad_file_in_a_link_is_named_as_written(open_page) -> None:
    """The refused file is quoted as the link wrote it: escaped for Markdown, outside a code span
    (where the escapes would show as backslashes)."""
    at = open_page(file="../../etc/passwd")
    assert not at.exception, at.exception
    (note,) = [w.value for w in at.warning if "The link asks for the file" in w.value]
    assert "`" not in note and "“\\.\\./\\.\\./etc/passwd”" in note
