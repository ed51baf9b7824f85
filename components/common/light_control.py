"""Light controls: a select box, a picker one can type into, a radio group, an on/off switch, a
slider and a text box, each drawn as one small component in place of Streamlit's widget.

Why: the first time a page draws a kind of Streamlit widget, a new tab pays for that kind's
code and styles (`bench/element_costs.py`: a select box alone adds about 0.1-0.2x a bare page's
first paint); our components share one runtime that the browser bridge already loads, and a
native `<select>` costs next to nothing. The controls keep the reader's choice on the server:
a pick in the browser calls `on_pick` before the script reruns, and the run says what is shown
(`index`, `on`), so a deep link, a grid click and the control never disagree.

Labels, options and help are set as text in the browser: a value from the data is never markup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from components.common.registered import registered
from components.common.selection import picked_value

COMPONENT = "rte_light_control"
PICK_EVENT = "pick"
_JS_FILE = Path(__file__).with_name("light_control.js")
_CHEVRON = (  # a down chevron, drawn inline (nothing is fetched)
    "url(\"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='12' height='12' "
    "viewBox='0 0 12 12'%3E%3Cpath d='M2 4l4 4 4-4' fill='none' stroke='%2331333f' "
    "stroke-width='1.5'/%3E%3C/svg%3E\")"
)
_CSS = f"""
.rte-lc {{ font-family: var(--st-font, inherit); font-size: 14px;
  color: var(--st-text-color, #31333f); }}
.rte-lc-k-select, .rte-lc-k-combo {{ display: flex; flex-direction: column; gap: 0.25rem; }}
.rte-lc-k-combo input {{ width: 100%; height: 2.5rem; box-sizing: border-box;
  padding: 0 2rem 0 0.75rem; border: 1px solid transparent; border-radius: 0.5rem;
  background: var(--st-secondary-background-color, #f0f2f6) {_CHEVRON} no-repeat
  right 0.75rem center; font: inherit; color: inherit; text-overflow: ellipsis; }}
.rte-lc-k-combo input::-webkit-calendar-picker-indicator {{ opacity: 0; }}
.rte-lc-k-combo input:focus-visible {{ outline: none;
  border-color: var(--st-primary-color, #ff4b4b); }}
.rte-lc-k-combo input:disabled {{ cursor: not-allowed; opacity: 0.6; }}
.rte-lc-group {{ display: flex; flex-direction: column; gap: 0.25rem; border: 0; margin: 0;
  padding: 0; }}
.rte-lc-group > legend {{ padding: 0; margin-bottom: 0.25rem; }}
.rte-lc-options {{ display: flex; flex-wrap: wrap; column-gap: 1rem; row-gap: 0.25rem;
  min-height: 2.5rem; align-items: center; }}
.rte-lc-options label {{ display: inline-flex; align-items: center; gap: 0.4rem;
  cursor: pointer; }}
.rte-lc-options input {{ margin: 0; width: 1rem; height: 1rem;
  accent-color: var(--st-primary-color, #ff4b4b); cursor: pointer; }}
.rte-lc-options input:focus-visible {{ outline: 2px solid var(--st-primary-color, #ff4b4b);
  outline-offset: 2px; }}
.rte-lc-tabs {{ display: flex; gap: 0.65rem; border-bottom: 1px solid rgba(49, 51, 63, 0.2);
  overflow-x: auto; scrollbar-width: thin; }}
.rte-lc-tabs button {{ flex: none; font: inherit; color: inherit; background: none; border: 0;
  border-bottom: 2px solid transparent; margin: 0 0 -1px; padding: 0.5rem 0.3rem 0.45rem;
  cursor: pointer; white-space: nowrap; }}
.rte-lc-tabs button:hover, .rte-lc-tabs button[aria-selected="true"] {{
  color: var(--st-primary-color, #ff4b4b); }}
.rte-lc-tabs button[aria-selected="true"] {{
  border-bottom-color: var(--st-primary-color, #ff4b4b); }}
.rte-lc-tabs button:focus-visible {{ outline: 2px solid var(--st-primary-color, #ff4b4b);
  outline-offset: -2px; border-radius: 4px; }}
.rte-lc-k-slider {{ display: flex; flex-direction: column; gap: 0.25rem; }}
.rte-lc-range {{ display: flex; align-items: center; gap: 0.6rem; min-height: 2.5rem; }}
.rte-lc-range input {{ flex: 1; min-width: 0; margin: 0;
  accent-color: var(--st-primary-color, #ff4b4b); cursor: pointer; }}
.rte-lc-range input:disabled {{ cursor: not-allowed; opacity: 0.5; }}
.rte-lc-ends {{ display: flex; justify-content: space-between; margin-right: 3.1rem;
  font-size: 12px; color: rgba(49, 51, 63, 0.6); font-variant-numeric: tabular-nums;
  margin-top: -0.5rem; }}
.rte-lc-range output {{ min-width: 2.5rem; text-align: right;
  font-variant-numeric: tabular-nums; }}
.rte-lc-k-text {{ display: flex; flex-direction: column; gap: 0.25rem; }}
.rte-lc-textrow {{ display: flex; gap: 0.5rem; }}
.rte-lc-textrow input {{ flex: 1; min-width: 0; height: 2.5rem; box-sizing: border-box;
  padding: 0 0.75rem; border: 1px solid transparent; border-radius: 0.5rem;
  background: var(--st-secondary-background-color, #f0f2f6); font: inherit; color: inherit; }}
.rte-lc-textrow input:focus-visible {{ outline: none;
  border-color: var(--st-primary-color, #ff4b4b); }}
.rte-lc-textrow button {{ height: 2.5rem; padding: 0 0.75rem; border-radius: 0.5rem;
  border: 1px solid rgba(49, 51, 63, 0.2); background: var(--st-background-color, #fff);
  font: inherit; color: inherit; cursor: pointer; }}
.rte-lc-textrow button:hover {{ border-color: var(--st-primary-color, #ff4b4b);
  color: var(--st-primary-color, #ff4b4b); }}
.rte-lc-k-multi, .rte-lc-k-range {{ display: flex; flex-direction: column; gap: 0.25rem; }}
.rte-lc-multi {{ position: relative; }}
.rte-lc-multi > summary {{ list-style: none; height: 2.5rem; box-sizing: border-box;
  padding: 0 2rem 0 0.75rem; border: 1px solid transparent; border-radius: 0.5rem;
  background: var(--st-secondary-background-color, #f0f2f6) {_CHEVRON} no-repeat
  right 0.75rem center; line-height: 2.5rem; cursor: pointer; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }}
.rte-lc-multi > summary::-webkit-details-marker {{ display: none; }}
.rte-lc-multi > summary:focus-visible {{ outline: none;
  border-color: var(--st-primary-color, #ff4b4b); }}
.rte-lc-multi > summary.rte-lc-empty {{ color: rgba(49, 51, 63, 0.6); }}
.rte-lc-menu {{ position: absolute; left: 0; right: 0; top: calc(100% + 4px); z-index: 10;
  max-height: 16rem; overflow: auto; padding: 0.25rem 0; border-radius: 0.5rem;
  background: var(--st-background-color, #fff); border: 1px solid rgba(49, 51, 63, 0.2);
  box-shadow: 0 4px 16px rgba(0, 0, 0, 0.12); }}
.rte-lc-menu label {{ display: flex; align-items: center; gap: 0.5rem; padding: 0.35rem 0.75rem;
  cursor: pointer; }}
.rte-lc-menu label:hover {{ background: rgba(49, 51, 63, 0.06); }}
.rte-lc-menu input {{ margin: 0; accent-color: var(--st-primary-color, #ff4b4b); }}
.rte-lc-menu input:focus-visible {{ outline: 2px solid var(--st-primary-color, #ff4b4b);
  outline-offset: 2px; }}
.rte-lc-none {{ padding: 0.35rem 0.75rem; color: rgba(49, 51, 63, 0.6); }}
.rte-lc-dual {{ position: relative; flex: 1; min-width: 0; height: 1.5rem; }}
.rte-lc-dual::before {{ content: ""; position: absolute; left: 0; right: 0; top: 50%;
  height: 4px; margin-top: -2px; border-radius: 2px; background: rgba(49, 51, 63, 0.2); }}
.rte-lc-fill {{ position: absolute; top: 50%; height: 4px; margin-top: -2px; border-radius: 2px;
  background: var(--st-primary-color, #ff4b4b); }}
.rte-lc-dual input {{ position: absolute; left: 0; top: 0; width: 100%; height: 100%; margin: 0;
  appearance: none; background: none; pointer-events: none; }}
.rte-lc-dual input::-webkit-slider-runnable-track {{ background: none; }}
.rte-lc-dual input::-webkit-slider-thumb {{ appearance: none; pointer-events: auto;
  width: 14px; height: 14px; border-radius: 50%; cursor: pointer;
  background: var(--st-primary-color, #ff4b4b); }}
.rte-lc-dual input::-moz-range-thumb {{ pointer-events: auto; width: 14px; height: 14px;
  border: 0; border-radius: 50%; cursor: pointer; background: var(--st-primary-color, #ff4b4b); }}
.rte-lc-dual input:focus-visible {{ outline: none; }}
.rte-lc-dual input:focus-visible::-webkit-slider-thumb {{ box-shadow: 0 0 0 3px
  rgba(59, 111, 216, 0.35); }}
.rte-lc-dual input:disabled {{ opacity: 0.5; }}
.rte-lc-k-range .rte-lc-range output {{ min-width: 5.5rem; }}
.rte-lc-k-range .rte-lc-ends {{ margin-right: 6.1rem; }}
.rte-lc-k-switch {{ display: flex; align-items: center; gap: 0.3rem; min-height: 1.5rem; }}
.rte-lc-head {{ display: flex; align-items: center; gap: 0.3rem; min-height: 1.25rem; }}
.rte-lc-label {{ line-height: 1.4; }}
.rte-lc-help {{ display: inline-flex; width: 1rem; height: 1rem; border-radius: 50%;
  align-items: center; justify-content: center; font-size: 0.7rem; cursor: help;
  border: 1px solid rgba(49, 51, 63, 0.4); color: rgba(49, 51, 63, 0.6); }}
.rte-lc-help[hidden] {{ display: none; }}
.rte-lc-help {{ position: relative; }}
.rte-lc-help:focus-visible {{ outline: 2px solid var(--st-primary-color, #ff4b4b);
  outline-offset: 1px; }}
.rte-lc-help:focus-visible::after {{ content: attr(data-tip); position: absolute; z-index: 20;
  left: 0; top: calc(100% + 6px); width: max-content; max-width: 18rem; padding: 0.4rem 0.6rem;
  border-radius: 0.4rem; background: #31333f; color: #fff; font-size: 12px; line-height: 1.4;
  white-space: normal; cursor: default; }}
.rte-lc-help-end:focus-visible::after {{ left: auto; right: 0; }}
.rte-lc select {{ appearance: none; width: 100%; height: 2.5rem; box-sizing: border-box;
  padding: 0 2rem 0 0.75rem; border: 1px solid transparent; border-radius: 0.5rem;
  background: var(--st-secondary-background-color, #f0f2f6) {_CHEVRON} no-repeat
  right 0.75rem center; font: inherit; color: inherit; cursor: pointer;
  text-overflow: ellipsis; }}
.rte-lc select:focus-visible {{ outline: none;
  border-color: var(--st-primary-color, #ff4b4b); }}
.rte-lc select:disabled {{ cursor: not-allowed; opacity: 0.6; }}
.rte-lc-switch {{ display: inline-flex; align-items: center; gap: 0.5rem; cursor: pointer;
  line-height: 1.6; }}
.rte-lc-switch input {{ appearance: none; margin: 0; width: 2rem; height: 1.1rem;
  border-radius: 0.55rem; background: rgba(49, 51, 63, 0.2); position: relative;
  cursor: pointer; transition: background 0.15s; flex: none; }}
.rte-lc-switch input::before {{ content: ""; position: absolute; top: 0.15rem; left: 0.15rem;
  width: 0.8rem; height: 0.8rem; border-radius: 50%; background: #fff;
  transition: left 0.15s; }}
.rte-lc-switch input:checked {{ background: var(--st-primary-color, #ff4b4b); }}
.rte-lc-switch input:checked::before {{ left: 1.05rem; }}
.rte-lc-switch input:focus-visible {{ outline: 2px solid var(--st-primary-color, #ff4b4b);
  outline-offset: 2px; }}
.rte-lc-switch input:disabled, .rte-lc-switch:has(input:disabled) {{ cursor: not-allowed;
  opacity: 0.6; }}
"""


def _component() -> Any:
    return registered(COMPONENT, lambda: _JS_FILE.read_text(encoding="utf-8"), _CSS)


def _digits(lo: float, hi: float, step: float) -> int:
    """The decimals a slider shows: none for whole numbers, else as many as its step has."""
    if all(isinstance(v, int) for v in (lo, hi, step)):
        return 0
    exponent = Decimal(str(step)).as_tuple().exponent  # an int for a finite step
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _picked(key: str) -> str | None:
    return picked_value(key, PICK_EVENT)


def _choice(
    kind: str,
    label: str,
    options: Sequence[str],
    index: int,
    *,
    key: str,
    on_pick: Callable[[int], None],
    help: str,  # noqa: A002 - Streamlit's name for it
    disabled: bool,
    width: int | str,
) -> None:
    """A select box or radio group of `options` showing `options[index]`."""
    shown = [str(o) for o in options]

    def _callback() -> None:
        value = _picked(key)
        if value is not None and value.isdigit() and int(value) < len(shown):
            on_pick(int(value))

    data = {
        "kind": kind,
        "label": label,
        "options": shown,
        "index": min(max(index, 0), max(len(shown) - 1, 0)),
        "help": help,
        "disabled": disabled,
        # the options' identity: a new list redraws them, a new index only moves the choice
        "version": hash(tuple(shown)),
    }
    _component()(key=key, data=data, width=width, on_pick_change=_callback)


def light_select(
    label: str,
    options: Sequence[str],
    index: int,
    *,
    key: str,
    on_pick: Callable[[int], None],
    help: str = "",  # noqa: A002 - Streamlit's name for it
    disabled: bool = False,
    width: int | str = "stretch",
    typed: bool = False,
) -> None:
    """A select box of `options` (their labels) showing `options[index]`; a pick calls
    `on_pick` with the picked index before the script reruns. `typed`: one can type into it,
    for long lists (the browser suggests the options that match the text, and Enter takes the
    first that starts with it, else contains it)."""
    _choice(
        "combo" if typed else "select", label, options, index, key=key, on_pick=on_pick,
        help=help, disabled=disabled, width=width,
    )  # fmt: skip


def light_radio(
    label: str,
    options: Sequence[str],
    index: int,
    *,
    key: str,
    on_pick: Callable[[int], None],
    help: str = "",  # noqa: A002 - Streamlit's name for it
    width: int | str = "stretch",
    tabs: bool = False,
) -> None:
    """`light_select` as a row of radio buttons: a few choices, each in sight. `tabs`: drawn as
    a row of tabs (`label` names it for assistive technology); the caller draws the open tab's
    content below it (Streamlit's tabs are one more kind of element for a new tab to draw)."""
    _choice(
        "tabs" if tabs else "radio", label, options, index, key=key, on_pick=on_pick,
        help=help, disabled=False, width=width,
    )  # fmt: skip


def light_slider(
    label: str,
    lo: float,
    hi: float,
    value: float,
    step: float,
    *,
    key: str,
    on_pick: Callable[[float], None],
    help: str = "",  # noqa: A002 - Streamlit's name for it
    disabled: bool = False,
    width: int | str = "stretch",
) -> None:
    """A slider (a native range input) over [lo, hi] in steps of `step`, its value in sight; a
    release calls `on_pick` with the new value (an int when every bound is one) before the
    script reruns."""
    whole = all(isinstance(v, int) for v in (lo, hi, step))
    digits = _digits(lo, hi, step)

    def _callback() -> None:
        raw = _picked(key)
        try:
            picked = float(raw) if raw is not None else math.nan
        except ValueError:
            return
        if math.isfinite(picked) and lo <= picked <= hi:
            on_pick(int(round(picked)) if whole else round(picked, digits))

    data = {
        "kind": "slider",
        "label": label,
        "lo": lo,
        "hi": hi,
        "step": step,
        "value": min(max(value, lo), hi),
        "digits": digits,
        "help": help,
        "disabled": disabled,
    }
    _component()(key=key, data=data, width=width, on_pick_change=_callback)


def light_multi(
    label: str,
    options: Sequence[str],
    chosen: Sequence[int],
    *,
    key: str,
    on_pick: Callable[[list[int]], None],
    placeholder: str = "",
    help: str = "",  # noqa: A002 - Streamlit's name for it
    width: int | str = "stretch",
) -> None:
    """Several of `options` (their labels) at once, `chosen` (indices) ticked: a box that reads
    like a select box opens a list of check boxes; each tick calls `on_pick` with the ticked
    indices, in the options' order, before the script reruns."""
    shown = [str(o) for o in options]

    def _callback() -> None:
        raw = _picked(key)
        if raw is None:
            return
        parts = [p for p in raw.split(",") if p]
        if all(p.isdigit() and int(p) < len(shown) for p in parts):
            on_pick(sorted({int(p) for p in parts}))

    data = {
        "kind": "multi",
        "label": label,
        "options": shown,
        "chosen": sorted({i for i in chosen if 0 <= i < len(shown)}),
        "placeholder": placeholder,
        "help": help,
        "version": hash(tuple(shown)),
    }
    _component()(key=key, data=data, width=width, on_pick_change=_callback)


def light_range(
    label: str,
    lo: float,
    hi: float,
    value: tuple[float, float],
    step: float,
    *,
    key: str,
    on_pick: Callable[[tuple[float, float]], None],
    help: str = "",  # noqa: A002 - Streamlit's name for it
    width: int | str = "stretch",
    shown_digits: int | None = None,
) -> None:
    """A range within [lo, hi] with two handles (two native range inputs over one track), in
    steps of `step`, its ends shown with `shown_digits` decimals (default: the step's); a
    release calls `on_pick` with (low, high) before the script reruns."""
    digits = _digits(lo, hi, step)

    def _callback() -> None:
        raw = _picked(key) or ""
        try:
            a, b = (float(v) for v in raw.split(","))
        except ValueError:
            return
        if all(math.isfinite(v) and lo <= v <= hi for v in (a, b)) and a <= b:
            on_pick((round(a, digits), round(b, digits)))

    a, b = (min(max(v, lo), hi) for v in value)
    data = {
        "kind": "range",
        "label": label,
        "lo": lo,
        "hi": hi,
        "step": step,
        "value": [min(a, b), max(a, b)],
        "digits": digits if shown_digits is None else shown_digits,
        "help": help,
    }
    _component()(key=key, data=data, width=width, on_pick_change=_callback)


def light_text(
    label: str,
    value: str,
    *,
    key: str,
    on_enter: Callable[[str], None],
    placeholder: str = "",
    button: str = "",
    max_chars: int = 1000,
    enter_only: bool = False,
) -> None:
    """A text box showing `value`; Enter, its `button` (a label; none when empty), and unless
    `enter_only`, leaving it changed or clearing it, call `on_enter` with the text before the
    script reruns."""

    def _callback() -> None:
        text = _picked(key)
        if text is not None:
            on_enter(text[:max_chars])

    data = {
        "kind": "text",
        "label": label,
        "value": value,
        "placeholder": placeholder,
        "button": button,
        "max_chars": max_chars,
        "enter_only": enter_only,
    }
    _component()(key=key, data=data, on_pick_change=_callback)


def light_switch(
    label: str,
    on: bool,
    *,
    key: str,
    on_change: Callable[[bool], None],
    help: str = "",  # noqa: A002 - Streamlit's name for it
    disabled: bool = False,
) -> None:
    """An on/off switch showing `on`; a flip calls `on_change` with the new state before the
    script reruns."""

    def _callback() -> None:
        value = _picked(key)
        if value in ("0", "1"):
            on_change(value == "1")

    data = {"kind": "switch", "label": label, "on": on, "help": help, "disabled": disabled}
    # as wide as its label, as Streamlit's toggle: a row of switches packs to the left
    _component()(key=key, data=data, width="content", on_pick_change=_callback)
