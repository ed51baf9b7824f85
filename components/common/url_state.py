"""URL state has one home: declared, validated query parameters per page.

Streamlit widgets bind themselves with Streamlit's own `bind="query-params"` (use `bound(key)`);
the light controls (`components.common.light_control`) are bound here (`url_selectbox` and the
rest); state that is not a widget (a clicked node, a selected trace) is read and written through
`Param`s, which parse and validate each value and fall back to the default on anything odd
(nothing is ever unpickled or evaluated).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from components.common.light_control import (
    light_multi,
    light_radio,
    light_range,
    light_select,
    light_slider,
    light_switch,
    light_text,
)
from components.common.safe_text import md_text


def bound(key: str) -> dict[str, str]:
    """Keyword arguments that bind a widget's value to the URL under `key`."""
    return {"key": key, "bind": "query-params"}


def refused_link(key: str, takes: Callable[[str], bool]) -> str | None:
    """Read before a widget bound to `key` is drawn: the link's value when the widget will not
    take it (Streamlit drops such a value without a word); else None."""
    raw = st.query_params.get(key)
    if raw is None or raw == "" or takes(raw):
        return None
    return str(raw)


# the controls of this run that refused a link's value: (label, key, value), for the line atop
# the view
_REFUSED: ContextVar[list[tuple[str, str, str]] | None] = ContextVar("rte_refused", default=None)


def unknown_keys(known: set[str]) -> list[tuple[str, str]]:
    """The link's keys that no part of the view reads (a typo such as `re=1` for `rx=1`), with
    their values (the last, for a repeated key), in the link's order. Streamlit's own embedding
    keys are not listed: `st.query_params` hides them."""
    return [(k, str(st.query_params.get(k) or "")) for k in st.query_params if k not in known]


@contextmanager
def refused_summary(known: set[str] | None = None) -> Iterator[None]:
    """Around a view's run: when some control refused a value of the link, one line atop the view
    names them (each control says why under itself, which may be far down the page). With
    `known` (every key the view reads), keys outside it are named there too and dropped from
    the address, so a link copied from it carries only what the view reads."""
    slot = st.empty()
    unknown = unknown_keys(known) if known is not None else []
    for key, _ in unknown:
        with suppress(StreamlitAPIException):  # a widget's key left out of the registry: kept
            del st.query_params[key]
    token = _REFUSED.set([])
    try:
        yield
    finally:
        said = _REFUSED.get() or []
        _REFUSED.reset(token)
        lines = []
        if said:
            each = list(dict.fromkeys(said))
            names = ", ".join(
                f"“{md_text(label, 60)}” ({md_text(key, 40)}={md_text(value, 30)})"
                for label, key, value in each
            )
            one = len(each) == 1
            lines.append(
                f"This link holds {'a value' if one else 'values'} the view could not use: "
                f"{names}. {'It is' if one else 'Each is'} named under {'its' if one else 'its own'}"
                " control below, with what the view shows instead."
            )
        if unknown:
            one = len(unknown) == 1
            names = ", ".join(f"“{md_text(k, 40)}={md_text(v, 30)}”" for k, v in unknown[:8])
            more = f" and {len(unknown) - 8} more" if len(unknown) > 8 else ""
            lines.append(
                f"This link holds {'a key' if one else 'keys'} this view does not read: "
                f"{names}{more}. {'It is' if one else 'They are'} ignored and left out of the "
                "address; check the link for a misspelt key."
            )
        if lines:
            slot.warning("  \n".join(lines), icon=":material/link_off:")


def say_refused(
    key: str, refused: str | None, label: str, shown: object, takes: str = "one of the choices here"
) -> None:
    """Under the widget, on the run that reads the link: what it asked for, what the widget
    takes (`takes`, e.g. "a whole number from 1 to 4,096") and what it shows; named in the line
    atop the view too (`refused_summary`)."""
    if refused is not None:
        said = _REFUSED.get()
        if said is not None:
            said.append((label, key, refused))
        st.caption(
            f"The link's {md_text(key, 40)}=“{md_text(refused, 60)}” is not a value this control "
            f"takes ({md_text(takes, 200)}): “{md_text(label, 60)}” is set to "
            f"“{md_text(str(shown), 60)}”."
        )


def one_of(options: Sequence[object], limit: int = 8) -> str:
    """What a control of a few choices takes, in words, naming them (`say_refused`): a reader
    of a refused link sees what would have been valid."""
    shown = [str(o) for o in options]
    if not shown:
        return "one of the choices here"
    if len(shown) > limit:
        return f"one of the {len(shown)} choices here"
    return "one of: " + ", ".join(shown)


def whole_numbers(lo: int, hi: int) -> str:
    """What a number box from `lo` to `hi` takes, in words (`say_refused`)."""
    return f"a whole number from {lo:,} to {hi:,}"


