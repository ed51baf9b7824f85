"""Reading the headline figures a page drew in AppTest: `st.metric`s and the rows of
`components.common.stat_row`, each as (label, value, delta, tone, help)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

COMPONENT = "rte_stat_row"


@dataclass(frozen=True)
class Shown:
    label: str
    value: str
    delta: str
    tone: str  # up, down or off (st.metric: from its delta colour)
    help: str


def shown_metrics(at: Any) -> list[Shown]:
    """Every figure on the page, in the order of their rows (st.metric first)."""
    out = [
        Shown(str(m.label), str(m.value), str(m.proto.delta), "", str(m.proto.help))
        for m in at.metric
    ]
    for c in at.get("bidi_component"):
        if c.proto.component_name.endswith(COMPONENT):
            for s in json.loads(c.proto.json)["stats"]:
                out.append(Shown(s["label"], s["value"], s["delta"], s["tone"], s["help"]))
    return out


def metric_value(at: Any, label: str) -> str:
    """The value of the figure named `label`."""
    return next(m.value for m in shown_metrics(at) if m.label == label)
