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
