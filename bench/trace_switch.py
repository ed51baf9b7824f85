"""A trace switch on the MARS Single trace tab, in headless Chromium (target: <= 1 s): the time
from a click on "Next wrong trace" to the next wrong trace painted (the script run finished, the
URL naming the new trace, nothing stale left), each switch a trace not read before.

    python bench/trace_switch.py                  # a generated question of 4,096 traces
    python bench/trace_switch.py --traces 512 --steps 5
    python bench/trace_switch.py --url URL --path 'mars?qid=3'   # a running server's question

The generated file (the benchmark's pool size, realistic lengths and garbage) and its feature
tables are kept in the bench cache folder, so a second run starts at once. Times are page-clock
(performance.now()) from the click, so the browser's share is included.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.browser import SETTLED_JS, launch, streamlit_server  # noqa: E402

REL = "DeepSeek-8B/aime25_deepseek.parquet"
TARGET_S = 1.0
NEXT = ".st-key-mars_next_wrong button"  # components/mars/trace_nav.py NEXT_KEY
# the click, timed on the page clock
CLICK_JS = "(sel) => { window.__rteT0 = performance.now(); document.querySelector(sel).click(); }"
# a new trace in the URL, the run finished and nothing stale: ms since the click
SWITCHED_JS = (
    "(before) => { const t = new URLSearchParams(location.search).get('trace');"
    f" return t !== before && ({SETTLED_JS})() ? performance.now() - window.__rteT0 : false; }}"
)


def _trace(page: Any) -> str | None:
    return page.evaluate("() => new URLSearchParams(location.search).get('trace')")


def run(url: str, steps: int) -> list[float]:
    """Open `url` (a Single trace tab filtered to wrong traces), then click "Next wrong trace"
    `steps` times; the seconds of each switch."""
    from playwright.sync_api import sync_playwright  # why: only the browser benchmarks need it

    out = []
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        page.goto(url)
        page.wait_for_function(SETTLED_JS, timeout=600_000, polling=50)
        page.locator(NEXT).first.wait_for(timeout=60_000)
        for _ in range(steps):
            before = _trace(page)
            if page.locator(NEXT).first.is_disabled():
                break
            page.evaluate(CLICK_JS, NEXT)
            ms = page.wait_for_function(SWITCHED_JS, arg=before, timeout=120_000, polling=20)
            out.append(float(ms.json_value()) / 1000)
        browser.close()
    return out


def generated(root: Path, traces: int) -> Path:
    """A MARS folder holding one question of `traces` traces (written once, then reused)."""
    from cache.sample.mars import write_file  # why: sets nothing up until asked for

    path = root / f"pool-{traces}" / REL
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"writing a question of {traces:,} traces to {path} …", flush=True)
        write_file(path, "aime25", traces, seed=3, n_questions=1, median_len=12_000,
                   garbage="realistic", overlap=True)  # fmt: skip
    return root / f"pool-{traces}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", default=None, help="a running server (default: start one)")
    ap.add_argument("--path", default="mars?qid=0", help="the question's page, with --url")
    ap.add_argument("--traces", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=7)
    args = ap.parse_args(argv)
    query = "view=Single+trace&verdict=wrong"
    if args.url:
        sep = "&" if "?" in args.path else "?"
        times = run(f"{args.url.rstrip('/')}/{args.path}{sep}{query}", args.steps)
    else:
        cache = Path(tempfile.gettempdir()) / "rte-bench" / "trace-switch"
        root = generated(cache / "data", args.traces)
        env = {"RTE_MARS_SOURCE": "local", "RTE_MARS_PATH": str(root)}
        with streamlit_server(cache / "cache", **env) as server:
            times = run(f"{server.url}/mars?file={REL}&qid=0&{query}", args.steps)
    if not times:
        print("no switch timed: the question has fewer than two wrong traces")
        return 1
    med = statistics.median(times)
    print(
        f"trace switch (click on 'Next wrong trace' to the new trace painted), {len(times)} "
        f"switches: median {med:.2f} s, max {max(times):.2f} s, each "
        + ", ".join(f"{t:.2f}" for t in times)
        + f" (target <= {TARGET_S} s: {'ok' if med <= TARGET_S else 'over'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
