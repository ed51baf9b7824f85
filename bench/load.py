"""Many sessions at once: N headless-Chromium sessions repeat a scripted tour against one server.

    python -m bench.load [--sessions 8] [--seconds 300] [--url URL --pid PID] [--json out.json]

Without `--url` it starts its own server of the app (bundled sample, HF offline, a fresh
casebook database) and measures that process. The tour of each session:
home; a Parason trajectory and a click on a DAG node; a MARS question on its Curves tab; a
playground policy change, then a full run (budget 512 x 64 iterations, the default); a FineProofs
trace and a click on a step; adding a casebook case, then deleting it.

One untimed tour runs first (`--no-warmup` skips it), so the figures are of a warm server:
derived tables built once and shared, Streamlit caches filled. Printed: per step p50 / p95 seconds to settle (the script finished and the step's element shown),
errors and exception elements seen, and the server's resident memory at the start, half-way and
at the end, with its growth over the last half. It also prints the p95 of other sessions' steps
while a full playground run was going on, against the p95 of the same steps otherwise.

One Chromium, one browser context a session (asyncio Playwright), so the sessions are as
independent as separate visitors. Chromium: `$RTE_CHROMIUM` or /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import tempfile
import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.browser import CHROMIUM, CHROMIUM_ARGS, rss_mb, streamlit_server

MARS_FILE = "DeepSeek-8B/aime25_deepseek.parquet"
STEP_TIMEOUT_MS = 240_000
# the Parason DAG's node markers: a light chart (SVG in a shadow root, which CSS locators pierce)
DAG_NODES = 'svg[data-testid="lite-chart-svg"] g.trace[data-name="nodes"] path[data-p]'
SETTLED_JS = """() => !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-testid="stSkeleton"]')"""
STEPS = (
    "home",
    "parason",
    "parason node click",
    "mars curves",
    "playground policy change",
    "playground full run",
    "fineproofs",
    "fineproofs step click",
    "casebook add",
    "casebook delete",
)


# ------------------------------------------------------------------------------------ server


@contextmanager
def own_server(cache_dir: str | None) -> Iterator[tuple[str, int]]:
    """The app's server on a free port with a fresh casebook; yields (url, pid)."""
    scratch = Path(tempfile.mkdtemp(prefix="rte-load-"))
    cache = Path(cache_dir) if cache_dir else scratch / "cache"
    # the tour adds and deletes a case, so neither a locked profile nor a read-only casebook
    with streamlit_server(
        cache,
        log=scratch / "server.log",
        drop=("RTE_PROFILE", "RTE_CASEBOOK"),
        RTE_DB_URL=f"sqlite:///{scratch / 'cb.sqlite'}",
    ) as server:
        yield server.url, server.pid


# ------------------------------------------------------------------------------ measurements


@dataclass
class Record:
    session: int
    step: str
    start: float
    end: float
    error: str = ""


@dataclass
class Run:
    records: list[Record] = field(default_factory=list)
    exceptions_seen: int = 0
    page_errors: list[str] = field(default_factory=list)
    memory: list[tuple[float, float]] = field(default_factory=list)  # (t, MB)


async def _settle(page: Any, timeout: float = STEP_TIMEOUT_MS) -> None:
    await page.wait_for_selector('[data-testid="stMain"] h1', timeout=timeout)
    await page.wait_for_function(SETTLED_JS, timeout=timeout)
    await page.wait_for_timeout(200)
    await page.wait_for_function(SETTLED_JS, timeout=timeout)


async def _count_exceptions(page: Any) -> int:
    n = await page.locator('[data-testid="stException"]').count()
    text = await page.locator('[data-testid="stMain"]').inner_text()
    return int(n + ("Something went wrong" in text))


