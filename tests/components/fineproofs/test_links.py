"""Step spans of the FineProofs trace text are plain links selecting their prefix (`?...&prefix=K`,
same tab), and the dataset text inside them stays escaped."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl

import polars as pl

from analysis.fineproofs.values import attach_step_text, series_from_values, text_segments
from components.fineproofs.text import highlighted_html, hist_sparkline, step_href


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
    query = [("view", "Trace"), ("problem", 'a&b"<c>'), ("src", "aops"), ("src", "putnam"),
             ("prefix", "1")]  # fmt: skip
    out = highlighted_html(text, text_segments(text, mapped), mapped, query=query, selected=1)
    return text, out, parts


def test_every_step_span_is_a_link_with_its_prefix() -> None:
    _text, out, parts = _built()
    links = re.findall(r'<a class="fp-step" id="fp-step-(\d+)"[^>]*href="([^"]*)"([^>]*)>', out)
    assert [int(o) for o, _, _ in links] == [1, 2, 3]
    assert '<span class="fp-step"' not in out
    for o, href, rest in links:
        assert 'target="_self"' in rest
        raw = html.unescape(href)
        assert raw.startswith("?")
        pairs = parse_qsl(raw[1:])
        assert pairs == [("view", "Trace"), ("problem", 'a&b"<c>'), ("src", "aops"),
                         ("src", "putnam"), ("prefix", o)]  # fmt: skip
        assert '"' not in href and "<" not in href
    # one link per step, no stray anchors
    assert out.count("<a ") == 3 and out.count("</a>") == 3


def test_link_text_and_titles_are_escaped() -> None:
    _text, out, parts = _built()
    assert "<b>" not in out and "<i>" not in out
    for p in parts:
        assert html.escape(p, quote=True) in out
    assert "&lt;b&gt;&quot;f&quot;&lt;/b&gt;" in out  # flags in the hover title
    # links look like the spans: no underline, inherited colour, pointer, hover outline
    assert "text-decoration:none" in out and "color:inherit" in out and "cursor:pointer" in out
    assert "a.fp-step:hover{outline" in out


def test_step_href_replaces_prefix_and_encodes() -> None:
    assert step_href([], 4) == "?prefix=4"
    assert step_href([("prefix", "9"), ("q", "a b&c")], 2) == "?q=a+b%26c&prefix=2"


def test_hist_sparkline() -> None:
    comb = [0] * 20
    comb[0], comb[19] = 16, 8  # grades 0 and 1 only
    s = hist_sparkline(comb)
    assert len(s) == 8 and s[0] == "█" and s[-1] == "▅" and set(s[1:-1]) == {"▁"}
    assert hist_sparkline(None) == "" and hist_sparkline([1, 2]) == ""
    assert len(hist_sparkline([1] * 20)) == 20
