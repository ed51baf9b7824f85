"""The hidden Plotly preload: a chart sent before the view's script body (so the browser loads
Plotly while the body runs), gone when the body ends, even when it fails."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest


def _script() -> None:
    import plotly.graph_objects as go
    import streamlit as st

    from components.common.preload import KEY, plotly_preloaded

    sent = st.session_state.setdefault("sent", [])
    st.session_state["key"] = KEY
    with plotly_preloaded(st.session_state.get("enabled", True)):
        st.container().plotly_chart(go.Figure(go.Bar(x=[1], y=[2])), key="body_chart")
        sent.append("body ran")
        if st.session_state.get("fail"):
            raise RuntimeError("the view failed")


@pytest.fixture(autouse=True)
def _record_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Record the order in which charts are sent (undone after each test, so nothing leaks)."""
    original = DeltaGenerator.plotly_chart

    def recorded(self, fig, *a, **k):  # type: ignore[no-untyped-def]
        st.session_state.setdefault("sent", []).append(fig.data[0].type)
        return original(self, fig, *a, **k)

    monkeypatch.setattr(DeltaGenerator, "plotly_chart", recorded)


def test_the_preload_chart_goes_first_and_only_the_views_chart_remains() -> None:
    at = AppTest.from_function(_script).run()
    assert not at.exception
    assert at.session_state["sent"] == ["scatter", "bar", "body ran"]  # the preload first
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and '"bar"' in charts[0].proto.spec
    styles = [h.proto.body for h in at.get("html")]
    assert any(f".st-key-{at.session_state['key']}" in b and "display:none" in b for b in styles)


def test_a_failing_view_still_removes_the_preload_chart() -> None:
    at = AppTest.from_function(_script)
    at.session_state["fail"] = True
    at.run()
    assert at.exception  # the view's own error, not hidden
    assert len(at.get("plotly_chart")) == 1  # only the view's chart


def test_disabled_adds_nothing() -> None:
    at = AppTest.from_function(_script)
    at.session_state["enabled"] = False
    at.run()
    assert at.session_state["sent"][-2:] == ["bar", "body ran"]
    assert len(at.get("plotly_chart")) == 1
    assert not at.get("html")
