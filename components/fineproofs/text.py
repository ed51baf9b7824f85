"""The base trace's text with each collected step's span coloured by its value or change.

Why HTML spans: `st.markdown` would treat `$...$` as LaTeX and cutting text at step boundaries
can split maths, so the text is rendered as escaped HTML (`esc` on every piece of model text),
`white-space: pre-wrap` keeps line breaks (CRLF included) and maths stays as written. Each step
span carries its statistics in a `title` (hover) and an id `fp-step-<ordinal>`, so selecting a
point on the curve can scroll the text box to that step. Each step span carries
`data-pick="K"`: rendered through `components.common.click_text`, a click selects prefix K in
place (no page reload, no jump to the top, the text box keeps its scroll position), and the Trace
tab writes K into the URL as before. With `maths=True` ("Render maths"), the maths spans found
on the whole text are wrapped for the component to typeset (a formula cut by a step boundary
stays as written).
"""

from __future__ import annotations

import math

import polars as pl

from analysis.fineproofs.steptext import Segment
from analysis.fineproofs.values import GRADE_BINS
from cache.maths_spans import maths_html, maths_spans
from components.common.formatting import fmt_num
from components.common.safe_text import esc
from components.common.theme import (
    ALERT,
    FOCUS,
    FP_LABEL,
    FP_STEP_HOVER,
    FP_TEXT_BOX_BORDER,
    FP_TINT_HIGH,
    FP_TINT_LOW,
    FP_TINT_MID,
    FP_TINT_MISSING,
    STEP_BORDER,
)

BOX_ID = "fp-trace-text"


def _lerp(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]  # zip of two 3-tuples gives a 3-tuple


