"""MARS figure builders: dataset text never becomes a plotly placeholder or markup, long answers
sharing an opening stay separate bars, and missing numbers do not break hover labels."""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.mars.summaries import VoteShares
from components.common import theme
from components.common.formatting import fmt_num
from components.mars import figures as mf
from components.mars.header import colour_bar_html, majority_mark

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
    assert fmt_num(None, inf="–") == "–"
    assert fmt_num(float("nan"), inf="–") == "–"
    assert fmt_num(1.234, inf="–") == "1.23"
    assert fmt_num(float("inf"), inf="–") == "–"  # MARS labels show infinities as a dash


def _feats(correct: list[bool], group: list[int], values: list[float]) -> pl.DataFrame:
    n = len(correct)
    return pl.DataFrame(
        {
            "trace_idx": list(range(n)),
            "length": [4096 + 512 * i for i in range(n)],
            "final_correct": correct,
            "final_group": group,
            "min_group": values,
            "curve": [[10.0 + i % 3] * 96 for i in range(n)],
        }
    )


def _stack_sums(fig) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.sum([np.asarray(t.y, dtype=np.float64) for t in fig.data], axis=0)


def test_vote_stack_always_reaches_100_percent() -> None:
    full = VoteShares(
        positions=np.array([2048, 4096, 6144], dtype=np.int64),
        labels=["818", "545", "other (3 answers)", "no answer"],
        correct=[False, True, False, False],
        shares=np.array(
            [[0.2, 0.3, 0.4], [0.2, 0.4, 0.5], [0.4, 0.2, 0.05], [0.2, 0.1, 0.05]],
            dtype=np.float32,
        ),
    )
    fig = mf.vote_figure(full, "545")
    assert np.allclose(_stack_sums(fig), 1.0, atol=1e-5)
    assert [t.name for t in fig.data][-1] == "no answer"
    # shares that leave a part out (e.g. an early checkpoint with traces in no listed group)
    short = VoteShares(full.positions, full.labels[:2], full.correct[:2], full.shares[:2])
    fig = mf.vote_figure(short, "545")
    assert np.allclose(_stack_sums(fig), 1.0, atol=1e-5)
    assert fig.data[-1].name == "not counted"
    assert all(t.stackgroup == "one" for t in fig.data)


def test_vote_colours_are_distinct_and_the_ground_truth_is_fixed_green() -> None:
    # vote_shares shows at most 8 groups besides the ground truth (top 8 + the right one)
    labels = [str(800 + i) for i in range(7)] + ["545", "a long text answer " * 5]
    n = len(labels)
    vs = VoteShares(
        positions=np.array([2048], dtype=np.int64),
        labels=labels,
        correct=[lab == "545" for lab in labels],
        shares=np.full((n, 1), 1 / n, dtype=np.float32),
    )
    fig = mf.vote_figure(vs, "545")
    colors = {t.name: t.fillcolor for t in fig.data}
    gt = next(t for t in fig.data if "(ground truth)" in t.name)
    assert gt.fillcolor == theme.CORRECT
    wrong = [t.fillcolor for t in fig.data if "(ground truth)" not in t.name]
    assert len(set(wrong)) == len(wrong)  # 8 wrong answers, 8 colours
    assert theme.CORRECT not in wrong
    # the long answer: short legend label, full (escaped) text in the hover
    long_t = next(t for t in fig.data if t.name.startswith("a long"))
    assert len(long_t.name) <= mf.LEGEND_CHARS + 1
    assert (labels[-1][:80]) in long_t.customdata[0]
    assert colors


def test_histograms_share_bins_side_by_side_with_axis_titles() -> None:
    feats = _feats([True, True, False, False, False], [0, 0, 1, 1, -1], [1.0, 2.0, 1.5, 3.0, 9.0])
    fig = mf.compare_hist(feats, "min_group", "t", x_title="lowest group")
    assert fig.layout.barmode == "group"
    assert len(fig.data) == 2
    assert fig.data[0].xbins == fig.data[1].xbins and fig.data[0].xbins.size is not None
    assert fig.layout.yaxis.title.text == "traces"
    assert fig.layout.xaxis.title.text == "lowest group"


def test_answers_bar_labels_every_bar_and_counts_no_answer() -> None:
    groups = _groups(["818", "545", "the number of ordered pairs is " * 4], [9, 5, 1], [0, 1, 0])
    fig = mf.answers_bar(groups.with_columns(pl.col("is_correct").cast(pl.Boolean)), n_none=6)
    ticks = list(fig.layout.xaxis.ticktext)
    assert len(ticks) == len(fig.data[0].x) == 4
    assert all(t and len(t) <= 16 for t in ticks)
    assert ticks[-1] == "(no answer)" and list(fig.data[0].y)[-1] == 6
    assert fig.layout.yaxis.title.text == "traces"


def test_zoom_probes_are_drawn_on_top_with_a_white_outline() -> None:
    probes = pl.DataFrame(
        {
            "position": [2048, 4096],
            "answer": ["1", "2"],
            "raw_text": ["a", "b"],
            "avg_conf": [1.0, 2.0],
            "is_correct_group": [True, False],
        }
    )
    fig = mf.zoom_figure(np.ones(5000, np.float32), np.ones(10, np.float32), 2048, probes, 64)
    top = fig.data[-1]
    assert top.name.startswith("probe")
    # same WebGL layer as the lines (an SVG trace would sit under the canvas), added last
    assert top.type == "scattergl"
    assert top.marker.line.color == "white" and top.marker.line.width >= 1.5


