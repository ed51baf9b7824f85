"""Step spans of the FineProofs trace text are `data-pick` spans (clicked through click_text: the
prefix is selected in place, no reload link), and the dataset text inside them stays escaped."""

from __future__ import annotations

import html
import re

import polars as pl

from analysis.fineproofs.steptext import attach_step_text, text_segments
from analysis.fineproofs.values import series_from_values
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
    assert ".fp-step,#fp-trace-text .fp-lead{cursor:pointer;}" in out
    assert ".fp-step:hover,#fp-trace-text .fp-lead:hover{outline" in out


def test_hist_sparkline() -> None:
    comb = [0] * 20
    comb[0], comb[19] = 16, 8  # grades 0 and 1 only
    s = hist_sparkline(comb)
    assert len(s) == 8 and s[0] == "█" and s[-1] == "▅" and set(s[1:-1]) == {"▁"}
    assert hist_sparkline(None) == "" and hist_sparkline([1, 2]) == ""
    assert len(hist_sparkline([1] * 20)) == 20


def test_the_steps_between_two_collected_prefixes_are_shaded_with_the_later_one() -> None:
    """Prefix 2 holds steps 1..4; its change happened in steps 3 and 4, not only in step 4: the
    text between prefix 1's step and prefix 2's step is shaded (and clickable) as prefix 2."""
    steps_text = ["Step one.", " Step two.", " Step three.", " Step four.", " Step five."]
    text = "".join(steps_text)
    cut = [0]
    for p in steps_text:
        cut.append(cut[-1] + len(p))
    # collected prefixes end at steps 2 and 5; the trace file spans only those steps' own text
    spans = [(2, cut[1], cut[2]), (5, cut[4], cut[5])]
    series = series_from_values([0.8, 0.2]).with_columns(step=pl.Series([2, 5]))
    mapped = attach_step_text(series, text, spans).frame
    out = highlighted_html(text, text_segments(text, mapped), mapped)
    pieces = re.findall(
        r'<span class="(fp-step|fp-lead)"[^>]*data-pick="(\d+)"[^>]*>([^<]*)</span>', out
    )
    assert [(c, int(o), html.unescape(t)) for c, o, t in pieces] == [
        ("fp-lead", 1, "Step one."),
        ("fp-step", 1, " Step two."),
        ("fp-lead", 2, " Step three. Step four."),
        ("fp-step", 2, " Step five."),
    ]
    # the lead-in of prefix 2 has prefix 2's colour (value 0.2), not plain text
    lead = re.search(r'<span class="fp-lead" data-pick="2"[^>]*style="background:([^;"]+)', out)
    step = re.search(r'<span class="fp-step" id="fp-step-2"[^>]*style="background:([^;"]+)', out)
    assert (
        lead and step and lead.group(1) == step.group(1) == "rgba(228,128,122,0.4)"
    )  # 0.4 of the way red -> white


def test_text_after_an_unmapped_prefix_is_not_credited_to_the_next_one() -> None:
    text = "aaa bbb ccc"
    spans = [(1, 0, 3), (2, 99, 120), (3, 8, 11)]  # prefix 2's span is out of range
    series = series_from_values([0.8, 0.5, 0.2])
    mapped = attach_step_text(series, text, spans).frame
    segs = text_segments(text, mapped)
    assert segs == [(0, 3, 1, True), (3, 8, None, False), (8, 11, 3, True)]
