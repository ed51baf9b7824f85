"""Reading the light tables a page drew in AppTest (`components.common.lite_table`): each as a
pandas frame of the cells the browser shows, by column name, numeric columns parsed back."""

from __future__ import annotations

import json
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
                text = frame[col["name"]].astype(str).str.replace(",", "", regex=False)
                frame[col["name"]] = pd.to_numeric(text, errors="coerce")
        out.append(frame)
    return out