def int_text_in(lo: int, hi: int) -> Callable[[str], bool]:
    """Whether a URL's text is a whole number in [lo, hi] (what a bound number box takes)."""
    return lambda raw: raw.strip().lstrip("-").isdigit() and lo <= int(raw) <= hi


def bound_kept(key: str) -> dict[str, str]:
    """`bound`, and the value survives while its tab or section is not rendered."""
    return {**bound(key), "persist_state": "page"}


@dataclass(frozen=True)
class Param:
    key: str
    default: Any
    parse: Callable[[str], Any] = str
    choices: Sequence[Any] | None = None

    def read(self) -> Any:
        raw = st.query_params.get(self.key)
        if raw is None or raw == "":
            return self.default
        try:
            value = self.parse(raw)
        except (TypeError, ValueError):
            return self.default
        if self.choices is not None and value not in self.choices:
            return self.default
        return value

    def refused(self, allowed: Callable[[Any], bool] | None = None) -> str | None:
        """The URL's value when it is there but not one this parameter takes (nor, with
        `allowed`, one of the choices on screen): a typo in a shared link; else None."""

        def takes(raw: str) -> bool:
            try:
                value = self.parse(raw)
            except (TypeError, ValueError):
                return False
            if self.choices is not None and value not in self.choices:
                return False
            return allowed is None or allowed(value)

        return refused_link(self.key, takes)

    def write(self, value: Any) -> None:
        """Put `value` in the URL (none for the default, or for a value no URL can hold: a
        lone surrogate from the data; the link then opens without it)."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if value is None or value == self.default or not _url_safe(text):
            if self.key in st.query_params:
                del st.query_params[self.key]
        elif st.query_params.get(self.key) != text:
            st.query_params[self.key] = text


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """A parser accepting integers in [lo, hi]."""

    def parse(raw: str) -> int:
        v = int(raw)
        if not lo <= v <= hi:
            raise ValueError(raw)
        return v

    return parse


def safe_token(max_len: int = 200) -> Callable[[str], str]:
    """A parser for ids: printable, bounded length."""

    def parse(raw: str) -> str:
        if len(raw) > max_len or not raw.isprintable():
            raise ValueError(raw)
        return raw

    return parse


def selector_key(param: Param) -> str:
    """The session-state key of the value `url_selectbox` shows for `param`: a callback that
    sets it moves the selector before the run draws it."""
    return shown_key(param.key)


def shown_key(url_key: str) -> str:
    """The session-state key of the value the light control bound to `url_key` shows."""
    return f"_sel_{url_key}"


def selector_drawn(param: Param) -> bool:
    """Whether `url_selectbox` for `param` was drawn on this page's last run (its control's
    state lives only while a run draws it, as a widget's does)."""
    return f"{selector_key(param)}_pick" in st.session_state


def _url_choice(param: Param, valid: Callable[[Any], bool], fallback: object) -> Any:
    """The value a URL-bound light control shows: the URL's when it changed since we last wrote
    it (a deep link, a clicked grid square), else the reader's last pick (kept under
    `selector_key`, which a pick's callback sets before the run); `fallback` for a value that
    is not `valid`."""
    key = selector_key(param)
    want = param.read()
    if not valid(want):
        want = fallback
    state = st.session_state
    if key not in state or not valid(state[key]) or state.get(f"{key}_url") != want:
        state[key] = want
    return state[key]


def _setter(param: Param, then: Callable[[], None] | None = None) -> Callable[[Any], None]:
    """A pick's callback: the picked value, kept for the run it starts (then `then`, e.g. a
    search going back to its first page)."""

    def pick(value: Any) -> None:
        st.session_state[selector_key(param)] = value
        if then is not None:
            then()

    return pick


def _written(param: Param, value: Any) -> Any:
    """Write the shown `value` to the URL (none for the default) and remember having written
    it, so that a later change of the URL is told from our own write."""
    param.write(value if value != param.default else None)
    # what the URL now says: a value no URL can hold left it at the default
    st.session_state[f"{selector_key(param)}_url"] = (
        value if _url_safe(str(value)) else param.default
    )
    return value


