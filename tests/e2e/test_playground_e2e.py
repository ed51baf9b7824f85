"""Stopping playground in a real browser: move a slider; the frontier and the table update,
and the URL carries the new parameter (deep link).

Fragment-only reruns are checked on Streamlit's own wire: the server ends every script run
with a `script_finished` message on the websocket, FINISHED_SUCCESSFULLY after a whole-page
run and FINISHED_FRAGMENT_RUN_SUCCESSFULLY after a fragment run (`RunLog`). The page itself
carries no test hook."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from urllib.parse import parse_qs, urljoin, urlparse

import pytest
from google.protobuf.message import DecodeError
from playwright.sync_api import expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.e2e.conftest import LITE_POINTS, LITE_SVG, assert_no_exception, wait_for_app
from tests.e2e.journey_helpers import SMALL, VIEWPORTS, choose_option, new_page, shown_option, vp_id

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]

CURRENT_X = f"""() => {{ const p = ({LITE_POINTS})('current setting');
  return p && p.length ? p[0][0] : null; }}"""


class RunLog:
    """The script runs the server reports to this page, read off the websocket."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.finished: list[int] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: object) -> None:
        if not isinstance(payload, bytes | bytearray):
            return
        msg = ForwardMsg()
        try:
            msg.ParseFromString(bytes(payload))
        except DecodeError:
            return
        if msg.WhichOneof("type") == "script_finished":
            self.finished.append(msg.script_finished)

    def wait_for(self, page, done: Callable[[], bool], timeout_s: float = 60) -> None:  # type: ignore[no-untyped-def]
        """Wait (letting Playwright deliver websocket events) until `done()` holds."""
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, f"timed out; runs so far {self.finished}"
            # a round trip through the page lets Playwright deliver the websocket frames queued
            page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done(null)))")

    @property
    def full_runs(self) -> int:
        return self.finished.count(ForwardMsg.FINISHED_SUCCESSFULLY)

    @property
    def fragment_runs(self) -> int:
        return self.finished.count(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


def _results(page) -> None:  # type: ignore[no-untyped-def]
    """Wait until the results (the tabs under the summary) are on screen and the app is idle."""
    page.get_by_role("tab", name="Frontier").wait_for(timeout=180_000)
    wait_for_app(page)


def _open_tab(page, name: str) -> None:  # type: ignore[no-untyped-def]
    tab = page.get_by_role("tab", name=name, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true", timeout=30_000)
    wait_for_app(page)


PERQ_CELLS = '.rte-lite-table td[role="gridcell"]'  # the per-question light table's cells


def _cells(page) -> str:  # type: ignore[no-untyped-def]
    return "|".join(c.inner_text() for c in page.locator(PERQ_CELLS).all())


def test_slider_updates_frontier_and_table(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    log = RunLog(page)
    page.goto(f"{app_url}/playground?policy=sc-consensus&budget=64&view=Questions")
    _results(page)
    assert_no_exception(page)
    # on a cold cache the per-question table arrives after the first paint: wait for its cells
    page.locator(PERQ_CELLS).first.wait_for(state="attached", timeout=120_000)
    table0 = _cells(page)
    _open_tab(page, "Frontier")  # a tab opens by a fragment run: the page around it stays
    page.wait_for_function(f"() => ({CURRENT_X})() !== null", timeout=60_000)  # frontier drawn
    assert "view=" not in page.url  # the frontier is the default tab
    x0 = page.evaluate(CURRENT_X)
    runs0, frags0 = log.full_runs, log.fragment_runs  # whole-page runs so far (the first load)
    assert x0 is not None and table0 and runs0 >= 1 and frags0 >= 1
    slider = page.get_by_role("slider", name="tau (leader share)")
    # the range's ends under the track, as Streamlit's slider shows them
    ends = page.locator(".rte-lc-k-slider").filter(has=slider).locator(".rte-lc-ends")
    expect(ends).to_have_text("0.501.00")
    slider.focus()
    for _ in range(20):  # 0.95 -> 0.75
        page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"() => ({CURRENT_X})() !== {x0}", timeout=60_000)
    wait_for_app(page)
    assert_no_exception(page)
    assert page.evaluate(CURRENT_X) > x0  # a looser tau saves more tokens
    assert "tau=0.75" in page.url
    # only the fragment reran: the page script outside it (title, file and policy pickers) did
    # not run again, though 20 slider steps went by; the server reported fragment runs instead
    # the chart's new figure arrives before the run's `script_finished`: wait for the latter
    log.wait_for(page, lambda: log.fragment_runs > frags0)
    assert log.full_runs == runs0
    _open_tab(page, "Questions")
    page.locator(PERQ_CELLS).first.wait_for(state="attached", timeout=60_000)
    assert _cells(page) != table0  # per-question savings / stop positions changed
    assert log.full_runs == runs0


def test_fragment_slider_skips_the_page_but_a_policy_change_does_not(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    """The run log is a working signal: it reports fragment runs while a slider inside the
    fragment moves, and a whole-page run when the policy (outside the fragment) changes."""
    log = RunLog(page)
    page.goto(f"{app_url}/playground?policy=sc-stability&budget=32")
    _results(page)
    runs0, frags0 = log.full_runs, log.fragment_runs
    page.wait_for_function(f"() => ({CURRENT_X})() !== null", timeout=60_000)  # frontier drawn
    x0 = page.evaluate(CURRENT_X)
    slider = page.get_by_role("slider", name="stable checkpoints k")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # k 3 -> 1
    page.wait_for_function(f"() => ({CURRENT_X})() !== {x0}", timeout=60_000)
    # the chart's new figure arrives before the run's `script_finished`: wait for the latter
    log.wait_for(page, lambda: log.fragment_runs > frags0)
    wait_for_app(page)
    assert_no_exception(page)
    assert log.full_runs == runs0
    choose_option(page, "Stopping policy (method id)", re.compile(r"^sc-pp$"))
    log.wait_for(page, lambda: log.full_runs > runs0)  # the whole page ran again
    wait_for_app(page)
    assert_no_exception(page)
    assert "policy=sc-pp" in page.url


def test_deep_link_opens_policy_and_replay(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{app_url}/playground?policy=sc-pp&conv=4&budget=32&qid=2")
    _results(page)
    assert_no_exception(page)
    main = page.inner_text('[data-testid="stMain"]')
    assert "Parallel-Probe (sc-pp)" in main
    # a link naming a question opens the Questions tab on its replay
    assert "Q2, iteration 0" in main
    # per-question chart and replay (the frontier's tab is closed): drawn without Plotly
    page.locator(LITE_SVG).nth(1).wait_for(timeout=60_000)
    assert page.locator(LITE_SVG).count() == 2
    assert page.locator(".js-plotly-plot").count() == 0
    _open_tab(page, "Frontier")
    page.wait_for_function(f"() => ({CURRENT_X})() !== null", timeout=60_000)
    assert page.locator(".js-plotly-plot").count() == 0


def _perq_table(page):  # type: ignore[no-untyped-def]
    return page.locator('.rte-lite-table:has(table[aria-label="questions"])')


def _replay_line(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator('[data-testid="stMain"]').get_by_text(", iteration 0").first.inner_text()


def test_selecting_a_question_drives_the_replay(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(
        f"{app_url}/playground?policy=sc-pp&budget=32&file=Qwen3-32B/aime25.parquet&view=Questions"
    )
    _results(page)
    assert_no_exception(page)
    assert _replay_line(page).startswith("Q0,")
    table = _perq_table(page)
    expect(table.locator('tr[data-i="0"]')).to_have_attribute("aria-selected", "true")  # Q0
    table.locator('tr[data-i="1"]').click()  # Q1's row
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stMain"]').innerText
             .includes('Q1, iteration 0')""",
        timeout=60_000,
    )
    wait_for_app(page)
    assert_no_exception(page)
    assert "/playground" in page.url and "qid=1" in page.url  # stayed here; the URL follows
    # the question picker moved too (each question named with its accuracy next to SC's)
    expect(shown_option(page, "question")).to_have_text(re.compile(r"^Q1 · \d+% \(SC \d+%\)"))
    # the picker stays free: choosing another question is not pulled back to the selected row
    choose_option(page, "question", re.compile(r"^Q2 · "))
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stMain"]').innerText
             .includes('Q2, iteration 0')""",
        timeout=60_000,
    )
    wait_for_app(page)
    assert_no_exception(page)
    assert _replay_line(page).startswith("Q2,") and "qid=2" in page.url
    # the table marks the replayed question's row
    expect(table.locator('tr[data-i="2"]')).to_have_attribute("aria-selected", "true")


def test_link_column_points_at_the_mars_view(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(
        f"{app_url}/playground?policy=sc-pp&budget=32&file=Qwen3-32B/aime25.parquet&view=Questions"
    )
    _results(page)
    # elements below the fold mount once scrolled to (with warm caches the page is short-lived
    # at the top and the table is not mounted yet)
    page.get_by_text("Per question, next to self-consistency").scroll_into_view_if_needed()
    links = _perq_table(page).locator('td[role="gridcell"] a', has_text="open ↗")
    links.first.wait_for(state="attached", timeout=60_000)
    hrefs = [str(a.get_attribute("href")) for a in links.all()]
    assert hrefs
    expect(links.first).to_have_attribute("target", "_blank")
    target = urlparse(urljoin(page.url, hrefs[1]))
    assert target.path == "/mars"
    assert parse_qs(target.query) == {"file": ["Qwen3-32B/aime25.parquet"], "qid": ["1"]}


def test_dco_explains_zero_savings_and_replays_votes(app_url: str, page) -> None:  # type: ignore[no-untyped-def]
    """dco: the 0 % savings are explained next to the metrics, the replay draws the vote at
    every checkpoint (not an empty chart), and its Play/Pause buttons are plain text."""
    page.goto(f"{app_url}/playground?policy=dco&budget=64&view=Questions")
    _results(page)
    assert_no_exception(page)
    info = page.locator('[data-testid="stAlert"]').filter(has_text="never stops early")
    assert "untruncated SC" in info.inner_text()
    # charts below the fold draw once scrolled to
    page.get_by_text("This policy never stops early").scroll_into_view_if_needed()
    replay = page.locator(LITE_SVG).filter(has_text="vote share per answer")
    share = replay.locator('g.trace[data-name="leader share (%)"] [data-x]')
    share.first.wait_for(timeout=60_000)
    assert share.count() > 1  # a point at every checkpoint shown
    # Play steps on through the checkpoints to the last; its label is plain text
    bar = page.locator(".rte-lite-steps")
    play = bar.locator("button")
    assert play.inner_text() == "Play"
    n_all = share.count()
    # the slider moves the replay back (start near the end, so playing it out is quick)
    bar.locator("input").fill(str(n_all - 3))
    page.wait_for_function(
        f"""() => {{ const p = ({LITE_POINTS})('leader share (%)');
             return p && p.length === {n_all - 2}; }}""",
        timeout=10_000,
    )
    play.click()
    assert play.inner_text() == "Pause"
    page.wait_for_function(
        f"""() => {{ const p = ({LITE_POINTS})('leader share (%)');
             return p && p.length === {n_all}; }}""",
        timeout=60_000,
    )
    assert play.inner_text() == "Play"  # the animation ended on the last checkpoint


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=vp_id)
def test_the_reference_diff_opens_on_light_tables(app_url: str, browser, viewport) -> None:  # type: ignore[no-untyped-def]
    """The Reference tab draws ours against the reference per question (30 rows) and overall in
    light tables; its "Data grid" switch shows both as grids and goes into the URL."""
    pg = new_page(browser, viewport)
    try:
        pg.goto(f"{app_url}/playground?policy=sc-mars-cal&view=Reference")
        wait_for_app(pg)
        assert_no_exception(pg)
        tables = pg.locator(".rte-lite-table")
        expect(tables).to_have_count(2)
        per_q = tables.first
        expect(per_q.locator("th").first).to_have_text("qid")
        expect(per_q.locator("table")).to_have_attribute("aria-rowcount", "31")  # 30 + header
        expect(pg.locator('[data-testid="stDataFrame"]')).to_have_count(0)
        switch = pg.get_by_role("switch", name="Data grid")
        label = pg.locator(".rte-lc-switch span", has_text="Data grid")
        assert label.evaluate("e => e.scrollWidth <= e.clientWidth + 1")  # not cut at 1024 px
        switch.click()
        expect(pg.locator('[data-testid="stDataFrame"]')).to_have_count(2)
        expect(tables).to_have_count(0)
        pg.wait_for_function("() => window.location.search.includes('ref_grid=true')")
    finally:
        pg.context.close()


@pytest.mark.parametrize("viewport", SMALL, ids=vp_id)
def test_a_links_refused_settings_are_named_atop_the_view_and_under_each_box(
    app_url: str, browser, viewport
) -> None:  # type: ignore[no-untyped-def]
    """A shared link with a budget out of range, a seed that is no number and a misspelt key: one
    line above the title names the three (with what the link asked), each box says why under
    itself, the misspelt key leaves the address; the view runs with the defaults."""
    pg = new_page(browser, viewport)
    try:
        pg.goto(f"{app_url}/playground?budget=-5&seed=abc&bugdet=9")
        wait_for_app(pg)
        assert_no_exception(pg)
        top = pg.get_by_text(re.compile(r"^This link holds values the view could not use"))
        expect(top).to_be_visible()
        expect(top).to_contain_text("“budget (traces)” (budget=-5)")
        expect(top).to_contain_text("“seed” (seed=abc)")
        expect(top).to_contain_text("This link holds a key this view does not read: “bugdet=9”")
        expect(pg).not_to_have_url(re.compile("bugdet"))
        title = pg.get_by_role("heading", name="Stopping playground")
        top_box, title_box = top.bounding_box(), title.bounding_box()
        assert top_box is not None and title_box is not None
        assert top_box["y"] < title_box["y"]  # atop the view, in sight as it opens
        for box, note in (
            ("budget (traces)", "“budget (traces)” is set to “512”"),
            ("seed", "“seed” is set to “42”"),
        ):
            column = pg.locator('[data-testid="stColumn"]').filter(
                has=pg.get_by_label(box, exact=True)
            )
            expect(column.get_by_text(note)).to_be_visible()  # under its own box
    finally:
        pg.context.close()
