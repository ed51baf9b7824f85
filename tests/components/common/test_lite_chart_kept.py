"""A figure kept in a cache is turned into its chart spec once while it lives; a new figure, or
one drawn without `kept`, is converted on every call."""

from __future__ import annotations

import gc

import plotly.graph_objects as go
import pytest

from cache.kept import Kept
from components.common import lite_chart as lc


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the figures converted (ids: a reference here would keep a figure alive)."""
    made: list[int] = []
    real = lc.chart_spec

    def counted(fig: go.Figure, steps: object = None) -> dict:
        made.append(id(fig))
        return real(fig, steps)  # type: ignore[arg-type]  # the real signature's Mapping

    monkeypatch.setattr(lc, "chart_spec", counted)
    monkeypatch.setattr(lc, "_SPECS", Kept(256))
    return made


def _fig(y: list[float]) -> go.Figure:
    return go.Figure(go.Scatter(x=list(range(len(y))), y=y, mode="lines"))


def test_a_kept_figure_is_converted_once(conversions: list[int]) -> None:
    kept = _fig([1, 2, 3])
    first = lc._spec(kept, None, kept=True)
    assert lc._spec(kept, None, kept=True) is first
    assert conversions == [id(kept)]
    other = _fig([1, 2, 3])  # equal content, another object: converted on its own
    assert lc._spec(other, None, kept=True) == first and len(conversions) == 2


def test_without_kept_every_call_converts(conversions: list[int]) -> None:
    fig = _fig([3, 1, 2])
    lc._spec(fig, None, kept=False)
    lc._spec(fig, None, kept=False)
    assert len(conversions) == 2


def test_a_kept_figure_is_converted_once_per_steps(conversions: list[int]) -> None:
    """The playground's replay keeps its figure and draws it with its Play steps."""
    fig = _fig([3, 1, 2])
    steps = {"counts": [1, 3], "labels": ["a", "b"], "prefix": "", "suffix": "", "active": 1}
    first = lc._spec(fig, steps, kept=True)
    assert lc._spec(fig, dict(steps), kept=True) is first  # equal steps: the same spec
    assert first["steps"] and len(conversions) == 1
    other = lc._spec(fig, {**steps, "active": 0}, kept=True)  # other steps: converted again
    assert other is not first and len(conversions) == 2
    assert lc._spec(fig, None, kept=True)["steps"] != first["steps"]
    assert len(conversions) == 3


def test_a_reused_id_of_a_dead_figure_is_not_served(conversions: list[int]) -> None:
    gone = _fig([1, 2])
    lc._spec(gone, None, kept=True)
    stale_id = id(gone)
    del gone
    gc.collect()  # a figure and its traces refer to each other
    # whatever object takes that id later, the weak reference no longer points at it
    assert lc._SPECS.get((stale_id, ""))[0]() is None  # type: ignore[index]  # kept above
    fresh = _fig([5, 6, 7])
    lc._spec(fresh, None, kept=True)
    assert conversions[-1] == id(fresh) and lc._SPECS.get((id(fresh), ""))[0]() is fresh  # type: ignore[index]  # kept above


def test_the_memo_is_bounded(conversions: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lc, "_SPECS", Kept(3))
    figs = [_fig([i, i + 1]) for i in range(5)]
    for f in figs:
        lc._spec(f, None, kept=True)
    assert lc._SPECS.keys() == [(id(f), "") for f in figs[2:]]