def tour(base: str, session: int, uuid: str, fp: tuple[str, int]) -> list[tuple[str, Any]]:
    """(step name, async action(page)) in order; each action returns once the step settled."""
    title = f"load-{session}-{os.getpid()}"

    async def home(pg: Any) -> None:
        await pg.goto(base + "/")
        await _settle(pg)
        await pg.get_by_text("Files available").first.wait_for()

    async def parason(pg: Any) -> None:
        await pg.goto(f"{base}/parason?uuid={uuid}")
        await _settle(pg)
        await pg.locator(DAG_NODES).first.wait_for()

    async def node_click(pg: Any) -> None:
        await pg.locator(DAG_NODES).nth(1).click(force=True)
        await pg.locator(".rte-node-text").first.wait_for()
        await _settle(pg)

    async def mars(pg: Any) -> None:
        await pg.goto(f"{base}/mars?file={MARS_FILE}&qid=3&view=Curves")
        await _settle(pg)
        # the curves drawn: a lite chart's SVG paths (components/common/lite_chart.py), inside
        # its component's shadow root
        # (the question grid above is a lite chart too, in a collapsed expander: not visible)
        curves = 'svg[data-testid="lite-chart-svg"] g.trace path >> visible=true'
        await pg.locator(curves).first.wait_for(timeout=STEP_TIMEOUT_MS)

    async def policy_change(pg: Any) -> None:
        await pg.goto(f"{base}/playground?policy=sc-consensus&budget=32")
        await pg.get_by_role("tab", name="Frontier").wait_for(timeout=STEP_TIMEOUT_MS)
        await _settle(pg)
        picker = pg.get_by_role("combobox", name="Stopping policy (method id)")
        await picker.select_option(label="sc-pp")  # a light (native) select
        await pg.wait_for_function("() => location.search.includes('policy=sc-pp')")
        await pg.get_by_role("tab", name="Frontier").wait_for(timeout=STEP_TIMEOUT_MS)
        await _settle(pg)

    async def full_run(pg: Any) -> None:
        await pg.goto(f"{base}/playground?policy=sc-pp")  # defaults: budget 512 x 64 iterations
        await pg.get_by_role("tab", name="Frontier").wait_for(timeout=STEP_TIMEOUT_MS)
        await _settle(pg)

    async def fineproofs(pg: Any) -> None:
        await pg.goto(f"{base}/fineproofs?problem={fp[0]}&sample={fp[1]}")
        await _settle(pg)
        await pg.locator("#fp-trace-text .fp-step").first.wait_for()

    async def step_click(pg: Any) -> None:
        await pg.locator("#fp-step-2").click()
        await pg.wait_for_function("() => location.search.includes('prefix=2')")
        await _settle(pg)

    async def case_add(pg: Any) -> None:
        await pg.goto(f"{base}/parason?uuid={uuid}")
        await _settle(pg)
        await pg.get_by_role("button", name="Add to casebook").first.click()
        body = pg.locator('[data-testid="stPopoverBody"]').last
        await body.get_by_label("Title").fill(title)
        name = body.get_by_label(re.compile("Your name"))
        if await name.count():  # the first save of a browser asks who writes
            await name.fill("load tour")
        await pg.wait_for_timeout(200)
        await body.get_by_role("button", name="Save case").click()
        await pg.get_by_text("Saved to the casebook").first.wait_for()
        await _settle(pg)

    async def case_delete(pg: Any) -> None:
        await pg.goto(f"{base}/casebook?q={title}")
        await _settle(pg)
        await pg.get_by_text("1 case(s)").first.wait_for()
        # open the one listed case: a click on its row's selection box (the grid is a canvas)
        grid = pg.locator('[data-testid="stDataFrame"]').first
        box = await grid.bounding_box()
        await pg.mouse.click(box["x"] + 18, box["y"] + 38 + 17)
        await pg.get_by_role("button", name="Delete", exact=True).first.click()
        await pg.get_by_text("Deleted").first.wait_for()
        await _settle(pg)

    actions = (home, parason, node_click, mars, policy_change, full_run)
    actions += (fineproofs, step_click, case_add, case_delete)
    return list(zip(STEPS, actions, strict=True))


async def _session(
    browser: Any,
    base: str,
    i: int,
    deadline: float,
    run: Run,
    items: tuple[str, tuple[str, int]],
    once: bool = False,
) -> None:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
    pg = await ctx.new_page()
    pg.set_default_timeout(60_000)
    pg.on("pageerror", lambda e: run.page_errors.append(f"session {i}: {e}"))
    steps = tour(base, i, *items)
    await asyncio.sleep(max(i, 0) * 1.5)  # stagger the starts a little, as visitors do
    try:
        while once or time.monotonic() < deadline:
            for name, action in steps:
                if not once and time.monotonic() >= deadline:
                    break
                t0 = time.monotonic()
                err = ""
                try:
                    await action(pg)
                except Exception as exc:  # noqa: BLE001 - a failed step is a measured error
                    err = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                run.records.append(Record(i, name, t0, time.monotonic(), err))
                # the page may be mid-navigation: then it is counted after the next step
                with contextlib.suppress(Exception):
                    run.exceptions_seen += await _count_exceptions(pg)
                if err:  # start the tour again from a clean page
                    break
            if once:
                break
    finally:
        await ctx.close()


async def _sample_memory(pid: int, run: Run, deadline: float, start: float) -> None:
    while True:
        run.memory.append((time.monotonic() - start, rss_mb(pid)))
        if time.monotonic() >= deadline:
            return
        await asyncio.sleep(2.0)


def _tour_items() -> tuple[str, tuple[str, int]]:
    """A Parason uuid and a FineProofs (problem, sample) of the bundled sample."""
    import polars as pl  # noqa: PLC0415 - only the tour needs it; keeps `--help` fast

    from cache.sample import ensure_sample  # noqa: PLC0415 - same

    par = ensure_sample("parason") / "sft-1x" / "train.parquet"
    fp = ensure_sample("fineproofs") / "data" / "prefix_values.parquet"
    uuid = str(pl.read_parquet(par, columns=["uuid"])[0, 0])
    row = pl.read_parquet(fp, columns=["problem_id", "sample_index"]).row(0)
    return uuid, (str(row[0]), int(row[1]))


