"""The lite chart spec: what the browser draws without Plotly must say what the Plotly figure says
(hover text, colours, gaps, clicks, steps), dataset text stays text, and whatever it cannot draw
is refused rather than drawn wrong."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import polars as pl
import pytest

from analysis.mars.store import load_features, read_probes, read_traces
from analysis.mars.windows import CurveSet, curve_set
from analysis.playground import Mars, SimSettings, prepare, replay
from analysis.playground.synthetic import hand_pool
from cache.sample.mars import write_file
from components.common.lite_spec import LiteUnsupported, chart_spec, plain_text, unpack
from components.common.safe_text import esc_hover
from components.mars import curve_figures as cf
from components.mars import figures as mf
from components.playground.figures import replay_figure, replay_steps


def test_plain_text_turns_plotly_markup_into_text_and_keeps_dataset_markup_as_characters() -> None:
    label = esc_hover('<script>alert(1)</script> & "x"\nnext')
    assert plain_text(label + "<extra>hidden</extra>") == (
        '<script>alert(1)</script> & "x"\nnext'
    )  # the browser sets this as textContent: characters, never markup
    assert plain_text("a<br>b<BR />c<b>d</b>") == "a\nb\ncd"
    assert plain_text(None) == ""


def test_hover_templates_resolve_per_point_with_formats_customdata_and_meta() -> None:
    fig = go.Figure(
        go.Scatter(
            x=[1.0, 2.5],
            y=[0.123, 0.5],
            customdata=[["a", 7], ["b", 8]],
            meta="gamma",
            hovertemplate="%{meta}=%{customdata[0]}<br>x %{x:.1f} · y %{y:.0%} · %{customdata[1]}"
            "<extra></extra>",
        )
    )
    tips = chart_spec(fig)["traces"][0]["tips"]
    assert tips == ["gamma=a\nx 1.0 · y 12% · 7", "gamma=b\nx 2.5 · y 50% · 8"]
    skip = chart_spec(go.Figure(go.Scatter(x=[1], y=[2], hoverinfo="skip")))
    assert skip["traces"][0]["tips"] is None


def test_a_template_placeholder_inside_dataset_text_stays_literal() -> None:
    """Answers ride in customdata; `%{x}` inside an answer is not substituted a second time."""
    fig = go.Figure(
        go.Scatter(x=[5], y=[1], customdata=[esc_hover("%{x}<b>")], hovertemplate="%{customdata}")
    )
    assert chart_spec(fig)["traces"][0]["tips"] == ["%{x}<b>"]


def test_gaps_colour_scales_and_clicks_survive() -> None:
    fig = go.Figure(
        go.Scatter(
            x=np.array([0, 1, np.nan, 3], dtype=np.float32),
            y=[1.0, float("inf"), 2.0, 3.0],
            mode="markers",
            marker={
                "color": [0.0, 1.0, 0.5, float("nan")],
                "colorscale": "RdYlGn",
                "cmin": 0,
                "cmax": 1,
            },
            customdata=[10, 11, 12, 13],
        )
    )
    fig.update_layout(clickmode="event+select")
    spec = chart_spec(fig)
    t = spec["traces"][0]
    assert unpack(t["x"]) == [0.0, 1.0, None, 3.0]
    assert unpack(t["y"]) == [1.0, None, 2.0, 3.0]  # inf is a gap, as Plotly draws it
    colours = t["marker"]["color"]
    assert colours[0] == "rgb(165, 0, 38)" and colours[1] == "rgb(0, 104, 55)"  # RdYlGn ends
    assert t["picks"] == [10, 11, 12, 13] and spec["selectable"] is True
    json.dumps(spec, allow_nan=False)  # the browser gets strict JSON


@pytest.mark.parametrize(
    "fig",
    [
        go.Figure(go.Heatmap(z=[[1, 2]])),
        go.Figure(go.Scatter(x=[0, 1], y=[0, 1], fill="tozeroy")),
        go.Figure(go.Bar(x=[1], y=["a"], orientation="h")),
        go.Figure(go.Scatter(x=[1], y=[1]), layout={"xaxis": {"type": "date"}}),
        go.Figure(go.Histogram(x=[1, 2, 3])),  # Plotly's own bins: not reproduced
        go.Figure(go.Box(y=[1, 2, 3], boxpoints="all")),
        go.Figure(go.Scatter(x=[1], y=[1]), layout={"geo": {"showland": True}}),
        go.Figure(
            go.Scatter(x=[0, 1], y=[0, 1]),
            frames=[go.Frame(data=[go.Scatter(x=[0, 1], y=[5, 5])])],  # Plotly's animation
        ),
        go.Figure(go.Scatter(x=[1], y=[1], yaxis="y2"), layout={"yaxis2": {"overlaying": "y"}}),
    ],
)
def test_what_it_cannot_draw_is_refused(fig: go.Figure) -> None:
    with pytest.raises(LiteUnsupported):
        chart_spec(fig)


def test_the_replay_steps_through_its_checkpoints() -> None:
    pool = hand_pool(
        final=[0, 1, 0],
        groups=[[0, 0, 0], [1, 1, 1], [0, 1, 0]],
        labels=["<b>7</b>", "8"],
    )
    res, diag = replay(prepare(pool), Mars(), SimSettings(budget=16, iterations=4), 2)
    assert diag is not None
    fig = replay_figure(diag, res, "MARS margin vs threshold")
    spec = chart_spec(fig, replay_steps(diag.grid))
    steps = spec["steps"]
    assert steps["counts"] == [1, 2, 3]  # step k shows the first k + 1 checkpoints
    assert steps["active"] == 2 and steps["prefix"] == "checkpoint at "
    assert steps["labels"] == [f"{int(p)}" for p in diag.grid]
    assert chart_spec(fig)["steps"] is None
    assert {t["yaxis"] for t in spec["traces"]} == {"y", "y2", "y3"}
    assert any(t["type"] == "bar" for t in spec["traces"])
    names = [t["name"] for t in spec["traces"]]
    assert any(n.startswith("<b>7</b>") for n in names)  # text for textContent, not markup
    titles = [a["text"] for a in spec["annotations"]]
    assert "vote share per answer" in titles and any("stop at" in x for x in titles)


def _curves(path, qid: int, feats: pl.DataFrame) -> CurveSet:  # type: ignore[no-untyped-def]
    """The 2,048-token window curves of these traces, read from the file."""
    raw = read_traces(path, qid, feats["trace_idx"].to_list())
    confs = [np.asarray(c, np.float32) for c in raw["confs"].to_list()]
    return curve_set(feats["trace_idx"].to_list(), confs, 2048, feats["probe_pos"].to_list())


def test_the_views_first_figures_all_draw_without_plotly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The MARS grid and curves: nothing in them makes the lite renderer refuse."""
    path = tmp_path / "one_question.parquet"
    write_file(path, "hmmt", 40, seed=5, n_questions=1)
    store = load_features(path)
    qid = store.qids[0]
    feats = store.question(qid)
    shown = feats.sort("trace_idx").head(30)
    curves = chart_spec(cf.curves_figure(shown, _curves(path, qid, shown), read_probes(path, qid)))
    probes = [t for t in curves["traces"] if t["name"].startswith("probe")]
    assert probes and all(t["tips"] and t["picks"] for t in probes)
    assert all(len(p) == 2 for t in probes for p in t["picks"])  # (trace, position) per probe
    lines = [t for t in curves["traces"] if t["mode"] == "lines"]
    assert lines and any(v is None for v in unpack(lines[0]["x"]))  # curves split by gaps
    ov = pl.DataFrame(
        {
            "qid": [0, 1],
            "n_traces": [10, 10],
            "pass_at_1": [0.0, 1.0],
            "majority_answer": ["1", "<i>2</i>"],
            "majority_correct": [False, True],
            "n_answers": [2, 1],
            "n_null": [0, 0],
            "median_len_correct": [None, 900.0],
            "median_len_wrong": [800.0, None],
        }
    )
    grid = chart_spec(mf.overview_grid(ov, selected=1, marked={0: 2}))
    squares = next(t for t in grid["traces"] if t["name"] == "questions")
    assert squares["picks"] == [0, 1] and squares["text"] == ["Q0", "Q1"]
    assert "majority: <i>2</i> (right)" in squares["tips"][1]
    assert grid["axes"]["xaxis"]["visible"] is False
    assert not math.isnan(grid["height"])


