"""Reading and driving the light controls a page drew in AppTest
(`components.common.light_control`): AppTest sees a component, not a widget, so a select's
label, options and choice are read from what the browser is sent, and a pick is made the way the
browser's pick lands: the selector's value set before the next run (`url_state.selector_key`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from components.common.url_state import shown_key

COMPONENT = "rte_light_control"


@dataclass(frozen=True)
class Shown:
    """A light control as drawn: its label, options (as shown), the index shown, on/off."""

    kind: str
    label: str
    options: list[str]
    index: int
    on: bool
    help: str
    disabled: bool
    value: Any = None  # a slider's value, a range's [low, high]
    chosen: tuple[int, ...] = ()  # the options ticked in a list of several

    @property
    def shown(self) -> str:
        """The option shown (a select's choice)."""
        return self.options[self.index]


def light_controls(at: Any) -> list[Shown]:
    """Every light control on the page (main area and sidebar), in order."""
    out = []
    for c in at.get("bidi_component"):
        if not c.proto.component_name.endswith(COMPONENT):
            continue
        d = json.loads(c.proto.json)
        out.append(
            Shown(
                kind=d["kind"],
                label=d["label"],
                options=list(d.get("options", [])),
                index=int(d.get("index", 0)),
                on=bool(d.get("on", False)),
                help=d.get("help", ""),
                disabled=bool(d.get("disabled", False)),
                value=d.get("value"),
                chosen=tuple(d.get("chosen", ())),
            )
        )
    return out


def light_select(at: Any, label: str) -> Shown:
    """The select box labelled `label` (a prefix of it when it ends with "…")."""
    for c in light_controls(at):
        if c.kind == "select" and (
            c.label == label or (label.endswith("…") and c.label.startswith(label[:-1]))
        ):
            return c
    raise AssertionError(f"no light select {label!r}: {[c.label for c in light_controls(at)]}")


def choose(at: Any, url_key: str, value: object) -> Any:
    """Pick `value` in the URL-bound selector of `url_key` (as the browser's pick does: the
    value set before the run), then run."""
    at.session_state[shown_key(url_key)] = value
    return at.run()


def chosen(at: Any, url_key: str) -> Any:
    """The value the URL-bound selector of `url_key` shows (the option, not its label)."""
    return at.session_state[shown_key(url_key)]


def light_radio_options(at: Any, label: str) -> list[str]:
    """The options of the radio group labelled `label`."""
    (group,) = [c for c in light_controls(at) if c.kind == "radio" and c.label == label]
    return group.options


def light_control(at: Any, label: str) -> Shown:
    """The one light control labelled `label`."""
    (control,) = [c for c in light_controls(at) if c.label == label]
    return control


def tabs(at: Any) -> Shown:
    """The page's row of tabs (`url_state.url_tabs`): its tab names and the open one."""
    rows = [c for c in light_controls(at) if c.kind == "tabs"]
    assert len(rows) == 1, f"{len(rows)} rows of tabs on the page"
    return rows[0]
