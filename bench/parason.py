"""Parason benchmarks: parse + metrics throughput, and the server-side render time of a
trajectory with a 45-branch stage.

    python bench/parason.py [--n 3000] [--skip-page]

Throughput is measured on `--n` generated trajectories of realistic length (20-60k characters,
the sample's variant generator padded with reasoning filler), full Qwen chat text, estimate
counter (the offline default). The baseline, measured in the same process on the same texts, is
a straightforward reference-style pass: one `re.findall` per reserved tag plus a whitespace
word count of the whole text; the ratio says how much work the parser does over that.
Target: >= 2,000 trajectories/s, and < 1 s to render the 45-branch trajectory (page run).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.parason.dag import build_dag, collapse_dag, layout  # noqa: E402
from analysis.parason.metrics import compute_metrics  # noqa: E402
from analysis.parason.parse import parse  # noqa: E402
from analysis.parason.tokens import get_counter  # noqa: E402
from cache.sample.parason import long_trajectories, make_uuid, qwen_chat  # noqa: E402
from cache.sample.parason_texts import digit_sum_45, render  # noqa: E402

_TAGS = ("Parallel", "Outlines", "Outline", "Trial", "Subtask", "Thread", "Conclusion")
_NAIVE = [re.compile(f"</?{t}>") for t in _TAGS]


def baseline(text: str) -> int:
    """Reference-style pass: find each tag separately, count words."""
    n = 0
    for rx in _NAIVE:
        n += len(rx.findall(text))
    return n + len(text.split())


def best_rate(fn, items, repeat: int = 3) -> float:
    """Best-of-`repeat` throughput in items/s (robust to noisy neighbours on a shared box)."""
    rates = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        rates.append(len(items) / (time.perf_counter() - t0))
    return max(rates)


def bench_throughput(n: int) -> dict[str, float]:
    t0 = time.perf_counter()
    data = long_trajectories(n)
    gen_s = time.perf_counter() - t0
    lengths = [len(t) for t, _ in data]
    counter = get_counter("estimate")
    ours = parse_only = base = 0.0
    for _ in range(3):  # interleaved best-of-3, so a noisy neighbour hits all three alike
        base = max(base, best_rate(lambda d: baseline(d[0]), data, 1))
        ours = max(ours, best_rate(lambda d: compute_metrics(parse(d[0]), counter, d[1]), data, 1))
        parse_only = max(parse_only, best_rate(lambda d: parse(d[0]), data, 1))
    return {
        "n": n,
        "gen_s": gen_s,
        "mean_chars": statistics.mean(lengths),
        "min_chars": min(lengths),
        "max_chars": max(lengths),
        "parse_metrics_per_s": ours,
        "parse_only_per_s": parse_only,
        "baseline_per_s": base,
        "ratio": ours / base,
        "mb_per_s": ours * statistics.mean(lengths) / 1e6,
    }


def bench_dag() -> dict[str, float]:
    t = digit_sum_45()
    text = qwen_chat(t.question, render(t), t.content)
    t0 = time.perf_counter()
    for _ in range(20):
        tr = parse(text)
        g = build_dag(tr)
        h = collapse_dag(g, 12)
        layout(h)
    return {"dag_45_ms": (time.perf_counter() - t0) / 20 * 1000}


def bench_page() -> dict[str, float] | None:
    """Server-side render of the Parason page on the 45-branch trajectory (AppTest run)."""
    app = Path(__file__).resolve().parents[1] / "app.py"
    if not (app.parent / "pages" / "parason.py").exists():
        return None
    os.environ.setdefault("RTE_CACHE_DIR", tempfile.mkdtemp(prefix="rte-bench-"))
    from streamlit.testing.v1 import AppTest  # start-up time: streamlit loads only for --page

    uid = make_uuid("digit-sums-1-45")
    # warm-up run builds the sample / derived table once; then time the selected-trajectory runs
    at = AppTest.from_file(str(app), default_timeout=120)
    at.query_params["uuid"] = uid
    at.switch_page("pages/parason.py")
    at.run()
    times = []
    for _ in range(3):
        at = AppTest.from_file(str(app), default_timeout=60)
        at.query_params["uuid"] = uid
        at.switch_page("pages/parason.py")
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        if at.exception or len(at.get("plotly_chart")) != 1:
            return {"page_45_s": float("nan"), "errors": len(at.exception) or 1}
    return {"page_45_s": min(times), "page_45_s_median": statistics.median(times)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--skip-page", action="store_true")
    args = ap.parse_args(argv)
    r = bench_throughput(args.n)
    print(
        f"parason parse+metrics: {r['parse_metrics_per_s']:,.0f} trajectories/s "
        f"({r['mb_per_s']:.0f} MB/s; parse only {r['parse_only_per_s']:,.0f}/s) on {r['n']} trajectories "
        f"of {r['min_chars']:,}-{r['max_chars']:,} chars (mean {r['mean_chars']:,.0f}); "
        f"generated in {r['gen_s']:.2f} s"
    )
    print(
        f"baseline (per-tag re.findall + word count): {r['baseline_per_s']:,.0f}/s; "
        f"ratio ours/baseline = {r['ratio']:.2f}; target >= 2,000/s: "
        f"{'PASS' if r['parse_metrics_per_s'] >= 2000 else 'FAIL'}"
    )
    d = bench_dag()
    print(f"45-branch trajectory: parse + DAG + collapse + layout = {d['dag_45_ms']:.1f} ms")
    if not args.skip_page:
        p = bench_page()
        if p is None:
            print("page render: pages/parason.py not present yet")
        elif "errors" in p:
            print(f"page render: the page raised {p['errors']} exception(s)")
        else:
            print(
                f"page render (AppTest, server side) of the 45-branch trajectory: best {p['page_45_s']:.2f} s, "
                f"median {p['page_45_s_median']:.2f} s; target < 1 s: {'PASS' if p['page_45_s'] < 1 else 'FAIL'}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