def test_a_thousand_curves_with_probe_markers_stay_under_2_mb_as_a_lite_spec(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The issue's payload budget holds for what the browser is sent by default (the hover text
    once, in `tips`; marker-only traces send no separate `text`)."""
    path = tmp_path / "one_question.parquet"
    write_file(path, "hmmt", 1000, seed=5, n_questions=1)
    store = load_features(path)
    qid = store.qids[0]
    feats = store.question(qid).sort("trace_idx")
    spec = chart_spec(cf.curves_figure(feats, _curves(path, qid, feats), read_probes(path, qid)))
    probes = [t for t in spec["traces"] if t["name"].startswith("probe")]
    assert sum(len(t["tips"]) for t in probes) > 3000 and all(t["text"] is None for t in probes)
    assert len(json.dumps(spec, allow_nan=False)) <= 2_000_000


def test_histogram_with_explicit_bins_becomes_its_counts_as_bars() -> None:
    x = [0.0, 0.5, 1.0, 1.0, 2.9, 3.0, -1.0, float("nan")]  # 3.0 is past `end`, -1 before start
    fig = go.Figure(go.Histogram(x=x, name="right", xbins={"start": 0, "end": 3, "size": 1}))
    (t,) = chart_spec(fig)["traces"]
    assert t["type"] == "bar"
    assert unpack(t["x"]) == [0.5, 1.5, 2.5]
    # bins closed on the left, as Plotly's: [0, 1) holds 0 and 0.5, [1, 2) both 1.0s
    assert unpack(t["y"]) == [2, 2, 1]
    assert t["tips"] == ["right\n0 – 1: 2", "right\n1 – 2: 2", "right\n2 – 3: 1"]
    empty = go.Figure(go.Histogram(x=[0.2], xbins={"start": 0, "end": 2, "size": 1}))
    assert unpack(chart_spec(empty)["traces"][0]["y"]) == [1, None]  # an empty bin is a gap
    with pytest.raises(LiteUnsupported):
        chart_spec(go.Figure(go.Histogram(x=x)))  # Plotly's own binning is not reproduced


def test_compare_hist_counts_every_finite_value_once() -> None:
    rng = np.random.default_rng(3)
    vals = rng.normal(size=200)
    feats = pl.DataFrame({"final_correct": rng.random(200) < 0.6, "v": vals})
    spec = chart_spec(mf.compare_hist(feats, "v", "v"))
    assert spec["barmode"] == "group" and len(spec["traces"]) == 2
    total = sum(v or 0 for t in spec["traces"] for v in unpack(t["y"]))
    assert total == 200


def test_stacked_areas_are_filled_down_to_the_trace_under_them() -> None:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0.2, 0.5], stackgroup="one", name="a"))
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0.8, 0.5],
            stackgroup="one",
            name="b",
            fillcolor="#ccc",
            fillpattern={"shape": "/", "fgcolor": "#999"},
        )
    )
    a, b = chart_spec(fig)["traces"]
    assert unpack(a["base"]) == [0, 0] and unpack(b["base"]) == pytest.approx([0.2, 0.5])
    assert unpack(b["y"]) == pytest.approx([1, 1])
    assert b["tips"][0].endswith("0.8)")  # the hover keeps the trace's own value
    assert (b["fillcolor"], b["fillpattern"], b["fillpatterncolor"]) == ("#ccc", "/", "#999")
    assert "base" not in chart_spec(go.Figure(go.Scatter(y=[1, 2])))["traces"][0]


def test_bar_hatching_is_kept_per_bar() -> None:
    fig = go.Figure(go.Bar(y=[3, 1], marker={"pattern": {"shape": ["", "/"], "fgcolor": "#999"}}))
    (t,) = chart_spec(fig)["traces"]
    assert t["marker"]["pattern"] == ["", "/"] and t["marker"]["patterncolor"] == "#999"
