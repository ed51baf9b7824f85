"""A light table for a view's first screen: a read-only HTML table in a small component.

Streamlit's data grid is the heaviest element a view can draw in a new tab: its code and its
canvas cost more browser time than the rest of a view's first screen, for any number of rows.
The lite table draws the same columns (read from the same `st.column_config` declarations as the
grid, so a column is declared once), with only the rows in sight in the page and the rest drawn
as the reader scrolls. A click on a row (or Enter on it) is handed to `on_pick` with the row's
index. A view offers the grid itself behind a switch, for sorting by a header, resizing and
copying cells (`grid_switch`).

Cells are formatted here, in Python, as text, and set as text in the browser: a value from the
data is never markup.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from components.common import theme
from components.common.formatting import DASH, fmt_num
from components.common.links import is_view_href
from components.common.registered import registered
from components.common.selection import event_of, picked_value, selected_rows
from components.common.url_state import Param, parse_bool, url_switch

PICK_EVENT = "pick"
_JS = Path(__file__).with_name("lite_table.js").read_text(encoding="utf-8")
_CSS = """
.rte-lite-table { overflow: auto; border: 1px solid rgba(49, 51, 63, 0.15); border-radius: 0.5rem;
  font-family: var(--st-font, inherit); font-size: 14px; color: var(--st-text-color, inherit); }
.rte-lite-table table { border-collapse: separate; border-spacing: 0; table-layout: fixed;
  width: 100%; }
.rte-lite-table th, .rte-lite-table td { height: 35px; padding: 0 6px; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; text-align: left; box-sizing: border-box;
  border-bottom: 1px solid rgba(49, 51, 63, 0.1); }
