"""The subset scatter plots ring the selected trajectory, and only it."""

from __future__ import annotations

import polars as pl

from components.parason.charts import (
    by_correctness,
    jitter,
    log_ticks,
    ratio_scatter,
    speedup_hist,
    speedup_scatter,
)


def _df() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "uuid": ["a", "b", "c"],
            "T": [100, 200, 300],
            "speedup": [1.2, 1.5, 2.0],
            "subtask_ratio": [0.1, 0.5, 0.0],
            "trial_ratio": [0.3, 0.0, 0.6],
            "correctness": [True, False, True],
            "question": ["q1", "q2", "<b>q3</b>"],
            "kind_mix": ["trial", "subtask", "mixed"],
            "stages": [1, 2, 1],
            "n_warnings": [0, 1, 0],
        }
    )


def test_selected_point_gets_a_ring() -> None:
    for fig, (x, y) in (
        (speedup_scatter(_df(), "b"), (200, 1.5)),
        (ratio_scatter(_df(), "b"), (0.5, 0.0)),
    ):
        rings = [t for t in fig.data if t.name == "selected"]
        assert len(rings) == 1
        # the ratio chart jitters its points by at most 0.012; the ring follows its point
        assert abs(rings[0].x[0] - x) <= 0.0121 and abs(rings[0].y[0] - y) <= 0.0121
        assert list(rings[0].customdata) == ["b"]
        point = next(t for t in fig.data if t.name != "selected" and "b" in t.customdata)
        k = list(point.customdata).index("b")
        assert (point.x[k], point.y[k]) == (rings[0].x[0], rings[0].y[0])
    assert not [t for t in speedup_scatter(_df(), None).data if t.name == "selected"]
    assert not [t for t in speedup_scatter(_df(), "zzz").data if t.name == "selected"]


def test_figures_name_their_token_counter() -> None:
    from components.parason.charts import note_counter

    fig = note_counter(speedup_scatter(_df()), "estimate <by char share>")
    texts = [a.text for a in fig.layout.annotations]
    assert "token counts: estimate &lt;by char share&gt;" in texts


def test_overlaid_histograms_share_their_bins() -> None:
    df = _df().with_columns(pl.Series("speedup", [1.2, 3.9, 2.0]))
    fig = speedup_hist(df)
    bins = [(h.xbins.start, h.xbins.end, h.xbins.size) for h in fig.data]
    assert len(bins) == 2 and bins[0] == bins[1]
    assert bins[0][0] == 1.2 and bins[0][1] >= 3.9 and abs(bins[0][2] - 2.7 / 30) < 1e-9


def test_log_axis_labels_major_ticks_only() -> None:
    assert log_ticks(150, 12_000) == [1000.0, 10_000.0]
    assert log_ticks(150, 900) == [200.0, 500.0]
    assert log_ticks(0, 10) == []
    fig = speedup_scatter(_df().with_columns(pl.Series("T", [150, 2000, 12_000])))
    assert list(fig.layout.xaxis.tickvals) == [1000.0, 10_000.0]
    assert list(fig.layout.xaxis.ticktext) == ["1,000", "10,000"]


def test_ratio_scatter_jitters_and_says_so() -> None:
    offsets = jitter([f"u{i}" for i in range(200)])
    assert max(abs(o) for o in offsets) <= 0.012 and len(set(offsets)) > 150
    assert jitter(["u1"]) == jitter(["u1"])  # stable across reruns
    fig = ratio_scatter(_df())
    assert "jittered" in fig.layout.title.text
    assert all(m.marker.opacity <= 0.6 for m in fig.data)


def test_box_plots_name_the_group_size() -> None:
    names = {t.name for t in by_correctness(_df().with_columns(parallel_ratio=0.5)).data}
    assert names == {"correct (n=2)", "incorrect (n=1)"}