def value_colour(v: float | None) -> str:
    """Red (0) -> near-white (0.5) -> blue (1), the charts' colour-blind-safe "RdBu" scale,
    translucent so the text stays readable."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return FP_TINT_MISSING
    v = min(1.0, max(0.0, float(v)))
    rgb = (
        _lerp(FP_TINT_LOW, FP_TINT_MID, v * 2)
        if v < 0.5
        else _lerp(FP_TINT_MID, FP_TINT_HIGH, (v - 0.5) * 2)
    )
    return f"rgba({rgb[0]},{rgb[1]},{rgb[2]},0.4)"


def change_colour(d: float | None, span: float = 0.5) -> str:
    """Diverging: red for a drop, blue for a rise, near-white for no change."""
    if d is None or (isinstance(d, float) and math.isnan(d)):
        return FP_TINT_MISSING
    t = max(-1.0, min(1.0, float(d) / span))
    rgb = _lerp(FP_TINT_MID, FP_TINT_LOW, -t) if t < 0 else _lerp(FP_TINT_MID, FP_TINT_HIGH, t)
    return f"rgba({rgb[0]},{rgb[1]},{rgb[2]},0.45)"


def step_title(row: dict) -> str:
    """Hover text of one step span (plain text; escaped by the caller)."""
    parts = [
        f"prefix {row['ordinal']} · step {row['step']}"
        + (f" of {row['num_steps']}" if row.get("num_steps") else ""),
        f"value {fmt_num(row.get('value'), '.3f')} ± {fmt_num(2 * row['se'] if row.get('se') is not None else None, '.3f')} (2 SE, n={fmt_num(row.get('n'), '.0f')})",
        f"change {fmt_num(row.get('change'), '+.3f')} (z {fmt_num(row.get('z'), '+.2f')})",
    ]
    if row.get("flags"):
        parts.append(str(row["flags"]))
    return "\n".join(parts)


def hist_sparkline(hist: list[int] | None) -> str:
    """A one-line text picture of a continuation-grade histogram: one block per grade level
    (k/7 when every count falls on those bins, else all 20 bins), height = share."""
    if not hist or len(hist) != 20 or sum(hist) <= 0:
        return ""
    bins = [int(b) for b in GRADE_BINS]
    comb = all(c == 0 for i, c in enumerate(hist) if i not in bins)
    counts = [hist[b] for b in bins] if comb else list(hist)
    top = max(counts)
    blocks = "▁▂▃▄▅▆▇█"  # ▁ = none; any continuation at a level shows at least ▂
    return "".join(blocks[0 if c == 0 else max(1, round(7 * c / top))] for c in counts)


def highlighted_html(
    text: str,
    segments: list[Segment],
    series: pl.DataFrame,
    color_by: str = "value",
    selected: int | None = None,
    height_px: int = 480,
    maths: bool = False,
) -> str:
    """Escaped HTML of the whole text; each prefix's text is coloured and titled with its
    statistics and clickable (`data-pick="K"`, through `click_text`, no reload).

    A prefix's pieces (`analysis.fineproofs.steptext.text_segments`): the steps written since the
    previous collected prefix (`fp-lead`, shaded: the change belongs to all of them) and the step
    that ends the prefix (`fp-step`, with its number, the drop underline and the id the curve
    scrolls to). The selected prefix's step carries `data-picked` (scrolled into view) and an
    outline (not its lead-in: an outline around several wrapped lines draws stray bars); the box carries `data-keep-scroll` (a rerun keeps its scroll)."""
    rows = {int(r["ordinal"]): r for r in series.iter_rows(named=True)}
    spans = maths_spans(text) if maths else []
    out: list[str] = []
    for a, b, o, own in segments:
        piece = maths_html(text, spans, a, b) if spans else esc(text[a:b])
        if o is None or o not in rows:
            out.append(piece)
            continue
        r = rows[o]
        colour = (
            change_colour(r.get("change")) if color_by == "change" else value_colour(r.get("value"))
        )
        outline = f"outline: 3px solid {FOCUS};" if selected == o else ""
        title = esc(step_title(r))
        if not own:
            out.append(
                f'<span class="fp-lead" data-pick="{o}" title="{title}" '
                f'style="background:{colour}">{piece}</span>'
            )
            continue
        flags = str(r.get("flags") or "")
        border = f"2px solid {ALERT}" if "DROP" in flags else f"1px solid {STEP_BORDER}"
        picked = " data-picked" if selected == o else ""
        out.append(
            f'<span class="fp-step" id="fp-step-{o}" data-ordinal="{o}" data-pick="{o}"{picked} '
            f'title="{title}" style="background:{colour};border-bottom:{border};'
            f'border-radius:3px;{outline}">{piece}</span>'
        )
    body = "".join(out)
    return (
        "<style>"
        f"#{BOX_ID}{{white-space:pre-wrap;overflow-y:auto;max-height:{height_px}px;"
        "font-family:ui-sans-serif,system-ui,sans-serif;font-size:0.92rem;line-height:1.55;"
        f"padding:0.6rem 0.8rem;border:1px solid {FP_TEXT_BOX_BORDER};border-radius:6px;}}"
        f'#{BOX_ID} .fp-step::before{{content:"[" attr(data-ordinal) "]";color:{FP_LABEL};'
        "font-size:0.7em;vertical-align:super;margin-right:2px;}"
        f"#{BOX_ID} .fp-step,#{BOX_ID} .fp-lead{{cursor:pointer;}}"
        f"#{BOX_ID} .fp-step:hover,#{BOX_ID} .fp-lead:hover{{outline:1px solid {FP_STEP_HOVER};}}"
        "</style>"
        f'<div id="{BOX_ID}" data-keep-scroll>{body}</div>'
    )


def legend_html(color_by: str) -> str:
    """A small legend for the span colours (static markup, no dataset text)."""
    if color_by == "change":
        stops = [(-0.5, "drop −0.5"), (0.0, "no change"), (0.5, "rise +0.5")]
        chips = "".join(
            f'<span style="background:{change_colour(v)};padding:0 6px;margin-right:6px;border-radius:3px">{label}</span>'
            for v, label in stops
        )
    else:
        stops = [(0.0, "0"), (0.5, "0.5"), (1.0, "1")]
        chips = "".join(
            f'<span style="background:{value_colour(v)};padding:0 6px;margin-right:6px;border-radius:3px">value {label}</span>'
            for v, label in stops
        )
    return (
        f'<div style="font-size:0.8rem;color:{FP_LABEL}">{chips} · <sup>[k]</sup> = the step that '
        "ends prefix k; the shaded text before it (the steps since prefix k−1) shares its colour, "
        "since the change belongs to all of them; a red underline marks a significant drop; hover "
        "for the statistics, click to select.</div>"
    )
