"""The Overview grid as plain HTML (a coloured table), clicked through `click_text`.

Why not Plotly: a view that draws any Plotly chart at first paint pays for loading Plotly's
4.7 MB bundle in the new tab, seconds of browser CPU on the benchmark machine
(bench/first_paint.py), while one page of 25-100 traces x prefixes is only a table of coloured
cells. The table keeps what the chart offered: a colour per cell on the same scale, a grey hatch
for a prefix without a value (outside the colour scale: a flat light grey read as 0.5), a ▼ on a
cell holding a significant drop, the endpoint grade as its own column, the hover text (as a tooltip), the
casebook marks, the selected row framed, and a click on a cell opening that trace at that prefix.
Every piece of dataset text is escaped here; `click_text` renders the HTML as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np
import polars as pl
from plotly.colors import get_colorscale, sample_colorscale

from components.common.formatting import counted, fmt_num
from components.common.safe_text import esc
from components.common.theme import (
    CASE_ACCENT,
    CHANGE_SCALE,
    FP_DROP_MARK,
    FP_DROP_MARK_EDGE,
    FP_LABEL,
    FP_MARKER_EDGE,
    FP_NO_VALUE,
    FP_ROW_SELECTED,
    VALUE_SCALE,
)
from components.fineproofs.figures import CHANGE_RANGE, ROW_PX

ENDPOINT_PICK = 0  # the ordinal a click on the endpoint column carries: the trace, no prefix
LEGEND_STOPS = 11
RULE = "z < −2 and change ≤ −0.15, each test alone"  # the per-test drop rule, for the legend


def pick_value(row: int, ordinal: int) -> str:
    """What a cell sends back: its row on the page and its prefix ordinal (0 = endpoint)."""
    return f"{int(row)}:{int(ordinal)}"


def parse_pick(value: str) -> tuple[int, int] | None:
    """(row, ordinal) of a clicked cell, or None for anything else."""
    row, sep, ordinal = value.partition(":")
    if not sep or not row.isdigit() or not ordinal.isdigit():
        return None
    return int(row), int(ordinal)


COLOUR_LEVELS = 256  # a cell's colour is one of this many steps of its scale (8-bit, as drawn)


def _scale(metric: str) -> tuple[str, float, float, str]:
    if metric == "change":
        return CHANGE_SCALE, -CHANGE_RANGE, CHANGE_RANGE, "change"
    return VALUE_SCALE, 0.0, 1.0, "mean grade"


@lru_cache(maxsize=8 * COLOUR_LEVELS)
def _swatch(scale: str, level: int) -> str:
    """Why a memo: a page has hundreds of cells, and Plotly parses the scale on every sample."""
    return str(sample_colorscale(get_colorscale(scale), [level / (COLOUR_LEVELS - 1)])[0])


def _colour(scale: str, lo: float, hi: float, v: float) -> str:
    t = min(1.0, max(0.0, (v - lo) / (hi - lo)))
    return _swatch(scale, round(t * (COLOUR_LEVELS - 1)))


def _tip(lines: list[str]) -> str:
    """A tooltip: escaped lines joined by newlines (an attribute value, quotes escaped)."""
    return "&#10;".join(esc(x) for x in lines if x)


def overview_grid_html(
    cells: pl.DataFrame,
    traces: pl.DataFrame,
    metric: str = "value",
    axis: str = "ordinal",
    n_depth_bins: int = 10,
    selected: tuple[str, int] | None = None,
    marked: Mapping[tuple[str, int], int] | None = None,
    fdr: bool = False,
) -> str:
    """Rows = the given page of traces (in order), columns = prefix ordinal or depth bin, then
    the endpoint grade; `cells` comes from `analysis.fineproofs.overview.overview_cells`. `fdr`
    says which rule made the drop marks (legend only)."""
    marked = marked or {}
    scale, lo, hi, title = _scale(metric)
    keys = traces.select("problem_id", "sample_index").rows()
    if axis == "ordinal":
        n_cols = int(cells["grid_col"].max() or 1) if cells.height else 1
        heads = [str(i) for i in range(1, n_cols + 1)]
        offset = 0
        x_title = "prefix ordinal (1 = first collected prefix)"
    else:
        n_cols = n_depth_bins
        heads = [f"{i / n_cols:.1f}" for i in range(n_cols)]
        offset = 1
        x_title = "relative depth step/num_steps (binned, lower edge)"
    grid: dict[tuple[int, int], dict] = {}
    for r in cells.iter_rows(named=True):
        grid[(int(r["grid_row"]), int(r["grid_col"]) + offset)] = r
    end = (
        traces["endpoint"].cast(pl.Float64).to_list()
        if "endpoint" in traces.columns
        else [None] * traces.height
    )
    fmt = "+.3f" if metric == "change" else ".3f"
    size = ROW_PX - 4
    out = [
        "<style>"
        ".fpg{border-collapse:separate;border-spacing:2px;font-size:11px;line-height:1;width:100%}"
        f".fpg td.c{{min-width:{size}px;height:{size}px;padding:0;border-radius:2px}}"
        ".fpg td.c[data-pick]:hover{outline:2px solid #000}"
        f".fpg td.c.d,.fpk .d{{color:{FP_DROP_MARK};font-size:{max(8, size - 6)}px;"
        f"text-align:center;vertical-align:middle;text-shadow:0 0 2px {FP_DROP_MARK_EDGE},"
        f"0 0 1px {FP_DROP_MARK_EDGE}}}"
        f".fpg td.c.nv,.fpk .nv{{background:{FP_NO_VALUE}}}"
        f".fpg th{{font-weight:normal;color:{FP_LABEL};padding:0 1px;text-align:center}}"
        ".fpg td.l{font-family:monospace;white-space:nowrap;padding-right:6px;text-align:right;"
        "width:1%}"
        f".fpg tr.sel td{{box-shadow:inset 0 2px 0 {FP_ROW_SELECTED},inset 0 -2px 0 {FP_ROW_SELECTED}}}"
        ".fpg td.e{text-align:center;font-size:18px;padding:0 4px;width:1%}"
        ".fpw{overflow-x:auto;max-width:100%}"
        ".fpk{display:flex;flex-wrap:wrap;align-items:center;gap:6px;font-size:11px;margin-top:4px;"
        f"color:{FP_LABEL}}}"
        "</style>",
        "<div class='fpw'><table class='fpg' data-testid='fp-grid'><thead><tr><th></th>",
    ]
    out += [f"<th>{esc(h)}</th>" for h in heads]
    out.append("<th>endpoint</th></tr></thead><tbody>")
    for i, (pid, sample) in enumerate(keys):
        n_cases = marked.get((pid, sample), 0)
        mark = f"<b style='color:{CASE_ACCENT}'>● {int(n_cases)}</b> " if n_cases > 0 else ""
        label = esc(f"{str(pid)[:10]}·s{sample}")
        sel = " class='sel'" if selected is not None and selected == (pid, sample) else ""
        out.append(f"<tr{sel}><td class='l' title='{_tip([str(pid)])}'>{mark}{label}</td>")
        for j in range(1, n_cols + 1):
            c = grid.get((i, j))
            if c is None:
                out.append("<td class='c'></td>")
                continue
            v = c["val"]
            has = v is not None and v == v
            se = c["se"]
            tip = _tip(
                [
                    f"{str(pid)[:16]} · sample {sample}",
                    f"prefix {c['ordinal']} · step {c['step']}",
                    f"{metric} {fmt_num(v, fmt)}"
                    + (
                        f" ± {2 * se:.3f} (2 SE)"
                        if has and se is not None and se == se and metric == "value"
                        else ""
                    ),
                    str(c["flags"] or ""),
                    f"● {counted(n_cases, 'case')} in the casebook" if n_cases else "",
                    "" if has else "no value here (no grade, or no previous prefix)",
                ]
            )
            drop = bool(c.get("sig_drop"))
            cls = "c" + ("" if has else " nv") + (" d" if drop else "")
            style = f" style='background:{_colour(scale, lo, hi, float(v))}'" if has else ""
            out.append(
                f"<td class='{cls}'{style} title='{tip}' "
                f"data-pick='{pick_value(i, int(c['ordinal'] or 0))}'>{'▼' if drop else ''}</td>"
            )
        e = end[i] if i < len(end) else None
        if e is not None and e == e:
            out.append(
                f"<td class='e' title='{_tip([f'endpoint grade (base grading log): {e:.3f}'])}' "
                f"data-pick='{pick_value(i, ENDPOINT_PICK)}' style='color:{_colour(scale, 0, 1, e)};"
                f"-webkit-text-stroke:0.5px {FP_MARKER_EDGE}'>◆</td>"
            )
        else:
            out.append("<td class='e'></td>")
        out.append("</tr>")
    stops = np.linspace(0.0, 1.0, LEGEND_STOPS)
    gradient = ",".join(sample_colorscale(get_colorscale(scale), list(stops)))
    out.append("</tbody></table></div>")
    out.append(
        f"<div class='fpk'><span>{esc(x_title)} · {esc(title)}:</span>{fmt_num(lo, '.1f')}"
        f"<span style='display:inline-block;width:160px;height:10px;border-radius:2px;"
        f"background:linear-gradient(to right,{gradient})'></span>{fmt_num(hi, '.1f')}"
        # a key's mark and its name stay on one line (the flex row wraps between keys)
        "<span>·</span><span style='white-space:nowrap'><span class='nv' style='display:"
        "inline-block;width:12px;height:12px;border-radius:2px;vertical-align:middle'></span>"
        " no value</span><span>(no grade, or no previous prefix to change from)</span>"
        "<span>·</span><span style='white-space:nowrap'><span class='d'>▼</span> significant "
        "drop</span><span>"
        + esc(f"({'Benjamini-Hochberg, q = 0.05' if fdr else RULE})")
        + "</span></div>"
    )
    return "".join(out)
