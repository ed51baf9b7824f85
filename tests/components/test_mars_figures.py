"""MARS figure builders: dataset text never becomes a plotly placeholder or markup, long answers
sharing an opening stay separate bars, and missing numbers do not break hover labels."""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.mars_features import VoteShares
from components import mars_figures as mf

EVIL = "%{x}<b>7</b>"


def _groups(labels: list[str], counts: list[int], correct: list[bool]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "group_id": list(range(len(labels))),
            "label": labels,
            "n_final": counts,
            "is_correct": correct,
        }
    )


def test_answers_bar_keeps_long_answers_with_the_same_opening_apart() -> None:
    head = "x" * 40
    fig = mf.answers_bar(_groups([head + "A", head + "B"], [5, 3], [False, False]))
    bar = fig.data[0]
    assert len(bar.x) == 2 and len(set(bar.x)) == 2  # two categories, not one merged bar
    assert list(bar.y) == [5, 3]
    ticks = fig.layout.xaxis.ticktext
    assert ticks is not None and len(ticks) == 2


def test_answers_bar_hover_has_no_dataset_text_in_the_template() -> None:
    fig = mf.answers_bar(_groups([EVIL, "12"], [4, 2], [False, True]))
    bar = fig.data[0]
    assert "7" not in bar.hovertemplate and "<b>" not in bar.hovertemplate
    cd = [c if isinstance(c, str) else c[0] for c in bar.customdata]
    assert any("&lt;b&gt;7&lt;/b&gt;" in c for c in cd)
    assert not any("<b>" in c for c in cd)
    assert not any("<b>" in str(t) for t in fig.layout.xaxis.ticktext)


def test_vote_figure_hover_has_no_dataset_text_in_the_template() -> None:
    vs = VoteShares(
        positions=np.array([2048, 4096], dtype=np.int64),
        labels=[EVIL, "12", "no answer"],
        correct=[False, True, False],
        shares=np.array([[0.5, 0.2], [0.3, 0.7], [0.2, 0.1]], dtype=np.float32),
    )
    fig = mf.vote_figure(vs, "12")
    for t in fig.data:
        assert "7" not in t.hovertemplate and "<b>" not in t.hovertemplate
    evil = fig.data[0]
    assert all("&lt;b&gt;7&lt;/b&gt;" in str(c) for c in evil.customdata)
    assert "<b>" not in evil.name


def test_zoom_figure_survives_a_probe_without_avg_conf() -> None:
    probes = pl.DataFrame(
        {
            "position": [2048, 4096],
            "answer": ["1", "2"],
            "raw_text": ["a", "b"],
            "avg_conf": [None, float("nan")],
            "is_correct_group": [True, False],
        },
        schema_overrides={"avg_conf": pl.Float64},
    )
    fig = mf.zoom_figure(np.ones(5000, np.float32), np.ones(10, np.float32), 2048, probes)
    hover = " ".join(fig.data[-1].text)
    assert "avg_conf: –" in hover


def test_number_helper() -> None:
    assert mf.fmt_num(None) == "–"
    assert mf.fmt_num(float("nan")) == "–"
    assert mf.fmt_num(1.234) == "1.23"


def test_a_thousand_curves_with_probe_markers_stay_under_2_mb(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The issue's payload budget: 1,000 curves (WebGL, float32) + their probe markers <= 2 MB."""
    from cache.mars_store import load_features, read_probes
    from cache.sample.mars import write_file

    path = tmp_path / "one_question.parquet"
    write_file(path, "hmmt", 1000, seed=5, n_questions=1)
    store = load_features(path)
    qid = store.qids[0]
    feats = store.question(qid)
    assert feats.height == 1000
    fig = mf.curves_figure(feats, read_probes(path, qid), smooth=1)
    n_markers = sum(len(x or []) for x in feats["probe_pos"].to_list())
    assert n_markers > 3000  # the markers are really there
    assert all(t.type in ("scattergl", "scatter") for t in fig.data)
    assert any(t.type == "scattergl" for t in fig.data)
    assert len(fig.to_json()) <= 2_000_000
