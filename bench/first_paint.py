"""First paint of every view opened in a new tab, in headless Chromium, against a warm server
(target: <= 2 s each).

    python bench/first_paint.py                 # starts its own server on the bundled sample
    python bench/first_paint.py --url URL       # an already running server
    python bench/first_paint.py --runs 7 --view mars --view playground

"First paint" = from `page.goto` of the view's URL in a fresh browser context (a new session, as
a shared link opens) until the script has finished, nothing shows a skeleton and every visible
chart has drawn. Each view is opened once untimed first, so the sample and the derived tables are
built and the server is warm. Also printed: the bytes the server sent (websocket frames plus non-static HTTP bodies).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.browser import launch, streamlit_server, wait_settled  # noqa: E402

VIEWS = {
    "home": "/",
    "parason": "/parason",
    "mars": "/mars",
    "playground": "/playground",
    "fineproofs": "/fineproofs",
    "casebook": "/casebook",
}
TARGET_S = 2.0


def _open(browser: Any, url: str) -> tuple[float, int]:
    """Seconds to settle and websocket bytes received, in a fresh context."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    received = [0]

    def on_ws(ws: Any) -> None:
        ws.on("framereceived", lambda frame: received.__setitem__(0, received[0] + len(frame)))

    page.on("websocket", on_ws)
    t = time.perf_counter()
    page.goto(url)
    wait_settled(page)
    elapsed = time.perf_counter() - t
    # plus what came over HTTP besides the static bundle (media, component assets)
    received[0] += int(
        page.evaluate(
            """() => performance.getEntriesByType('resource')
                .filter((e) => !e.name.includes('/static/'))
                .reduce((n, e) => n + (e.decodedBodySize || 0), 0)"""
        )
    )
    context.close()
    return elapsed, received[0]


def measure(base: str, views: list[str], runs: int) -> list[tuple[str, float, float, float]]:
    from playwright.sync_api import sync_playwright  # why: only the browser benchmarks need it

    rows = []
    with sync_playwright() as p:
        browser = launch(p)
        for name in views:
            _open(browser, base + VIEWS[name])  # warm: builds what the view needs
            times, sizes = [], []
            for _ in range(runs):
                s, b = _open(browser, base + VIEWS[name])
                times.append(s)
                sizes.append(b)
            rows.append((name, statistics.median(times), max(times), statistics.median(sizes)))
        browser.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", default=None, help="a running server (default: start one)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--view", action="append", choices=sorted(VIEWS), default=None)
    args = ap.parse_args(argv)
    views = args.view or list(VIEWS)
    if args.url:
        rows = measure(args.url.rstrip("/"), views, args.runs)
    else:
        cache = Path(tempfile.gettempdir()) / "rte-bench" / "first-paint-cache"
        with streamlit_server(cache) as server:
            rows = measure(server.url, views, args.runs)
    print(f"first paint in a new tab, warm server, {args.runs} runs each (target <= {TARGET_S} s)")
    print(f"{'view':<12} {'median s':>9} {'max s':>7} {'ws MB':>7}  verdict")
    worst = 0.0
    for name, med, mx, size in rows:
        verdict = "ok" if med <= TARGET_S else "over"
        print(f"{name:<12} {med:>9.2f} {mx:>7.2f} {size / 1e6:>7.2f}  {verdict}")
        worst = max(worst, med)
    print(f"slowest median: {worst:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
