"""The Overview grid as HTML: dataset text escaped everywhere (labels, tooltips), one clickable
cell per prefix with a value or without, the endpoint as its own column, casebook marks and the
selected row, and a click value that maps back to (row, prefix)."""

from __future__ import annotations

import re

import polars as pl

from components.fineproofs.grid import ENDPOINT_PICK, overview_grid_html, parse_pick, pick_value


def _page() -> tuple[pl.DataFrame, pl.DataFrame]:
    cells = pl.DataFrame(
        {"grid_row": [0, 0, 1], "problem_id": ["<b>a</b>", "<b>a</b>", "bbbb"],
         "sample_index": [0, 0, 1], "grid_col": [1, 2, 1], "val": [0.9, None, 0.1],
         "step": [1, 2, 1], "rel_depth": [0.5, 1.0, 1.0], "se": [0.1, None, 0.05],
         "flags": ["<img src=x>", "", ""], "ordinal": [1, 2, 1]}
    )  # fmt: skip
    traces = pl.DataFrame(
        {"problem_id": ["<b>a</b>", "bbbb"], "sample_index": [0, 1], "endpoint": [0.5, None]}
    )
    return cells, traces


def test_grid_escapes_labels_and_tooltips() -> None:
    cells, traces = _page()
    out = overview_grid_html(cells, traces)
    assert "<b>a</b>" not in out and "<img" not in out
    assert "&lt;b&gt;a&lt;/b&gt;·s0" in out and "&lt;img src=x&gt;" in out


def test_grid_cells_picks_endpoint_and_missing_value() -> None:
    cells, traces = _page()
    out = overview_grid_html(cells, traces)
    picks = [p.split("'")[0] for p in out.split("data-pick='")[1:]]
    # row 0: prefix 1, prefix 2 (no value: grey, still clickable), endpoint; row 1: prefix 1 only
    assert picks == ["0:1", "0:2", f"0:{ENDPOINT_PICK}", "1:1"]
    assert "no value here" in out and out.count("◆") == 1
    assert "0.900 ± 0.200 (2 SE)" in out


def test_grid_marks_cases_and_frames_the_selected_row() -> None:
    cells, traces = _page()
    out = overview_grid_html(cells, traces, selected=("bbbb", 1), marked={("<b>a</b>", 0): 3})
    rows = out.split("<tbody>")[1].split("</tr>")
    assert "● 3</b>" in rows[0] and "3 cases in the casebook" in rows[0]
    assert rows[1].startswith("<tr class='sel'>") and "●" not in rows[1]
    assert "class='sel'" not in overview_grid_html(cells, traces)


def test_pick_values_round_trip_and_reject_garbage() -> None:
    assert parse_pick(pick_value(3, 7)) == (3, 7)
    assert parse_pick("x:1") is None and parse_pick("12") is None and parse_pick("-1:2") is None


def test_no_value_is_hatched_outside_the_scale_and_drops_are_marked() -> None:
    cells, traces = _page()
    cells = cells.with_columns(sig_drop=pl.Series([True, False, False]))
    out = overview_grid_html(cells, traces)
    tds = re.findall(r"<td class='(c[^']*)'([^>]*)>([^<]*)</td>", out)
    # row 0: prefix 1 coloured and marked ▼, prefix 2 without a value hatched; row 1: prefix 1
    # plain, then an empty cell (the trace has no prefix 2)
    assert [(c, t) for c, _a, t in tds] == [("c d", "▼"), ("c nv", ""), ("c", ""), ("c", "")]
    assert "background" not in tds[1][1]  # the hatch comes from the class, not a scale colour
    assert ".fpg td.c.nv,.fpk .nv{background:repeating-linear-gradient(45deg," in out
    legend = out.split("<div class='fpk'>")[1]
    assert "<span class='nv'" in legend and "no value" in legend
    # the mark and its name on one line; the rule after them
    assert (
        "<span style='white-space:nowrap'><span class='d'>▼</span> significant drop</span>"
        "<span>(z &lt; −2 and change ≤ −0.15, each test alone)</span>"
    ) in legend
    assert "(Benjamini-Hochberg, q = 0.05)" in overview_grid_html(cells, traces, fdr=True)


def _rgb(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in re.findall(r"[\d.]+", text)[:3])


def test_cell_colours_are_the_scale_sampled_at_the_value() -> None:
    """The memoised swatch stays within one 8-bit step of Plotly's own sample of the scale."""
    from plotly.colors import get_colorscale, sample_colorscale

    from components.common.theme import VALUE_SCALE

    values = [0.0, 0.137, 0.5, 0.731, 0.999, 1.0]
    cells = pl.DataFrame(
        {"grid_row": [0] * 6, "problem_id": ["p"] * 6, "sample_index": [0] * 6,
         "grid_col": list(range(1, 7)), "val": values, "step": list(range(1, 7)),
         "rel_depth": [0.5] * 6, "se": [0.01] * 6, "flags": [""] * 6, "ordinal": list(range(1, 7))}
    )  # fmt: skip
    traces = pl.DataFrame({"problem_id": ["p"], "sample_index": [0], "endpoint": [None]})
    out = overview_grid_html(cells, traces)
    drawn = re.findall(r"style='background:([^']+)'", out)
    assert len(drawn) == len(values)
    scale = get_colorscale(VALUE_SCALE)
    for colour, v in zip(drawn, values, strict=True):
        exact = _rgb(sample_colorscale(scale, [v])[0])
        assert max(abs(a - b) for a, b in zip(_rgb(colour), exact, strict=True)) <= 1.0, (v, colour)
