"""Step spans of the FineProofs trace text are `data-pick` spans (clicked through click_text: the
prefix is selected in place, no reload link), and the dataset text inside them stays escaped."""

from __future__ import annotations

import html
import re

import polars as pl

from analysis.fineproofs.values import attach_step_text, series_from_values, text_segments
from components.fineproofs.text import highlighted_html, hist_sparkline


def _built() -> tuple[str, str, list[str]]:
    parts = ['First <b>bold</b> "quoted" step.', "\nSecond & <i>x</i> step.", "\nThird 'one'."]
    text = "".join(parts)
    steps, pos = [], 0
    for k, p in enumerate(parts, start=1):
        steps.append((k, pos, pos + len(p)))  # ASCII only: UTF-16 offsets == Python offsets
        pos += len(p)
    series = series_from_values([0.9, 0.4, 0.1]).with_columns(
        flags=pl.Series(['<b>"f"</b>', "", ""])
    )
    mapped = attach_step_text(series, text, steps).frame
    out = highlighted_html(text, text_segments(text, mapped), mapped, selected=1)
    return text, out, parts


def test_every_step_span_picks_its_prefix_in_place() -> None:
    _text, out, parts = _built()
    spans = re.findall(r'<span class="fp-step" id="fp-step-(\d+)"[^>]* data-pick="(\d+)"', out)
    assert [(int(o), int(p)) for o, p in spans] == [(1, 1), (2, 2), (3, 3)]
    assert "<a " not in out and "href=" not in out  # no reload links
    assert out.count("data-picked") == 1 and 'data-pick="1" data-picked' in out
    assert 'id="fp-trace-text" data-keep-scroll' in out  # a rerun keeps the box's scroll


def test_span_text_and_titles_are_escaped() -> None:
    _text, out, parts = _built()
    assert "<b>" not in out and "<i>" not in out
    for p in parts:
        assert html.escape(p, quote=True) in out
    assert "&lt;b&gt;&quot;f&quot;&lt;/b&gt;" in out  # flags in the hover title
    # clickable look: pointer and a hover outline
    assert ".fp-step{cursor:pointer;}" in out and ".fp-step:hover{outline" in out


def test_hist_sparkline() -> None:
    comb = [0] * 20
    comb[0], comb[19] = 16, 8  # grades 0 and 1 only
    s = hist_sparkline(comb)
    assert len(s) == 8 and s[0] == "█" and s[-1] == "▅" and set(s[1:-1]) == {"▁"}
    assert hist_sparkline(None) == "" and hist_sparkline([1, 2]) == ""
    assert len(hist_sparkline([1] * 20)) == 20
