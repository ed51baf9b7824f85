"""Figure builders of the playground: escaped answer text, small JSON, labels in place."""

from __future__ import annotations

import json
from collections.abc import Iterator

from analysis.playground import Consensus, Mars, SimSettings, prepare, replay
from analysis.playground.synthetic import hand_pool
from components.playground.figures import replay_figure, replay_steps


def _strings(obj: object) -> Iterator[str]:
    """Every string inside a decoded plotly JSON figure (labels, templates, customdata)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def test_figures_escape_answer_text_and_stay_small() -> None:
    pool = hand_pool(
        final=[0, 1, 0],
        groups=[[0, 0, 0], [1, 1, 1], [0, 1, 0]],
        labels=["<b>7</b>", "<script>alert(1)</script>"],
    )
    prep = prepare(pool)
    res, diag = replay(prep, Mars(), SimSettings(budget=16, iterations=4), 2)
    fig = replay_figure(diag, res, "MARS margin vs threshold")
    text = fig.to_json()
    # to_json writes `<` as \u003c: look at the decoded strings, not the JSON text
    strings = list(_strings(json.loads(text)))
    assert not [s for s in strings if "<script>" in s or "<b>7" in s]
    assert any("&lt;script&gt;" in s for s in strings)
    assert len(text) < 2_000_000
    assert not fig.frames  # Play steps through the checkpoints in the browser (replay_steps)
    assert diag is not None and diag.margin is not None and diag.threshold is not None
    assert diag.margin.shape == (1, 3) and diag.threshold.shape == (1, 3)


def test_replay_answer_labels_are_not_plotly_placeholders() -> None:
    """An answer like `%{x}` must show as itself, not as the hovered x value; `<b>` escaped."""
    pool = hand_pool(
        final=[0, 1, 0],
        groups=[[0, 0, 0], [1, 1, 1], [0, 1, 0]],
        labels=["%{x}<b>7</b>", "%{y:.2f} other"],
    )
    res, diag = replay(prepare(pool), Mars(), SimSettings(budget=16, iterations=4), 2)
    fig = json.loads(replay_figure(diag, res, "MARS margin vs threshold").to_json())
    answers = [
        t for t in fig["data"] if t.get("type") == "scatter" and t.get("xaxis") in (None, "x")
    ]
    assert len(answers) == 2
    for t in answers:
        tmpl = t["hovertemplate"]
        assert "%{x" not in tmpl.replace(
            "checkpoint at %{x:,.0f} tokens", ""
        )  # only our own placeholders
        assert "%{y:.2f} other" not in tmpl and "<b>7" not in tmpl
    labels = [v for t in answers for v in _strings(t.get("customdata", t.get("text")))]
    assert any("%{x}&lt;b&gt;7&lt;/b&gt;" in v for v in labels)
    assert any("%{y:.2f} other" in v for v in labels)
    assert not [v for v in _strings(fig) if "<b>7" in v]


def test_replay_stop_label_sits_inside_the_top_panel() -> None:
    """The red "stop at …" label used to sit at paper y = 1, on the subplot title."""
    pool = hand_pool(final=[0, 0, 0], groups=[[0, 0, 0]] * 3)
    res, diag = replay(prepare(pool), Consensus(tau=0.5), SimSettings(budget=8, iterations=2), 0)
    assert res.stop_index[0] == 0
    fig = json.loads(replay_figure(diag, res, "leader share", 0.5).to_json())
    notes = fig["layout"]["annotations"]
    label = next(a for a in notes if "stop at" in a["text"])
    title = next(a for a in notes if a["text"] == "vote share per answer")
    assert label["yref"] == "y domain" and label["yanchor"] == "top" and label["y"] < 1
    assert title["yref"] == "paper" and title["yanchor"] == "bottom"  # the title sits above


def test_replay_steps_show_one_more_checkpoint_each() -> None:
    """Play and the slider: step k shows every line and the token bars up to checkpoint k,
    labelled by its position; the replay opens on the last checkpoint."""
    pool = hand_pool(
        final=[0, 1, 0],
        groups=[[0, 0, 0], [1, 1, 1], [0, 1, 0]],
        labels=["7", "8"],
    )
    res, diag = replay(prepare(pool), Mars(), SimSettings(budget=16, iterations=4), 2)
    assert diag is not None
    steps = replay_steps(diag.grid)
    assert steps["counts"] == [1, 2, 3]
    assert steps["labels"] == [f"{int(p)}" for p in diag.grid]
    assert steps["active"] == 2 and steps["prefix"] == "checkpoint at "
    fig = replay_figure(diag, res, "MARS margin vs threshold")
    assert all(len(t.x) == 3 for t in fig.data)  # every trace has a point at every checkpoint