async def drive(url: str, pid: int, sessions: int, seconds: float, warmup: bool = True) -> Run:
    from playwright.async_api import async_playwright  # noqa: PLC0415 - optional dependency

    run = Run()
    items = _tour_items()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        if warmup:  # one untimed tour: derived tables built, caches filled, before the clock
            await _session(browser, url, -1, time.monotonic() + 1, Run(), items, once=True)
        start = time.monotonic()
        deadline = start + seconds
        tasks: list[Awaitable[None]] = [_sample_memory(pid, run, deadline, start)]
        tasks += [_session(browser, url, i, deadline, run, items) for i in range(sessions)]
        await asyncio.gather(*tasks)
        run.memory.append((time.monotonic() - start, rss_mb(pid)))
        await browser.close()
    return run


# ---------------------------------------------------------------------------------- summary


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def summarise(run: Run, sessions: int, seconds: float) -> dict[str, Any]:
    ok = [r for r in run.records if not r.error]
    steps = {}
    for name in STEPS:
        d = [r.end - r.start for r in ok if r.step == name]
        steps[name] = {"n": len(d), "p50": _pct(d, 50), "p95": _pct(d, 95)}
    full = [r for r in ok if r.step == "playground full run"]

    def during_full(r: Record) -> bool:
        return any(f.session != r.session and f.start < r.end and r.start < f.end for f in full)

    others = [r for r in ok if not r.step.startswith("playground")]
    busy = [r.end - r.start for r in others if during_full(r)]
    quiet = [r.end - r.start for r in others if not during_full(r)]
    mem = run.memory
    half_t = mem[-1][0] / 2 if mem else 0.0
    at_half = next((m for t, m in mem if t >= half_t), float("nan")) if mem else float("nan")
    end = mem[-1][1] if mem else float("nan")
    return {
        "sessions": sessions,
        "seconds": seconds,
        "steps": steps,
        "tours_completed": sum(1 for r in ok if r.step == STEPS[-1]),
        "errors": [f"session {r.session} {r.step}: {r.error}" for r in run.records if r.error],
        "exception_elements": run.exceptions_seen,
        "page_errors": run.page_errors,
        "others_p95_during_full_run": _pct(busy, 95),
        "others_p95_otherwise": _pct(quiet, 95),
        "others_n_during_full_run": len(busy),
        "rss_mb": {"start": mem[0][1] if mem else None, "half": at_half, "end": end},
        "rss_growth_last_half_pct": 100 * (end - at_half) / at_half if at_half else None,
    }


def report(s: dict[str, Any]) -> str:
    lines = [
        f"{s['sessions']} sessions x {s['seconds']:.0f} s, {s['tours_completed']} tours completed",
        f"{'step':<26}{'n':>5}{'p50 s':>9}{'p95 s':>9}",
    ]
    for name, v in s["steps"].items():
        lines.append(f"{name:<26}{v['n']:>5}{v['p50']:>9.2f}{v['p95']:>9.2f}")
    lines.append(
        f"other sessions' p95 during a full playground run: {s['others_p95_during_full_run']:.2f} s"
        f" (n={s['others_n_during_full_run']}), otherwise {s['others_p95_otherwise']:.2f} s"
    )
    lines.append(
        f"errors: {len(s['errors'])}, exception elements: {s['exception_elements']}, "
        f"page errors: {len(s['page_errors'])}"
    )
    lines += [f"  {e}" for e in (s["errors"] + s["page_errors"])[:20]]
    m = s["rss_mb"]
    lines.append(
        f"server RSS: start {m['start']:.0f} MB, half-way {m['half']:.0f} MB, end {m['end']:.0f} MB;"
        f" growth over the last half {s['rss_growth_last_half_pct']:+.1f} %"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--url", help="a running server (default: start one)")
    ap.add_argument("--pid", type=int, help="the running server's process id (with --url)")
    ap.add_argument("--cache-dir", help="RTE_CACHE_DIR of the server this script starts")
    ap.add_argument("--no-warmup", action="store_true", help="skip the untimed first tour")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)

    def run_it(url: str, pid: int) -> Run:
        return asyncio.run(drive(url, pid, args.sessions, args.seconds, not args.no_warmup))

    if args.url:
        if not args.pid:
            ap.error("--url needs --pid (the server's process id, for its memory)")
        run = run_it(args.url.rstrip("/"), args.pid)
    else:
        with own_server(args.cache_dir or os.environ.get("RTE_CACHE_DIR")) as (url, pid):
            run = run_it(url, pid)
    summary = summarise(run, args.sessions, args.seconds)
    print(report(summary))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, default=str))
    return summary


if __name__ == "__main__":
    main()
