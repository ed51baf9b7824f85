"""Reading the light tables a page drew in AppTest (`components.common.lite_table`): each as a
pandas frame of the cells the browser shows, by column name, numeric columns parsed back."""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

COMPONENT = "rte_lite_table"


def lite_payloads(at: Any) -> list[dict[str, Any]]:
    """Every light table on the page, in order, as the payload the browser draws."""
    return [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name.endswith(COMPONENT)
    ]


def lite_tables(at: Any) -> list[pd.DataFrame]:
    """Every light table on the page as a frame: text as shown, a right-aligned (numeric)
    column as numbers (a dash as NaN)."""
    out = []
    for payload in lite_payloads(at):
        names = [c["name"] for c in payload["cols"]]
        frame = pd.DataFrame(payload["rows"], columns=names, dtype=object)
        for col in payload["cols"]:
            if col["right"]:
                frame[col["name"]] = [_number(str(v)) for v in frame[col["name"]]]
        out.append(frame)
    return out


def _number(text: str) -> float:
    """A right-aligned cell as a number: thousands separators dropped, a percentage as a
    fraction, a dash (missing) as NaN."""
    text = text.replace(",", "").replace("−", "-")
    scale = 1.0
    if text.endswith("%"):
        text, scale = text[:-1], 0.01
    try:
        return float(text) * scale
    except ValueError:
        return math.nan


def shown_tables(at: Any) -> list[pd.DataFrame]:
    """Every table on the page, data grids first, then light tables (a view draws a table one
    way or the other)."""
    return [grid.value for grid in at.dataframe] + lite_tables(at)