def test_zoom_legend_names_the_symbols_it_draws() -> None:
    """One trace per class: the legend shows each class's own symbol (no "○ right" over filled
    markers); by agreement with the final answer, or by correctness."""
    probes = pl.DataFrame(
        {
            "position": [2048, 4096, 6144],
            "answer": ["1", "2", None],
            "group": ["1", "2", "—"],
            "vs final": ["agrees with final", "differs from final", "no answer"],
            "raw_text": ["a", "b", "c"],
            "avg_conf": [1.0, 2.0, 3.0],
            "is_correct_group": [True, False, False],
        }
    )
    fig = mf.zoom_figure(np.ones(7000, np.float32), np.ones(10, np.float32), 2048, probes)
    got = {t.name: t.marker.symbol for t in fig.data if t.name.startswith("probe")}
    assert got == {
        "probe agrees with final answer (1)": "circle",
        "probe differs from final answer (1)": "diamond",
        "probe: no answer (1)": "circle-open",
    }
    fig = mf.zoom_figure(
        np.ones(7000, np.float32), np.ones(10, np.float32), 2048, probes, probes_by="correctness"
    )
    got = {t.name: t.marker.symbol for t in fig.data if t.name.startswith("probe")}
    assert got == {
        "probe answer right (1)": "circle",
        "probe answer wrong (1)": "x",
        "probe: no answer (1)": "circle-open",
    }


def test_overview_grid_rings_and_text_contrast() -> None:
    ov = pl.DataFrame(
        {
            "qid": [0, 1, 2],
            "n_traces": [10, 10, 10],
            "pass_at_1": [0.0, 0.5, 1.0],
            "majority_answer": ["1", "2", "3"],
            "majority_correct": [False, True, True],
            "n_answers": [2, 2, 1],
            "n_null": [0, 0, 0],
            "median_len_correct": [None, 1000.0, 900.0],
            "median_len_wrong": [800.0, 1200.0, None],
        }
    )
    fig = mf.overview_grid(ov)
    sq = fig.data[-1]
    widths, colors = list(sq.marker.line.width), list(sq.marker.line.color)
    assert widths[0] > 0 and colors[0] == "#000000"  # majority wrong: black ring
    assert widths[1] == 0 and widths[2] == 0  # majority right: no ring
    # dark red and dark green fills get white text, the pale yellow middle black text
    assert list(sq.textfont.color) == ["#ffffff", "#111111", "#ffffff"]
    sel = mf.overview_grid(ov, selected=1)
    assert len(sel.data) == 2 and list(sel.data[0].customdata) == [1]
    assert list(sel.data[-1].marker.line.width) == widths  # the ring still tells right/wrong


def test_overview_grid_rings_the_questions_with_cases() -> None:
    ov = pl.DataFrame(
        {
            "qid": [0, 1, 2],
            "n_traces": [10, 10, 10],
            "pass_at_1": [0.0, 0.5, 1.0],
            "majority_answer": ["1", "2", "3"],
            "majority_correct": [False, True, True],
            "n_answers": [2, 2, 1],
            "n_null": [0, 0, 0],
            "median_len_correct": [None, 1000.0, 900.0],
            "median_len_wrong": [800.0, 1200.0, None],
        }
    )
    plain = mf.overview_grid(ov)
    assert [t.name for t in plain.data] == ["questions"]
    fig = mf.overview_grid(ov, selected=0, marked={2: 3, 0: 1, 99: 1})
    assert [t.name for t in fig.data] == [
        "selected",
        "questions",
        "has cases (halo)",
        "has cases",
    ]
    ring = fig.data[-1]
    assert list(ring.customdata) == [0, 2]  # 99 is not in this file's grid
    assert ring.marker.color == theme.CASE_ACCENT and ring.marker.symbol == "square-open"
    assert ring.hoverinfo == "skip"  # a click goes to the square under it
    sq = fig.data[1]
    assert "3 cases" in sq.hovertext[2] and "case" not in sq.hovertext[1]
    assert list(sq.marker.line.width) == list(plain.data[0].marker.line.width)


def test_a_tied_majority_gets_a_grey_ring_and_says_tie() -> None:
    ov = pl.DataFrame(
        {
            "qid": [0, 1],
            "n_traces": [4, 4],
            "pass_at_1": [0.5, 0.25],
            "majority_answer": ["7", "8"],
            "majority_correct": [None, False],
            "majority_votes": [2, 3],
            "majority_tie": [2, 1],
            "majority_tied": [["7", "8"], ["8"]],
            "tie_has_truth": [True, False],
            "n_answers": [2, 2],
            "n_null": [0, 0],
            "median_len_correct": [10.0, 10.0],
            "median_len_wrong": [10.0, 10.0],
            "ground_truth": ["7", "7"],
        }
    )
    fig = mf.overview_grid(ov)
    squares = next(t for t in fig.data if t.name == "questions")
    assert list(squares.marker.line.color) == [theme.NO_ANSWER, theme.GRID_RING]
    assert "tie between 2 answers" in squares.hovertext[0]
    rows = ov.rows(named=True)
    assert majority_mark(rows[0]) == "tie (2 answers)" and majority_mark(rows[1]) == "✗"


def test_the_overview_grid_has_a_colour_bar_naming_its_quantity() -> None:
    html = colour_bar_html()
    assert "pass@1, share of the question&#x27;s traces with a right final answer (%)" in html
    assert "rgb(165,0,38) 0%" in html and "rgb(0,104,55) 100%" in html  # RdYlGn, the grid's
    for label in (">0%<", ">25%<", ">50%<", ">75%<", ">100%<"):
        assert label in html
    assert "-0" not in html
