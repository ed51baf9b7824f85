"""The frontier with uncertainty: error bars at the 95 % intervals, a step Pareto front, honest
sweep and legend names; the replay's labelled axes and threshold parts."""

from __future__ import annotations

import json

import numpy as np

from analysis.playground import (
    FrontierPoint,
    Mars,
    ParallelProbe,
    SelfConsistency,
    SimSettings,
    policy_for_method,
    prepare,
    replay,
)
from analysis.playground.explain import threshold_parts
from analysis.playground.synthetic import hand_pool
from components.common.lite_spec import chart_spec
from components.playground.figures import (
    GROUP_TITLES,
    SWEEP_BAND,
    error_segments,
    frontier_figure,
    replay_figure,
    step_front,
    sweep_name,
)
from components.playground.replay import threshold_html

SC = SelfConsistency()


def _pt(method: str, acc: float, sav: float, ci=None, sci=None, value=None) -> FrontierPoint:
    return FrontierPoint(
        value,
        method,
        acc,
        sav,
        SC,
        ci or (float("nan"), float("nan")),
        sci or (float("nan"), float("nan")),
    )


def test_step_front_drops_at_each_point_and_runs_flat() -> None:
    # (savings, accuracy): (0, 80), (20, 70), (50, 60) on the front; (10, 65) dominated
    x, y = step_front([0, 20, 50, 10], [80, 70, 60, 65])
    assert x.tolist() == [0, 0, 20, 20, 50]
    assert y.tolist() == [80, 70, 70, 60, 60]


def test_error_segments_are_the_intervals() -> None:
    p = _pt("sc-pp", 60.0, 30.0, (55.0, 66.0), (28.0, 31.5))
    xs, ys = error_segments([p, _pt("x", 1.0, 2.0)])  # no interval: no segment
    assert xs == [30.0, 30.0, None, 28.0, 31.5, None]
    assert ys == [55.0, 66.0, None, 60.0, 60.0, None]


def test_frontier_draws_bars_steps_and_renamed_groups() -> None:
    sweep = [
        _pt("sc-mars-cal", 70.0, 10.0, (65.0, 75.0), (9.0, 11.0), 0.5),
        _pt("sc-mars-cal", 60.0, 40.0, (54.0, 66.0), (38.0, 42.0), 1.0),
    ]
    others = [("sc-pp", _pt("sc-pp", 65.0, 20.0, (60.0, 70.0), (19.0, 21.0)))]
    title = sweep_name(policy_for_method("sc-mars-cal", warmup_gamma=True), "gamma", [0.5, 1.0])
    assert title == "sc-mars: fixed gamma swept 0.5–1 (no calibration)"
    fig = frontier_figure(sweep, "gamma", sweep[0], others, sweep_title=title)
    data = json.loads(fig.to_json())["data"]
    names = [t.get("name") for t in data]
    assert title in names
    bars = [t for t in data if t.get("name") == "95 % intervals"]
    assert len(bars) == 2  # the marker, the current setting
    assert bars[1]["y"][:2] == [65.0, 75.0] and bars[1]["x"][3:5] == [9.0, 11.0]  # current
    # the sweep's accuracy intervals: one band, its upper edge along savings, then its lower back
    (band,) = [t for t in data if t.get("name") == SWEEP_BAND]
    assert band["fill"] == "toself"
    assert band["x"] == [10.0, 40.0, 40.0, 10.0] and band["y"] == [75.0, 66.0, 54.0, 65.0]
    names = [t.get("name") for t in data]
    # beneath the front and the sweep's line (a tint over them hid the front's green)
    assert names.index(SWEEP_BAND) < min(names.index("Pareto front (steps)"), names.index(title))
    # yet listed in the legend right after the sweep's line (legend ranks 1 and 2)
    line = next(t for t in data if t.get("name") == title)
    assert band.get("showlegend", True) and (line["legendrank"], band["legendrank"]) == (1, 2)
    front = next(t for t in fig.data if t.name == "Pareto front (steps)")
    assert list(front.x) == [10.0, 10.0, 20.0, 20.0, 40.0]
    assert list(front.y) == [70.0, 65.0, 65.0, 60.0, 60.0]
    assert GROUP_TITLES["published"] == "Re-simulated at published settings"
    assert any(
        t.get("legendgrouptitle", {}).get("text") == "Re-simulated at published settings"
        for t in data
    )
    # the SVG renderer draws all of it (no Plotly fallback)
    spec = chart_spec(fig, None)
    assert any(t["name"] == "95 % intervals" for t in spec["traces"])
    assert any(t["name"] == SWEEP_BAND for t in spec["traces"])


def test_sweep_names_say_what_is_swept() -> None:
    assert (
        sweep_name(Mars(), "gamma", [0.5, 1.0])
        == "sc-mars: fixed gamma swept 0.5–1 (no calibration)"
    )
    pp = ParallelProbe()
    assert sweep_name(pp, pp.main.label, [1, 11]) == "sc-pp: stable checkpoints (conv) swept 1–11"


def test_replay_axes_are_labelled_and_name_the_runner_up() -> None:
    pool = hand_pool(
        final=[0, 1, 0, 0],
        groups=[[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 0]],
        labels=["42", "<7>"],
        lengths=[9000] * 4,
    )
    prep = prepare(pool)
    res, diag = replay(prep, Mars(gamma=0.6), SimSettings(budget=16, iterations=4), 1)
    fig = json.loads(replay_figure(diag, res, "MARS margin vs threshold").to_json())
    lay = fig["layout"]
    assert lay["yaxis"]["title"]["text"] == "vote share (%)"
    assert lay["yaxis"]["ticksuffix"] == "%"
    assert lay["yaxis2"]["title"]["text"] == "margin (votes)"
    assert lay["yaxis3"]["title"]["text"] == "tokens (M)"
    margin = next(t for t in fig["data"] if t.get("name") == "margin")
    cells = [c[1] for c in margin["customdata"]]
    assert all(c.startswith("runner-up: ") for c in cells)
    assert any("&lt;7&gt;" in c or "42" in c for c in cells)  # escaped answer text
    k = int(diag.grid.shape[0]) - 1
    parts = threshold_parts(diag, k)
    assert parts is not None
    html = threshold_html(parts, res, int(diag.grid[k]), False, "votes", False)
    assert "γ = 0.6 (fixed)" in html and "<7>" not in html
    assert f"{parts.threshold:.3g}" in html
    assert np.isclose(parts.threshold, diag.threshold[0, k])
