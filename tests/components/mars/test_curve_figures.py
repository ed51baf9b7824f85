"""The Curves tab's figures: probes on the curves, encodings named in the legend, the threshold
line, the JSON budget and the SVG / WebGL switch."""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.mars.store import load_features, read_probes, read_traces
from analysis.mars.windows import Band, curve_set
from cache.sample.mars import write_file
from components.common import theme
from components.common.lite_spec import chart_spec, unpack
from components.mars import curve_figures as cf


def _feats() -> pl.DataFrame:
    """Trace 0 right (final group 0), trace 1 wrong (group 1), trace 2 without an answer."""
    return pl.DataFrame(
        {
            "trace_idx": [0, 1, 2],
            "length": [8, 6, 4],
            "final_correct": [True, False, False],
            "final_group": [0, 1, -1],
            "probe_pos": [[2, 4, 8], [2, 6], [4]],
            "probe_group": [[-1, 1, 0], [1, 1], [3]],
            "probe_correct": [[False, False, True], [False, False], [False]],
            "probe_avg_conf": [[1.0, 2.0, 3.0], [4.0, 5.0], [6.0]],
        }
    )


def _curves() -> object:
    confs = [np.arange(1, 9, dtype=np.float32), np.full(6, 5, np.float32), np.ones(4, np.float32)]
    f = _feats()
    return curve_set([0, 1, 2], confs, 2, f["probe_pos"].to_list())


def test_probe_markers_sit_on_the_curve_by_agreement() -> None:
    fig = cf.curves_figure(_feats(), _curves())
    by = {t.name: t for t in fig.data}
    agree = by["probe agrees with final answer (3)"]  # trace 0 @ 8, trace 1 @ 2 and 6
    assert agree.marker.symbol == "circle" and agree.marker.color == theme.PROBE_AGREE
    # the value of the window of 2 tokens before each position: (7 + 8) / 2, 5, 5
    assert sorted(zip(agree.x.tolist(), agree.y.tolist(), strict=True)) == [
        (2, 5.0),
        (6, 5.0),
        (8, 7.5),
    ]
    differ = by["probe differs from final answer (2)"]  # trace 0 @ 4 (group 1), trace 2 @ 4
    assert differ.marker.symbol == "diamond"
    assert sorted(zip(differ.x.tolist(), differ.y.tolist(), strict=True)) == [(4, 1.0), (4, 3.5)]
    none = by["probe: no answer (1)"]
    assert none.marker.symbol == "circle-open" and (none.x[0], none.y[0]) == (2, 1.5)
    assert "stored avg_conf" in none.text[0]


def test_probe_markers_by_correctness() -> None:
    fig = cf.curves_figure(_feats(), _curves(), probes_by=cf.BY_CORRECTNESS)
    names = sorted(t.name for t in fig.data if t.name.startswith("probe"))
    assert names == ["probe answer right (1)", "probe answer wrong (4)", "probe: no answer (1)"]
    wrong = next(t for t in fig.data if t.name.startswith("probe answer wrong"))
    assert wrong.marker.symbol == "x" and wrong.marker.color == theme.WRONG


def test_curves_no_answer_is_grey_and_right_is_drawn_on_top() -> None:
    fig = cf.curves_figure(_feats(), _curves(), show_probes=False)
    lines = [t for t in fig.data if t.mode == "lines"]
    by_name = {t.name.split(" (")[0]: t for t in lines}
    assert by_name["no final answer"].line.color == theme.NO_ANSWER
    assert lines[-1].name.startswith("right final answer")  # last = on top
    assert by_name["right final answer"].legendrank < by_name["wrong final answer"].legendrank
    ends = next(t for t in fig.data if t.name == "trace end")
    assert ends.x.tolist() == [8, 6, 4] and ends.y.tolist() == [7.5, 5.0, 1.0]


def test_the_threshold_is_a_labelled_dashed_line_the_lite_chart_draws() -> None:
    fig = cf.curves_figure(_feats(), _curves(), threshold=cf.Threshold(4.25, "DeepConf: 4.25"))
    spec = chart_spec(fig)
    (line,) = [t for t in spec["traces"] if t["name"] == "DeepConf: 4.25"]
    assert line["line"]["dash"] == "dash"
    assert unpack(line["y"]) == [4.25, 4.25] and unpack(line["x"]) == [0, 8]  # across all curves
    assert spec["axes"]["yaxis"]["title"] == "confidence, mean of the previous 2 tokens"


def test_bands_name_the_whole_pool() -> None:
    b = Band("right", 40, np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 4.0]]), np.array([40, 39]))
    fig = cf.bands_figure(np.array([256, 512]), [b], 2048)
    names = [t.name for t in fig.data if t.name]
    assert names == ["right: 10th–90th percentile", "right: median (all 40 traces)"]


def _sample(tmp_path, n: int):  # type: ignore[no-untyped-def]
    path = tmp_path / "one_question.parquet"
    write_file(path, "hmmt", n, seed=5, n_questions=1)
    store = load_features(path)
    qid = store.qids[0]
    feats = store.question(qid)
    raw = read_traces(path, qid, feats["trace_idx"].to_list())
    confs = [np.asarray(c, np.float32) for c in raw["confs"].to_list()]
    cs = curve_set(feats["trace_idx"].to_list(), confs, 2048, feats["probe_pos"].to_list())
    return feats, cs, read_probes(path, qid)


def test_a_thousand_curves_with_probe_markers_stay_under_2_mb(tmp_path) -> None:  # type: ignore[no-untyped-def]
    feats, cs, probes = _sample(tmp_path, 1000)
    fig = cf.curves_figure(feats, cs, probes)
    assert sum(len(x or []) for x in feats["probe_pos"].to_list()) > 3000
    assert {t.type for t in fig.data} == {"scattergl"}  # many points: all WebGL
    assert len(fig.to_json()) <= 2_000_000


def test_thirty_curves_are_svg_and_every_trace_shares_one_layer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    feats, cs, probes = _sample(tmp_path, 30)
    fig = cf.curves_figure(feats, cs, probes)
    assert {t.type for t in fig.data} == {"scatter"}
    assert any(t.name.startswith("probe") for t in fig.data)
    assert '"dtype":"f4"' in fig.to_json()
