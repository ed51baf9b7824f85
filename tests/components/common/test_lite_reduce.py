"""The Plotly parts the lite chart rewrites (components/common/lite_reduce.py) keep their numbers:
histogram counts, box quartiles and whiskers, stacks, log and category axes."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from components.common.lite_spec import chart_spec, unpack


def test_histogram_counts_are_the_bins_counts() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 1.0, 500).tolist() + [None, float("nan")]
    fig = go.Figure(go.Histogram(x=x, name="right", xbins={"start": -2.0, "end": 6.0, "size": 0.5}))
    spec = chart_spec(fig)
    (t,) = spec["traces"]
    finite = np.array([v for v in x if v is not None and math.isfinite(v)])
    expected, edges = np.histogram(finite, bins=np.arange(-2.0, 6.0 + 1e-9, 0.5))
    # an empty bin is a gap
    assert t["type"] == "bar" and unpack(t["y"]) == [c or None for c in expected.tolist()]
    assert unpack(t["x"]) == (edges[:-1] + 0.25).tolist()
    assert t["tips"][4] == f"right\n0 – 0.5: {expected[4]}"
    assert spec["bargap"] == 0.0


def test_a_box_is_its_quartiles_and_whiskers() -> None:
    y = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 40.0]  # 40 lies past 1.5 IQR
    fig = go.Figure(go.Box(y=y, name="wrong", boxpoints=False, marker_color="#c00"))
    spec = chart_spec(fig)
    box, marks = spec["traces"]
    q1, med, q3 = np.quantile(y, [0.25, 0.5, 0.75])
    assert unpack(box["base"]) == pytest.approx([q1]) and unpack(box["y"]) == [q3]
    ys = unpack(marks["y"])
    assert ys[:2] == [med, med] and ys[4] == 8.0 and ys[7] == 1.0  # whiskers stop at 8 and 1
    assert marks["legendgroup"] == box["legendgroup"] and marks["showlegend"] is False
    assert spec["axes"]["xaxis"]["ticktext"] == ["wrong"]
    assert "median 4.5" not in box["tips"][0] and f"median {med:.4g}" in box["tips"][0]


def test_boxes_side_by_side_sit_in_their_own_slots_and_their_whiskers_in_the_plot() -> None:
    """Two boxes on one axis: each centred on its own tick (not shifted as grouped bars are), and
    the y range holds both whiskers with Plotly's padding."""
    fig = go.Figure(
        [
            go.Box(y=[1.0, 2.0, 3.0, 4.0, 9.0], name="right", boxpoints=False),
            go.Box(y=[0.0, 5.0, 6.0, 7.0, 8.0], name="wrong", boxpoints=False),
        ]
    )
    spec = chart_spec(fig)
    assert spec["barmode"] == "overlay"
    boxes = [t for t in spec["traces"] if t["type"] == "bar"]
    assert [unpack(b["x"]) for b in boxes] == [[0.0], [1.0]]
    # whiskers 1-4 and 5-8 (9 and 0 lie past 1.5 IQR, not drawn), padded by 5 % of 1-8
    lo, hi = spec["axes"]["yaxis"]["range"]
    assert lo == pytest.approx(1.0 - 0.35) and hi == pytest.approx(8.0 + 0.35)


def test_stacked_category_bars_sit_on_each_other_in_the_axis_order() -> None:
    fig = go.Figure(
        [
            go.Bar(x=["2", "10"], y=[3, 1], name="a"),
            go.Bar(x=["10", "4"], y=[2, 5], name="b"),
        ]
    )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=["2", "4", "10"])
    spec = chart_spec(fig)
    a, b = spec["traces"]
    assert spec["axes"]["xaxis"]["ticktext"] == ["2", "4", "10"]
    assert unpack(a["x"]) == [0, 2] and unpack(b["x"]) == [2, 1]
    assert unpack(b["base"]) == [1.0, 0.0] and unpack(b["y"]) == [3.0, 5.0]  # "10": 1 + 2
    assert b["tips"][0] == "b\n10: 2"  # the bar's own height


def test_a_log_axis_draws_log10_with_its_own_ticks() -> None:
    fig = go.Figure(go.Scatter(x=[10, 100, 0, 1000], y=[1, 2, 3, 4], hovertext=list("abcd")))
    fig.update_xaxes(type="log", tickvals=[10, 100, 1000], ticktext=["10", "100", "1,000"])
    fig.add_shape(type="line", x0=100, x1=100, y0=0, y1=1, yref="paper")
    spec = chart_spec(fig)
    (t,) = spec["traces"]
    assert unpack(t["x"])[:2] == [1.0, 2.0] and unpack(t["x"])[2] is None  # 0: left out
    assert spec["axes"]["xaxis"]["tickvals"] == [1.0, 2.0, 3.0]
    assert spec["axes"]["xaxis"]["ticktext"] == ["10", "100", "1,000"]
    assert spec["shapes"][0]["x0"] == 2.0 and t["tips"] == list("abcd")


def test_a_heatmap_is_a_row_of_coloured_cells_with_its_colour_bar() -> None:
    z = [[0.0, float("nan"), 1.0], [0.5, 0.25, 0.75]]
    fig = go.Figure(
        go.Heatmap(
            z=z, x=["a", "b", "c"], y=[0, 1], zmin=0, zmax=1, colorscale="RdBu",
            customdata=[["p", "q", "r"], ["s", "t", "u"]], colorbar={"title": {"text": "median"}},
            hovertemplate="%{x}: %{z:.2f} %{customdata}<extra></extra>",
        )
    )  # fmt: skip
    spec = chart_spec(fig)
    row0, row1, bar = spec["traces"]
    assert unpack(row0["x"]) == [0, 2] and row0["tips"] == ["a: 0.00 p", "c: 1.00 r"]  # NaN: none
    assert row1["tips"][1] == "b: 0.25 t" and unpack(row1["base"]) == [0.5] * 3
    assert row0["marker"]["color"][0] == "rgb(103, 0, 31)"  # RdBu at 0, as Plotly colours it
    assert spec["axes"]["xaxis"]["ticktext"] == ["a", "b", "c"]
    assert bar["xaxis"] == "x2" and spec["axes"]["yaxis2"]["range"] == [0, 1]
    # the bar's title and its ends above it (tick labels beside it would run into the cells)
    assert [a["text"] for a in spec["annotations"]] == ["median 0–1"]
    assert not spec["axes"]["yaxis2"]["showticklabels"]
    assert spec["axes"]["xaxis"]["domain"][1] < spec["axes"]["xaxis2"]["domain"][0]


def test_a_heatmap_with_category_rows_puts_row_i_at_i_with_its_label() -> None:
    fig = go.Figure(
        go.Heatmap(
            z=[[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], x=["1", "2"], y=["0/7", "1/7", "2/7"],
            zmin=0, zmax=1, colorscale="Blues",
            hovertemplate="prefix %{x} · grade %{y}: %{z:.1f}<extra></extra>",
        )
    )  # fmt: skip
    fig.update_xaxes(type="category")
    spec = chart_spec(fig)
    rows = spec["traces"][:3]
    assert [unpack(r["base"])[0] for r in rows] == [-0.5, 0.5, 1.5]
    assert rows[2]["tips"] == ["prefix 1 · grade 2/7: 0.5", "prefix 2 · grade 2/7: 0.6"]
    assert spec["axes"]["yaxis"]["ticktext"] == ["0/7", "1/7", "2/7"]
    assert spec["axes"]["xaxis"]["ticktext"] == ["1", "2"]  # the columns' own labels
    assert spec["barmode"] == "overlay"  # each cell fills its column