def _url_options(
    draw: Callable[..., None],
    label: str,
    options: Sequence[Any],
    param: Param,
    fallback: object,
    fmt: Callable[[Any], str],
    help: str,  # noqa: A002 - Streamlit's name for it
    width: int | str,
    then: Callable[[], None] | None = None,
    noted: bool = False,
) -> Any:
    """One of `options`, URL-bound, drawn by `draw` (`light_select` or `light_radio`); a pick
    then calls `then`. A link's value outside `options` is named under the control and atop
    the view, unless the caller has a note of its own for it (`noted`)."""
    opts = list(options)
    refused = param.refused(opts.__contains__)
    value = _url_choice(param, opts.__contains__, fallback if fallback in opts else opts[0])
    pick = _setter(param, then)
    draw(
        label,
        [fmt(o) for o in opts],
        opts.index(value),
        key=f"{selector_key(param)}_pick",
        on_pick=lambda i: pick(opts[i]),
        help=help,
        width=width,
    )
    # said on the run that reads the link; the URL is then rewritten
    if not noted:
        say_refused(param.key, refused, label, fmt(value), one_of([fmt(o) for o in opts]))
    return _written(param, value)


def url_selectbox(
    label: str,
    options: Sequence[Any],
    param: Param,
    fallback: object = None,
    fmt: Callable[[Any], str] = str,
    *,
    help: str = "",  # noqa: A002 - Streamlit's name for it
    width: int | str = "stretch",
    noted: bool = False,
) -> Any:
    """A select box whose choice lives in the URL as the plain value (`?file=<relpath>`,
    `?qid=3`) while it displays a readable label, drawn as a light control (a native select:
    Streamlit's select box costs a new tab more than the rest of a first screen). `noted`: the
    caller says itself what a link's refused value was (a `LinkNotes` note)."""
    return _url_options(
        light_select, label, options, param, fallback, fmt, help, width, noted=noted
    )


def url_radio(
    label: str,
    options: Sequence[Any],
    param: Param,
    fmt: Callable[[Any], str] = str,
    *,
    help: str = "",  # noqa: A002 - Streamlit's name for it
    width: int | str = "stretch",
    on_change: Callable[[], None] | None = None,
) -> Any:
    """`url_selectbox` as a row of radio buttons (a few choices, all in sight)."""
    return _url_options(
        light_radio, label, options, param, param.default, fmt, help, width, on_change
    )


def url_tabs(
    label: str,
    names: Sequence[str],
    key: str,
    default: str,
    aliases: Mapping[str, str] | None = None,
) -> str:
    """The open one of a view's tabs, kept in the URL under `key` (`?view=Single+trace`; none
    for `default`), drawn as a light row of tabs; the caller draws that tab's content only.
    `aliases`: other names a link may use for a tab. A callback opens another tab by setting
    `st.session_state[key]` to its name, as it did for Streamlit's URL-bound tabs."""
    alias = dict(aliases or {})
    param = Param(key, default, lambda raw: alias.get(raw, raw), tuple(names))
    asked = st.session_state.pop(key, None)
    if asked in names:
        st.session_state[selector_key(param)] = asked
    tabs = functools.partial(light_radio, tabs=True)
    return str(_url_options(tabs, label, names, param, default, str, "", "stretch"))


def parse_bool(raw: str) -> bool:
    """A URL's on/off value: true/false, 1/0 (any case)."""
    low = raw.lower()
    if low not in ("true", "false", "1", "0"):
        raise ValueError(raw)
    return low in ("true", "1")


def url_switch(
    label: str,
    param: Param,
    *,
    help: str = "",  # noqa: A002 - Streamlit's name for it
    disabled: bool = False,
    on_change: Callable[[], None] | None = None,
) -> bool:
    """An on/off switch whose state lives in the URL (`?zoom=true`; none when the default),
    drawn as a light control."""
    refused = param.refused(lambda v: isinstance(v, bool))
    value = bool(_url_choice(param, lambda v: isinstance(v, bool), bool(param.default)))
    light_switch(
        label,
        value,
        key=f"{selector_key(param)}_pick",
        on_change=_setter(param, on_change),
        help=help,
        disabled=disabled,
    )
    say_refused(param.key, refused, label, "on" if value else "off", "true or false")
    return bool(_written(param, value))


def url_text(
    label: str,
    param: Param,
    *,
    placeholder: str = "",
    max_chars: int = 1000,
    on_change: Callable[[], None] | None = None,
) -> str:
    """A text box whose text lives in the URL (none when empty), drawn as a light control;
    Enter or leaving the box changed sends it."""
    value = str(_url_choice(param, lambda v: isinstance(v, str), param.default))
    light_text(
        label,
        value,
        key=f"{selector_key(param)}_pick",
        on_enter=_setter(param, on_change),
        placeholder=placeholder,
        max_chars=max_chars,
    )
    return str(_written(param, value))


def url_slider(
    label: str,
    param: Param,
    lo: float,
    hi: float,
    step: float,
    *,
    help: str = "",  # noqa: A002 - Streamlit's name for it
    disabled: bool = False,
    width: int | str = "stretch",
) -> Any:
    """A slider over [lo, hi] whose value lives in the URL (none for the default), drawn as a
    light control; a value outside the range (or not a number) in a link gives the default."""

    def valid(v: Any) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool) and lo <= v <= hi

    value = _url_choice(param, valid, param.default)
    light_slider(
        label,
        lo,
        hi,
        value,
        step,
        key=f"{selector_key(param)}_pick",
        on_pick=_setter(param),
        help=help,
        disabled=disabled,
        width=width,
    )
    return _written(param, value)


