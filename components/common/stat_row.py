"""A row of headline figures drawn as one small component, in place of a row of `st.metric`s.

Five `st.metric`s cost a new tab about as much browser time as a select box: each is a widget
with its own Markdown label, value and delta. The views' headline rows (a MARS question, a run
of the playground, a Parason trajectory, a FineProofs trace) are drawn here as one element
whose cells are set as text in the browser, so a value from the data is never markup and needs
no Markdown escaping. The API is `st.metric`'s, so a view's call sites read the same:

    with stat_row("mars_head", label="The question's figures") as row:
        row.metric("traces", 128)
        row.metric("pass@1", "95%", "+3 pp", delta_color="normal", help="…")
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from components.common import theme
from components.common.registered import registered

DeltaColor = Literal["normal", "inverse", "off"]
_JS = Path(__file__).with_name("stat_row.js").read_text(encoding="utf-8")
_CSS = f"""
.rte-stats {{ display: flex; flex-wrap: wrap; column-gap: 2.25rem; row-gap: 0.5rem;
  font-family: var(--st-font, inherit); color: var(--st-text-color, #31333f); }}
.rte-stat {{ min-width: 0; }}
.rte-stat-label {{ font-size: 0.875rem; line-height: 1.4; display: flex; gap: 0.3rem;
  align-items: center; }}
.rte-stat-help {{ display: inline-flex; width: 1rem; height: 1rem; border-radius: 50%;
  align-items: center; justify-content: center; font-size: 0.7rem; cursor: help;
  border: 1px solid rgba(49, 51, 63, 0.4); color: rgba(49, 51, 63, 0.6); }}
.rte-stat-value {{ font-size: 2.25rem; line-height: 1.25; white-space: nowrap; }}
.rte-stat-delta {{ font-size: 0.875rem; line-height: 1.4; }}
.rte-stat-delta.up {{ color: {theme.CORRECT}; }}
.rte-stat-delta.down {{ color: {theme.WRONG}; }}
.rte-stat-delta.off {{ color: {theme.NO_ANSWER}; }}
"""


def _component() -> Any:
    return registered("rte_stat_row", _JS, _CSS)


@dataclass(frozen=True)
class Stat:
    """One figure as drawn: its label, value, delta (empty for none) with its colour (`up`,
    `down` or `off`) and its arrow (↑, ↓, or none), and its help (a tip)."""

    label: str
    value: str
    delta: str = ""
    tone: str = "off"
    arrow: str = ""
    help: str = ""


def _text(v: object) -> str:
    return "" if v is None else str(v)


def _falls(delta: str) -> bool:
    return delta.lstrip().startswith(("-", "−"))


def delta_tone(delta: str, color: DeltaColor) -> str:
    """`st.metric`'s rule: a delta written with a leading minus goes down, any other up;
    "normal" paints up green and down red, "inverse" the other way, "off" grey."""
    if color == "off" or not delta:
        return "off"
    return "down" if _falls(delta) != (color == "inverse") else "up"


class StatRow:
    """The figures of one row, collected by `metric` and drawn when the row's block ends."""

    def __init__(self) -> None:
        self.stats: list[Stat] = []

    def metric(
        self,
        label: object,
        value: object,
        delta: object = None,
        *,
        delta_color: DeltaColor = "normal",
        delta_arrow: Literal["auto", "off"] = "auto",
        help: str | None = None,  # noqa: A002 - st.metric's name
        width: object = None,  # noqa: ARG002 - st.metric's; every figure is content-wide
    ) -> None:
        d = _text(delta)
        tone = delta_tone(d, delta_color)
        self.stats.append(
            Stat(
                label=_text(label),
                value=_text(value) or "–",
                delta=d,
                tone=tone,
                arrow="" if not d or delta_arrow == "off" else ("↓" if _falls(d) else "↑"),
                help=_text(help),
            )
        )

    def draw(self, key: str, *, label: str = "") -> None:
        """Draw the figures collected so far as one element; `label` names the row for
        assistive technology."""
        _component()(key=key, data={"label": label, "stats": [asdict(s) for s in self.stats]})


@contextmanager
def stat_row(key: str, *, label: str = "") -> Iterator[StatRow]:
    """Collect a row's figures (`row.metric(...)`, as `st.metric`) and draw them as one element
    when the block ends; `label` names the row for assistive technology."""
    row = StatRow()
    yield row
    row.draw(key, label=label)
