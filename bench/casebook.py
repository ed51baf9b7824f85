"""Casebook store benchmark on SQLite (the default backend):

- saving one case: median of 200 saves (target < 200 ms);
- listing 10,000 cases, the store's part of "open the casebook page with 10,000 cases < 1 s";
- exporting 10,000 cases as JSONL, CSV and Parquet;
- opening the casebook page with 10,000 cases, server-side (an AppTest run; target < 1 s);
- exporting 10,000 cases as the static HTML report (target < 3 s).

    python bench/casebook.py            # a temp cache folder, removed afterwards
    python bench/casebook.py --url URL  # another database (e.g. postgresql+psycopg://...)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from streamlit.testing.v1 import AppTest  # noqa: E402

from components.casebook.report import report_html  # noqa: E402

N_CASES = 10_000
N_SAVES = 200


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", default=None, help="database URL (default: SQLite in a temp folder)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rte-bench-casebook-") as tmp:
        os.environ["RTE_CACHE_DIR"] = tmp
        # why here: the store's default path is read from RTE_CACHE_DIR, set just above
        from cache.casebook import Case, make_case, open_store
        from cache.casebook.io import export_cases  # why here: as above

        store = open_store(args.url, readonly=False)
        print(f"casebook: {store.where}")

        def case(i: int, now: float | None = None) -> Case:
            kind = ("parason", "mars", "playground", "fineproofs")[i % 4]
            return make_case(
                kind,
                kind,
                query=[("file", "DeepSeek-8B/aime25_deepseek.parquet"), ("qid", str(i % 30))],
                source={"kind": "sample", "repo_id": "wenbochen111/MARS", "revision": "main"},
                item={
                    "file": "DeepSeek-8B/aime25_deepseek.parquet",
                    "qid": str(i % 30),
                    "trace": str(i),
                },
                title=f"Case {i}: confidence drops late",
                tags=["late-flip", f"q{i % 30}", "demo"],
                verdict=("interesting", "bug", None)[i % 3],
                note=f"## Finding {i}\n\nThe vote flips after probe 6 ($p < 0.05$).\n" * 4,
                author=("ana", "bo", "chen")[i % 3],
                snapshot={"avg_conf": 12.5, "tokens": 10_240, "correct": i % 2 == 0},
                now=now,
            )

        timings = []
        for i in range(N_SAVES):
            c = case(i)
            t = time.perf_counter()
            store.add(c)
            timings.append(time.perf_counter() - t)
        med = statistics.median(timings) * 1000
        print(
            f"save one case: median {med:.2f} ms of {N_SAVES} (target < 200 ms, {med / 200:.3f}x)"
        )

        t = time.perf_counter()
        base = time.time() - N_CASES
        store.merge([case(i, now=base + i) for i in range(N_SAVES, N_CASES)])
        print(
            f"bulk-insert {N_CASES - N_SAVES:,} cases (import path): {time.perf_counter() - t:.2f} s"
        )

        runs = []
        for _ in range(5):
            t = time.perf_counter()
            cases = store.list_cases()
            runs.append(time.perf_counter() - t)
        secs = statistics.median(runs)
        print(
            f"list {len(cases):,} cases: median {secs:.3f} s of 5 (first {runs[0]:.3f} s; "
            f"part of the < 1 s page budget, {secs:.2f}x)"
        )
        t = time.perf_counter()
        hits = store.list_cases(text="finding 77", tags=["demo"])
        print(
            f"text + tag search over {len(cases):,}: {time.perf_counter() - t:.3f} s ({len(hits)} hits)"
        )
        t = time.perf_counter()
        badges = store.items_with_cases("mars", "qid")
        print(
            f"badges (items_with_cases mars/qid): {time.perf_counter() - t:.3f} s ({len(badges)} items)"
        )

        for fmt in ("jsonl", "csv", "parquet"):
            t = time.perf_counter()
            data = export_cases(cases, fmt)  # type: ignore[arg-type]  # a Format literal
            print(
                f"export {len(cases):,} as {fmt:<7}: {time.perf_counter() - t:.3f} s, "
                f"{len(data) / 2**20:.1f} MB"
            )
        t = time.perf_counter()
        html = report_html(cases, "bench")
        secs = time.perf_counter() - t
        print(
            f"HTML report of {len(cases):,} cases: {secs:.2f} s, {len(html) / 2**20:.1f} MB "
            f"(target < 3 s, {secs / 3:.2f}x)"
        )
        os.environ["RTE_DB_URL"] = store.engine.url.render_as_string(hide_password=False)
        store.close()
        app = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
        app.switch_page("pages/casebook.py")
        app.run()  # first run: imports and the store's engine
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            app.run()
            runs.append(time.perf_counter() - t)
        secs = statistics.median(runs)
        assert not app.exception, app.exception
        print(
            f"casebook page with {len(cases):,} cases, server-side: median {secs:.2f} s of 3 "
            f"(target < 1 s, {secs:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
