"""First paint of every view and of each of its URL-bound tabs opened in a new tab, in headless
Chromium, against a warm server, each as a ratio to a bare Streamlit page (a title and six lines,
`bench/bare_page.py`) served by its own `streamlit run` and timed the same way in the same run
(target: <= 1.5x the bare page). The bare page is opened right before each run of a view, and a
view's ratio is the median of its runs' ratios to those openings: paired, because this machine's
speed drifts over the minutes a run takes, and a baseline timed once at the start does not.

    python bench/first_paint.py                 # starts its own servers on the bundled sample
    python bench/first_paint.py --url URL       # an already running server (the bare page's
                                                # server is still started here)
    python bench/first_paint.py --runs 7 --view mars --view playground
    python bench/first_paint.py --no-tabs       # each view's default tab only
    python bench/first_paint.py --detail        # plus its largest elements and layouts

The views are `components.common.links.views()` (a view added to the app is measured without
touching this file); a view's tabs are found in the browser: each tab of the page's first tab bar
is clicked once in the untimed warm-up opening, and a click that changes one URL key gives that
tab's link (`?view=Single+trace`), which is then timed like the view itself.

"First paint" = from navigation start of the view's URL in a new tab (a new Streamlit session,
as a shared link opens; the browser profile's HTTP cache holds the app's static JavaScript, which
Streamlit serves as immutable; `--cold` opens each run in a fresh profile instead) until the app reports its script finished, nothing shows a
skeleton or a stale element, and every visible chart has drawn. The moment is then held for
0.4 s: a rerun started in that time (a new script run) restarts the wait, so a view that reruns
itself is timed to its last run. Each view is opened once untimed first, so the sample and the
derived tables are built and the server is warm.

Where the time goes, per view (page clock; each part is its own median over the runs, so the
parts need not add up to the median total; per run they do):
- `load`: navigation start to the websocket opening (HTML and the JavaScript bundle);
- `server`: websocket open to the `script_finished` message (the script run, figure building and
  the transfer; Streamlit streams elements while the script runs);
- `render`: `script_finished` to settled (the browser laying out and drawing the elements);
- `script`: the server's own time in the script runs the opening caused (measured in the
  server, `bench/timed_streamlit.py`; nan for a server given with `--url`): what of `server`
  is the script, and not the transfer or the browser drawing the elements as they stream in;
- `cpu s`: the seconds the tab's main thread was busy until settled (CDP `TaskDuration`): the
  browser CPU, less disturbed than the wall times by other work on a shared machine.
Bytes are the decoded payload of every websocket message (Streamlit's ForwardMsg protobufs; the
wire may be smaller with permessage-deflate) plus non-static HTTP bodies; `plotly` is the part in
Plotly figure specs and `charts` the number of Plotly figures sent. The line under each view gives
the Plotly figures drawn at first paint, their figure JSON, and whether the tab loaded Plotly's
bundle at all: on the benchmark machine that bundle alone costs about 2.5-3 s of browser CPU in a
new tab, more than everything else a view draws, so the views open on lite charts
(components/common/lite_chart.py: SVG, no Plotly; they count as `bidi_component` elements).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.browser import SETTLED_JS, launch, read_runs, streamlit_server  # noqa: E402

TARGET_RATIO = 1.5  # a view's median first paint / the bare page's
BARE = "bare page"
BARE_SCRIPT = "bench/bare_page.py"
HOLD_MS = 400  # a settled page must stay settled (no new script run) this long

# page-side timing of every websocket message, in arrival order (performance.now(), bytes)
WS_PROBE = """(() => {
  window.__rteWs = { opened: null, frames: [] };
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('open', () => { window.__rteWs.opened ??= performance.now(); });
    ws.addEventListener('message', (ev) => {
      const n = ev.data.byteLength ?? ev.data.size ?? ev.data.length;
      window.__rteWs.frames.push([performance.now(), n]);
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
  // when the page last became settled; a rerun un-settles it and moves this on
  window.__rteSettled = { ok: false, at: null };
  const settledNow = SETTLED;
  setInterval(() => {
    const t = settledNow();
    if (t && !window.__rteSettled.ok) window.__rteSettled.at = t;
    window.__rteSettled.ok = Boolean(t);
  }, 25);
})();""".replace("SETTLED", SETTLED_JS)


@dataclass
class Opening:
    """One timed opening of a view."""

    total: float  # seconds, navigation start to settled
    load: float
    server: float
    render: float
    nbytes: int
    plotly_bytes: int
    charts: int
    reruns: int  # script runs after the first
    cpu: float = 0.0  # seconds the tab's main thread was busy (CDP TaskDuration)
    layouts: int = 0  # layouts the page ran until settled (CDP LayoutCount), forced ones included
    script: float = float("nan")  # seconds of the server's script runs (timed server only)
    figure_json: int = 0  # bytes of their figure JSON
    elements: Counter[str] = field(default_factory=Counter)  # bytes per element type
    largest: list[tuple[int, str]] = field(default_factory=list)  # (bytes, element) top 5


def _decode(payload: bytes) -> Any:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # why: only when decoding frames

    msg = ForwardMsg()
    try:
        msg.ParseFromString(payload)
    except Exception:  # noqa: BLE001 - a frame that is not a ForwardMsg is only counted
        return None
    return msg


def _element(msg: Any) -> tuple[str, str] | None:
    """(type, label) of a new element in a delta message."""
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return None
    el = msg.delta.new_element
    kind = el.WhichOneof("type") or "?"
    label = ""
    if kind == "plotly_chart":
        import json  # why: only for the detail label

        try:
            layout = json.loads(el.plotly_chart.spec).get("layout", {})
            title = layout.get("title", {})
            label = title.get("text", "") if isinstance(title, dict) else str(title)
        except ValueError:
            label = ""
    return kind, label


def new_context(browser: Any) -> Any:
    """A browser profile (its own HTTP cache) with the timing probe in every page."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(WS_PROBE)
    return context


def _open(browser: Any, context: Any | None, url: str, script_log: Path | None = None) -> Opening:
    """One timed opening in a new tab of `context`, or of a fresh profile when it is None; with
    `script_log` (its server's, `bench/timed_streamlit.py`), the script runs it caused."""
    own = context is None
    context = new_context(browser) if own else context
    page = context.new_page()
    payloads: list[bytes] = []

    def on_ws(ws: Any) -> None:
        def got(frame: Any) -> None:
            payloads.append(frame if isinstance(frame, bytes) else str(frame).encode())

        ws.on("framereceived", got)

    page.on("websocket", on_ws)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    offset = script_log.stat().st_size if script_log and script_log.exists() else 0
    page.goto(url)
    page.wait_for_function(
        f"() => window.__rteSettled.ok && performance.now() - window.__rteSettled.at >= {HOLD_MS}",
        timeout=60_000,
        polling=50,
    )
    settled = float(page.evaluate("() => window.__rteSettled.at"))
    ws = page.evaluate("() => window.__rteWs")
    http = int(
        page.evaluate(
            """() => performance.getEntriesByType('resource')
                .filter((e) => !e.name.includes('/static/'))
                .reduce((n, e) => n + (e.decodedBodySize || 0), 0)"""
        )
    )
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    page.close()
    # settled and held: every run this opening caused has ended and been written
    script = sum(s for _, s in read_runs(script_log, offset)[0]) if script_log else float("nan")
    if own:
        context.close()

    frames = ws["frames"][: len(payloads)]
    opened = ws["opened"] or 0.0
    done_at = settled
    elements: Counter[str] = Counter()
    largest: list[tuple[int, str]] = []
    plotly_bytes = charts = runs = figure_json = 0
    for (t, _n), payload in zip(frames, payloads, strict=False):
        msg = _decode(payload)
        if msg is None:
            continue
        if msg.WhichOneof("type") == "script_finished" and t <= settled:
            done_at = t
            runs += 1
        el = _element(msg)
        if el is None:
            continue
        kind, label = el
        elements[kind] += len(payload)
        largest.append((len(payload), f"{kind}{' ' + label[:40] if label else ''}"))
        if kind == "plotly_chart":
            plotly_bytes += len(payload)
            charts += 1
            figure_json += len(msg.delta.new_element.plotly_chart.spec)
    largest.sort(reverse=True)
    return Opening(
        total=settled / 1000,
        load=opened / 1000,
        server=max(done_at - opened, 0) / 1000,
        render=max(settled - done_at, 0) / 1000,
        nbytes=sum(len(p) for p in payloads) + http,
        plotly_bytes=plotly_bytes,
        charts=charts,
        reruns=max(runs - 1, 0),
        elements=elements,
        largest=largest[:5],
        cpu=float(metrics.get("TaskDuration", 0.0)),
        layouts=int(metrics.get("LayoutCount", 0)),
        figure_json=figure_json,
        script=script,
    )


def view_paths() -> dict[str, str]:
    """Every view's URL path in navigation order (home at `/`)."""
    from components.common.links import HOME, views  # why: imports Streamlit, bench-only

    return {name: "/" if v is HOME else f"/{v.url_path}" for name, v in views().items()}


def tab_links(page: Any) -> list[tuple[str, str]]:
    """(label, query) of each tab of the page's first tab bar bound to the URL: clicked one by
    one, a tab whose click sets one URL key to its label is bound (the default tab is the view's
    own URL, already timed)."""
    from urllib.parse import parse_qsl, urlencode, urlparse  # why: only here

    bar = page.locator('[role="tablist"]').first  # the views' light tabs (url_state.url_tabs)
    if not bar.count():
        return []
    tabs = bar.locator('[role="tab"]')
    out = []
    for i in range(tabs.count()):
        tab = tabs.nth(i)
        if tab.get_attribute("aria-selected") == "true":
            continue
        label = tab.inner_text().strip()
        before = page.url
        tab.click()
        try:
            page.wait_for_function("(u) => location.href !== u", arg=before, timeout=30_000)
        except Exception:  # noqa: BLE001 - a tab that writes no URL key is not bound
            continue
        page.wait_for_function(SETTLED_JS, timeout=60_000, polling=50)
        keys = [k for k, v in parse_qsl(urlparse(page.url).query) if v == label]
        if len(keys) == 1:
            out.append((label, urlencode({keys[0]: label})))
    return out


Paired = dict[str, list[float]]  # view -> the bare page's time in the opening before each run


def measure(
    base: str,
    views: dict[str, str],
    runs: int,
    cold: bool,
    tabs: bool,
    bare: str | None = None,
    logs: tuple[Path | None, Path | None] = (None, None),
) -> tuple[dict[str, list[Opening]], Paired]:
    """Every view and, with `tabs`, each of its URL-bound tabs, `runs` times, each run right
    after an opening of the bare page (when `bare` is its URL), so each ratio pairs two
    openings a second apart: the machine's speed drifts over a run of minutes, and a baseline
    timed only at the start would not see it. `cold`: each opening in a fresh profile. `logs`:
    the script-time logs of the app's server and of the bare page's (None: not timed)."""
    app_log, bare_log = logs
    from playwright.sync_api import sync_playwright  # why: only the browser benchmarks need it

    out: dict[str, list[Opening]] = {}
    paired: Paired = {}

    def timed(label: str, url: str) -> None:
        for _ in range(runs):
            if bare is not None:
                b = _open(browser, profile, bare, bare_log)
                out.setdefault(BARE, []).append(b)
                paired.setdefault(label, []).append(b.total)
            out.setdefault(label, []).append(_open(browser, profile, url, app_log))

    with sync_playwright() as p:
        browser = launch(p)
        profile = None if cold else new_context(browser)
        if bare is not None:
            _open(browser, profile, bare)  # warm
        for name, path in views.items():
            _open(browser, profile, base + path)  # warm: builds what the view needs
            links = [(name, base + path)]
            if tabs and "?" not in path:  # a link (`--link`) is timed as it is
                ctx = profile or new_context(browser)
                page = ctx.new_page()
                page.goto(base + path)
                page.wait_for_function(SETTLED_JS, timeout=120_000, polling=50)
                links += [(f"{name} · {t}", f"{base}{path}?{q}") for t, q in tab_links(page)]
                page.close()
                if profile is None:
                    ctx.close()
            for label, url in links:
                timed(label, url)
        browser.close()
    return out, paired


def _med(xs: list[float]) -> float:
    return statistics.median(xs)


def report(
    results: dict[str, list[Opening]], paired: Paired, runs: int, detail: bool, cold: bool
) -> float:
    """Print the table; return the largest ratio to the bare page (NaN without it)."""
    how = "a fresh browser profile (empty HTTP cache)" if cold else "a new tab (browser cache warm)"
    bare = _med([o.total for o in results[BARE]]) if BARE in results else float("nan")
    print(
        f"first paint in {how}, warm server, {runs} runs each; ratio = the median over the runs "
        "of (the view's time / the bare page's, opened just before it) "
        f"(target <= {TARGET_RATIO}x); runs = the lowest and highest of those ratios"
    )
    w = max(len(k) for k in results) + 1
    head = (
        f"{'view':<{w}} {'median s':>8} {'ratio':>5} {'runs':>9} {'max s':>6} {'load':>5} {'server':>6} "
        f"{'render':>6} {'script':>6} {'cpu s':>5} {'MB':>6} {'plotly':>6} {'charts':>6}  dominated by / verdict"
    )
    print(head)
    worst = float("nan") if BARE not in results else 0.0
    for name, ops in results.items():
        med = _med([o.total for o in ops])
        before = paired.get(name)
        ratios = [o.total / b for o, b in zip(ops, before, strict=True)] if before else []
        if name == BARE:
            ratio = 1.0 if bare > 0 else float("nan")
        else:
            ratio = _med(ratios) if ratios else float("nan")
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
        parts = {
            "load": _med([o.load for o in ops]),
            "server": _med([o.server for o in ops]),
            "render": _med([o.render for o in ops]),
        }
        top = max(parts, key=lambda k: parts[k])
        verdict = "ok" if ratio <= TARGET_RATIO else ("over" if ratio == ratio else "-")
        reruns = max(o.reruns for o in ops)
        print(
            f"{name:<{w}} {med:>8.2f} {ratio:>5.2f} {spread:>9} {max(o.total for o in ops):>6.2f} "
            f"{parts['load']:>5.2f} {parts['server']:>6.2f} {parts['render']:>6.2f} "
            f"{_med([o.script for o in ops]):>6.2f} "
            f"{_med([o.cpu for o in ops]):>5.2f} {_med([o.nbytes for o in ops]) / 1e6:>6.2f} "
            f"{_med([o.plotly_bytes for o in ops]) / 1e6:>6.2f} "
            f"{_med([o.charts for o in ops]):>6.0f}  {top} / {verdict}"
            + (f" ({reruns} rerun{'s' if reruns > 1 else ''})" if reruns else "")
        )
        if detail:
            loaded = "yes" if _med([o.charts for o in ops]) else "no"
            print(
                f"    figures at first paint: {_med([o.charts for o in ops]):.0f}, figure JSON "
                f"{_med([o.figure_json for o in ops]) / 1e3:.0f} kB; Plotly bundle loaded: {loaded}; "
                f"layouts {_med([o.layouts for o in ops]):.0f}"
            )
            last = ops[-1]
            kinds = ", ".join(f"{k} {v / 1e3:.0f} kB" for k, v in last.elements.most_common(4))
            print(f"    by element: {kinds}")
            for size, what in last.largest:
                print(f"    {size / 1e3:8.1f} kB  {what}")
        if name != BARE:
            worst = max(worst, ratio)
    print(f"bare page median: {bare:.2f} s; largest ratio: {worst:.2f}x")
    return worst


def main(argv: list[str] | None = None) -> int:
    paths = view_paths()
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", default=None, help="a running server (default: start one)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--view", action="append", choices=list(paths), default=None)
    ap.add_argument("--no-tabs", action="store_true", help="each view's default tab only")
    ap.add_argument("--detail", action="store_true", help="bytes per element type, largest ones")
    ap.add_argument(
        "--cold",
        action="store_true",
        help="open each run in a fresh browser profile: a first visit, the ~10 MB of the "
        "app's JavaScript (Plotly 4.7 MB) fetched and compiled again every time",
    )
    ap.add_argument(
        "--link",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="also time a deep link, e.g. 'fineproofs trace=/fineproofs?problem=…&sample=2'",
    )
    args = ap.parse_args(argv)
    views = {v: paths[v] for v in (args.view or list(paths))}
    for link in args.link:
        label, sep, path = link.partition("=")
        if not sep or not path.startswith("/"):
            ap.error(f"--link takes LABEL=/path?query, not {link!r}")
        views[label] = path
    cache = Path(tempfile.gettempdir()) / "rte-bench" / "first-paint-cache"
    cache.mkdir(parents=True, exist_ok=True)
    runs_dir = Path(tempfile.mkdtemp(prefix="script-runs-", dir=cache.parent))
    bare_log = runs_dir / "bare.log"
    with streamlit_server(
        cache, log_name="bare-page", script=BARE_SCRIPT, script_log=bare_log
    ) as bare:
        if args.url:
            results, paired = measure(
                args.url.rstrip("/"),
                views,
                args.runs,
                args.cold,
                not args.no_tabs,
                bare.url,
                (None, bare_log),
            )
        else:
            with streamlit_server(cache, script_log=runs_dir / "app.log") as server:
                results, paired = measure(
                    server.url,
                    views,
                    args.runs,
                    args.cold,
                    not args.no_tabs,
                    bare.url,
                    (server.script_log, bare_log),
                )
    report(results, paired, args.runs, args.detail, args.cold)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
