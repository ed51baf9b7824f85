"""The subset scatter plots ring the selected trajectory, and only it."""

from __future__ import annotations

import polars as pl

from components.parason_charts import ratio_scatter, speedup_scatter


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
        assert (
            list(rings[0].x) == [x]
            and list(rings[0].y) == [y]
            and list(rings[0].customdata) == ["b"]
        )
    assert not [t for t in speedup_scatter(_df(), None).data if t.name == "selected"]
    assert not [t for t in speedup_scatter(_df(), "zzz").data if t.name == "selected"]


def test_figures_name_their_token_counter() -> None:
    from components.parason_charts import note_counter

    fig = note_counter(speedup_scatter(_df()), "estimate <by char share>")
    texts = [a.text for a in fig.layout.annotations]
    assert "token counts: estimate &lt;by char share&gt;" in texts