.rte-lite-table th { position: sticky; top: 0; z-index: 1; font-weight: 400; font-size: 13px;
  white-space: normal; line-height: 1.15; overflow-wrap: normal;
  color: rgba(49, 51, 63, 0.7); background: var(--st-secondary-background-color, #f0f2f6); }
.rte-lite-table .rte-lt-num { text-align: right; font-variant-numeric: tabular-nums; }
.rte-lite-table tr[tabindex] { cursor: pointer; }
.rte-lite-table tr[tabindex]:hover td { background: rgba(59, 111, 216, 0.06); }
.rte-lite-table tr[tabindex]:focus-visible { outline: 2px solid var(--st-primary-color);
  outline-offset: -2px; }
.rte-lite-table tr.rte-lt-spacer td { border: 0; }
.rte-lite-table td.rte-lt-pin { position: sticky; z-index: 1;
  background: var(--st-background-color, #fff); }
.rte-lite-table th.rte-lt-pin { z-index: 2; }
.rte-lite-table tr[tabindex]:hover td.rte-lt-pin { background: #f1f5fc; }
.rte-lite-table tr[aria-selected="true"] td.rte-lt-pin { background: #e8eefa; }
.rte-lite-table tr[aria-selected="true"] td { background: rgba(59, 111, 216, 0.12); }
.rte-lite-table a { color: var(--st-primary-color, #3b6fd8); }
.rte-lt-frame { position: relative; }
.rte-lt-frame::before, .rte-lt-frame::after { content: ""; position: absolute; top: 1px;
  bottom: 1px; width: 28px; pointer-events: none; z-index: 2; opacity: 0;
  transition: opacity 0.15s; }
.rte-lt-frame::after { right: 1px; border-radius: 0 0.5rem 0.5rem 0;
  background: linear-gradient(to right, rgba(49, 51, 63, 0), rgba(49, 51, 63, 0.16)); }
.rte-lt-frame::before { left: calc(1px + var(--rte-pin-w, 0px)); border-radius: 0.5rem 0 0 0.5rem;
  background: linear-gradient(to left, rgba(49, 51, 63, 0), rgba(49, 51, 63, 0.16)); }
.rte-lt-frame.rte-lt-cut-right::after, .rte-lt-frame.rte-lt-cut-left::before { opacity: 1; }
.rte-lt-more { position: absolute; top: 7px; right: 4px; z-index: 3; cursor: pointer;
  font-family: var(--st-font, inherit); font-size: 12px; line-height: 20px; padding: 0 6px;
  border-radius: 10px; border: 1px solid rgba(49, 51, 63, 0.2); color: rgba(49, 51, 63, 0.75);
  background: var(--st-background-color, #fff); }
.rte-lt-more::after { content: " →"; }
.rte-lt-more[hidden] { display: none; }
"""
# a cell's tone, by what it means (a view names the tone, never a colour)
TONES = {"diff": theme.DIFF_BG, "info": theme.INFO_BG}
_CSS += "".join(
    f".rte-lite-table td.rte-lt-tone-{n} {{ background: {c}; }}\n" for n, c in TONES.items()
)
LITE_MAX_ROWS = 1000  # `table_or_grid`: more rows than this are the grid's (see `capped`)
ROW_PX = 35  # lite_table.js ROW_PX: a row's height, the header's too
# a column without a declared width is sized to its content: characters of the label and of the
# longest cell in the first rows, at the table's font's average character width, plus padding
AUTO_ROWS = 200
CHAR_PX = 8.0
HEADER_CHAR_PX = 7.2  # the header's smaller font
HEADER_SLACK_PX = 6  # a header line wider than the average characters say still fits
PAD_PX = 6
MIN_WIDTH, MAX_WIDTH = 44, 320
NAMED_WIDTHS = {"small": 75, "medium": 200, "large": 400}  # the grid's own sizes, in px


def _component() -> Any:
    return registered("rte_lite_table", _JS, _CSS)


_PRINTF = re.compile(r"^%([+,]*)(\.\d+)?([dfeEgG])$")
_NAMED_FORMATS = {"percent": ".2%", "localized": ",", "plain": ""}


def _spec(fmt: str | None) -> str | None:
    """A grid number format as a Python format spec: printf style (`"%.2f"`, `"%,.0f"`,
    `"%+.1f"`) or one of the grid's names (percent, localized, plain); None for others."""
    if not fmt:
        return None
    if fmt in _NAMED_FORMATS:
        return _NAMED_FORMATS[fmt]
    m = _PRINTF.match(fmt)
    if m is None:
        return None
    flags, precision, kind = m.groups()
    sign = "+" if "+" in flags else ""
    comma = "," if "," in flags else ""
    return f"{sign}{comma}{precision or ''}{kind}"


def cell_text(value: object, fmt: str | None = None) -> str:
    """A cell as the grid would show it: missing as a dash, booleans as yes/no, numbers through
    `fmt_num` by the column's format (printf style or the grid's named ones) or with thousands
    separators, text unchanged (an empty string stays empty, as in the grid)."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        spec = _spec(fmt)
        if isinstance(value, int) and (not spec or spec[-1] not in "feEgG%"):
            return format(value, spec or ",")  # a whole number stays whole
        if spec is None or spec.endswith("d"):  # a float without a format, or shown whole
            spec = spec[:-1] + ".0f" if spec else ",.6g"
        return fmt_num(value, spec)  # missing and NaN as a dash, infinities as ∞ / −∞
    if isinstance(value, list | tuple):
        return ", ".join(cell_text(v) for v in value)
    return str(value)


def header_chars(label: str) -> int:
    """The characters of a header's longer line when it takes two lines (a header wraps at a
    space, so "first differing iteration" needs the width of "differing iteration", not of
    the whole label; a row's height holds two lines of the header's font)."""
    words = label.split(" ")
    if len(words) < 2:
        return len(label)
    return min(
        max(len(" ".join(words[:i])), len(" ".join(words[i:]))) for i in range(1, len(words))
    )


def _width(declared: object, label: str, cells: list[str]) -> int:
    """A column's width in px: its declaration's (widened to fit its label in two lines), else
    what that label and its longest cell among the first rows need (as the grid sizes a column
    to its content), within bounds."""
    header = round(header_chars(label) * HEADER_CHAR_PX) + 2 * PAD_PX + HEADER_SLACK_PX
    if isinstance(declared, str) and declared in NAMED_WIDTHS:
        return max(NAMED_WIDTHS[declared], header)
    if isinstance(declared, int | float) and declared > 0:
        return max(int(declared), header)
    longest = max([0, *(len(c) for c in cells[:AUTO_ROWS])])
    content = round(longest * CHAR_PX) + 2 * PAD_PX
    return max(MIN_WIDTH, min(MAX_WIDTH, max(header, content)))


def _as_spec(declared: object) -> Mapping[str, Any]:
    """A column's declaration as the grid takes it: a config, a label alone, or nothing."""
    if isinstance(declared, str):
        return {"label": declared}
    return declared if isinstance(declared, Mapping) else {}


def table_payload(
    frame: pl.DataFrame,
    columns: Mapping[str, Any] | None = None,
    right: Collection[str] = (),
    tones: Mapping[str, Sequence[str | None]] | None = None,
) -> dict[str, Any]:
    """What the component draws: each shown column's label, width, help and alignment (from its
    `st.column_config` declaration, when it has one), and every row's cells as text. Numbers are
    right-aligned, and so are the columns named in `right` (numbers a view formatted as text).
    `tones` paints cells: per column, each row's tone (a name of `TONES`, or None)."""
    columns = columns or {}
    names = [n for n in frame.columns if columns.get(n, {}) is not None]  # None: hidden
    specs = [_as_spec(columns.get(n)) for n in names]
    configs = [spec.get("type_config") or {} for spec in specs]
    formats = [c.get("format") if isinstance(c.get("format"), str) else None for c in configs]
    rows = [
        [cell_text(v, f) for v, f in zip(row, formats, strict=True)]
        for row in frame.select(names).iter_rows()
    ]
    cols: list[dict[str, Any]] = []
    for i, (name, spec, config) in enumerate(zip(names, specs, configs, strict=True)):
        label = str(spec.get("label") or name)
        numeric = frame.schema[name].is_numeric() or config.get("type") == "number" or name in right
        col = {
            "name": name,
            "label": label,
            "width": _width(spec.get("width"), label, [r[i] for r in rows[:AUTO_ROWS]]),
            "help": str(spec.get("help") or ""),
            "right": bool(numeric),
            "pinned": bool(spec.get("pinned")),
        }
        if config.get("type") == "link":  # the explorer's own view links only
            col["link"] = str(config.get("display_text") or "open")
            col["width"] = _width(spec.get("width"), label, [col["link"]])
            for row in rows:
                row[i] = row[i] if is_view_href(row[i]) else ""
        cols.append(col)
    payload: dict[str, Any] = {"cols": cols, "rows": rows}
    if tones:
        payload["tones"] = _tone_rows(names, frame.height, tones)
    return payload


def _tone_rows(
    names: list[str], height: int, tones: Mapping[str, Sequence[str | None]]
) -> list[list[str]]:
    """Per row, each shown column's tone name ("" for none); a name outside `TONES` is a
    programming error, not data."""
    out = [[""] * len(names) for _ in range(height)]
    for c, name in enumerate(names):
        column = tones.get(name)
        if column is None:
            continue
        if len(column) != height:
            raise ValueError(f"tones of {name!r}: {len(column)} for {height} rows")
        for r, tone in enumerate(column):
            if tone:
                if tone not in TONES:
                    raise ValueError(f"unknown tone {tone!r}; known: {sorted(TONES)}")
                out[r][c] = tone
    return out


def lite_table(
    frame: pl.DataFrame,
    *,
    key: str,
    columns: Mapping[str, Any] | None = None,
    height: int | None = None,
    label: str = "",
    on_pick: Callable[[int], None] | None = None,
    right: Collection[str] = (),
    pickable: bool = False,
    selected: int | None = None,
    tones: Mapping[str, Sequence[str | None]] | None = None,
) -> int | None:
    """Draw `frame` as a light table at most `height` px high (default: its rows, up to 480);
    with `on_pick`, a click on a row calls it with the row's index before the script reruns.
    `label` names the table for assistive technology. With `pickable` (or `on_pick`), returns
    the row picked on this rerun, else None; `selected` marks a row as the one in use; `tones`
    paints cells (`table_payload`)."""
    payload = table_payload(frame, columns, right, tones)
    shown = height if height is not None else min(480, ROW_PX * (frame.height + 1) + 2)

    def _callback() -> None:
        value = picked_value(key, PICK_EVENT)
        if value is not None and value.isdigit() and on_pick is not None:
            on_pick(int(value))

    payload.update(
        height=shown,
        label=label,
        pickable=on_pick is not None or pickable,
        selected=selected,
        # the rows' identity: a new one redraws the table from the top; a new `selected` alone
        # only moves the mark, where the reader scrolled to
        version=hash((repr(payload["cols"]), repr(payload["rows"]), repr(payload.get("tones")))),
    )
    result = _component()(key=key, data=payload, height=shown, on_pick_change=_callback)
    value = getattr(result, PICK_EVENT, None)
    return int(value) if isinstance(value, str) and value.isdigit() else None


def grid_switch(key: str, *, container: Any = None) -> bool:
    """A "Data grid" switch beside a lite table (bound to the URL as `key`, a light control):
    on, the view draws Streamlit's grid, to sort by a header, resize columns or copy cells."""
    with container if container is not None else st.container():
        return url_switch(
            "Data grid",
            Param(key, False, parse=parse_bool),
            help="Show the table as a data grid: sort by a column's header, resize columns, "
            "copy cells. The light table opens faster.",
        )


def table_or_grid(
    frame: pl.DataFrame,
    *,
    key: str,
    grid: bool,
    columns: Mapping[str, Any] | None = None,
    height: int | None = None,
    label: str = "",
    on_pick: Callable[[int], None] | None = None,
    right: Collection[str] = (),
    grid_data: Any = None,
    tones: Mapping[str, Sequence[str | None]] | None = None,
    max_rows: int = LITE_MAX_ROWS,
    selected: int | None = None,
) -> None:
    """A table: light, or with `grid` (the view's `grid_switch`) Streamlit's data grid of the
    same rows and column declarations (`grid_data`, e.g. a pandas Styler, when the grid shows
    them otherwise). With `on_pick`, a picked row (or the grid's selected row) calls it with
    the row's index before the script reruns; the light table marks the `selected` row. It
    shows the first `max_rows` rows and says so (the grid, and the view's download, hold them
    all)."""
    if not grid:
        shown = frame.head(max_rows)
        lite_table(
            shown,
            key=f"{key}_lite",
            columns=columns,
            height=height,
            label=label,
            on_pick=on_pick,
            right=right,
            tones={c: list(v)[:max_rows] for c, v in tones.items()} if tones else None,
            selected=selected,
        )
        if frame.height > shown.height:
            st.caption(capped(shown.height, frame.height))
        return
    select: dict[str, Any] = {}
    if on_pick is not None:
        select = {
            "on_select": functools.partial(_grid_pick, key, on_pick),
            "selection_mode": "single-row",
        }
    st.dataframe(
        grid_data if grid_data is not None else frame,
        key=key,
        column_config=dict(columns or {}),
        hide_index=True,
        width="stretch",
        height=height if height is not None else "auto",
        placeholder=DASH,
        **select,
    )


def capped(shown: int, total: int) -> str:
    """The line under a light table that shows only its first rows."""
    return (
        f"The first {shown:,} of {total:,} rows. Narrow the filters, or turn on **Data grid** "
        "to scroll, sort and copy them all."
    )


def _grid_pick(key: str, on_pick: Callable[[int], None]) -> None:
    rows = selected_rows(event_of(key))
    if rows:
        on_pick(rows[0])
