"""What each kind of element costs a new tab the first time a page draws it: the bare page plus
one part (`bench/element_page.py`, `PARTS`), timed as `bench/first_paint.py` times a view,
paired with an opening of the bare page right before it, in the same browser profile.

    python bench/element_costs.py                  # every part, 5 runs each
    python bench/element_costs.py --runs 9 --part selectbox --part "tabs"

Printed per part: the median ratio of its first paint to the bare page's (the target for a view
is <= 1.5x), and the median extra browser CPU (CDP TaskDuration, seconds the tab's main thread
was busy) over the bare page's. "nothing more" is the bare page's content served by the element
page's server: its distance from 1.00x is how far one run's pair drifts on this machine.
Parts a page already draws cost it little more when drawn again (a second select box), so a
view's first paint is closer to the sum over the kinds it draws than over its elements.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.browser import launch, streamlit_server  # noqa: E402
from bench.element_page import PARTS  # noqa: E402
from bench.first_paint import BARE_SCRIPT, TARGET_RATIO, _open, new_context  # noqa: E402

PAGE_SCRIPT = "bench/element_page.py"


def measure(
    bare: str, page: str, parts: list[str], runs: int
) -> dict[str, list[tuple[float, float]]]:
    """(ratio, extra CPU s) of each run of each part, each paired with a bare opening."""
    from playwright.sync_api import sync_playwright  # why: only the browser benchmarks need it

    out: dict[str, list[tuple[float, float]]] = {p: [] for p in parts}
    urls = {p: f"{page}/?part={quote(p)}" for p in parts}
    with sync_playwright() as pw:
        browser = launch(pw)
        profile = new_context(browser)
        _open(browser, profile, bare)  # warm: the browser cache and both servers
        for p in parts:
            _open(browser, profile, urls[p])
        for _ in range(runs):
            for p in parts:  # round-robin: a slow minute falls on every part alike
                b = _open(browser, profile, bare)
                o = _open(browser, profile, urls[p])
                out[p].append((o.total / b.total, o.cpu - b.cpu))
        browser.close()
    return out


def report(results: dict[str, list[tuple[float, float]]], runs: int) -> None:
    print(
        f"first paint of the bare page plus one part, in a new tab, {runs} runs each; ratio = the "
        "median over the runs of (the part's page / the bare page opened just before it); "
        f"a view's target is <= {TARGET_RATIO}x"
    )
    w = max(len(p) for p in results) + 1
    print(f"{'part':<{w}} {'ratio':>5} {'extra cpu ms':>12}")
    rows = [
        (statistics.median(r for r, _ in xs), statistics.median(c for _, c in xs), p)
        for p, xs in results.items()
    ]
    for ratio, cpu, p in sorted(rows, reverse=True):
        print(f"{p:<{w}} {ratio:>5.2f} {cpu * 1000:>12.0f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--part", action="append", choices=list(PARTS), default=None)
    args = ap.parse_args(argv)
    parts = args.part or list(PARTS)
    cache = Path(tempfile.gettempdir()) / "rte-bench" / "element-costs-cache"
    with (
        streamlit_server(cache, log_name="bare-page", script=BARE_SCRIPT) as bare,
        streamlit_server(cache, log_name="element-page", script=PAGE_SCRIPT) as page,
    ):
        results = measure(bare.url, page.url, parts, args.runs)
    report(results, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
