"""The HTML report opened from a saved file in a real browser: its evidence pictures draw, and
nothing is fetched (no image of a note, no crafted link, no font or style sheet) but the file."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from cache.casebook.evidence import bar_evidence, line_evidence, with_evidence
from cache.casebook.links import PUBLIC_URL_ENV
from cache.casebook.model import make_case
from cache.casebook.report import report_html

pytestmark = pytest.mark.e2e


def _cases() -> list:
    x = np.arange(12_000)
    line = line_evidence(
        title="confidence <img src=https://evil.example/t.png>",
        x_label="token position",
        y_label="confidence",
        series=[("group confidence", x, np.sin(x / 900.0))],
        marks=[(2048, "✓"), (4096, "✗")],
        highlight=(6000, -0.5, "lowest <script>alert(1)</script>"),
    )
    bars = bar_evidence(
        title="tokens per stage",
        y_label="tokens",
        categories=["stage 1", "stage 2"],
        series=[("all", [300, 120]), ("critical", [100, 80])],
        highlight="stage 2",
    )
    note = (
        "![x](https://evil.example/a.png) [ok](https://ok.example/) "
        "<img src=https://evil.example/b.png>\n\n```\n\n![y](https://evil.example/c.png)\n```"
    )
    good = make_case(
        "mars", "mars", query=[("qid", "1")], item={"qid": "1"}, title="line", note=note
    )
    return [
        dataclasses.replace(good, snapshot=with_evidence({"n": 1}, line)),
        dataclasses.replace(good, id="bars", title="bars", snapshot=with_evidence({}, bars)),
        dataclasses.replace(good, id="crafted", view="//evil.example/x", note="", snapshot={}),
    ]


def test_the_saved_report_draws_its_pictures_and_fetches_nothing(
    page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]  # a Playwright page
    from playwright.sync_api import expect

    monkeypatch.setenv(PUBLIC_URL_ENV, "https://explorer.example")
    path = tmp_path / "report.html"
    path.write_text(report_html(_cases(), "offline"), encoding="utf-8")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    expect(page.locator("svg.evidence")).to_have_count(2)
    expect(page.locator("svg.evidence polyline").first).to_be_visible()
    expect(page.locator("svg.evidence").nth(1).locator("rect")).to_have_count(4 + 1 + 2)
    expect(page.get_by_text("lowest <script>alert(1)</script>")).to_have_count(1)
    expect(page.locator("img, script, iframe, object, embed, link")).to_have_count(0)
    expect(page.locator("#case-crafted a")).to_have_count(0)
    hrefs = page.locator("a").evaluate_all("(els) => els.map((e) => e.href)")
    assert all(
        h.startswith(
            ("https://explorer.example/mars?", "https://ok.example/", "https://evil.example/a.png")
        )
        for h in hrefs
    ), hrefs
    assert requests == [path.as_uri()], requests


def test_the_saved_report_typesets_notes_maths_with_the_network_cut_off(
    page, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]  # a Playwright page
    """With maths on, KaTeX (embedded in the file) typesets the notes' formulas offline; one
    that does not parse, or that trust refuses, shows as written; the policy refuses nothing."""
    from playwright.sync_api import expect

    note = (
        "Area $\\frac{\\pi r^2}{2}$ then \\boxed{42}. Bad $\\frac{1}{$ and "
        "$\\href{https://evil.example/h}{x}$ <img src=https://evil.example/n.png>"
    )
    case = make_case("mars", "mars", query=[("qid", "1")], item={"qid": "1"}, note=note)
    path = tmp_path / "report.html"
    path.write_text(report_html([case], "maths", maths=True), encoding="utf-8")
    requests: list[str] = []
    refused: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    page.context.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort(),
    )
    page.goto(path.as_uri())
    expect(page.locator("body[data-maths='typeset']")).to_have_count(1)
    expect(page.locator(".note .katex")).to_have_count(2)
    expect(page.locator(".note .katex .mfrac")).to_have_count(1)
    failed = page.locator(".note .rte-maths[data-failed]")
    expect(failed).to_have_count(2)
    expect(failed.first).to_have_text("$\\frac{1}{$")
    expect(failed.nth(1)).to_have_text("$\\href{https://evil.example/h}{x}$")
    expect(page.get_by_text("<img src=https://evil.example/n.png>")).to_have_count(1)
    expect(page.locator("img, link, iframe, object, embed")).to_have_count(0)
    assert requests == [path.as_uri()], requests
    assert refused == [], refused