def _url_safe(text: str) -> bool:
    """Whether `text` can be written into a URL (UTF-8: no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _url_list(state_key: str, want: tuple[Any, ...]) -> tuple[Any, ...]:
    """The values a URL-bound light control of several values shows: the URL's (`want`) when
    it changed since we last wrote it, else the reader's last pick (kept under `state_key`)."""
    state = st.session_state
    if state_key not in state or state.get(f"{state_key}_url") != want:
        state[state_key] = want
    return tuple(state[state_key])


def _write_list(key: str, state_key: str, value: tuple[Any, ...], default: tuple[Any, ...]) -> None:
    """The shown values into the URL as a repeated key (none for the default). A value that no
    URL can hold (a lone surrogate from the data) keeps the choice out of the link: the view
    still shows it, the link opens without it."""
    text = [str(v) for v in value]
    if not all(_url_safe(t) for t in text):
        value = default
        text = [str(v) for v in default]
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get_all(key) != text:
        st.query_params[key] = text
    st.session_state[f"{state_key}_url"] = value


def url_multiselect(
    label: str,
    options: Sequence[Any],
    key: str,
    fmt: Callable[[Any], str] = str,
    *,
    placeholder: str = "",
    help: str = "",  # noqa: A002 - Streamlit's name for it
    width: int | str = "stretch",
    on_change: Callable[[], None] | None = None,
    default: Sequence[Any] = (),
) -> list[Any]:
    """Several of `options` at once, drawn as a light control, kept in the URL as a repeated
    key (`?src=aops&src=putnam`, the options' own values; none for `default`, what a link
    without the key shows); a value a link names that is not an option is left out."""
    opts = list(options)
    by_text = {str(o): o for o in opts}
    state_key = shown_key(key)
    base = tuple(o for o in default if o in opts)
    # said once, on the run that reads the link (the URL is then rewritten without them)
    refused = [v for v in st.query_params.get_all(key) if v not in by_text]
    asked = (
        tuple(dict.fromkeys(by_text[v] for v in st.query_params.get_all(key) if v in by_text))
        if key in st.query_params
        else base
    )
    value = tuple(v for v in _url_list(state_key, asked) if v in opts)

    def pick(indices: list[int]) -> None:
        st.session_state[state_key] = tuple(opts[i] for i in indices)
        if on_change is not None:
            on_change()

    light_multi(
        label,
        [fmt(o) for o in opts],
        [opts.index(v) for v in value],
        key=f"{state_key}_pick",
        on_pick=pick,
        placeholder=placeholder,
        help=help,
        width=width,
    )
    _write_list(key, state_key, value, base)
    if refused:
        shown = ", ".join(fmt(v) for v in value) or placeholder or "none"  # none: what shows
        say_refused(key, ", ".join(refused), label, shown, one_of([fmt(o) for o in opts]))
    return list(value)


def url_range(
    label: str,
    key: str,
    lo: float,
    hi: float,
    step: float,
    *,
    help: str = "",  # noqa: A002 - Streamlit's name for it
    width: int | str = "stretch",
    shown_digits: int | None = None,
) -> tuple[float, float]:
    """A range within [lo, hi] with two handles, drawn as a light control, kept in the URL as
    a repeated key (`?grade=0.25&grade=1.0`; none for the whole range); a link whose two values
    are not numbers within the range, low first, opens the whole range."""
    whole = (float(lo), float(hi))
    try:
        asked = tuple(float(v) for v in st.query_params.get_all(key))
    except ValueError:
        asked = whole
    ok = len(asked) == 2 and all(math.isfinite(v) and lo <= v <= hi for v in asked)
    state_key = shown_key(key)
    value = _url_list(state_key, asked if ok and asked[0] <= asked[1] else whole)

    def pick(span: tuple[float, float]) -> None:
        st.session_state[state_key] = (float(span[0]), float(span[1]))

    light_range(
        label,
        lo,
        hi,
        (float(value[0]), float(value[1])),
        step,
        key=f"{state_key}_pick",
        on_pick=pick,
        help=help,
        width=width,
        shown_digits=shown_digits,
    )
    _write_list(key, state_key, value, whole)
    return float(value[0]), float(value[1])


def query_pairs() -> list[tuple[str, str]]:
    """The current URL's query as (key, value) pairs, every value of a repeated key kept (a
    multiselect bound to the URL repeats its key), for building in-page links."""
    return [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
