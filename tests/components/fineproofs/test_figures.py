"""FineProofs figures and highlighted text: model text stays escaped in HTML, hover and tick
labels; sources sharing a long prefix keep their own rows; the curve's marks sit beside their
point; the overview's height follows its rows; bar labels stay horizontal."""

from __future__ import annotations

import base64
import html

import numpy as np
import polars as pl

from analysis.fineproofs.steptext import attach_step_text, text_segments
from analysis.fineproofs.values import series_from_values
from components.fineproofs.figures import (
    bar_figure,
    depth_distribution_figure,
    value_curve_figure,
)
from components.fineproofs.text import highlighted_html


def _arr(v: object) -> np.ndarray:
    """A plotly JSON array, plain or typed (`{"dtype", "bdata"}` base64)."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v if v is not None else [], dtype=np.float64)


def test_highlighted_text_and_figures_escape_model_text() -> None:
    evil = 'Let $x$ <script>alert("x")</script> & <b>bold</b>'
    text = f"{evil}\n\nsecond \U0001d465 step"
    u_end = len(evil)  # no astral char before: UTF-16 == Python here
    u2 = u_end + 2
    steps = [(1, 0, u_end), (2, u2, u2 + len("second \U0001d465 step") + 1)]
    series = series_from_values([0.9, 0.2]).with_columns(flags=pl.Series(['"quoted" <i>', ""]))
    mapped = attach_step_text(series, text, steps).frame
    out = highlighted_html(text, text_segments(text, mapped), mapped)
    assert "<script>" not in out and "<b>bold" not in out
    assert html.escape(evil, quote=True) in out
    assert "&quot;quoted&quot; &lt;i&gt;" in out  # hover title attribute escaped too
    assert "$x$" in out  # maths left as written (no markdown/LaTeX processing in st.html)


def test_depth_heatmap_keeps_sources_with_a_shared_prefix() -> None:
    a, b = "s" * 40 + "-alpha", "s" * 40 + "-beta"
    depth = pl.DataFrame(
        {
            "source": [a, b],
            "depth_bin": [0, 0],
            "median": [0.2, 0.8],
            "count": [3, 4],
            "mean": [0.2, 0.8],
            "q25": [0.1, 0.7],
            "q75": [0.3, 0.9],
            "sig_drop_rate": [0.0, 0.5],
        }
    )
    fig = depth_distribution_figure(depth)
    hm = fig.data[0]
    assert len(set(map(str, hm.y))) == 2  # two rows, not one merged row
    assert len(_arr(hm.z).reshape(-1)) == 2 or np.asarray(hm.z).shape[0] == 2
    ticks = list(fig.layout.yaxis.ticktext)
    assert len(ticks) == 2 and len(set(ticks)) == 2


def test_value_curve_marks_do_not_overlap_and_end_tick_is_labelled() -> None:
    series = series_from_values([0.8, 0.8, 0.1, 0.1]).with_columns(
        sig_drop=pl.Series([False, False, True, False]),
        first_error=pl.Series([False, False, True, False]),
        endpoint=pl.lit(0.7),
    )
    fig = value_curve_figure(series)
    by_name = {t.name: t for t in fig.data}
    drop_y = float(_arr(by_name["significant drop"].y)[0])
    fe_y = float(_arr(by_name["first-error candidate"].y)[0])
    assert abs(drop_y - fe_y) > 0.1  # one above, one below the point at 0.1
    assert drop_y > 0.1 > fe_y
    lo, hi = fig.layout.yaxis.range
    assert lo < fe_y and drop_y < hi  # both inside the plot
    end_x = float(_arr(by_name["endpoint grade"].x)[0])
    ticks = dict(zip(fig.layout.xaxis.tickvals, fig.layout.xaxis.ticktext, strict=True))
    assert ticks[end_x] == "end" and ticks[1] == "1"
    depth = value_curve_figure(series, x="rel_depth")
    d_end = float(_arr({t.name: t for t in depth.data}["endpoint grade"].x)[0])
    assert (
        dict(zip(depth.layout.xaxis.tickvals, depth.layout.xaxis.ticktext, strict=True))[d_end]
        == "end"
    )


def test_bars_have_horizontal_labels() -> None:
    bars = bar_figure(list(range(20)), [f"{i / 20:.2f}–{(i + 1) / 20:.2f}" for i in range(20)])
    assert bars.layout.xaxis.tickangle == 0 and len(bars.layout.xaxis.ticktext) <= 6
    assert bars.layout.yaxis.title.text == "count"
