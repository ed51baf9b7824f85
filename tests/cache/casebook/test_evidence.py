"""A case's evidence: bounded and plain at capture, drawn as a static SVG that loads nothing,
with every title and label escaped; the report shows it (or says none was stored)."""

from __future__ import annotations

import dataclasses
import json
import math
from html.parser import HTMLParser

import numpy as np
import pytest

from cache.casebook.evidence import (
    EVIDENCE_KEY,
    MAX_POINTS,
    bar_evidence,
    clean_evidence,
    downsample,
    line_evidence,
    snapshot_figures,
    with_evidence,
)
from cache.casebook.evidence_svg import evidence_svg, nice_ticks, tick_labels
from cache.casebook.links import PUBLIC_URL_ENV
from cache.casebook.model import MAX_SNAPSHOT_BYTES, make_case, validate_case
from cache.casebook.report import report_html

SVG_TAGS = {"svg", "title", "text", "line", "polyline", "circle", "rect"}
EVIL = "<script>alert(1)</script>"


class _Svg(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(markup: str) -> _Svg:
    p = _Svg()
    p.feed(markup)
    p.close()
    return p


def _assert_static(markup: str) -> _Svg:
    p = _parse(markup)
    assert {t for t, _ in p.tags} <= SVG_TAGS, {t for t, _ in p.tags}
    for _tag, attrs in p.tags:
        for name, value in attrs.items():
            assert name not in ("href", "xlink:href", "src", "style") and not name.startswith("on")
            assert "url(" not in (value or "") and "javascript" not in (value or "").lower()
    assert "<script" not in markup and "&lt;script&gt;" in markup
    return p


def _line() -> dict:
    x = np.arange(20_000)
    y = np.sin(x / 700.0) + np.where(x == 12_345, -5.0, 0.0)
    y[100:200] = np.nan  # a gap
    ev = line_evidence(
        title=f"curve {EVIL}",
        x_label=f"token {EVIL}",
        y_label=f"conf {EVIL}",
        series=[(f"a {EVIL}", x, y), ("b", x[::100], np.cos(x[::100] / 900.0))],
        marks=[(2048, EVIL), (4096, "✓")],
        highlight=(12_345, -5.0, f"lowest {EVIL}"),
    )
    assert ev is not None
    return ev


def test_line_evidence_is_bounded_keeps_the_dip_and_is_plain_json() -> None:
    ev = _line()
    a = ev["series"][0]
    lowest = min(v for v in a["y"] if v is not None)
    assert len(a["x"]) <= MAX_POINTS and lowest == pytest.approx(math.sin(12_345 / 700) - 5, 1e-4)
    assert None in a["y"]  # the gap survives as a gap
    assert ev["highlight"] == {"x": 12345, "y": -5.0, "label": f"lowest {EVIL}"}  # as given
    assert ev["marks"][0] == {"x": 2048, "label": EVIL}
    text = json.dumps(ev, allow_nan=False)
    assert len(text) < 20_000


def test_numbers_are_finite_and_rounded_and_texts_bounded() -> None:
    ev = line_evidence(
        title="t" * 1000,
        x_label="x",
        y_label="y",
        series=[("s", [0, 1, 2, 3], [math.pi, float("inf"), float("nan"), None])],
    )
    assert ev is not None and len(ev["title"]) <= 160
    assert ev["series"][0]["y"] == [3.1416, None, None, None]
    assert line_evidence(title="t", x_label="", y_label="", series=[("s", [], [])]) is None


def test_downsample_keeps_ends_and_extremes() -> None:
    y = np.zeros(10_000)
    y[5000], y[7000] = 9.0, -9.0
    idx = downsample(y, 50)
    assert len(idx) <= 50 and idx[0] == 0 and idx[-1] == 9999 and {5000, 7000} <= set(idx)
    assert downsample([1, 2, 3]) == [0, 1, 2]


@pytest.mark.parametrize(
    "junk",
    [
        None,
        "not json",
        "[" * 100_000,
        {"kind": "pie"},
        {"kind": "line", "series": "x"},
        {"kind": "line", "series": [{"x": "abc", "y": "def"}]},
        {"kind": "line", "series": [{"x": [None, "a"], "y": [1, 2]}]},
        {"kind": "bars", "categories": [], "series": [{"values": [1]}]},
        {"kind": "bars", "categories": ["a"], "series": [{"values": [None, True]}]},
        [1, 2, 3],
    ],
)
def test_anything_else_is_not_evidence_and_draws_nothing(junk: object) -> None:
    assert clean_evidence(junk) is None and evidence_svg(junk) == ""


def test_stored_evidence_is_cleaned_again_before_drawing() -> None:
    crafted = {
        "kind": "line",
        "title": EVIL,
        "series": [{"name": EVIL, "x": list(range(5000)), "y": [1e308 * 10] + [1.0] * 4999}],
        "marks": [{"x": "javascript:alert(1)", "label": EVIL}, {"x": 3, "label": EVIL}],
        "highlight": {"x": 2, "y": "1", "label": EVIL},
        "y_range": [1, 0],
    }
    ev = clean_evidence(json.dumps(crafted))
    assert ev is not None and len(ev["series"][0]["x"]) <= MAX_POINTS
    assert ev["series"][0]["y"][0] is None and [m["x"] for m in ev["marks"]] == [3]
    assert "y_range" not in ev
    _assert_static(evidence_svg(crafted))


def test_a_line_svg_has_axes_ticks_lines_marks_and_the_highlight() -> None:
    svg = evidence_svg(_line())
    p = _assert_static(svg)
    tags = [t for t, _ in p.tags]
    assert tags[0] == "svg" and tags.count("polyline") >= 3  # the gap splits series a
    assert any(t == "circle" and a.get("r") == "5" for t, a in p.tags)  # the highlight
    dashed = [a for t, a in p.tags if t == "line" and a.get("stroke-dasharray")]
    assert len(dashed) == 2  # the marks
    text = " ".join(p.text)
    assert f"curve {EVIL}" in text and f"lowest {EVIL}" in text  # escaped, then read back
    assert "10k" in text and "token" in text  # x ticks in one unit, the axis label
    assert "a <script>" in text and "b" in text  # a legend for two series


def test_a_bars_svg_draws_every_category_and_highlights_one() -> None:
    ev = bar_evidence(
        title=f"tokens {EVIL}",
        y_label="tokens",
        categories=[f"stage {i}" for i in range(1, 6)] + [EVIL],
        series=[("all", [5, 4, 3, 2, 1, 6]), ("critical", [1, 2, None, 2, 1, -1])],
        highlight="stage 2",
    )
    assert ev is not None and ev["series"][1]["values"][2] is None
    svg = evidence_svg(ev)
    p = _assert_static(svg)
    bars = [a for t, a in p.tags if t == "rect" and a.get("width") != "12"]
    assert len(bars) == 11 + 1  # 11 values, the highlighted category's background
    assert sum(1 for a in bars if a.get("stroke")) == 2  # the highlighted category's bars


def test_many_categories_are_cut_and_said_so() -> None:
    ev = bar_evidence(title="t", y_label="", categories=range(100), series=[("s", range(100))])
    assert ev is not None and len(ev["categories"]) == 60 and "first 60 of 100" in ev["title"]


def test_ticks_are_round_and_labelled_in_one_unit() -> None:
    assert nice_ticks(0, 1, 4) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert nice_ticks(0, 0.7, 5) == [0.0, 0.2, 0.4, 0.6]
    assert nice_ticks(2048, 30000, 6)[0] == 5000
    assert tick_labels([0, 5000, 10000, 15000]) == ["0", "5k", "10k", "15k"]
    assert tick_labels([0.0, 0.25, 0.5]) == ["0.00", "0.25", "0.50"]
    assert tick_labels([0, 500, 1000]) == ["0", "500", "1,000"]
    assert nice_ticks(float("nan"), 1) == []


def test_the_largest_evidence_fits_the_snapshot_limit() -> None:
    x = np.arange(100_000, dtype=np.float64)
    series = [
        (f"s{i} " + "n" * 80, x * 1.234567, np.sin(x / (i + 3.3)) * 1e6 / 7) for i in range(9)
    ]
    ev = line_evidence(
        title="t" * 500,
        x_label="x" * 500,
        y_label="y" * 500,
        series=series,
        marks=[(i * 1.1, "m" * 100) for i in range(100)],
    )
    snap = with_evidence({"n": 1}, ev)
    case = validate_case(make_case("mars", "mars", item={"qid": "1"}, snapshot=snap))
    assert len(json.dumps(case.snapshot)) < MAX_SNAPSHOT_BYTES / 2
    assert case.snapshot[EVIDENCE_KEY]["series"][0]["name"].startswith("s0")
    assert snapshot_figures(case.snapshot) == {"n": 1}


def test_the_report_draws_evidence_and_says_when_there_is_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)
    base = make_case("mars", "mars", query=[("qid", "1")], item={"qid": "1"}, title="with")
    with_picture = dataclasses.replace(base, snapshot=with_evidence({"n": 1}, _line()))
    without = dataclasses.replace(base, id="none", title="without", snapshot={"n": 2})
    html = report_html([with_picture, without], "r")
    first, second = html.split("id='case-none'")
    assert first.count("<svg") == 1 and "<figure class='evidence'>" in first
    assert "No picture stored at capture." in second and "<svg" not in second
    assert ">evidence<" not in html  # the evidence is not a row of the figures table
    p = _parse(html)
    assert not [a for _t, a in p.tags if "src" in a or "href" in a]
    assert not {t for t, _ in p.tags} & {"img", "script", "link", "iframe", "object", "embed"}
