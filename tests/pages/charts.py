"""Reading the charts a page drew in AppTest: Plotly figures and lite charts (their spec)."""

from __future__ import annotations

import json
from typing import Any

from components.common.lite_chart import COMPONENT
from components.common.lite_spec import unpack


def plotly_specs(at: Any) -> list[dict[str, Any]]:
    """Every Plotly figure on the page, as its JSON."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def lite_specs(at: Any) -> list[dict[str, Any]]:
    """Every lite chart on the page, in order, as the spec the browser draws (x and y unpacked)."""
    out = []
    for c in at.get("bidi_component"):
        if not c.proto.component_name.endswith(COMPONENT):
            continue
        spec = json.loads(c.proto.json)["spec"]
        for t in spec["traces"]:
            t["x"], t["y"] = unpack(t["x"]), unpack(t["y"])
        out.append(spec)
    return out


def lite_as_figure(spec: dict[str, Any]) -> dict[str, Any]:
    """A lite chart's spec in the shape of a Plotly figure's JSON (the keys tests read), so a
    test asserts the same content whichever renderer drew the chart."""
    data = [
        {
            "name": t["name"],
            "x": t["x"],
            "y": t["y"],
            "customdata": t["picks"],
            "text": t["text"],
            "textposition": t["textposition"],
            "hovertext": t["tips"],
            "marker": {
                "color": t["marker"]["color"],
                "symbol": t["marker"]["symbol"],
                "line": {"color": t["marker"]["line_color"], "width": t["marker"]["line_width"]},
            },
        }
        for t in spec["traces"]
    ]
    notes = [{"text": a["text"]} for a in spec["annotations"]]
    return {"data": data, "layout": {"title": spec["title"], "annotations": notes}}


def figures(at: Any) -> list[dict[str, Any]]:
    """Every chart on the page as a Plotly figure's JSON: the Plotly ones, then the lite ones."""
    return plotly_specs(at) + [lite_as_figure(s) for s in lite_specs(at)]
